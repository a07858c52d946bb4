"""The ``pinochle-arena`` command line: argument parsing and printing only."""

from __future__ import annotations

import argparse
import collections
import datetime
import difflib
import json
import os
import re
import secrets
import sys
from pathlib import Path

import attrs
import trio
from tabulate import tabulate

from . import installed_version
from .clock import TimeControl
from .audit import Audit, ScheduleError, audit_results
from .compliance import run_check
from .deals import DealFileError
from .integrity import KeyFileError
from .match import Entrant, MatchPlan, Restart, match_games, preflight, run_match
from .progress import Progress
from .record import GameRecord, RecordError, Termination, read_records
from .replay import replay_record
from .rules import OPTIONS, PRESETS, VariantError, get_variant
from .rules.variants import RULE_TEXTS, parse_option_text
from .samples import SAMPLES, resolve_bot, unique_names
from .sandbox import Isolation, Limits, Sandbox, SandboxError, isolation_summary
from .transport import BotError


class UsageError(Exception):
    """A mistake in what the user asked for; printed without a traceback."""


class Parser(argparse.ArgumentParser):
    """argparse, with "did you mean" for a misspelt command or flag."""

    def error(self, message: str):
        hint = _did_you_mean(self, message)
        super().error(message + (f"; did you mean {hint}?" if hint else ""))


def _did_you_mean(parser: argparse.ArgumentParser, message: str) -> str:
    words: list[str] = []
    commands = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    wanted = re.search(r"invalid choice: '([^']*)'", message)
    if wanted:  # a misspelt command
        words = [name for a in commands for name in a.choices]
        given = [wanted.group(1)]
    else:  # misspelt flags: the top parser reports them for its commands, so look in every command's flags
        given = re.findall(r"(--?[\w-]+)", message.partition("unrecognized arguments:")[2])
        parsers = [parser, *(p for a in commands for p in a.choices.values())]
        words = sorted({flag for p in parsers for action in p._actions for flag in action.option_strings})
    matches = [m for g in given for m in difflib.get_close_matches(g, words, n=1, cutoff=0.6)]
    return " ".join(f"'{m}'" for m in matches)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(argv)
    args.argv, args.cwd = argv, os.getcwd()  # kept by match and sprt, which resume from OUT alone
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        return args.handler(args)
    except (UsageError, VariantError, RecordError, BotError, KeyFileError, ScheduleError, DealFileError) as e:
        print(f"pinochle-arena: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\npinochle-arena: interrupted; every finished game is in the records file", file=sys.stderr)
        return 130


