"""The secret key of an output directory, and the seals it puts on every line the referee writes there.

Each run (match, tournament, SPRT) makes ``OUT/secret.key``: 32 random bytes,
hex-encoded, readable by the referee's user only. Every record and schedule
line then carries ``"mac"``: HMAC-SHA256 with that key over the line exactly
as the referee wrote it without the mac (its JSON object, closing brace
included). Any change to a line, or a line made up by someone without the
key, fails :func:`check_seal`. Whoever holds the key can seal anything, so it
stays with the results and away from the bots.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path

KEY_FILE = "secret.key"
KEY_BYTES = 32
MAC_FIELD = "mac"
_MAC_OPENING = f',"{MAC_FIELD}":"'
_MAC_HEX = 2 * hashlib.sha256().digest_size


class KeyFileError(ValueError):
    """An output directory's key that cannot be made or read; the message names the file and says why."""


class SealError(ValueError):
    """A line whose seal is missing or does not match the key; the message says which."""


class Unsealed(SealError):
    """A file that should carry a seal and carries none: written before seals, or stripped of its seal."""


def key_path(directory: Path) -> Path:
    return directory / KEY_FILE


def new_key(directory: Path) -> bytes:
    """Make ``directory/secret.key`` (mode 0600, never over an existing one) and return the key.

    A new ``directory`` is made with mode 0700.
    """
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    path = key_path(directory)
    key = secrets.token_bytes(KEY_BYTES)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        raise KeyFileError(f"{path} already exists: {directory} holds the results of another run; "
                           "choose another output directory") from None
    except OSError as e:
        raise KeyFileError(f"{path}: cannot create: {e.strerror}") from None
    with os.fdopen(fd, "w", encoding="ascii") as f:
        f.write(key.hex() + "\n")
        f.flush()
        os.fsync(f.fileno())
    return key


def load_key(directory: Path) -> bytes:
    """The key of ``directory``; KeyFileError when it is missing, unreadable or not a key."""
    path = key_path(directory)
    try:
        text = path.read_text(encoding="ascii")
    except FileNotFoundError:
        raise KeyFileError(f"{path} is missing, so the records next to it cannot be verified") from None
    except (OSError, UnicodeDecodeError) as e:
        raise KeyFileError(f"{path}: cannot read: {getattr(e, 'strerror', None) or e}") from None
    try:
        key = bytes.fromhex(text.strip())
    except ValueError:
        key = b""
    if len(key) != KEY_BYTES:
        raise KeyFileError(f"{path} is not a key (it should hold {2 * KEY_BYTES} hex digits)")
    return key


def mac_of(text: str, key: bytes) -> str:
    return hmac.new(key, text.encode("utf-8"), hashlib.sha256).hexdigest()


def seal(text: str, key: bytes) -> str:
    """``text`` (one JSON object with at least one field, on one line) with its mac as the last field."""
    if not (text.startswith("{") and text.endswith("}")) or text == "{}" or "\n" in text:
        raise ValueError("only a one-line JSON object with fields can be sealed")
    return f'{text[:-1]}{_MAC_OPENING}{mac_of(text, key)}"}}'


def check_seal(line: str, key: bytes) -> str:
    """The text that ``line``'s seal covers (the line without its mac); SealError if the seal is wrong or missing."""
    head, opening, tail = line.rstrip("\n").rpartition(_MAC_OPENING)
    if not opening or len(tail) != _MAC_HEX + 2 or not tail.endswith('"}'):
        raise SealError(f"it carries no seal (a \"{MAC_FIELD}\" field) to check against")
    text = head + "}"
    if not hmac.compare_digest(mac_of(text, key).encode(), tail[:_MAC_HEX].encode("utf-8", "replace")):
        raise SealError("its seal does not match")
    return text


def mac_in(line: str) -> str:
    """The mac that a line sealed by :func:`seal` carries (its seal not checked: see :func:`check_seal`)."""
    return line.rstrip("\n")[-(_MAC_HEX + 2):-2]




SEAL_FIELD = "seal"  # a sealed JSON file's HMAC, with the directory's key, of the rest of it


def sealed_json(data: dict, key: bytes) -> str:
    """``data`` as a JSON file's text, with its seal (a metadata file: the run's fingerprint, how it ended)."""
    return json.dumps({**data, SEAL_FIELD: mac_of(_canonical(data), key)}, indent=2) + "\n"


def read_sealed_json(path: Path, key: bytes) -> dict:
    """The data of a file written by :func:`sealed_json`; SealError if it is unreadable, unsealed or changed
    (FileNotFoundError if there is none)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise
    except (OSError, ValueError) as e:
        raise SealError(f"unreadable ({e!r})") from None
    if not isinstance(data, dict) or SEAL_FIELD not in data:
        raise Unsealed("it carries no seal (written by pinochle-arena 0.1, before run metadata was sealed)")
    mac = data.pop(SEAL_FIELD)
    if not isinstance(mac, str) or not hmac.compare_digest(mac, mac_of(_canonical(data), key)):
        raise SealError("changed since the run wrote it (its seal does not match)")
    return data


def _canonical(data: dict) -> str:
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


__all__ = ["KEY_FILE", "KeyFileError", "MAC_FIELD", "SealError", "check_seal", "key_path", "load_key",
           "mac_in", "mac_of", "new_key", "read_sealed_json", "seal", "sealed_json", "Unsealed"]
