"""The ``pinochle-arena`` command line: argument parsing and printing only."""

from __future__ import annotations

import argparse
import datetime
import difflib
import importlib.metadata
import re
import secrets
import sys
from pathlib import Path

import attrs
import trio
from tabulate import tabulate

from .clock import TimeControl
from .audit import Audit, ScheduleError, audit_results
from .compliance import run_check
from .integrity import KeyFileError
from .match import Entrant, MatchPlan, Restart, preflight, run_match
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
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        return args.handler(args)
    except (UsageError, VariantError, RecordError, BotError, KeyFileError, ScheduleError) as e:
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
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    sub = parser.add_subparsers(title="commands", metavar="COMMAND", parser_class=Parser)

    p = sub.add_parser("match", help="play games between bots", description=(
        "Play games between bots. BOT is a sample bot's name (" + ", ".join(SAMPLES) + ") or any command line "
        "that starts a bot, e.g. './mybot --fast' or 'node bot.js'. Give one bot per seat, seat 0 first "
        "(partners sit opposite: seats 0 and 2, the first and third BOT, against 1 and 3). Games go in groups of one per seat with the same cards and "
        "the seating rotated, so every bot holds every hand."))
    p.add_argument("bots", nargs="+", metavar="BOT", help="one bot per seat, in seat order; a bot's options "
                   "(protocol 3) follow it as option.NAME=VALUE, e.g. './mybot option.depth=4 greedy'")
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
        "Run a tournament from a TOML configuration, or with no configuration the embedded default: a "
        "duplicate round robin of every sample bot. Finished games are saved at once; --resume continues "
        "an interrupted tournament. See tournaments/*.toml for examples."))
    p.add_argument("config", nargs="?", type=Path, help="tournament configuration (TOML)")
    p.add_argument("--resume", action="store_true", help="continue the tournament in the output directory")
    p.add_argument("--out", type=Path, default=None, help="output directory (default: from the configuration)")
    p.add_argument("--concurrency", type=positive_int, default=None, help="games at once (default: cores)")
    p.add_argument("--processes", type=positive_int, default=None,
                   help="referee processes to spread the games over (default: cores, at most --concurrency)")
    p.add_argument("--no-duplicate", action="store_true", help="independent deals instead of duplicate pairs")
    p.add_argument("--games", type=positive_int, default=None, help="games per pairing (overrides the configuration)")
    p.add_argument("--seed", type=int, default=None, help="tournament seed (overrides the configuration)")
    p.add_argument("--bootstrap", type=nonneg_int, default=300, help="bootstrap samples for intervals (default 300)")
    p.add_argument("--transcripts", action="store_true", help="log every protocol line per bot")
    p.add_argument("--pgn", type=Path, default=None, help="also write the results as PGN (for Ordo or BayesElo)")
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
        "Sequential probability ratio test (GSPRT on duplicate pair scores, as fishtest): plays pairs of games "
        "until H1 (NEW is at least ELO1 stronger) or H0 (at most ELO0) is accepted. Exit status: 0 when H1 "
        "is accepted, 1 when H0 is accepted, 3 when --max-pairs ran out undecided, 2 on bad input."))
    p.add_argument("bots", nargs="+", metavar="NEW OLD", help="the candidate bot, then the baseline; each may be "
                   "followed by its options as option.NAME=VALUE (the same bot with other options: "
                   "'mybot option.depth=5 mybot option.depth=4')")
    p.add_argument("--elo0", type=float, default=0.0, help="H0: NEW is at most this much stronger (default 0)")
    p.add_argument("--elo1", type=float, default=5.0, help="H1: NEW is at least this much stronger (default 5)")
    p.add_argument("--alpha", type=float, default=0.05, help="false positive rate (default 0.05)")
    p.add_argument("--beta", type=float, default=0.05, help="false negative rate (default 0.05)")
    p.add_argument("--max-pairs", type=positive_int, default=20000, help="give up undecided after this many pairs")
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

    p = sub.add_parser("replay", help="replay recorded games through the rules and report mismatches")
    p.add_argument("files", nargs="+", type=Path, metavar="FILE",
                   help="games.jsonl files, or output folders (their games.jsonl)")
    p.add_argument("--verbose", "-v", action="store_true", help="one line per game")
    add_no_verify_argument(p)
    p.set_defaults(handler=cmd_replay)
    return parser