def run_trio(function, *args):
    """trio.run, with Ctrl-C coming out as a plain KeyboardInterrupt even from inside nurseries."""
    try:
        return trio.run(function, *args)
    except BaseExceptionGroup as group:
        _, rest = group.split(KeyboardInterrupt)
        if rest is None:
            raise KeyboardInterrupt from None
        raise


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="pinochle-arena",
        description="Referee and tournament harness for Pinochle bots.",
    )
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(title="commands", metavar="COMMAND", parser_class=Parser)

    p = sub.add_parser("match", help="play games between bots", description=(
        "Play games between bots. BOT is a sample bot's name (" + ", ".join(SAMPLES) + ") or any command line "
        "that starts a bot, e.g. './mybot --fast' or 'node bot.js'. Give one bot per seat, seat 0 first "
        "(partners sit opposite: seats 0 and 2, the first and third BOT, against 1 and 3). Games go in groups of one per seat with the same cards and "
        "the seating rotated, so every bot holds every hand."))
    p.add_argument("bots", nargs="*", metavar="BOT", help="one bot per seat, in seat order; a bot's options "
                   "(protocol 3) follow it as option.NAME=VALUE, e.g. './mybot option.depth=4 greedy'")
    add_resume_argument(p, "match")
    add_boards_argument(p, "instead of --games")
    add_deals_argument(p)
    add_variant_arguments(p)
    p.add_argument("--games", type=positive_int, default=None,
                   help="games to play: a multiple of the seats, one game per seating of each deal (default 20, or "
                        "the next multiple: 21 for three seats)")
    p.add_argument("--no-duplicate", action="store_true",
                   help="a new deal for every game (any number of games) instead of each deal once per seating")
    p.add_argument("--seed", type=int, default=None,
                   help="seed for the deals (default: a secret one from the operating system, kept in OUT)")
    add_time_arguments(p)
    p.add_argument("--out", type=Path, default=None, help="output directory (default results/match-TIMESTAMP)")
    p.add_argument("--transcripts", action="store_true",
                   help="write every protocol line to OUT/logs/BOT.protocol.log ('>' to the bot, '<' from it)")
    add_report_argument(p)
    p.set_defaults(handler=cmd_match)

    p = sub.add_parser("check", help="check that a bot follows the protocol (for bot authors)", description=(
        "Play a few games between BOT and the reference bot (the sample 'greedy') with strict checks: "
        "it starts, completes the handshake, answers a ping, stays up, plays legally in every phase, replies on time "
        "(no grace), sends only valid lines, and exits cleanly on 'quit'; and warns about play that loses without "
        "an error (never bidding, always the first legal action, never melding). Prints a report with the exact "
        "offending lines; exit status 0 only when every check passes (warnings do not fail it)."))
    p.add_argument("bot", nargs="+", metavar="BOT", help="a command line that starts the bot, or a sample bot's name; "
                   "its options (protocol 3) follow as option.NAME=VALUE")
    add_variant_arguments(p)
    p.add_argument("--games", type=positive_int, default=4, help="games to play (default 4)")
    p.add_argument("--seed", type=int, default=1, help="seed for the deals (default 1)")
    add_time_arguments(p)
    p.add_argument("--out", type=Path, default=None, help="where logs and the transcript go (default results/check-TIMESTAMP)")
    p.set_defaults(handler=cmd_check)

    p = sub.add_parser("tournament", help="run a round robin or gauntlet (default: the sample bots)", description=(
        "Run a tournament: from a TOML configuration, from flags alone (--bot ... --bot ...), or both (flags win); "
        "with neither, the embedded default: a duplicate round robin of every sample bot. Finished games are saved at "
        "once, with the configuration they were played under; 'tournament --resume OUT' continues an interrupted "
        "tournament from OUT alone. See tournaments/*.toml for examples."))
    p.add_argument("config", nargs="?", type=Path, help="tournament configuration (TOML)")
    p.add_argument("--bot", action="append", nargs="+", default=[], metavar="WORD", dest="bot",
                   help="an entrant: [NAME=]BOT [option.KEY=VALUE ...], BOT a sample bot's name or a command line "
                        "(quoted), e.g. --bot greedy --bot 'mine=./mybot --fast' option.depth=4 (repeatable; with a "
                        "configuration, adds a bot, or replaces the one of that NAME)")
    p.add_argument("--resume", nargs="?", const=True, default=None, metavar="OUT",
                   help="continue the tournament in OUT (its configuration is kept there), or without OUT the one "
                        "in --out or the configuration's output")
    p.add_argument("--out", type=Path, default=None,
                   help="output directory (default: the configuration's, else results/tournament)")
    p.add_argument("--format", choices=("round-robin", "gauntlet"), default=None, help="round-robin (default) or "
                   "gauntlet (the --candidate plays everyone else)")
    p.add_argument("--candidate", default=None, metavar="NAME", help="the gauntlet's candidate")
    p.add_argument("--anchor", default=None, metavar="NAME", help="fix this entrant's rating at 0")
    p.add_argument("--name", default=None, help="the tournament's name (default: the configuration's)")
    add_variant_arguments(p, default=None)
    p.add_argument("--concurrency", type=positive_int, default=None, help="games at once (default: cores)")
    p.add_argument("--processes", type=positive_int, default=None,
                   help="referee processes to spread the games over (default: cores, at most --concurrency)")
    p.add_argument("--cluster", default=None, metavar="ADDRESS",
                   help="play the games on the Dask cluster whose scheduler is at ADDRESS (tcp://HOST:8786); 'none': "
                        "on this machine (overrides [cluster] address; needs pip install 'pinochle-arena[cluster]')")
    p.add_argument("--no-duplicate", action="store_true", help="independent deals instead of duplicate pairs")
    p.add_argument("--games", type=positive_int, default=None, help="games per pairing (overrides the configuration)")
    add_boards_argument(p, "per pairing, instead of whole games")
    p.add_argument("--seed", type=int, default=None, help="tournament seed (overrides the configuration)")
    add_deals_argument(p)
    add_time_arguments(p, each=True)
    p.add_argument("--bootstrap", type=nonneg_int, default=300, help="bootstrap samples for intervals (default 300)")
    p.add_argument("--transcripts", action="store_true", help="log every protocol line per bot")
    p.add_argument("--pgn", type=Path, default=None, help="also write the results as PGN (for Ordo or BayesElo)")
    add_report_argument(p)
    p.set_defaults(handler=cmd_tournament)

    p = sub.add_parser("ratings", help="ratings, head-to-head statistics and crosstable of recorded games")
    p.add_argument("results", type=Path, help="a games.jsonl file, or a directory holding one")
    p.add_argument("--anchor", default=None, help="fix this bot's rating (default: pool average 0)")
    p.add_argument("--anchor-rating", type=float, default=0.0,
                   help="the anchor's rating, or without --anchor the pool average (default 0)")
    p.add_argument("--bootstrap", type=nonneg_int, default=300, help="bootstrap samples for intervals (default 300)")
    p.add_argument("--pgn", type=Path, default=None, help="also write the results as PGN (for Ordo or BayesElo)")
    p.add_argument("--out", type=Path, default=None, help="write ratings.csv, headtohead.csv, crosstable.csv, ratings.json here")
    add_no_verify_argument(p)
    p.set_defaults(handler=cmd_ratings)

    p = sub.add_parser("sprt", help="is NEW stronger than OLD? play duplicate pairs until the SPRT decides", description=(
        "Sequential probability ratio test (GSPRT, as fishtest): plays duplicate pairs of games (pentanomial pair "
        "scores), or with --boards one-hand boards (their bounded scores; ELO0 and ELO1 are then board Elo), "
        "until H1 (NEW is at least ELO1 stronger) or H0 (at most ELO0) is accepted. Exit status: 0 when H1 "
        "is accepted, 1 when H0 is accepted, 3 when --max-pairs (or --boards) ran out undecided, 2 on bad input."))
    p.add_argument("bots", nargs="*", metavar="NEW OLD", help="the candidate bot, then the baseline; each may be "
                   "followed by its options as option.NAME=VALUE (the same bot with other options: "
                   "'mybot option.depth=5 mybot option.depth=4')")
    add_resume_argument(p, "sprt")
    add_boards_argument(p, "at most (instead of --max-pairs), testing on the board scores")
    add_deals_argument(p)
    p.add_argument("--elo0", type=float, default=0.0, help="H0: NEW is at most this much stronger (default 0)")
    p.add_argument("--elo1", type=float, default=5.0, help="H1: NEW is at least this much stronger (default 5)")
    p.add_argument("--alpha", type=float, default=0.05, help="false positive rate (default 0.05)")
    p.add_argument("--beta", type=float, default=0.05, help="false negative rate (default 0.05)")
    p.add_argument("--max-pairs", type=positive_int, default=MAX_PAIRS, help="give up undecided after this many pairs")
    add_variant_arguments(p)
    p.add_argument("--seed", type=int, default=None,
                   help="seed for the deals (default: a secret one from the operating system, kept in OUT)")
    p.add_argument("--concurrency", type=positive_int, default=None, help="pairs at once (default: cores)")
    add_time_arguments(p)
    p.add_argument("--out", type=Path, default=None, help="output directory (default results/sprt-TIMESTAMP)")
    p.set_defaults(handler=cmd_sprt)

    p = sub.add_parser("variants", help="list variants and their options, or show one variant's settings")
    p.add_argument("name", nargs="?", help="a variant to show in full")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="show the variant with this option")
    p.set_defaults(handler=cmd_variants, variant=None)

    p = sub.add_parser("deals", help="write a deal file: the deals of recorded games, or new ones from a seed",
                       description=(
        "Write a deal file (README, Deal files), which match, sprt and tournament play with --deals FILE: the deals "
        "of the games in RESULTS (the seatings of a duplicate deal are one deal), so that an event's deals can be "
        "published and a regression's replayed; or, with --seed, --count new deals."))
    p.add_argument("results", nargs="?", type=Path, help="a games.jsonl file, or an output folder holding one")
    p.add_argument("--seed", type=int, default=None, help="generate deals from this seed instead of reading results")
    p.add_argument("--count", type=positive_int, default=100, help="deals to generate (default 100)")
    p.add_argument("--decks", type=positive_int, default=10,
                   help="decks per generated deal, for its first hands (default 10; later hands come from its seed)")
    add_variant_arguments(p)
    p.add_argument("--out", type=Path, default=None, help="the file to write (default: standard output)")
    add_no_verify_argument(p)
    p.set_defaults(handler=cmd_deals)

    p = sub.add_parser("replay", help="replay recorded games through the rules and report mismatches")
    p.add_argument("files", nargs="+", type=Path, metavar="FILE",
                   help="games.jsonl files, or output folders (their games.jsonl)")
    p.add_argument("--verbose", "-v", action="store_true", help="one line per game")
    add_no_verify_argument(p)
    p.set_defaults(handler=cmd_replay)

    p = sub.add_parser("report", help="write the HTML report of a match or tournament: tables, plots, every game "
                       "in a replay viewer", description=(
        "Write OUT/report/index.html: standings, head to head, crosstable, faults with their detail, plots of score "
        "and time use, and a filterable list of the games, each watchable step by step in a replay viewer (every "
        "hand face up, or one seat's view). One folder, no server: it opens from the disk and works offline."))
    p.add_argument("results", type=Path, metavar="OUT", help="a match's or tournament's output folder")
    p.add_argument("--open", action="store_true", help="open the report in the web browser")
    p.add_argument("--bootstrap", type=nonneg_int, default=300, help="bootstrap samples for intervals (default 300)")
    add_no_verify_argument(p)
    p.set_defaults(handler=cmd_report)

    add_play_parser(sub)
    return parser


