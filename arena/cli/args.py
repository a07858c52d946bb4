"""Argument groups that several commands share, and turning what they parse into the referee's values."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from referee.bots.sandbox import Sandbox
    from referee.match import Entrant, Restart, TimeControl

# The referee's modules are imported in the functions that use them, not here: a command that takes none of their
# flags (ratings, replay, report, the league's) starts without trio and the match loop (docs/performance.md).

OPTION_PREFIX = "option."


class UsageError(Exception):
    """A mistake in what the user asked for; printed without a traceback."""


def given_path(text: str) -> Path:
    """A path given on the command line; an empty one is refused (Python would take it for the current folder, and
    a run's key and records would land among whatever is there)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path: give a folder or file name")
    return Path(text)


def positive_int(text: str) -> int:
    value = nonneg_int(text)
    if value == 0:
        raise argparse.ArgumentTypeError("must be positive")
    return value


def nonneg_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError("must not be negative")
    return value


def positive_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError("must be a positive number of seconds")
    return value


def add_report_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-report", action="store_true",
                   help="do not write the HTML report (OUT/report/index.html) at the end")


def add_boards_argument(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--boards", type=positive_int, default=None, metavar="N",
                   help=f"play N boards {what}: a board is one deal played as one hand in every seating, scored by "
                        "the point margin on the same cards (docs/boards.md)")


def add_deals_argument(p: argparse.ArgumentParser) -> None:
    from referee.records.deals import DealsOrder

    p.add_argument("--deals", type=Path, default=None, metavar="FILE",
                   help="play the deals of this deal file, in turn, instead of deals from the seed (written by "
                        "'pinochle-arena deals'; see docs/boards.md, Deal files)")
    p.add_argument("--deals-order", choices=[order.value for order in DealsOrder], default=None,
                   help="the deal file's deals in its order (default), or in an order drawn from the seed, each "
                        "pass through the file anew (cutechess's order=random)")


def add_cutechess_arguments(p: argparse.ArgumentParser) -> None:
    """--rounds, --wait and --ratinginterval, as cutechess and fastchess users write them."""
    p.add_argument("--rounds", type=positive_int, default=None, metavar="N",
                   help="play the games (or boards) N times over, new deals each time (cutechess's -rounds)")
    p.add_argument("--wait", type=nonneg_int, default=None, metavar="MS",
                   help="pause MS milliseconds between two games of one set of bot processes (cutechess's -wait)")
    p.add_argument("--ratinginterval", type=positive_int, default=None, metavar="N",
                   help="print the standings every N games (fastchess's -ratinginterval)")


def add_resume_argument(p: argparse.ArgumentParser, kind: str) -> None:
    p.add_argument("--resume", type=Path, default=None, metavar="OUT",
                   help=f"continue the {kind} in OUT (stopped by Ctrl-C or a crash) with the arguments it started with, "
                        "kept in OUT: every saved game counts, the rest are played")


def add_no_verify_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-verify", action="store_true",
                   help="read the records without checking their seals (OUT/secret.key) and schedule "
                        "(OUT/schedule.jsonl): for records written before they were sealed; the results are unverified")


def add_partial_argument(p: argparse.ArgumentParser, verb: str) -> None:
    p.add_argument("--partial", action="store_true",
                   help=f"{verb} a run that lacks some of its scheduled games (one still being played, or stopped); "
                        "without it a missing record is refused, since it may have been deleted")


def add_bootstrap_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--bootstrap", type=nonneg_int, default=300, help="bootstrap samples for intervals (default 300)")


def add_variant_arguments(p: argparse.ArgumentParser, default: str | None = "two-handed") -> None:
    shown = default or "the configuration's, else two-handed"
    p.add_argument("--variant", default=default, help=f"variant preset (default {shown}; see 'variants')")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="change one rule of the preset, e.g. target=1200 (repeatable)")


