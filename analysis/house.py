"""The house bot's search, borrowed: montecarlo's pieces and its compiled core, loaded once.

The montecarlo sample bot (sample_bots/montecarlo_bot.py) is a script that
imports its neighbours by file name (``greedy_bot``, ``montecarlo_core``),
so it is imported here as the tests import it: its folder goes on
``sys.path``. Nothing of it is copied or changed: the analysis calls its
``Table``, ``core_decision``, ``core_stock_decision`` and the compiled
core's searches with a seat's observation, as the bot does in play.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import Any

from referee.bots.samples import SAMPLE_DIR, build_core


class AnalysisError(ValueError):
    """What the analysis cannot do with the input it was given (said in one line)."""


_LOADED: dict[str, Any] = {}


def montecarlo() -> ModuleType:
    """The montecarlo sample bot's module."""
    if "bot" not in _LOADED:
        if str(SAMPLE_DIR) not in sys.path:
            sys.path.insert(0, str(SAMPLE_DIR))
        _LOADED["bot"] = importlib.import_module("montecarlo_bot")
    return _LOADED["bot"]


def core() -> Any:
    """The compiled search core (built with cargo on first use, as the referee builds it for the bot). Raises
    AnalysisError when it cannot be built or loaded: the analysis has no pure-Python fallback (too slow)."""
    if "core" not in _LOADED:
        native = montecarlo().native
        library = build_core(SAMPLE_DIR / "montecarlo_core")
        try:
            _LOADED["core"] = native.Core(library, library.parent / native.FAILED_NAME)
        except native.CoreMissing as why:
            raise AnalysisError(f"the analysis needs the montecarlo bot's compiled core: {why}") from None
    return _LOADED["core"]