def add_play_parser(sub) -> None:
    p = sub.add_parser("play", help="play against bots yourself, in your web browser", description=(
        "Play at one seat (or several, --seat N each) against bots, in a web browser: the referee serves a page on "
        "127.0.0.1 and prints its address (--open opens it). The page shows what your seat may see and offers the "
        "legal actions to click; the same clock, rules and records apply as to a bot. BOT fills the other seats, "
        "in seat order. The results folder is a match's (replay, ratings, report read it)."))
    p.add_argument("bots", nargs="*", metavar="BOT", help="a bot for each seat that is not yours, in seat order")
    p.add_argument("--seat", type=nonneg_int, action="append", default=None, metavar="N",
                   help="your seat (default 0); repeat for more than one person")
    add_variant_arguments(p)
    p.add_argument("--games", type=positive_int, default=1, help="games to play (default 1)")
    p.add_argument("--seed", type=int, default=None, help="seed for the deals (default: a secret one)")
    p.add_argument("--port", type=nonneg_int, default=0, help="the page's port on 127.0.0.1 (default: a free one)")
    p.add_argument("--open", action="store_true", help="open the page in the web browser")
    p.add_argument("--human-time", type=positive_int, default=600, metavar="S",
                   help="your time for each move, in seconds (default 600); the bots' time flags are their own")
    add_time_arguments(p)
    p.add_argument("--out", type=Path, default=None, help="output directory (default results/play-TIMESTAMP)")
    add_report_argument(p)
    p.set_defaults(handler=cmd_play)


def cmd_play(args) -> int:
    from viewer.play import run_play, seat_entrants

    variant = variant_from_args(args)
    seats = args.seat if args.seat is not None else [0]
    if len(set(seats)) != len(seats) or any(s >= variant.players for s in seats):
        raise UsageError(f"--seat: {variant.name} has seats 0 to {variant.players - 1}, each taken once")
    if len(args.bots) != variant.players - len(seats):
        raise UsageError(f"variant {variant.name} seats {variant.players}; {len(seats)} for people leaves "
                         f"{variant.players - len(seats)} for bots, got {len(args.bots)}")
    bots = entrants_from_args(args, args.bots) if args.bots else ()
    human_time = TimeControl(bank_ms=args.human_time * 1000 * 10, increment_ms=0, move_ms=args.human_time * 1000,
                             grace_ms=1000)
    seated, links = seat_entrants(bots, seats, variant.players, human_time)
    seed = args.seed if args.seed is not None else secrets.randbits(128)
    out = args.out or default_out("play")
    if (out / "games.jsonl").exists():
        raise UsageError(f"{out / 'games.jsonl'} already exists; choose another --out")
    check_bots_start(bots, out / "logs", args.startup_timeout)
    records: list[GameRecord] = []

    def on_address(addresses: list[str]) -> None:
        for seat, address in zip(sorted(links), addresses, strict=True):
            print(f"seat {seat}: open {address}", flush=True)
        if args.open:
            import webbrowser

            webbrowser.open(addresses[0])

    def on_game(record: GameRecord) -> None:
        records.append(record)
        print(_game_line(record), flush=True)

    print(f"play: {variant.name}, {args.games} game(s), people at seat(s) {', '.join(map(str, seats))}; "
          f"records in {out}/games.jsonl")
    try:
        run_trio(run_play, seated, links, variant, args.games, seed, out, args.port, on_address, on_game,
                 args.startup_timeout)
    except KeyboardInterrupt:
        print(f"\nstopped after {len(records)} game(s)", file=sys.stderr)
        return 130
    print_standings(records)
    if not args.no_report and records:
        write_html_report(records, out, f"play: {' vs '.join(e.name for e in seated)}")
    return 0


def add_report_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-report", action="store_true",
                   help="do not write the HTML report (OUT/report/index.html) at the end")


class VersionAction(argparse.Action):
    """--version, looked up only when asked for (importlib.metadata costs every other command 60 ms)."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, help="show the version and exit")

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{parser.prog} {installed_version()}")  # on stdout, as argparse's own version action
        parser.exit()



def add_boards_argument(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--boards", type=positive_int, default=None, metavar="N",
                   help=f"play N boards {what}: a board is one deal played as one hand in every seating, scored by "
                        "the point margin on the same cards (README, Boards)")


def add_deals_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--deals", type=Path, default=None, metavar="FILE",
                   help="play the deals of this deal file, in turn, instead of deals from the seed (written by "
                        "'pinochle-arena deals'; see README, Deal files)")


def deals_from_args(args, variant):
    """The deal file of --deals, checked against the variant (None without --deals)."""
    from .deals import read_deals

    return read_deals(args.deals, variant) if args.deals is not None else None


def add_resume_argument(p: argparse.ArgumentParser, kind: str) -> None:
    p.add_argument("--resume", type=Path, default=None, metavar="OUT",
                   help=f"continue the {kind} in OUT (stopped by Ctrl-C or a crash) with the arguments it started with, "
                        "kept in OUT: every saved game counts, the rest are played")


def add_no_verify_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-verify", action="store_true",
                   help="read the records without checking their seals (OUT/secret.key) and schedule "
                        "(OUT/schedule.jsonl): for records written before they were sealed; the results are unverified")


def add_variant_arguments(p: argparse.ArgumentParser, default: str | None = "two-handed") -> None:
    shown = default or "the configuration's, else two-handed"
    p.add_argument("--variant", default=default, help=f"variant preset (default {shown}; see 'variants')")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="change one rule of the preset, e.g. target=1200 (repeatable)")


def add_time_arguments(p: argparse.ArgumentParser, each: bool = False) -> None:
    """The time control and fence flags. With ``each`` (tournament) they default to the configuration's values and,
    when given, apply to every bot."""
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
    p.add_argument("--startup-timeout", type=float, default=10.0, metavar="S",
                   help="seconds a bot has to start and say ready (default 10)")
    add_fence_arguments(p, each)


def add_fence_arguments(p: argparse.ArgumentParser, each: bool = False) -> None:
    where = "the configuration's, else " if each else ""
    p.add_argument("--limit", action="append", default=[], metavar="KEY=N",
                   help="resource limit per bot process, 0 for none (repeatable): "
                        + ", ".join(f"{k} (default {where}{v})" for k, v in Limits().to_dict().items()))
    p.add_argument("--isolation", choices=[i.value for i in Isolation], default=None if each else "jail",
                   help=f"'jail' (default {where}jail): each bot in a bubblewrap jail of its own; 'none': unjailed, NOT "
                        "safe against hostile bots (see README, Running a competition)")
    p.add_argument("--read-only", action="append", default=[], metavar="PATH",
                   help="a folder or file jailed bots may read besides their own program's folder (repeatable)")
    p.add_argument("--persist", action="store_true",
                   help="let a bot keep its process and files from game to game (default: fresh for every game, "
                        "so nothing learnt in one seating of a deal survives into the next)")
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


def read_only_from_args(args) -> list[str]:
    read_only = []
    for text in args.read_only:
        path = Path(text).expanduser()
        if not path.exists():
            raise UsageError(f"--read-only {text}: no such file or folder")
        read_only.append(str(path.resolve()))
    return read_only


def fence_from_args(args) -> tuple[Sandbox, Restart, bool]:
    try:
        limits = Limits.from_dict(limits_from_args(args))
    except ValueError as e:
        raise UsageError(f"--limit: {e}") from None
    read_only = read_only_from_args(args)
    sandbox = Sandbox(limits, Isolation(args.isolation), not args.inherit_env, tuple(read_only))
    try:
        sandbox.check()
    except SandboxError as e:
        raise UsageError(str(e)) from None
    return sandbox, Restart(args.restart), args.persist


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


def variant_from_args(args, boards: bool = False):
    """The variant of --variant and --option; for boards, played one hand a game (max-hands=1)."""
    options = dict(parse_option_text(o) for o in args.option)
    if boards:
        if options.get("max-hands", "1") != "1":
            raise UsageError("a board is one hand: --boards takes no --option max-hands")
        options["max-hands"] = "1"
    return get_variant(getattr(args, "name", None) or args.variant, options)


def time_control_from_args(args) -> TimeControl:
    return TimeControl(bank_ms=args.time_bank, increment_ms=args.increment, move_ms=args.time_per_move, grace_ms=args.grace)


OPTION_PREFIX = "option."
MAX_PAIRS = 20000  # sprt's default --max-pairs


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
    and the command line's time control."""
    grouped = bots_with_options(bots)
    resolved = [resolve_bot(b) for b, _ in grouped]
    names = unique_names([name for name, _ in resolved])
    tc = time_control_from_args(args)
    sandbox, restart, persist = fence_from_args(args)
    return tuple(Entrant(n, cmd, tc, sandbox, restart, persist, options)
                 for n, (_, cmd), (_, options) in zip(names, resolved, grouped, strict=True))


