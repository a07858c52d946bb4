"""Helpers shared by the benchmarks: building their C programs, timing, the summary line."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from referee.bots.samples import build_c  # noqa: E402

C_DIR = Path(__file__).resolve().parent / "c"
BUILD = Path(__file__).resolve().parent / "build"


def c_program(name: str) -> Path:
    """bench/c/NAME.c compiled to bench/build/NAME (rebuilt when the source is newer)."""
    binary = BUILD / name
    build_c(C_DIR / f"{name}.c", binary)
    return binary


def summary(text: str) -> None:
    """The one-line summary every benchmark ends with (make bench collects these)."""
    print(f"summary: {text}", flush=True)