def _version() -> str:
    try:
        return importlib.metadata.version("pinochle-arena")
    except importlib.metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "(not installed)"


def add_no_verify_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--no-verify", action="store_true",
                   help="read the records without checking their seals (OUT/secret.key) and schedule "
                        "(OUT/schedule.jsonl): for records written before they were sealed; the results are unverified")


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
    add_fence_arguments(p)


def add_fence_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--limit", action="append", default=[], metavar="KEY=N",
                   help="resource limit per bot process, 0 for none (repeatable): "
                        + ", ".join(f"{k} (default {v})" for k, v in Limits().to_dict().items()))
    p.add_argument("--isolation", choices=[i.value for i in Isolation], default="jail",
                   help="'jail' (default): each bot in a bubblewrap jail of its own; 'none': unjailed, NOT safe "
                        "against hostile bots (see README, Running a competition)")
    p.add_argument("--read-only", action="append", default=[], metavar="PATH",
                   help="a folder or file jailed bots may read besides their own program's folder (repeatable)")
    p.add_argument("--persist", action="store_true",
                   help="let a bot keep its process and files from game to game (default: fresh for every game, "
                        "so nothing learnt in one seating of a deal survives into the next)")
    p.add_argument("--inherit-env", action="store_true",
                   help="give unjailed bots the referee's environment (default: a clean one)")
    p.add_argument("--restart", choices=[r.value for r in Restart], default="on-fault",
                   help="with --persist, when a bot gets a fresh process (default on-fault); 'never' also "
                        "retires a bot after its first fault")


def fence_from_args(args) -> tuple[Sandbox, Restart, bool]:
    values = {}
    for text in args.limit:
        key, sep, value = text.partition("=")
        if not sep or not value.strip().isdigit():
            raise UsageError(f"--limit {text!r}: write KEY=N, e.g. --limit memory=1024")
        values[key.strip()] = int(value)
    try:
        limits = Limits.from_dict(values)
    except ValueError as e:
        raise UsageError(f"--limit: {e}") from None
    read_only = []
    for text in args.read_only:
        path = Path(text).expanduser()
        if not path.exists():
            raise UsageError(f"--read-only {text}: no such file or folder")
        read_only.append(str(path.resolve()))
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


def variant_from_args(args):
    options = dict(parse_option_text(o) for o in args.option)
    return get_variant(getattr(args, "name", None) or args.variant, options)


def time_control_from_args(args) -> TimeControl:
    return TimeControl(bank_ms=args.time_bank, increment_ms=args.increment, move_ms=args.time_per_move, grace_ms=args.grace)


OPTION_PREFIX = "option."


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
    """--seed (default: a secret one) and --out (default results/KIND-TIMESTAMP), refusing to overwrite results."""
    seed = args.seed if args.seed is not None else secrets.randbits(128)
    out = args.out or default_out(kind)
    if (out / "games.jsonl").exists():
        raise UsageError(f"{out / 'games.jsonl'} already exists; choose another --out")
    return seed, out


def default_out(kind: str) -> Path:
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    return Path("results") / f"{kind}-{stamp}"