def seed_and_out(args, kind: str) -> tuple[int, Path]:
    """--seed (default: a secret one) and --out (default results/KIND-TIMESTAMP), refusing to overwrite results;
    when resuming, the seed the run started with and its folder."""
    if args.resume is not None:
        return args.saved_seed, args.out
    seed = args.seed if args.seed is not None else secrets.randbits(128)
    out = args.out or default_out(kind)
    if (out / "games.jsonl").exists():
        raise UsageError(f"{out / 'games.jsonl'} already exists; add --resume {out} to continue that {kind}, or "
                         "choose another --out")
    return seed, out


def resumed_arguments(args, kind: str):
    """``KIND --resume OUT``: the arguments the run in OUT started with (kept in OUT/KIND.json), read again
    in the folder it was started from; only the flags of RESUME_FLAGS may be given beside --resume."""
    out = args.resume.absolute()
    if args.out is not None and args.out.absolute() != out:
        raise UsageError(f"--resume {args.resume} and --out {args.out} name two folders; give one")
    _refuse_changes(args, kind, f"--resume {args.resume}: the {kind}'s arguments are kept in {args.resume}, so")
    try:
        saved = json.loads((out / f"{kind}.json").read_text(encoding="utf-8"))
        argv, cwd, seed = list(saved["argv"]), saved["cwd"], saved["seed"]
    except FileNotFoundError:
        what = "no such folder" if not out.is_dir() else f"no {kind}.json: not a {kind}'s output folder"
        raise UsageError(f"--resume {args.resume}: {what}") from None
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise UsageError(f"--resume {args.resume}: {out / (kind + '.json')} is damaged ({e})") from None
    try:
        os.chdir(cwd)  # relative paths of the saved command mean the folder it was started from
    except OSError as e:
        raise UsageError(f"--resume {args.resume}: the {kind} was started in {cwd}, which is gone ({e.strerror})") from None
    again = build_parser().parse_args(argv)
    for key in RESUME_FLAGS:
        if hasattr(again, key) and key != "out":
            setattr(again, key, getattr(args, key))
    again.argv, again.cwd, again.saved_seed, again.out, again.resume = argv, cwd, seed, out, args.resume
    return again


def _refuse_changes(args, command: str, why: str) -> None:
    """UsageError naming every flag beside --resume that is not one of RESUME_FLAGS (they would change the run)."""
    defaults = vars(build_parser()._subparsers._group_actions[0].choices[command].parse_args([]))
    changed = sorted(k for k, v in vars(args).items()
                     if k not in (*RESUME_FLAGS, "handler", "argv", "cwd") and k in defaults and defaults[k] != v)
    if changed:
        flags = ", ".join("--" + k.replace("_", "-") if k not in ("bots", "config") else k.upper() for k in changed)
        allowed = ", ".join("--" + k.replace("_", "-") for k in RESUME_FLAGS[2:] if k in defaults)
        raise UsageError(f"{why} {flags} cannot change it; only {allowed} may be given")


def open_results(args, kind: str, seed: int, out: Path, games, deals=None) -> tuple:
    """Start the results folder of a match or SPRT, or (--resume) reopen it: (store, the records already saved)."""
    from .results import ResultStore, StoreError

    store = ResultStore(out, f"{kind}.json")
    fingerprint = {"argv": args.argv, "cwd": args.cwd, "seed": seed, "deals": deals.digest() if deals else None}
    try:
        if args.resume is None:
            store.start(fingerprint, games)
            return store, []
        recovery = store.resume(fingerprint, games)
    except StoreError as e:
        raise UsageError(str(e)) from None
    warn_set_aside(store, recovery)
    return store, recovery.records


def warn_set_aside(store, recovery) -> None:
    for number, reason in recovery.bad_lines:
        print(f"warning: {store.games_path}:{number}: set aside ({reason}); kept in {store.games_path.name}.bad",
              file=sys.stderr)


def default_out(kind: str) -> Path:
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    return Path("results") / f"{kind}-{stamp}"


