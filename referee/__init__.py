"""The referee: the rules, bots as fenced processes, games between them, and their records.

One room per concern (docs/architecture.md draws them):

- ``referee.rules``: the rules as a pure state machine; imports nothing else of ours.
- ``referee.bots``: one bot process, started, fenced (limits, jail, control groups) and spoken to in lines.
- ``referee.records``: game records, the results folder, seals, audits, replays and deal files.
- ``referee.match``: the match loop: one game (ask, validate, apply, inform, record) and a match of many.

Above it: ``tournaments`` (schedules, ratings, tables), ``viewer`` (HTML
report, replay viewer, play page) and ``arena.cli`` (the command line).
Nothing here imports them.
"""

from . import _moved

_moved.install()  # the flat module paths of 0.1 (referee.record, ...), as aliases for one release


def installed_version() -> str:
    """pinochle-arena's installed version (looked up only when asked: importlib.metadata costs 60 ms)."""
    import importlib.metadata

    try:
        return importlib.metadata.version("pinochle-arena")
    except importlib.metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "(not installed)"