def cmd_match(args) -> int:
    variant = variant_from_args(args)
    bots = [b for b, _ in bots_with_options(args.bots)]
    if len(bots) != variant.players:
        raise UsageError(f"variant {variant.name} seats {variant.players} players; got {len(bots)} bots "
                         f"({' '.join(bots)})")
    entrants = entrants_from_args(args, args.bots)
    seats = variant.players
    games = args.games if args.games is not None else -(-20 // seats) * seats
    if games % seats and not args.no_duplicate:
        raise UsageError(f"--games {games}: each deal is played once per seating ({seats} games), so give a "
                         f"multiple of {seats}, or --no-duplicate for a new deal every game")
    names = [e.name for e in entrants]
    seed, out = seed_and_out(args, "match")
    plan = MatchPlan(entrants, variant, games, seed, out, args.startup_timeout, args.transcripts,
                     duplicate=not args.no_duplicate)
    print(f"match: {' vs '.join(names)}, {variant.name}, {games} games, {_seed_text(args.seed)}, "
          f"records in {out}/games.jsonl")
    print(isolation_summary(entrants[0].sandbox))
    check_bots_start(entrants, out / "logs", args.startup_timeout)
    progress = Progress(games)
    records: list[GameRecord] = []

    def on_game(record: GameRecord) -> None:
        records.append(record)
        progress.update(len(records), _game_line(record))

    try:
        run_trio(run_match, plan, on_game)
    finally:
        progress.close()
    print_standings(records)
    print_faults(records, out / "logs")
    return 0


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
        rows = [[key, value, OPTIONS[key].help] for key, value in variant.settings().items()]
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


def cmd_tournament(args) -> int:
    from tournaments.config import ConfigError, default_config, load_config
    from tournaments.schedule import schedule
    from tournaments.store import ResultStore, StoreError, tournament_schedule

    try:
        if args.config is not None:
            config = load_config(args.config, args.out, args.concurrency)
        else:
            config = default_config(args.out, args.concurrency)
    except ConfigError as e:
        raise UsageError(str(e)) from None
    changes = {}
    if args.no_duplicate:
        changes["duplicate"] = False
    if args.games is not None:
        changes["games_per_pairing"] = args.games
    if args.seed is not None:
        changes["seed"] = args.seed
    if args.processes is not None:
        changes["processes"] = args.processes
    if changes:
        from tournaments.schedule import group_size

        config = attrs.evolve(config, **changes)
        if config.duplicate and config.games_per_pairing % group_size(config):
            raise UsageError(f"--games must be a multiple of {group_size(config)} with duplicate deals "
                             "(every deal is played once per seating)")
    store = ResultStore(config.output)
    given_seed = config.seed
    if config.seed is None:  # a secret one: drawn now, or the one drawn when the tournament started
        config = attrs.evolve(config, seed=_saved_seed(store) if args.resume else secrets.randbits(128))
    specs = schedule(config)
    try:
        if args.resume:
            recovery = store.resume(config.fingerprint(), tournament_schedule(config, specs))
        else:
            store.start(config.fingerprint(), tournament_schedule(config, specs))
            recovery = None
    except StoreError as e:
        raise UsageError(str(e)) from None
    done = set()
    if recovery is not None:
        for number, reason in recovery.bad_lines:
            print(f"warning: {store.games_path}:{number}: set aside ({reason}); kept in {store.games_path.name}.bad",
                  file=sys.stderr)
        done = {r.game_id for r in recovery.records}
        print(f"resuming: {len(done)} of {len(specs)} games already played")
    todo = [s for s in specs if s.game_id not in done]
    names = [e.name for e in config.entrants]
    print(f"tournament '{config.name}': {config.format}, {config.variant.name}, {', '.join(names)}; "
          f"{config.games_per_pairing} games per pairing, {'duplicate' if config.duplicate else 'independent'} deals, "
          f"{_seed_text(given_seed)}, concurrency {config.concurrency} in {config.referee_processes} referee "
          f"process(es); results in {store.games_path}")
    print(isolation_summary(config.entrants[0].sandbox))
    check_bots_start(config.entrants, config.output / "logs", 10.0)
    progress = Progress(len(specs), start=len(done))
    finished = len(done)
    live = list(recovery.records) if recovery is not None else []

    def on_game(record: GameRecord) -> None:
        nonlocal finished
        finished += 1
        live.append(record)
        progress.update(finished, f"leader: {_leader(live)}  last: {_game_line(record)}")

    from tournaments.runner import run_games

    try:
        run_trio(run_games, config, todo, store, on_game, args.transcripts)
    except KeyboardInterrupt:
        progress.close()
        how = f"pinochle-arena tournament {args.config or ''} --resume".replace("  ", " ")
        if args.out is not None:
            how += f" --out {args.out}"
        print(f"\nstopped: {finished} of {len(specs)} games are saved in {store.games_path}.\nTo continue: {how}",
              file=sys.stderr)
        return 130
    progress.close()
    records = store.recover().records
    _print_report(records, config.output, anchor=config.anchor, bootstrap=args.bootstrap,
                  title=f"\n{config.name}: {len(records)} games")
    if args.pgn is not None:
        _write_pgn(records, args.pgn)
    print_faults(records, config.output / "logs")
    return 0


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
                  anchor_rating: float = 0.0) -> None:
    from tournaments.multi import (
        analyse_multi,
        is_multi,
        render_multi,
        write_multi_files,
    )
    from tournaments.report import analyse, render, write_files

    if not records:
        print("no games to rate")
        return
    if is_multi(records):
        multi = analyse_multi(records, anchor=anchor, bootstrap=bootstrap, level=anchor_rating)
        print(render_multi(multi, title))
        if out is not None:
            files = write_multi_files(multi, out)
            print(f"\nwritten: {', '.join(str(f) for f in files)}")
        return
    try:
        report = analyse(records, anchor=anchor, bootstrap=bootstrap)
    except ValueError as e:
        raise UsageError(str(e)) from None
    print(render(report, title))
    if out is not None:
        files = write_files(report, out)
        print(f"\nwritten: {', '.join(str(f) for f in files)}")