def cmd_match(args) -> int:
    if args.resume is not None:
        args = resumed_arguments(args, "match")
    variant = variant_from_args(args, boards=args.boards is not None)
    bots = [b for b, _ in bots_with_options(args.bots)]
    if len(bots) != variant.players:
        raise UsageError(f"variant {variant.name} seats {variant.players} players; got {len(bots)} bots "
                         f"({' '.join(bots)})")
    entrants = entrants_from_args(args, args.bots)
    seats = variant.players
    if args.boards is not None and (args.games is not None or args.no_duplicate):
        raise UsageError("--boards N plays N deals as one hand in every seating: it takes no --games or "
                         "--no-duplicate")
    games = args.boards * seats if args.boards else args.games if args.games is not None else -(-20 // seats) * seats
    if games % seats and not args.no_duplicate:
        raise UsageError(f"--games {games}: each deal is played once per seating ({seats} games), so give a "
                         f"multiple of {seats}, or --no-duplicate for a new deal every game")
    names = [e.name for e in entrants]
    deals = deals_from_args(args, variant)
    seed, out = seed_and_out(args, "match")
    plan = MatchPlan(entrants, variant, games, seed, out, args.startup_timeout, args.transcripts,
                     duplicate=not args.no_duplicate, deals=deals, boards=args.boards is not None)
    what = f"{args.boards} boards ({games} one-hand games)" if args.boards else f"{games} games"
    print(f"match: {' vs '.join(names)}, {variant.name}, {what}, {_deals_text(args, deals)}, "
          f"records in {out}/games.jsonl")
    print(isolation_summary(entrants[0].sandbox))
    check_bots_start(entrants, out / "logs", args.startup_timeout)
    store, records = open_results(args, "match", seed, out, match_games(plan), deals)
    if records:
        print(f"resuming: {len(records)} of {games} games already played")
    progress = Progress(games, start=len(records))

    def on_game(record: GameRecord) -> None:
        records.append(record)
        progress.update(len(records), _game_line(record))

    try:
        run_trio(run_match, plan, on_game, store, {r.game_id for r in records})
    except KeyboardInterrupt:
        progress.close()
        print(f"\nstopped after {len(records)} of {games} games (all saved in {store.games_path}); so far:")
        _print_match_table(records, args.boards)
        print(f"To continue: pinochle-arena match --resume {out}", file=sys.stderr)
        return 130
    progress.close()
    _print_match_table(records, args.boards)
    print_faults(records, out / "logs")
    if not args.no_report:
        write_html_report(records, out, f"match: {' vs '.join(names)}")
    return 0


def _print_match_table(records: list[GameRecord], boards: int | None) -> None:
    """The standings of a match's games, or the board tables of a match of boards (while it has a whole board)."""
    from tournaments.boards import boards_of

    if boards and boards_of(records)[0]:
        _print_report(records, None, anchor=None, bootstrap=300)
    else:
        print_standings(records)


def _deals_text(args, deals) -> str:
    """Where a run's deals come from: a deal file, or the seed."""
    if deals is None:
        return _seed_text(args.seed)
    return f"the {len(deals.deals)} deals of {args.deals} in turn"


def _seed_text(given: int | None) -> str:
    """How a run's seed is shown: the organiser's own, or only that a secret one is used (it is kept in OUT)."""
    return f"seed {given}" if given is not None else "a secret seed"


def cmd_check(args) -> int:
    variant = variant_from_args(args)
    entrants = entrants_from_args(args, args.bot)
    if len(entrants) != 1:
        raise UsageError(f"check takes one bot (and its option.NAME=VALUE words); got {len(entrants)}: "
                         f"{', '.join(e.name for e in entrants)}")
    (entrant,) = entrants
    out = args.out or default_out("check")
    report = run_trio(run_check, entrant, variant, args.games, args.seed, out, args.startup_timeout)
    print(report.render())
    return 0 if report.passed else 1


def _game_line(r: GameRecord) -> str:
    """One finished game for the progress line: who, the result, the totals, and a fault with its reason."""
    names = " vs ".join(s.entrant for s in r.seats)
    res = "-".join(f"{x:g}" for x in r.result)
    totals = ", ".join(str(t) for t in r.totals)  # not joined with '-': totals may be negative
    if r.termination is Termination.COMPLETED:
        return f"{r.game_id}: {names} {res} (totals {totals})"
    who = r.seats[r.culprit].entrant if r.culprit is not None and r.culprit < len(r.seats) else "?"
    return f"{r.game_id}: {names} {res} ({r.termination.value} by {who}: {r.detail})"


def check_bots_start(entrants, logs: Path, startup_timeout: float) -> None:
    """Stop before the first game, with the reason, if a bot cannot start (exit status 2)."""
    logs.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # the output folder is private (its secret key)
    failures = run_trio(preflight, entrants, logs, startup_timeout)
    if failures:
        raise UsageError("; ".join(f"bot {name} cannot start: {why}" for name, why in failures)
                         + f" (its stderr log is in {logs}/)")


def print_faults(records: list[GameRecord], logs: Path) -> None:
    """Faults by bot and kind, each with how many games and the first reason, and where the logs are."""
    from tournaments.standings import fault_rows

    rows = fault_rows(records)
    if rows:
        print(f"\nfaults (bot stderr logs, with each fault's reason, are in {logs}/):")
        print(tabulate(rows, headers=["bot", "fault", "games", "first reason"], tablefmt="github"))


def print_standings(records: list[GameRecord]) -> None:
    from tournaments.standings import STANDINGS_HEADERS, standings, standings_rows

    print(tabulate(standings_rows(standings(records)), headers=STANDINGS_HEADERS, tablefmt="github"))


def cmd_variants(args) -> int:
    if args.name:
        variant = variant_from_args(args)
        print(f"{variant.name}: {variant.summary}\nfollows: {variant.source}\nplayers: {variant.players}\n")
        rows = [[key, value, OPTIONS[key].help] for key, value in variant.settings(complete=True).items()]
        print(tabulate(rows, headers=["option", "value", "meaning"], tablefmt="github", maxcolwidths=[None, None, 70]))
        melds = [[kind, " / ".join("-" if v is None else str(v) for v in row)] for kind, row in variant.melds.values.items()]
        print()
        print(tabulate(melds, headers=["meld", "value single / double / ..."], tablefmt="github"))
        _print_rule_texts(variant.source)
        return 0
    rows = [[v.name, v.players, v.summary, v.source] for v in PRESETS.values()]
    print(tabulate(rows, headers=["variant", "players", "summary", "follows"], tablefmt="github",
                   maxcolwidths=[None, None, 50, 50]))
    print()
    rows = [[key, "|".join(opt.choices) if opt.choices else "<number>", opt.help] for key, opt in OPTIONS.items()]
    print(tabulate(rows, headers=["option", "values", "meaning"], tablefmt="github", maxcolwidths=[None, 30, 70]))
    _print_rule_texts(" ".join(v.source for v in PRESETS.values()))
    print("\n'pinochle-arena variants NAME [--option KEY=VALUE ...]' shows one variant's settings and meld table.")
    return 0


def _print_rule_texts(cited: str) -> None:
    """The titles of the rule texts cited by number (000...), so that a reader can find them."""
    numbers = sorted(set(re.findall(r"\b(00\d)\b", cited)) & set(RULE_TEXTS))
    if numbers:
        print("\nrule texts (docs/rules-sources.md):")
        for n in numbers:
            print(f"  {n}: {RULE_TEXTS[n]}")


def cmd_deals(args) -> int:
    from .deals import deals_of_records, generate_deals, render_deals

    if (args.results is None) == (args.seed is None):
        raise UsageError("give RESULTS (the deals of recorded games) or --seed (new deals), one of them")
    if args.seed is not None:
        variant = variant_from_args(args)
        deals = generate_deals(variant, args.seed, args.count, args.decks)
        comment = (f"{args.count} deals of {variant.name} generated from seed {args.seed} by pinochle-arena "
                   f"{installed_version()}")
    else:
        path = args.results / "games.jsonl" if args.results.is_dir() else args.results
        audit = verified_records(path, args.no_verify)
        if audit.findings:
            raise UsageError(f"{path}: {len(audit.findings)} record(s) failed the seal or schedule checks "
                             "('pinochle-arena replay' lists them); --no-verify reads every record, unverified")
        if not audit.records:
            raise UsageError(f"{path} holds no games")
        first = audit.records[0]
        variant = get_variant(first.variant, first.options)
        deals = deals_of_records(audit.records, variant)
        comment = f"the deals of the {len(audit.records)} games in {path}, in the order they were first played"
    text = render_deals(deals, comment)
    if args.out is None:
        sys.stdout.write(text)
    else:
        args.out.write_text(text, encoding="utf-8")
        print(f"{len(deals.deals)} deals of {variant.name} written to {args.out}")
    return 0


def cmd_replay(args) -> int:
    bad = 0
    total = 0
    rejected = 0
    for path in args.files:
        if path.is_dir():  # an output folder: its records
            path = path / "games.jsonl"
        audit = verified_records(path, args.no_verify)
        for finding in audit.findings:
            rejected += 1
            print(f"{path}:{finding.line}: {finding.game_id}: rejected: {finding.reason}")
        for record in audit.records:
            total += 1
            report = replay_record(record)
            if not report.ok:
                bad += 1
                for problem in report.problems:
                    print(f"{path}: {record.game_id}: {problem}")
            elif args.verbose:
                print(f"{path}: {record.game_id}: ok ({len(record.actions)} actions, {record.termination.value})")
    checks = "unverified" if args.no_verify else f"{rejected} rejected by the seal and schedule checks"
    print(f"replayed {total} game(s): {total - bad} consistent, {bad} with mismatches; {checks}")
    return 1 if bad or rejected else 0


def records_to_use(path: Path, no_verify: bool, verb: str, verbs: str) -> list[GameRecord]:
    """The records of ``path`` for a command that must not work from forged ones: every record that failed the
    seal or schedule checks is listed, and then the command refuses ("refusing to VERB PATH")."""
    audit = verified_records(path, no_verify)
    for finding in audit.findings:
        print(f"{path}:{finding.line}: {finding.game_id}: rejected: {finding.reason}", file=sys.stderr)
    if audit.findings:
        raise UsageError(f"refusing to {verb} {path}: {len(audit.findings)} record(s) failed the seal or schedule "
                         f"checks (listed above); --no-verify {verbs} every record, unverified")
    return audit.records


def verified_records(path: Path, no_verify: bool) -> Audit:
    """The records of ``path`` that pass the seal and schedule checks, and the findings on the others.

    With ``no_verify``: every record, unchecked, after a warning.
    """
    if no_verify:
        print(f"warning: {path}: --no-verify: seals and schedule not checked; these results are unverified",
              file=sys.stderr)
        return Audit(list(read_records(path, key=None)), [])
    try:
        return audit_results(path)
    except (KeyFileError, ScheduleError) as e:
        raise UsageError(f"{e}; records written before they were sealed can be read with --no-verify "
                         "(unverified)") from None


# Flags that may differ when a tournament is resumed: how it runs and what is printed, not which games it plays.
RESUME_FLAGS = ("resume", "out", "concurrency", "processes", "cluster", "bootstrap", "transcripts", "pgn",
                "no_report", "startup_timeout")


def cmd_tournament(args) -> int:
    from tournaments.config import ConfigError, load_saved_config, parse_cluster, with_flags
    from tournaments.schedule import schedule
    from tournaments.store import ResultStore, StoreError, tournament_schedule

    resume_out = _resume_folder(args)
    try:
        if resume_out is not None:
            config, data, path = load_saved_config(resume_out, args.concurrency)
        else:
            config, data, path = _tournament_config(args)
    except ConfigError as e:
        raise UsageError(str(e)) from None
    if args.processes is not None:
        config = attrs.evolve(config, processes=args.processes)
    if args.cluster is not None and resume_out is not None:  # how it runs, not which games: may change on resume
        data = with_flags(data, cluster={"address": args.cluster})
        try:
            config = attrs.evolve(config, cluster=parse_cluster(data["cluster"], "--cluster"))
        except ConfigError as e:
            raise UsageError(str(e)) from None
    resuming = args.resume is not None
    store = ResultStore(config.output)
    given_seed = config.seed
    if config.seed is None:  # a secret one: drawn now, or the one drawn when the tournament started
        config = attrs.evolve(config, seed=_saved_seed(store) if resuming else secrets.randbits(128))
    specs = schedule(config)
    try:
        if resuming:
            recovery = store.resume(config.fingerprint(), tournament_schedule(config, specs))
        else:
            store.start(config.fingerprint(), tournament_schedule(config, specs))
            recovery = None
    except StoreError as e:
        raise UsageError(str(e)) from None
    from tournaments.config import save_config

    save_config(config.output, data, path)
    done = set()
    if recovery is not None:
        warn_set_aside(store, recovery)
        done = {r.game_id for r in recovery.records}
        print(f"resuming: {len(done)} of {len(specs)} games already played")
    todo = [s for s in specs if s.game_id not in done]
    names = [e.name for e in config.entrants]
    print(f"tournament '{config.name}': {config.format}, {config.variant.name}, {', '.join(names)}; "
          f"{_per_pairing(config)}, {'duplicate' if config.duplicate else 'independent'} deals, "
          f"{_seed_text(given_seed) if config.deals is None else f'{len(config.deals.deals)} deals of a deal file'}, "
          f"{_where_played(config)}; results in {store.games_path}")
    print(isolation_summary(config.entrants[0].sandbox))
    if config.cluster is not None and any(e.sandbox.isolation.value == "none" for e in config.entrants):
        print("WARNING: on a cluster an unjailed bot can also reach the Dask scheduler, and through it run code on "
              "every worker and change results", file=sys.stderr)
    check_bots_start(config.entrants, config.output / "logs", args.startup_timeout)
    progress = Progress(len(specs), start=len(done))
    finished = len(done)
    live = list(recovery.records) if recovery is not None else []
    per_worker: collections.Counter = collections.Counter()  # on a cluster: this run's games by worker

    def on_game(record: GameRecord) -> None:
        nonlocal finished
        finished += 1
        live.append(record)
        workers = ""
        if "worker" in record.extra:
            per_worker[record.extra["worker"]] += 1
            workers = "  workers: " + ", ".join(f"{w.split('://')[-1]} {n}" for w, n in sorted(per_worker.items()))
        progress.update(finished, f"leader: {_leader(live)}{workers}  last: {_game_line(record)}")

    from tournaments.runner import run_games

    try:
        run_cluster_aware(run_games, config, todo, store, on_game, args.transcripts)
    except KeyboardInterrupt:
        progress.close()
        print(f"\nstopped: {finished} of {len(specs)} games are saved in {store.games_path}.\n"
              f"To continue: pinochle-arena tournament --resume {config.output}", file=sys.stderr)
        return 130
    progress.close()
    if per_worker:
        print("\ngames this run played on each cluster worker (bots' logs: "
              f"{config.output / 'logs' / 'cluster'}/WORKER/):")
        print(tabulate(sorted(per_worker.items()), headers=["worker", "games"], tablefmt="github"))
    records = store.recover().records
    summary = _print_report(records, config.output, anchor=config.anchor, bootstrap=args.bootstrap,
                            title=f"\n{config.name}: {len(records)} games")
    if args.pgn is not None:
        _write_pgn(records, args.pgn)
    print_faults(records, config.output / "logs")
    if not args.no_report:
        write_html_report(records, config.output, f"tournament '{config.name}'", summary)
    return 0


def _where_played(config) -> str:
    if config.cluster is not None:
        return f"on the Dask cluster at {config.cluster.address} ({config.cluster.batch} games a task)"
    return f"concurrency {config.concurrency} in {config.referee_processes} referee process(es)"


def run_cluster_aware(function, config, *args):
    """:func:`run_trio`, with a cluster's failure (tournaments.cluster.ClusterError) as an error that says how
    to go on."""
    try:
        return run_trio(function, config, *args)
    except BaseExceptionGroup as group:
        from tournaments.cluster import ClusterError

        found, rest = group.split(ClusterError)
        if found is None or rest is not None:
            raise
        while isinstance(found, BaseExceptionGroup):
            found = found.exceptions[0]
        raise UsageError(f"the cluster: {found}\nEvery game that came back is saved; to continue: "
                         f"pinochle-arena tournament --resume {config.output} [--cluster ADDRESS | --cluster none]") \
            from None


def _per_pairing(config) -> str:
    if config.boards:
        return f"{config.boards} boards per pairing ({config.games_per_pairing} one-hand games)"
    return f"{config.games_per_pairing} games per pairing"


def _resume_folder(args) -> Path | None:
    """The output folder of ``--resume OUT`` (the configuration is read from it), or None.

    ``--resume CONFIG`` (a file) is read as ``CONFIG --resume``. With OUT, only
    the flags of RESUME_FLAGS may be given: everything else is kept in OUT.
    """
    if not isinstance(args.resume, str):
        return None
    given = Path(args.resume)
    if given.is_file() and args.config is None:
        args.config, args.resume = given, True
        return None
    if args.config is not None:
        raise UsageError(f"--resume {given} continues the tournament kept in {given}; give either a configuration "
                         "or the output folder, not both")
    if args.out is not None and args.out != given:
        raise UsageError(f"--resume {given} and --out {args.out} name two folders; give one")
    _refuse_changes(args, "tournament", f"--resume {given}: the tournament's configuration is kept in {given}, so")
    return given


def _tournament_config(args):
    """The configuration of a new (or, with ``CONFIG --resume``, resumed) tournament: the TOML file or the
    embedded default, with the command line's flags over it. Returns (config, its data, the path it is read as)."""
    from tournaments.config import default_data, load_toml, parse_config, with_flags

    bots = bot_tables_from_args(args.bot)
    if args.config is not None:
        data, path = load_toml(args.config), args.config
    else:
        data, path = (default_data() if not bots else {}), Path.cwd() / "tournament.toml"
    t: dict = {}
    for key, value in (("format", args.format), ("candidate", args.candidate), ("anchor", args.anchor),
                       ("name", args.name), ("variant", args.variant), ("games_per_pairing", args.games),
                       ("seed", args.seed), ("processes", args.processes), ("isolation", args.isolation),
                       ("restart", args.restart)):
        if value is not None:
            t[key] = value
    if args.no_duplicate:
        t["duplicate"] = False
    if args.boards is not None and args.games is not None:
        raise UsageError("give --games (whole games) or --boards (one hand in every seating of a deal), not both")
    if args.boards is not None:  # boards instead of the configuration's games, and the other way round
        t["boards"], t["games_per_pairing"] = args.boards, None
    elif args.games is not None:
        t["boards"] = None
    if args.persist:
        t["persist"] = True
    if args.inherit_env:
        t["clean_env"] = False
    if args.read_only:
        t["read_only"] = read_only_from_args(args)
    if args.deals is not None:
        t["deals"] = str(args.deals.absolute())
    time = {key: value for key, value in (("move", args.time_per_move), ("bank", args.time_bank),
                                          ("increment", args.increment), ("grace", args.grace)) if value is not None}
    options = dict(parse_option_text(o) for o in args.option)
    cluster = {"address": args.cluster} if args.cluster is not None else None
    flagged = bool(t or time or options or args.limit or bots or cluster)
    data = with_flags(data, t, options, time, limits_from_args(args), bots, cluster)
    where = str(args.config) if args.config is not None else ("command line" if bots else "embedded default")
    if flagged and args.config is not None:
        where += " (with the command line's flags)"
    output = args.out or (None if args.config is not None else Path("results") / "tournament")
    return parse_config(data, path, output, args.concurrency, where=where), data, path


BOT_NAME = re.compile(r"([A-Za-z0-9_.-]+)=(.+)", re.DOTALL)


def bot_tables_from_args(groups: list[list[str]]) -> list[dict]:
    """``--bot [NAME=]BOT [option.KEY=VALUE ...]`` flags -> [[bot]] tables of a configuration.

    A command's relative paths are made absolute here (they mean the current
    folder, not the configuration's).
    """
    tables = []
    for words in groups:
        grouped = bots_with_options(words)
        if len(grouped) != 1:
            raise UsageError(f"--bot {' '.join(words)}: one bot per --bot (quote a command line with spaces: "
                             "--bot 'mine=./mybot --fast')")
        (text, options), = grouped
        named = BOT_NAME.fullmatch(text)
        name, text = (named.group(1), named.group(2)) if named else (None, text)
        table: dict = {"sample": text} if text in SAMPLES else {"command": resolve_bot(text)[1].to_text()}
        table["name"] = name or resolve_bot(text)[0]
        if options:
            table["options"] = dict(options)
        tables.append(table)
    names = unique_names([t["name"] for t in tables])
    return [{**t, "name": n} for t, n in zip(tables, names, strict=True)]


def _saved_seed(store) -> int | None:
    """The seed a tournament in ``store`` started with (None if there is none to read: resume then says why)."""
    import json

    try:
        return json.loads(store.meta_path.read_text(encoding="utf-8")).get("seed")
    except (OSError, ValueError):
        return None


def _leader(records: list[GameRecord]) -> str:
    from tournaments.standings import standings

    rows = standings(records)
    return f"{rows[0].entrant} {rows[0].percent:.0f}%" if rows else "-"


def _print_report(records: list[GameRecord], out: Path | None, anchor: str | None, bootstrap: int, title: str = "",
                  anchor_rating: float = 0.0):
    """Print the summary that fits ``records`` (and write its files to ``out``); returns it (None: no records)."""
    from tournaments.report import as_text
    from tournaments.summary import summarise

    if not records:
        print("no games to rate")
        return None
    try:
        summary = summarise(records, anchor=anchor, bootstrap=bootstrap, level=anchor_rating)
    except ValueError as e:
        raise UsageError(str(e)) from None
    print(as_text(summary.parts(title)))
    if out is not None:
        print(f"\nwritten: {', '.join(str(f) for f in summary.write(out))}")
    return summary


def write_html_report(records: list[GameRecord], out: Path, title: str, summary=None, bootstrap: int = 300) -> Path:
    """OUT/report/index.html (viewer.report), with its path printed."""
    from viewer.report import write_report

    index = write_report(records, out / "report", title, summary=summary, bootstrap=bootstrap)
    print(f"report: {index}")
    return index


def cmd_report(args) -> int:
    folder = args.results
    if not (folder / "games.jsonl").is_file():
        raise UsageError(f"{folder}: not a results folder (it has no games.jsonl)")
    records = records_to_use(folder / "games.jsonl", args.no_verify, "report on", "reports")
    unverified = " (unverified: --no-verify, seals and schedule not checked)" if args.no_verify else ""
    index = write_html_report(records, folder, f"{folder.resolve().name}: {len(records)} games{unverified}",
                              bootstrap=args.bootstrap)
    if args.open:
        import webbrowser

        webbrowser.open(index.as_uri())
    return 0


def cmd_ratings(args) -> int:
    path = args.results / "games.jsonl" if args.results.is_dir() else args.results
    records = records_to_use(path, args.no_verify, "rate", "rates")
    if not records:
        raise UsageError(f"{path} holds no games")
    from tournaments.multi import sides_of

    names = {side for r in records for side in sides_of(r)}
    if args.anchor is not None and args.anchor not in names:
        raise UsageError(f"--anchor {args.anchor!r} played no game; entrants: {', '.join(sorted(names))}")
    _print_report(records, args.out, args.anchor, args.bootstrap, f"{path}: {len(records)} games", args.anchor_rating)
    if args.pgn is not None:
        _write_pgn(records, args.pgn)
    return 0


def _write_pgn(records: list[GameRecord], path: Path) -> None:
    from tournaments.report import to_pgn

    path.write_text(to_pgn(records), encoding="utf-8")
    print(f"PGN written to {path} (seat 0 as White); for Ordo: ordo -p {path} -z 200.24094022767414 -a 0")


def cmd_sprt(args) -> int:
    if args.resume is not None:
        args = resumed_arguments(args, "sprt")
    boards = args.boards is not None
    if boards and args.max_pairs != MAX_PAIRS:
        raise UsageError("--boards N is the most boards the test plays: give it or --max-pairs, not both")
    from tournaments.config import default_concurrency
    from tournaments.report import elo_text
    from tournaments.sprt_runner import run_sprt, sprt_games
    from tournaments.stats import Sprt

    variant = variant_from_args(args, boards=boards)
    if variant.players != 2:
        raise UsageError("sprt compares two bots; choose a two-player variant")
    try:
        test = Sprt(args.elo0, args.elo1, args.alpha, args.beta)
    except ValueError as e:
        raise UsageError(str(e)) from None
    entrants = entrants_from_args(args, args.bots)
    if len(entrants) != 2:
        raise UsageError(f"sprt takes two bots, NEW then OLD (each followed by its option.NAME=VALUE words); got "
                         f"{len(entrants)}")
    new, old = entrants
    new_name, old_name = new.name, old.name
    deals = deals_from_args(args, variant)
    pairs = args.boards or args.max_pairs
    seed, out = seed_and_out(args, "sprt")
    print(f"sprt: {new_name} vs {old_name}, H0: elo <= {args.elo0:g}, H1: elo >= {args.elo1:g}, "
          f"alpha {args.alpha:g}, beta {args.beta:g}; LLR bounds [{test.lower:.2f}, {test.upper:.2f}]; "
          f"{_deals_text(args, deals)}; games in {out}/games.jsonl")
    print(isolation_summary(new.sandbox))
    check_bots_start((new, old), out / "logs", args.startup_timeout)
    store, played = open_results(args, "sprt", seed, out, sprt_games(variant, new, old, pairs), deals)
    if played:
        print(f"resuming: {len(played)} games already played")
    live = sys.stderr.isatty()

    def on_pair(state) -> None:
        e = _sprt_estimate(state)
        so_far = f"boards {state.pairs}  score {100 * e.score:.1f}%" if boards else \
            f"pairs {state.pairs}  pentanomial {state.penta}"
        line = (f"{so_far}  {elo_text(e)}  "
                f"LLR {state.llr():+.2f} [{test.lower:.2f}, {test.upper:.2f}]")
        sys.stderr.write(("\r" + line + "   ") if live else line + "\n")
        sys.stderr.flush()

    concurrency = args.concurrency or default_concurrency()
    try:
        state = run_trio(run_sprt, new, old, variant, test, seed, concurrency, pairs, out, on_pair, store,
                         played, deals, boards)
    except KeyboardInterrupt:
        print(f"\nstopped; every finished game is saved in {store.games_path}.\n"
              f"To continue: pinochle-arena sprt --resume {out}", file=sys.stderr)
        return 130
    finally:
        if live:
            sys.stderr.write("\n")
    e = _sprt_estimate(state) if state.pairs else None
    unit = "boards" if boards else "pairs"
    summary = f"{state.pairs} {unit}, {elo_text(e)}, LLR {state.llr():+.2f}" if e else f"no {unit}"
    if state.verdict == "H1":
        print(f"H1 accepted: {new_name} is stronger ({summary})")
        return 0
    if state.verdict == "H0":
        print(f"H0 accepted: {new_name} is not stronger by {args.elo1:g} Elo ({summary})")
        return 1
    print(f"undecided after {'--boards ' + str(args.boards) if boards else '--max-pairs ' + str(args.max_pairs)} "
          f"({summary})")
    return 3


def _sprt_estimate(state):
    """Elo and its interval so far: from the board scores, or the pentanomial of the pairs."""
    from tournaments.stats import bounded_estimate, elo_estimate

    return bounded_estimate(state.scores) if state.board_scale else elo_estimate(state.penta)
