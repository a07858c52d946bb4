"""The flat module paths of version 0.1, kept as aliases for one release.

``from referee.record import GameRecord`` still works, with a
DeprecationWarning naming the new path; the alias module hands out the
real module's objects, so classes and functions are the same ones. Remove
this file (and its two lines in ``referee/__init__.py``) in version 0.3.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import sys
import warnings

MOVED = {
    "referee.spawn": "referee.bots.spawn",
    "referee.cgroups": "referee.bots.cgroups",
    "referee.jail": "referee.bots.jail",
    "referee.sandbox": "referee.bots.sandbox",
    "referee.transport": "referee.bots.transport",
    "referee.samples": "referee.bots.samples",
    "referee.record": "referee.records.record",
    "referee.results": "referee.records.store",
    "referee.integrity": "referee.records.seals",
    "referee.audit": "referee.records.audit",
    "referee.replay": "referee.records.replay",
    "referee.deals": "referee.records.deals",
    "referee.player": "referee.match.client",
    "referee.clock": "referee.match.clock",
    "referee.compliance": "referee.match.compliance",
    "referee.wire": "referee.match.wire",
    "referee.cli": "arena.cli",
    "referee.progress": "arena.cli.progress",
}


class _Alias(importlib.abc.Loader):
    """Loads an old path as a module that forwards every name to the module at its new path."""

    def exec_module(self, module) -> None:
        new = MOVED[module.__name__]
        warnings.warn(f"{module.__name__} moved to {new}; the old path goes in pinochle-arena 0.3",
                      DeprecationWarning, stacklevel=2)
        real = importlib.import_module(new)
        module.__getattr__ = lambda name: getattr(real, name)
        module.__all__ = getattr(real, "__all__", [n for n in vars(real) if not n.startswith("_")])
        module.__doc__ = f"Moved to {new}."


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path, target=None):
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, _Alias())


def install() -> None:
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.append(_Finder())