def add_time_arguments(p: argparse.ArgumentParser, each: bool = False) -> None:
    """The time control and fence flags. With ``each`` (tournament) they default to the configuration's values and,
    when given, apply to every bot."""
    from referee.bots.start_clock import WALL_FACTOR
    from referee.match import TimeControl
    from referee.match.client import STARTUP_ALLOWANCE

    d = TimeControl()

    def default(value):
        return None if each else value

    where = "the configuration's, else " if each else ""
    p.add_argument("--time-per-move", type=positive_int, default=default(d.move_ms), metavar="MS",
                   help=f"limit for one reply in ms (default {where}{d.move_ms})")
    p.add_argument("--time-bank", type=positive_int, default=default(d.bank_ms), metavar="MS",
                   help=f"time bank per game in ms (default {where}{d.bank_ms})")
    p.add_argument("--increment", type=nonneg_int, default=default(d.increment_ms), metavar="MS",
                   help=f"added to the bank after each reply (default {where}{d.increment_ms})")
    p.add_argument("--grace", type=nonneg_int, default=default(d.grace_ms), metavar="MS",
                   help=f"tolerance beyond the limit before a reply counts as late (default {where}{d.grace_ms})")
    p.add_argument("--startup-timeout", type=positive_seconds, default=STARTUP_ALLOWANCE, metavar="S",
                   help=f"seconds a bot may take to start and say ready, not counting the time its processes wait "
                        f"for a CPU on a busy machine, within {WALL_FACTOR} times as many on the wall "
                        f"(default {STARTUP_ALLOWANCE:g})")
    add_fence_arguments(p, each)


def add_fence_arguments(p: argparse.ArgumentParser, each: bool = False) -> None:
    from referee.bots.sandbox import Isolation, Limits
    from referee.match import Restart

    where = "the configuration's, else " if each else ""
    p.add_argument("--limit", action="append", default=[], metavar="KEY=N",
                   help="resource limit per bot process, 0 for none (repeatable): "
                        + ", ".join(f"{k} (default {where}{v})" for k, v in Limits().to_dict().items()))
    p.add_argument("--isolation", choices=[i.value for i in Isolation], default=None if each else "jail",
                   help=f"'jail' (the default{', where the configuration sets none' if each else ''}): each bot in a "
                        "bubblewrap jail of its own; 'none': unjailed, NOT "
                        "safe against hostile bots (see docs/competition.md)")
    p.add_argument("--read-only", action="append", default=[], metavar="PATH",
                   help="a folder or file jailed bots may read besides their own program's folder (repeatable)")
    p.add_argument("--runtime", action="append", default=[], metavar="PATH",
                   help="a runtime's folder (or program) to add to the jailed bots' system image, e.g. /opt/ruby "
                        "(repeatable; Python, node, the JVM and mono are there already)")
    p.add_argument("--persist", action="store_true",
                   help="let a bot keep its process and files from game to game (default: fresh for every game, "
                        "so nothing learnt in one seating of a deal survives into the next)")
    p.add_argument("--kept-jail", action=argparse.BooleanOptionalAction, default=None,
                   help=f"jailed, as root: keep each bot's jail from game to game and start a fresh process in fresh "
                        f"namespaces in it every game (default {where}on: about half the CPU of a fresh jail a "
                        f"start; docs/jail.md); --no-kept-jail: a fresh jail every game"),
    p.add_argument("--inherit-env", action="store_true",
                   help="give unjailed bots the referee's environment (default: a clean one)")
    p.add_argument("--restart", choices=[r.value for r in Restart], default=None if each else "on-fault",
                   help=f"with --persist, when a bot gets a fresh process (default {where}on-fault); 'never' also "
                        "retires a bot after its first fault")


def limits_from_args(args) -> dict[str, int]:
    values = {}
    for text in args.limit:
        key, sep, value = text.partition("=")
        if not sep or not value.strip().isdigit():
            raise UsageError(f"--limit {text!r}: write KEY=N, e.g. --limit memory=1024")
        values[key.strip()] = int(value)
    return values


def fence_keys_from_args(args) -> dict:
    """What the fence flags set in a configuration's [tournament] table (persist, clean_env, read_only, runtimes):
    only the flags given, so that a configuration's own keys stand otherwise."""
    keys: dict = {}
    if args.persist:
        keys["persist"] = True
    if args.kept_jail is not None:
        keys["kept_jail"] = args.kept_jail
    if args.inherit_env:
        keys["clean_env"] = False
    if args.read_only:
        keys["read_only"] = read_only_from_args(args)
    if args.runtime:
        keys["runtimes"] = runtimes_from_args(args)
    return keys


def read_only_from_args(args) -> list[str]:
    return _paths_from_args(args.read_only, "--read-only")


def runtimes_from_args(args) -> list[str]:
    return _paths_from_args(args.runtime, "--runtime")


def _paths_from_args(given: list[str], flag: str) -> list[str]:
    paths = []
    for text in given:
        path = Path(text).expanduser()
        if not path.exists():
            raise UsageError(f"{flag} {text}: no such file or folder")
        paths.append(str(path.resolve()))
    return paths


