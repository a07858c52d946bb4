"""The pinochle-arena wire protocol: typed messages and a pure line codec.

See PROTOCOL.md in this folder for the specification bot authors read.
"""

from . import messages
from .codec import MAX_LINE_BYTES, ProtocolError, format_message, parse_bot_line, parse_referee_line, split_points
from .messages import HIDDEN, PROTOCOL_VERSION

__all__ = ["HIDDEN", "MAX_LINE_BYTES", "PROTOCOL_VERSION", "ProtocolError", "format_message", "messages",
           "parse_bot_line", "parse_referee_line", "split_points"]
