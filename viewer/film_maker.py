"""A process that makes the report's films from the records given on its standard input.

Started by :mod:`viewer.report` as ``python -m viewer.film_maker FILMS
PARENT``, each input line ``N RECORD`` (a number, a space, a record's
JSON) makes ``FILMS/N.js``, and ``- RECORD`` makes ``FILMS/ahead/NAME``,
the film made ahead, named by the game's play (:func:`ahead_name`). It
exits when its input ends, and is killed by the kernel when its parent
(pid PARENT) dies: a SIGKILL of a tournament leaves no film maker behind,
even one that gets no CPU to see its input end. Every file is written whole or not
at all (a temporary name, then a rename), so it may be killed at any moment.

Once the kernel will kill it with its parent, it prints ``ready`` on its
standard output: its parent waits for that line (an event, not for CPU
time the maker may not get) before it relies on it, and may then put it
in the kernel's idle class itself (:class:`viewer.report.FilmsAhead`).
A film maker is started in a process group of its own: Ctrl-C goes to
the run, which then stops it.

Where the games are played on this machine, a run needs no film maker
(an idle-class one would get no core while games take every core, and one
game at a time leaves no core as idle as it seemed: docs/records.md):
:class:`FilmsSeen`, handed to the game loop
(``LaneSettings.seen``), writes each game's film into ``FILMS/ahead/``
from the notices the game made, in the process that played it, with no
replay.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import os
import sys
from pathlib import Path

import attrs

from referee.bots.spawn import die_with_parent
from referee.records.record import GameRecord

from .film import FORMAT, Steps, film_script, packed_film

READY = "ready"  # its one line of output: set up, and killed by the kernel with its parent from now on
AHEAD = "ahead"  # FILMS/ahead/: films made while the games were played, named by their records


def ahead_name(record: GameRecord) -> str:
    """A film made ahead is named by its game's play and the films' format: the game's id, its id on the wire
    (from the run's seed) and its start to the millisecond, as its record keeps them. The record read back at the
    end finds it without being written out again, and a stale one (a folder used again, a run resumed by a newer
    version) is never taken."""
    play = f"{FORMAT}\n{record.game_id}\n{record.extra.get('wire_id')}\n{record.started:.3f}"
    return hashlib.sha256(play.encode()).hexdigest()[:32]


def make(films: Path, line: str) -> None:
    """The film one input line asks for."""
    name, record_json = line.rstrip("\n").split(" ", 1)
    record = GameRecord.from_json(record_json)
    if name == "-":
        write_ahead(films, record, packed_film(record))
    else:
        write_whole(films / f"{int(name)}.js", film_script(int(name), record))


def write_ahead(films: Path, record: GameRecord, packed: str) -> None:
    """A film made ahead (packed), for ``record``."""
    target = films / AHEAD / ahead_name(record)
    target.parent.mkdir(parents=True, exist_ok=True)
    write_whole(target, packed)


def write_whole(target: Path, text: str) -> None:
    """``text`` into ``target``, whole or not at all (a temporary name, then a rename)."""
    partial = target.with_name(target.name + ".partial")
    partial.write_text(text)
    os.replace(partial, target)


@attrs.frozen
class FilmsSeen:
    """Each game's film made ahead, into ``films/ahead/``, from the notices the game made (no replay).

    Called by the game loop with each record and its notices, in the process
    that played the game (a tournament's referee worker, or the run's own),
    so it is pickled into a worker with the rest of its setup. A film it
    cannot write (a full disk) is left to the report, which makes it at the
    end from the record."""

    films: Path  # the report's films/ folder

    def __call__(self, record: GameRecord, seen: Steps) -> None:
        # A film is a tree of new lists and dicts, freed by their counts: the cyclic collector's passes that its
        # allocations would start find nothing (they were a sixth of the film's cost), so none runs while it is made.
        collecting = gc.isenabled()
        gc.disable()
        try:
            with contextlib.suppress(OSError):
                write_ahead(self.films, record, packed_film(record, seen))
        finally:
            if collecting:
                gc.enable()


def main() -> None:
    films, parent = Path(sys.argv[1]), int(sys.argv[2])
    die_with_parent(parent)
    print(READY, flush=True)
    sys.stdout.close()
    for line in sys.stdin:
        make(films, line)


if __name__ == "__main__":
    main()
