"""The private line protocol between the tournament runner and its referee worker processes.

Both ends use it: :mod:`tournaments.runner` (the parent) and
:mod:`tournaments.worker` (the child). Setup and game lines are pickled and
base64-encoded, one per line; ``end`` says there are no more games; the
worker answers with one game record (its JSON) per line.
"""

from __future__ import annotations

import base64
import pickle
from collections.abc import AsyncGenerator
from typing import Any

import trio

END = b"end"


def encode(obj: object) -> bytes:
    return base64.b64encode(pickle.dumps(obj)) + b"\n"


def decode(line: bytes) -> Any:  # (what the other end encoded: its reader knows the shape)
    return pickle.loads(base64.b64decode(line))  # only ever lines from our own parent process


async def read_lines(stream: trio.abc.ReceiveStream) -> AsyncGenerator[bytes, None]:
    """The lines of a stream (without their newlines), until it ends; a last line cut short is dropped."""
    buffer = bytearray()
    while True:
        chunk = await stream.receive_some(1 << 16)
        if not chunk:
            return
        buffer += chunk
        while (cut := buffer.find(b"\n")) >= 0:
            line = bytes(buffer[:cut])
            del buffer[: cut + 1]
            yield line