def fence_from_args(args) -> tuple[Sandbox, Restart, bool]:
    from referee.bots.sandbox import Isolation, Limits, Sandbox, SandboxError
    from referee.match import Restart

    try:
        limits = Limits.from_dict(limits_from_args(args))
    except ValueError as e:
        raise UsageError(f"--limit: {e}") from None
    read_only = read_only_from_args(args)
    sandbox = Sandbox(limits, Isolation(args.isolation), not args.inherit_env, tuple(read_only),
                      runtimes=tuple(runtimes_from_args(args)),
                      kept_jail=Sandbox().kept_jail if args.kept_jail is None else args.kept_jail)
    try:
        sandbox.check()
    except SandboxError as e:
        raise UsageError(str(e)) from None
    return sandbox, Restart(args.restart), args.persist


def variant_from_args(args, boards: bool = False):
    """The variant of --variant and --option; for boards, played one hand a game (max-hands=1)."""
    from referee.rules import get_variant
    from referee.rules.variants import parse_option_text

    options = dict(parse_option_text(o) for o in args.option)
    if boards:
        if options.get("max-hands", "1") != "1":
            raise UsageError("a board is one hand: --boards takes no --option max-hands")
        options["max-hands"] = "1"
    return get_variant(getattr(args, "name", None) or args.variant, options)


def time_control_from_args(args) -> TimeControl:
    from referee.match import TimeControl

    return TimeControl(bank_ms=args.time_bank, increment_ms=args.increment, move_ms=args.time_per_move, grace_ms=args.grace)


def deals_from_args(args, variant):
    """The deal file of --deals, checked against the variant (None without --deals)."""
    from referee.records.deals import read_deals

    if args.deals is None and args.deals_order is not None:
        raise UsageError("--deals-order orders the deals of a deal file: give one with --deals FILE")
    return read_deals(args.deals, variant) if args.deals is not None else None


def deals_in_order(args, deals, seed: int):
    """The deal file in the order of --deals-order: a random one is drawn from the run's seed."""
    from referee.records.deals import DealsOrder
    from referee.rules.dealing import derive_seed

    if deals is None or args.deals_order != DealsOrder.RANDOM:
        return deals
    return deals.in_random_order(derive_seed(seed, "deal-order"))


def bots_with_options(words: list[str]) -> list[tuple[str, tuple[tuple[str, str], ...]]]:
    """``BOT option.NAME=VALUE ... BOT ...`` (as cutechess and fastchess take them) -> (bot, its options)."""
    bots: list[tuple[str, list[tuple[str, str]]]] = []
    for word in words:
        if not word.startswith(OPTION_PREFIX):
            bots.append((word, []))
            continue
        name, sep, value = word[len(OPTION_PREFIX):].partition("=")
        if not sep or not name or not value:
            raise UsageError(f"{word!r}: a bot option is written option.NAME=VALUE, e.g. option.depth=4")
        if not bots:
            raise UsageError(f"{word!r} comes before any bot: write a bot's options after it")
        if name in dict(bots[-1][1]):
            raise UsageError(f"{word!r}: option {name} is given twice for {bots[-1][0]}")
        bots[-1][1].append((name, value))
    return [(bot, tuple(options)) for bot, options in bots]


def entrants_from_args(args, bots: list[str]) -> tuple[Entrant, ...]:
    """Sample names or command lines, each followed by its option.NAME=VALUE words -> entrants with unique names
    and the command line's time control and start allowance."""
    from referee.bots.samples import resolve_bot, unique_names
    from referee.match import Entrant

    grouped = bots_with_options(bots)
    resolved = [resolve_bot(b) for b, _ in grouped]
    say_core_problems([b for b, _ in grouped])
    names = unique_names([name for name, _ in resolved])
    tc = time_control_from_args(args)
    sandbox, restart, persist = fence_from_args(args)
    return tuple(Entrant(n, cmd, tc, sandbox, restart, persist, options, startup_timeout=args.startup_timeout)
                 for n, (_, cmd), (_, options) in zip(names, resolved, grouped, strict=True))


def say_core_problems(bots: list[str]) -> None:
    """One line for each sample bot named that plays without its compiled core (no cargo, a failed build), with
    the reason: the bot plays on, weaker, and says so only in its log."""
    from referee.bots.samples import SAMPLES

    for text in dict.fromkeys(bots):
        problem = SAMPLES[text].core_problem() if text in SAMPLES else ""
        if problem:
            print(f"note: sample bot {text} plays without its compiled core ({problem}); its pure-Python search "
                  "decides", file=sys.stderr)


def with_startup_timeout(entrants, seconds: float) -> tuple[Entrant, ...]:
    """``entrants`` with ``seconds`` as their start allowance (a configuration's: a tournament's, a league's)."""
    import attrs

    return tuple(attrs.evolve(e, startup_timeout=seconds) for e in entrants)