def cmd_ratings(args) -> int:
    path = args.results / "games.jsonl" if args.results.is_dir() else args.results
    audit = verified_records(path, args.no_verify)
    for finding in audit.findings:
        print(f"{path}:{finding.line}: {finding.game_id}: rejected: {finding.reason}", file=sys.stderr)
    if audit.findings:
        raise UsageError(f"refusing to rate {path}: {len(audit.findings)} record(s) failed the seal or schedule "
                         "checks (listed above); --no-verify rates every record, unverified")
    records = audit.records
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
    from tournaments.config import default_concurrency
    from tournaments.sprt_runner import run_sprt
    from tournaments.stats import Sprt, elo_estimate

    variant = variant_from_args(args)
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
    seed, out = seed_and_out(args, "sprt")
    print(f"sprt: {new_name} vs {old_name}, H0: elo <= {args.elo0:g}, H1: elo >= {args.elo1:g}, "
          f"alpha {args.alpha:g}, beta {args.beta:g}; LLR bounds [{test.lower:.2f}, {test.upper:.2f}]; "
          f"{_seed_text(args.seed)}; games in {out}/games.jsonl")
    print(isolation_summary(new.sandbox))
    check_bots_start((new, old), out / "logs", args.startup_timeout)
    live = sys.stderr.isatty()

    def on_pair(state) -> None:
        e = elo_estimate(state.penta)
        line = (f"pairs {state.pairs}  pentanomial {state.penta}  Elo {e.elo:+.1f} +/- {e.elo95:.1f}  "
                f"LLR {state.llr():+.2f} [{test.lower:.2f}, {test.upper:.2f}]")
        sys.stderr.write(("\r" + line + "   ") if live else line + "\n")
        sys.stderr.flush()

    concurrency = args.concurrency or default_concurrency()
    try:
        state = run_trio(run_sprt, new, old, variant, test, seed, concurrency, args.max_pairs, out, on_pair)
    finally:
        if live:
            sys.stderr.write("\n")
    e = elo_estimate(state.penta) if state.pairs else None
    summary = f"{state.pairs} pairs, Elo {e.elo:+.1f} +/- {e.elo95:.1f}, LLR {state.llr():+.2f}" if e else "no pairs"
    if state.verdict == "H1":
        print(f"H1 accepted: {new_name} is stronger ({summary})")
        return 0
    if state.verdict == "H0":
        print(f"H0 accepted: {new_name} is not stronger by {args.elo1:g} Elo ({summary})")
        return 1
    print(f"undecided after --max-pairs {args.max_pairs} ({summary})")
    return 3
