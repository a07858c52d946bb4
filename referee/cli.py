"""The ``pinochle-arena`` command line: argument parsing and printing only."""

from __future__ import annotations

import argparse
import datetime
import sys
from pathlib import Path

import trio
from tabulate import tabulate

from .clock import TimeControl
from .match import Entrant, MatchPlan, run_match
from .progress import Progress
from .record import GameRecord, RecordError, Termination, read_records
from .replay import replay_record
from .rules import OPTIONS, PRESETS, VariantError, get_variant
from .rules.variants import parse_option_text
from .samples import SAMPLES, resolve_bot, unique_names
from .transport import BotError


class UsageError(Exception):
    """A mistake in what the user asked for; printed without a traceback."""


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        return args.handler(args)
    except (UsageError, VariantError, RecordError, BotError) as e:
        print(f"pinochle-arena: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\npinochle-arena: interrupted; every finished game is in the records file", file=sys.stderr)
        return 130


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pinochle-arena",
        description="Referee and tournament harness for Pinochle bots.",
    )
    sub = parser.add_subparsers(title="commands", metavar="COMMAND")

    p = sub.add_parser("match", help="play games between bots", description=(
        "Play games between bots. BOT is a sample bot's name (" + ", ".join(SAMPLES) + ") or any command line "
        "that starts a bot, e.g. './mybot --fast' or 'node bot.js'. Games go in pairs with the same cards "
        "and the seats swapped."))
    p.add_argument("bots", nargs="+", metavar="BOT", help="one bot per seat, in seat order")
    add_variant_arguments(p)
    p.add_argument("--games", type=positive_int, default=20, help="games to play (default 20)")
    p.add_argument("--seed", type=int, default=None, help="seed for the deals (default: from the clock; printed)")
    add_time_arguments(p)
    p.add_argument("--out", type=Path, default=None, help="output directory (default results/match-TIMESTAMP)")
    p.add_argument("--no-legal", action="store_true", help="do not send the legal actions with each request")
    p.add_argument("--transcripts", action="store_true",
                   help="write every protocol line to OUT/logs/BOT.protocol.log ('>' to the bot, '<' from it)")
    p.set_defaults(handler=cmd_match)

    p = sub.add_parser("variants", help="list variants and their options, or show one variant's settings")
    p.add_argument("name", nargs="?", help="a variant to show in full")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE", help="show the variant with this option")
    p.set_defaults(handler=cmd_variants, variant=None)

    p = sub.add_parser("replay", help="replay recorded games through the rules and report mismatches")
    p.add_argument("files", nargs="+", type=Path, metavar="FILE", help="games.jsonl files")
    p.add_argument("--verbose", "-v", action="store_true", help="one line per game")
    p.set_defaults(handler=cmd_replay)
    return parser


def add_variant_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--variant", default="two-handed", help="variant preset (default two-handed; see 'variants')")
    p.add_argument("--option", action="append", default=[], metavar="KEY=VALUE",
                   help="change one rule of the preset, e.g. target=1200 (repeatable)")


def add_time_arguments(p: argparse.ArgumentParser) -> None:
    d = TimeControl()
    p.add_argument("--time-per-move", type=positive_int, default=d.move_ms, metavar="MS",
                   help=f"limit for one reply in ms (default {d.move_ms})")
    p.add_argument("--time-bank", type=positive_int, default=d.bank_ms, metavar="MS",
                   help=f"time bank per game in ms (default {d.bank_ms})")
    p.add_argument("--increment", type=nonneg_int, default=d.increment_ms, metavar="MS",
                   help=f"added to the bank after each reply (default {d.increment_ms})")
    p.add_argument("--grace", type=nonneg_int, default=d.grace_ms, metavar="MS",
                   help=f"tolerance beyond the limit before a reply counts as late (default {d.grace_ms})")
    p.add_argument("--startup-timeout", type=float, default=10.0, metavar="S",
                   help="seconds a bot has to start and say ready (default 10)")


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


def variant_from_args(args):
    options = dict(parse_option_text(o) for o in args.option)
    return get_variant(getattr(args, "name", None) or args.variant, options)


def time_control_from_args(args) -> TimeControl:
    return TimeControl(bank_ms=args.time_bank, increment_ms=args.increment, move_ms=args.time_per_move, grace_ms=args.grace)


