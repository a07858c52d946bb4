"""Entrants never see each other: no bot may be shown another entrant's program, a results folder, or the
cluster's certificates.

The jail shows a bot the folder of its program and of every file its
command names. When two entrants' programs share a folder (the layout
``./mybot`` beside ``./otherbot``), or a results folder lies in one (an
earlier event's ``secret.key``, seeds and records), or the cluster's
certificates with their private keys (with which anyone joins the cluster,
pinochle-arena cluster certs), the jail would show them. Such a layout is refused before any game, with how to lay the folders
out. The sample bots are public and exempt: any bot may read them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from .jail import JailError, JailSpec, is_under, program_of, visible_paths
from .samples import SAMPLE_DIR
from .sandbox import Isolation, Sandbox
from .transport import BotCommand

RESULTS_FILES = ("secret.key", "schedule.jsonl", "league.db", "database.url")  # what marks a results folder (or a league's)
CA_FILE, KEY_SUFFIX = "ca.pem", "-key.pem"  # what marks a folder of the cluster's certificates
MAX_LOOKED_AT = 20_000  # entries of each folder a jail shows looked at for a results folder


def jails_of(bots: Iterable[tuple[str, BotCommand, Sandbox]], hidden: tuple[str, ...]) -> dict[str, JailSpec]:
    """(name, command, sandbox) of each bot -> what its jail would show, as :func:`.sandbox.launch` makes it
    (the sandbox's and the command's read-only folders, the command's cwd), for the jailed ones."""
    return {name: JailSpec(command.argv, tuple(sandbox.read_only) + tuple(command.read_only), hidden, command.cwd)
            for name, command, sandbox in bots if sandbox.isolation is Isolation.JAIL}


RESULTS_ELSEWHERE = "give --out a folder elsewhere, or run from another folder"  # what to do of a results folder
RESULTS_ELSEWHERE_LEAGUE = "move it, or give the bot a folder of its own elsewhere"  # (a league's entrant)


def exposures(specs: Mapping[str, JailSpec], elsewhere: str = RESULTS_ELSEWHERE) -> list[str]:
    """Why the bots of ``specs`` (entrant name -> its jail) would see another entrant's files or results;
    ``elsewhere``: what to do of a results folder inside a bot's."""
    problems = []
    looked_at: dict = {}
    shown = {name: _shown(spec) for name, spec in specs.items()}
    own = {name: _files(spec) for name, spec in specs.items()}
    for name, folders in shown.items():
        given = [Path(os.path.realpath(p)) for p in specs[name].read_only]  # the organiser's --read-only folders
        for other, files in own.items():
            seen = [f for f in files - own[name] if not is_under(f, [SAMPLE_DIR]) and is_under(f, folders)]
            if other == name or not seen:
                continue
            if is_under(seen[0], given):
                problems.append(f"bot {name} would be shown {other}'s program ({seen[0]}) through a read-only "
                                "folder given to it (--read-only, read_only): give it a folder that holds no bot")
            else:
                problems.append(f"bot {name} would be shown {other}'s program ({seen[0]}): give each bot a "
                                "folder of its own (mybot/ and otherbot/, not side by side)")
        found = next(filter(None, (_secrets_in(f, specs[name].hidden, looked_at) for f in folders)), None)
        if found is not None and found[1] == "results":
            problems.append(f"bot {name} would be shown the results folder {found[0]} (its key and seeds): keep "
                            f"results outside every bot's folder ({elsewhere})")
        elif found is not None:
            problems.append(f"bot {name} would be shown the cluster's certificates in {found[0]} (their private keys "
                            "let anyone join the cluster): keep them outside every bot's folder")
    return problems


def results_within(specs: Mapping[str, JailSpec], out: Path, elsewhere: str = RESULTS_ELSEWHERE) -> list[str]:
    """Why the results folder ``out`` may not be made where it is: inside a folder a bot is shown as its own (its
    program's, its command's files'). This run hides it from the bot, but it stays there, with its key and seeds,
    and every later run with that bot would be refused (:func:`exposures`): refused now, before the first run
    rather than the second. A folder the organiser gives bots to read (--read-only) is its own choice."""
    where = Path(os.path.realpath(out))
    problems = []
    for name, spec in specs.items():
        given = [Path(os.path.realpath(p)) for p in spec.read_only]  # (the organiser's to share: its choice)
        inside = [folder for folder in _shown(spec) if folder.is_dir() and is_under(where, [folder])
                  and not is_under(folder, [SAMPLE_DIR, *given])]
        if inside:
            problems.append(f"the results folder {out} would be inside {inside[0]}, which bot {name} is shown (its "
                            f"key and seeds, for every later run): keep results outside every bot's folder "
                            f"({elsewhere})")
    return problems


def _shown(spec: JailSpec) -> list[Path]:
    try:
        return [real for _, real in visible_paths(spec)]
    except JailError:
        return []  # the start itself will say what is wrong


def _files(spec: JailSpec) -> set[Path]:
    """The bot's own files: its program, every file its command names, and its working folder (an uploaded
    bot's folder, whose program may be the system's python3)."""
    try:
        files = {Path(os.path.realpath(program_of(spec)))}
    except JailError:
        return set()
    files |= {Path(os.path.realpath(w)) for w in spec.argv[1:] if os.path.isabs(w) and os.path.isfile(w)}
    if spec.cwd:
        files.add(Path(os.path.realpath(spec.cwd)))
    return files


def _secrets_in(folder: Path, hidden: tuple[str, ...], looked_at: dict) -> tuple[Path, str] | None:
    """A results folder, or a folder of the cluster's certificates, inside ``folder`` that the jail would not
    cover (the run's own output is covered): (the folder, "results" or "certificates"). Each folder is looked
    through once for all the bots shown it (``looked_at``: the sample bots share one interpreter's folder)."""
    key = (folder, hidden)
    if key not in looked_at:
        looked_at[key] = _look_through(folder, {os.path.realpath(h) for h in hidden})
    return looked_at[key]


def _look_through(folder: Path, covered: set[str]) -> tuple[Path, str] | None:
    if not folder.is_dir() or is_under(folder, [SAMPLE_DIR, *covered]):
        return None
    looked = 0
    for top, dirs, files in os.walk(folder):  # (folder is a real path: so is each top, and a covered folder
        if top in covered:                     # inside it is met as a top before anything in it)
            dirs[:] = []
            continue
        if any(name in files for name in RESULTS_FILES):
            return Path(top), "results"
        if CA_FILE in files and any(name.endswith(KEY_SUFFIX) for name in files):
            return Path(top), "certificates"
        looked += len(dirs) + len(files)
        if looked > MAX_LOOKED_AT:
            break
    return None