def default_out(kind: str) -> Path:
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    return Path("results") / f"{kind}-{stamp}"


def cmd_match(args) -> int:
    variant = variant_from_args(args)
    if len(args.bots) != variant.players:
        raise UsageError(f"variant {variant.name} seats {variant.players} players; got {len(args.bots)} bots "
                         f"({' '.join(args.bots)})")
    resolved = [resolve_bot(b) for b in args.bots]
    names = unique_names([name for name, _ in resolved])
    tc = time_control_from_args(args)
    entrants = tuple(Entrant(n, cmd, tc) for n, (_, cmd) in zip(names, resolved))
    seed = args.seed if args.seed is not None else int(datetime.datetime.now().timestamp())
    out = args.out or default_out("match")
    if (out / "games.jsonl").exists():
        raise UsageError(f"{out / 'games.jsonl'} already exists; choose another --out")
    plan = MatchPlan(entrants, variant, args.games, seed, out, not args.no_legal, args.startup_timeout, args.transcripts)
    print(f"match: {' vs '.join(names)}, {variant.name}, {args.games} games, seed {seed}, records in {out}/games.jsonl")
    progress = Progress(args.games)
    records: list[GameRecord] = []

    def on_game(record: GameRecord) -> None:
        records.append(record)
        progress.update(len(records), _game_line(record))

    try:
        trio.run(run_match, plan, on_game)
    finally:
        progress.close()
    print_standings(records)
    faulty = [r for r in records if r.termination is not Termination.COMPLETED]
    if faulty:
        print(f"{len(faulty)} game(s) ended on a fault; bot stderr logs are in {out}/logs/")
    return 0


def _game_line(r: GameRecord) -> str:
    names = " vs ".join(s.entrant for s in r.seats)
    res = "-".join(f"{x:g}" for x in r.result)
    how = r.termination.value if r.termination is Termination.COMPLETED else f"{r.termination.value} by seat {r.culprit}"
    return f"{r.game_id}: {names} {res} ({how}; {'-'.join(str(t) for t in r.totals)})"


def print_standings(records: list[GameRecord]) -> None:
    from tournaments.standings import STANDINGS_HEADERS, standings, standings_rows

    print(tabulate(standings_rows(standings(records)), headers=STANDINGS_HEADERS, tablefmt="github"))


def cmd_variants(args) -> int:
    if args.name:
        variant = variant_from_args(args)
        print(f"{variant.name}: {variant.summary}\nfollows: {variant.source}\nplayers: {variant.players}\n")
        rows = [[key, value, OPTIONS[key].help] for key, value in variant.settings().items()]
        print(tabulate(rows, headers=["option", "value", "meaning"], tablefmt="github", maxcolwidths=[None, None, 70]))
        melds = [[kind, " / ".join("-" if v is None else str(v) for v in row)] for kind, row in variant.melds.values.items()]
        print()
        print(tabulate(melds, headers=["meld", "value single / double / ..."], tablefmt="github"))
        return 0
    rows = [[v.name, v.players, v.summary, v.source] for v in PRESETS.values()]
    print(tabulate(rows, headers=["variant", "players", "summary", "follows"], tablefmt="github",
                   maxcolwidths=[None, None, 50, 50]))
    print()
    rows = [[key, "|".join(opt.choices) if opt.choices else "<number>", opt.help] for key, opt in OPTIONS.items()]
    print(tabulate(rows, headers=["option", "values", "meaning"], tablefmt="github", maxcolwidths=[None, 30, 70]))
    print("\n'pinochle-arena variants NAME [--option KEY=VALUE ...]' shows one variant's settings and meld table.")
    return 0


def cmd_replay(args) -> int:
    bad = 0
    total = 0
    for path in args.files:
        for record in read_records(path):
            total += 1
            report = replay_record(record)
            if not report.ok:
                bad += 1
                for problem in report.problems:
                    print(f"{path}: {record.game_id}: {problem}")
            elif args.verbose:
                print(f"{path}: {record.game_id}: ok ({len(record.actions)} actions, {record.termination.value})")
    print(f"replayed {total} game(s): {total - bad} consistent, {bad} with mismatches")
    return 1 if bad else 0
