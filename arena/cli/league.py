"""``pinochle-arena league``: a ladder that plays itself while entrants join, send new versions and leave.

``league init DIR`` makes a league (one folder: its database and the bots'
logs); ``league add``, ``update``, ``remove`` and ``list`` change and show its
entrants, also while ``league run DIR`` plays; ``league show DIR`` prints the
ladder and the ratings' tables, ``league serve DIR`` its web pages; ``league
export DIR OUT`` writes its games as a results folder that ``replay``,
``ratings`` and ``report`` read. See docs/league.md.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from pathlib import Path

from tabulate import tabulate

from referee.bots.samples import SAMPLES, resolve_bot
from referee.bots.transport import BotStartError
from referee.rules.variants import parse_option_text

from .args import (
    UsageError,
    add_bootstrap_argument,
    add_time_arguments,
    add_variant_arguments,
    bots_with_options,
    limits_from_args,
    positive_int,
    read_only_from_args,
    runtimes_from_args,
)
from .progress import Progress
from .running import check_apart, check_bots_start, check_out, run_trio, run_trio_stoppable

NAME_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


def add_parser(sub) -> None:
    p = sub.add_parser("league", help="an open ladder: entrants join and send new versions while it plays",
                       description="A league that plays itself: entrants are added, updated and removed while "
                                   "'league run' plays, and it chooses each next table where the ranking is most in "
                                   "doubt. See docs/league.md.")
    commands = p.add_subparsers(title="league commands", metavar="WHAT", required=True)

    init = commands.add_parser("init", help="make a league in DIR (its database and the bots' logs)")
    init.add_argument("folder", type=Path, metavar="DIR")
    add_variant_arguments(init)
    init.add_argument("--boards", action="store_true",
                      help="play boards (one hand in every seating of a deal) instead of whole games")
    add_time_arguments(init)
    init.add_argument("--database", default=None, metavar="URL",
                      help="keep the league in this database (postgresql://USER@HOST/NAME) instead of DIR/league.db")
    init.add_argument("--stderr-quota", type=quota_arg, default=None, metavar="MIB",
                      help="the bots' stderr logs kept for each entrant, in MiB (default 64, at least 4): its oldest "
                           "logs go first")
    init.add_argument("--deadline", type=when_arg, default=None, metavar="WHEN",
                      help="the deadline for submissions, as 2026-12-24T18:00Z (UTC, or with an offset): after it no "
                           "entrant joins and no version is entered (league deadline changes it)")
    init.set_defaults(handler=run_init)

    for name, verb in (("add", "add an entrant, NAME, started as BOT"),
                       ("update", "enter a new version of NAME (the old one stops playing; its games stay)")):
        change = commands.add_parser(name, help=verb)
        change.add_argument("name", metavar="NAME")
        change.add_argument("bot", nargs="+", metavar="BOT",
                            help="a sample bot's name or a command line (quoted), then its option.KEY=VALUE words")
        add_league_argument(change)
        change.set_defaults(handler=run_add if name == "add" else run_update)

    remove = commands.add_parser("remove", help="take NAME off the ladder (its games and ratings stay)")
    remove.add_argument("name", metavar="NAME")
    add_league_argument(remove)
    remove.set_defaults(handler=run_remove)

    listing = commands.add_parser("list", help="the entrants, their versions and status")
    listing.add_argument("folder", type=Path, nargs="?", default=Path("."), metavar="DIR")
    listing.set_defaults(handler=run_list)

    run = commands.add_parser("run", help="play until Ctrl-C (or --games, --until); restartable at any time")
    run.add_argument("folder", type=Path, nargs="?", default=Path("."), metavar="DIR")
    run.add_argument("--games", type=positive_int, default=None, help="stop after this many games")
    run.add_argument("--until", default=None, metavar="WHEN",
                     help="stop after this long (90s, 30m, 2h) or at this time of day (18:30)")
    run.add_argument("--concurrency", type=positive_int, default=None, help="games at once (default: cores)")
    run.add_argument("--processes", type=positive_int, default=None,
                     help="referee processes to spread them over (default: cores)")
    run.add_argument("--cluster", default=None, metavar="ADDRESS",
                     help="play the games on the Dask cluster at ADDRESS (as tournament --cluster)")
    run.add_argument("--cluster-certs", type=Path, default=None, metavar="DIR")
    run.add_argument("--insecure", action="store_true", default=None)
    run.add_argument("--seed", type=int, default=None, help="the matchmaker's seed (default: from the system)")
    run.set_defaults(handler=run_run)

    show = commands.add_parser("show", help="the ladder, and the ratings' tables of every version")
    show.add_argument("folder", type=Path, nargs="?", default=Path("."), metavar="DIR")
    add_bootstrap_argument(show)
    show.add_argument("--format", choices=("table", "json", "csv"), default="table",
                      help="table (default): the ladder and the ratings' tables; json or csv: the ladder's rows "
                           "alone, as data (the fields are in docs/league.md)")
    show.add_argument("--all", action="store_true",
                      help=f"the ratings' tables even past {TABLES_UP_TO:,} games (they read every game's record)")
    show.set_defaults(handler=run_show)

    serve = commands.add_parser("serve", help="the league's web pages: the live ladder, each entrant's page, every "
                                              "game in the replay viewer, and entrants' uploads, built in the jail (beside league run)")
    serve.add_argument("folder", type=Path, nargs="?", default=Path("."), metavar="DIR")
    serve.add_argument("--host", default="127.0.0.1",
                       help="the address to listen on (default 127.0.0.1: this machine only; see docs/league.md "
                            "before serving others)")
    serve.add_argument("--port", type=int, default=8000, help="the port (default 8000; 0: a free one)")
    serve.add_argument("--behind-proxy", action="store_true",
                       help="served by a TLS reverse proxy on this machine: trust the client address it names "
                            "(X-Forwarded-For, one hop) and send cookies over HTTPS only")
    serve.set_defaults(handler=run_serve)

    entrant = commands.add_parser("entrant", help="entrants who upload their bots through the web pages")
    entrant_commands = entrant.add_subparsers(title="entrant commands", metavar="WHAT", required=True)
    entrant_add = entrant_commands.add_parser("add", help="add NAME, without a bot yet: prints its secret token, "
                                                          "with which it uploads its versions")
    entrant_add.add_argument("name", metavar="NAME")
    add_league_argument(entrant_add)
    entrant_add.set_defaults(handler=run_entrant_add)

    token = commands.add_parser("token", help="a new secret token for NAME, or with --organiser the organiser's "
                                              "(the old one stops working)")
    token.add_argument("name", nargs="?", metavar="NAME")
    token.add_argument("--organiser", action="store_true", help="the organiser's token (pause, remove, restore, "
                                                                  "every entrant's logs)")
    add_league_argument(token)
    token.set_defaults(handler=run_token)

    for name, verb in (("pause", "pause NAME (it plays no games until restored or updated)"),
                       ("restore", "let a paused or removed NAME play again")):
        change = commands.add_parser(name, help=verb)
        change.add_argument("name", metavar="NAME")
        add_league_argument(change)
        change.set_defaults(handler=run_pause if name == "pause" else run_restore)

    void = commands.add_parser("void", help="disqualify version VERSION of NAME: its games are kept but no longer "
                                            "counted, and it plays no more (--undo counts them again)")
    void.add_argument("folder", type=Path, metavar="DIR")
    void.add_argument("name", metavar="NAME")
    void.add_argument("version", type=positive_int, metavar="VERSION")
    void.add_argument("--undo", action="store_true", help="count the version's games again")
    void.set_defaults(handler=run_void)

    export = commands.add_parser("export", help="write the league's games as a results folder (games.jsonl, "
                                                "schedule.jsonl, secret.key) for replay, ratings and report")
    export.add_argument("folder", type=Path, metavar="DIR")
    export.add_argument("out", type=Path, metavar="OUT")
    export.add_argument("--final", action="store_true",
                        help="the final phase's games alone (those its standings count): ratings OUT ranks them in "
                             "the final standings' order")
    export.set_defaults(handler=run_export)

    add_contest_parsers(commands)

    check = commands.add_parser("check", help="is the league's database sound: SQLite's integrity check, its schema, "
                                              "tables and columns, every record's seal (exit status 1: damaged)")
    check.add_argument("folder", type=Path, nargs="?", default=Path("."), metavar="DIR",
                       help="the league's folder, or a backup's file")
    check.set_defaults(handler=run_check)

    backup = commands.add_parser("backup", help="copy the league's database to FILE, consistent while 'league run' "
                                                "plays (SQLite; for PostgreSQL use pg_dump)")
    backup.add_argument("folder", type=Path, nargs="?", default=Path("."), metavar="DIR")
    backup.add_argument("file", type=Path, metavar="FILE", help="a new file (never overwritten)")
    backup.set_defaults(handler=run_backup)

    meet_damage_in_one_line(commands)  # (last: every command above)


def add_contest_parsers(commands) -> None:
    """``league deadline``, ``league close`` and ``league final``: the end of a contest (docs/league.md)."""
    deadline = commands.add_parser("deadline", help="set or move the deadline for submissions (--none: no deadline)")
    deadline.add_argument("folder", type=Path, metavar="DIR")
    deadline.add_argument("when", type=when_arg, nargs="?", default=None, metavar="WHEN",
                          help="as 2026-12-24T18:00Z (UTC, or with an offset such as +01:00)")
    deadline.add_argument("--none", action="store_true", help="no deadline")
    deadline.set_defaults(handler=run_deadline)

    close = commands.add_parser("close", help="close submissions now: no entrant joins and no version is entered "
                                              "(--undo opens them again)")
    close.add_argument("folder", type=Path, metavar="DIR")
    close.add_argument("--undo", action="store_true", help="open submissions again (unless the deadline passed)")
    close.set_defaults(handler=run_close)

    final = commands.add_parser("final", help="the final phase: a round robin of the ladder's top N on fresh deals, "
                                              "then the final standings; run it again to go on after a stop")
    final.add_argument("folder", type=Path, metavar="DIR")
    final.add_argument("--top", type=positive_int, default=None,
                       help="finalists: the ladder's top N among the entrants that play (default 10)")
    final.add_argument("--games", type=positive_int, default=None,
                       help="games in all, rounded up so that every table plays as many deals (default: 20 deals a "
                            "table)")
    final.add_argument("--seed", type=int, default=None, help="the final's seed, from which its deals come "
                                                               "(default: a random one)")
    final.add_argument("--concurrency", type=positive_int, default=None, help="games at once (default: cores)")
    final.add_argument("--processes", type=positive_int, default=None,
                       help="referee processes to spread them over (default: cores)")
    add_bootstrap_argument(final)
    final.set_defaults(handler=run_final)


def when_arg(text: str) -> float:
    from league.contest import parse_when

    try:
        return parse_when(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def meet_damage_in_one_line(commands) -> None:
    """Every league command, and those under it, made to meet a database that fails under it (not a database, a
    malformed page, a table or column missing) with one line pointing to ``league check``, not a traceback."""
    for parser in commands.choices.values():
        handler = parser.get_default("handler")
        if handler is not None:
            parser.set_defaults(handler=_one_line_on_damage(handler))
        for action in parser._actions:  # (commands of their own: league entrant add)
            if isinstance(action, argparse._SubParsersAction):
                meet_damage_in_one_line(action)


def _one_line_on_damage(handler):
    @functools.wraps(handler)
    def run(args) -> int:
        from league.health import damage_line

        try:
            return handler(args)
        except BaseException as e:
            line = damage_line(e)
            if line is None:
                raise
            folder = getattr(args, "folder", None) or getattr(args, "league", Path("."))
            raise UsageError(f"league {folder}: its database fails ({line}); see what is wrong with: "
                             f"pinochle-arena league check {folder}") from None
    return run


def add_league_argument(p) -> None:
    p.add_argument("--league", type=Path, default=Path("."), metavar="DIR",
                   help="the league's folder (default: the current folder)")


# ---------------------------------------------------------------------- opening

def open_league(folder: Path):
    from league.db import DEFAULT_FILE, URL_FILE, LeagueDB, LeagueError, LeagueUnreadable, database_url

    if not (folder / DEFAULT_FILE).exists() and not (folder / URL_FILE).exists():
        raise UsageError(f"{folder} holds no league (make one with: pinochle-arena league init {folder})")
    try:
        return LeagueDB.open(database_url(folder))
    except LeagueUnreadable as e:
        raise UsageError(f"{e}; see what is wrong with: pinochle-arena league check {folder}") from None
    except LeagueError as e:
        raise UsageError(str(e)) from None


def run_init(args) -> int:
    from league.db import DEFAULT_FILE, URL_FILE, LeagueDB, LeagueError
    from league.runner import games_per_unit
    from tournaments.config import ConfigError, parse_config

    folder = args.folder
    check_out(folder, "DIR")
    if (folder / DEFAULT_FILE).exists() or (folder / URL_FILE).exists():
        raise UsageError(f"{folder} already holds a league: choose another folder")
    settings = settings_from_args(args)
    try:  # every setting checked as a tournament would check it, before anything is made
        tournament = {**settings["tournament"], "games_per_pairing": games_per_unit(settings)}
        games = {k: v for k, v in settings.items() if k != "league"}  # (the league's own table is no tournament's)
        parse_config({**games, "tournament": tournament,
                      "bot": [{"name": "x", "sample": "random"}, {"name": "y", "sample": "random"},
                                          {"name": "z", "sample": "random"}, {"name": "w", "sample": "random"},
                                          {"name": "v", "sample": "random"}]},
                     folder / "league.toml", folder, where="league init")
    except ConfigError as e:
        raise UsageError(str(e)) from None
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    url = args.database or f"sqlite:///{(folder / DEFAULT_FILE).absolute()}"
    try:
        db = LeagueDB.create(url, settings)
    except LeagueError as e:
        raise UsageError(str(e)) from None
    if args.deadline is not None:
        from league.contest import set_deadline

        set_deadline(db, args.deadline)
    db.close()
    if args.database:
        named = folder / URL_FILE
        named.write_text(args.database + "\n", encoding="utf-8")
        named.chmod(0o600)
    print(f"league in {folder}: {settings['tournament'].get('variant', 'two-handed')}"
          f"{', boards' if args.boards else ''}; add entrants with: pinochle-arena league add NAME BOT --league "
          f"{folder}")
    if args.deadline is not None:
        from league.contest import when_text

        print(f"submissions close at {when_text(args.deadline)}")
    return 0


def quota_arg(text: str) -> int:
    from league.logs import SMALLEST_QUOTA_MIB

    value = positive_int(text)
    if value < SMALLEST_QUOTA_MIB:
        raise argparse.ArgumentTypeError(f"at least {SMALLEST_QUOTA_MIB} (MiB: the newest game's logs must fit)")
    return value


def settings_from_args(args) -> dict:
    """The [tournament], [time] and [limits] tables every game of the league is played under, and the league's own
    [league] table (its stderr quota)."""
    from league.logs import DEFAULT_QUOTA_MIB

    options = dict(parse_option_text(o) for o in args.option)
    if args.boards:
        options["max-hands"] = "1"
    tournament: dict = {"variant": args.variant, "options": options, "isolation": args.isolation,
                        "restart": args.restart}
    if args.persist:
        tournament["persist"] = True
    if args.inherit_env:
        tournament["clean_env"] = False
    if args.read_only:
        tournament["read_only"] = read_only_from_args(args)
    if args.runtime:
        tournament["runtimes"] = runtimes_from_args(args)
    time_table = {"move": args.time_per_move, "bank": args.time_bank, "increment": args.increment,
                  "grace": args.grace}
    settings = {"tournament": tournament, "time": time_table,
                "league": {"stderr_quota_mib": args.stderr_quota or DEFAULT_QUOTA_MIB,
                           "startup_timeout": args.startup_timeout}}
    limits = limits_from_args(args)
    if limits:
        settings["limits"] = limits
    return settings


# ---------------------------------------------------------------------- entrants

def run_add(args) -> int:
    return _enter(args, new=True)


def run_update(args) -> int:
    return _enter(args, new=False)


def _enter(args, new: bool) -> int:
    """``league add`` and ``league update``: the bot checked as a tournament would (it starts, its jail shows it no
    other entrant and no results), its fingerprint taken, then entered."""
    from league.db import LeagueError, Version
    from league.runner import games_folder, league_config
    from referee.bots.fingerprint import fingerprint
    from tournaments.config import ConfigError

    check_name(args.name)
    db = open_league(args.league)
    check_contest_open(db)
    try:
        bot = bot_table(args.bot)
    except (UsageError, BotStartError) as e:
        raise UsageError(f"{args.name}: {e}") from None

    trial = Version(0, args.name, 1, bot, "")
    others = [v for v in db.players() if v.entrant != args.name]
    try:
        config = league_config(db, args.league, [trial, *others])
    except ConfigError as e:  # the bot's words cannot make a bot
        raise UsageError(f"{args.name}: " + str(e).removeprefix(f"league {args.league}: ")) from None
    check_apart(config.entrants, games_folder(args.league))
    check_bots_start(config.entrants[:1], games_folder(args.league) / "logs")  # (the league's start allowance)
    program = fingerprint(config.entrants[0].command)
    check_contest_open(db)  # (again: the deadline may have passed while the bot was checked)
    try:
        version = db.add(args.name, bot, program) if new else db.update(args.name, bot, program)
    except LeagueError as e:
        raise UsageError(str(e)) from None
    print(f"{'added' if new else 'updated'} {args.name}: version {version.number} ({program[:19]}...)")
    return 0


def check_contest_open(db) -> None:
    """One line, and nothing entered, once the contest's submissions are closed."""
    from league.contest import ContestClosed, check_open

    try:
        check_open(db)
    except ContestClosed as e:
        raise UsageError(str(e)) from None


def check_name(name: str) -> None:
    if not set(name) <= NAME_CHARS or not name or len(name) > 64:
        raise UsageError(f"entrant name {name!r}: use letters, digits, '-' and '_' only (at most 64)")


def bot_table(words: list[str]) -> dict:
    """``BOT [option.KEY=VALUE ...]`` -> a [[bot]] table (a command's paths made absolute: they mean this folder)."""
    grouped = bots_with_options(words)
    if len(grouped) != 1:
        raise UsageError(f"{' '.join(words)}: one bot (quote a command line with spaces: 'mine/bot --fast')")
    (text, options), = grouped
    table: dict = {"sample": text} if text in SAMPLES else {"command": resolve_bot(text)[1].to_text()}
    if options:
        table["options"] = dict(options)
    return table


def run_entrant_add(args) -> int:
    from league.db import LeagueError

    check_name(args.name)
    db = open_league(args.league)
    check_contest_open(db)
    try:
        db.add_entrant(args.name)
    except LeagueError as e:
        raise UsageError(str(e)) from None
    token = db.new_token(args.name)
    print(f"added {args.name}, waiting for its first upload; its token (shown once, keep it secret):\n{token}")
    return 0


def run_token(args) -> int:
    from league.db import LeagueError

    if args.organiser == (args.name is not None):
        raise UsageError("league token: give NAME (an entrant's token) or --organiser, not both")
    db = open_league(args.league)
    try:
        token = db.new_token(None if args.organiser else args.name)
    except LeagueError as e:
        raise UsageError(str(e)) from None
    whose = "the organiser" if args.organiser else args.name
    print(f"a new token for {whose} (shown once, keep it secret; the old one no longer works):\n{token}")
    return 0


def run_pause(args) -> int:
    from league.db import PAUSED_BY_ORGANISER

    return _set_status(args, "paused", PAUSED_BY_ORGANISER, "it plays no games until restored")


def run_restore(args) -> int:
    return _set_status(args, "active", "", "it plays again")


def _set_status(args, status: str, note: str, said: str) -> int:
    from league.db import LeagueError

    db = open_league(args.league)
    try:
        db.set_status(args.name, status, note)
    except LeagueError as e:
        raise UsageError(str(e)) from None
    print(f"{args.name}: {status}; {said}")
    return 0


def run_remove(args) -> int:
    from league.db import LeagueError

    db = open_league(args.league)
    try:
        db.set_status(args.name, "removed")
    except LeagueError as e:
        raise UsageError(str(e)) from None
    print(f"removed {args.name}: it plays no more; its games and ratings stay")
    return 0


def run_list(args) -> int:
    db = open_league(args.folder)
    played = _games_by_entrant(db)
    rows = [[e.name, e.version.number if e.version else "-", e.status + (f": {e.note}" if e.note else ""),
             played.get(e.name, 0), e.version.command if e.version else "(waiting for its first upload)"]
            for e in db.entrants()]
    if not rows:
        print(f"no entrants yet: pinochle-arena league add NAME BOT --league {args.folder}")
        return 0
    print(tabulate(rows, headers=["entrant", "version", "status", "games", "bot"], tablefmt="github"))
    return 0


def _games_by_entrant(db) -> dict[str, int]:
    """The games the ratings count of each entrant, from the stored tally (a league of millions of games is not
    read): its versions' games added up (two versions of one entrant never share a table)."""
    versions = db.versions()
    games: dict[str, int] = {}
    for version, (count, _tables, _form) in db.version_tallies().items():
        if version in versions:
            name = versions[version].entrant
            games[name] = games.get(name, 0) + count
    return games


# ---------------------------------------------------------------------- playing

def run_run(args) -> int:
    import random

    from league.lock import Hold, LeagueHeld
    from league.runner import LeagueRunner, TooFewEntrants
    from referee.records.record import GameRecord

    from .printing import game_line

    db = open_league(args.folder)
    check_no_final(db, args.folder)
    try:
        hold = Hold.take(db)  # (before anything else: a second runner touches nothing)
    except LeagueHeld as e:
        raise UsageError(f"league {args.folder}: {e}") from None
    until = until_time(args.until)
    overrides = run_overrides(args)
    progress = Progress(args.games, live=None)
    count = 0

    def on_game(record: GameRecord) -> None:
        nonlocal count
        count += 1
        progress.update(count, f"last: {game_line(record)}")

    runner = LeagueRunner(args.folder, db, overrides, random.Random(args.seed),
                          say=progress.interject, on_game=on_game)
    try:
        runner.check_enough()
    except TooFewEntrants as e:
        hold.release()
        raise UsageError(f"league {args.folder}: {e}") from None
    limits = []
    if args.games:
        limits.append(f"{args.games} games")
    if until:
        limits.append(time.strftime("%H:%M:%S", time.localtime(until)))
    print(f"league {args.folder}: playing until {' or '.join(limits) or 'Ctrl-C'}")
    try:
        played = run_trio(runner.run, args.games, until, hold)
    except KeyboardInterrupt:
        progress.close()
        print(f"\nstopped: {count} games saved this run; start again with: pinochle-arena league run {args.folder}",
              file=sys.stderr)
        return 130
    progress.close()
    print(f"{played} games played; the ladder: pinochle-arena league show {args.folder}")
    return 0


def check_no_final(db, folder: Path) -> None:
    """The ladder plays no more once the final is planned (its tables would mix with the final's)."""
    from league.final import plan_of

    if plan_of(db) is not None:
        raise UsageError(f"league {folder}: the final phase has begun, the ladder plays no more: pinochle-arena "
                         f"league final {folder} plays what is left of the final")


def run_overrides(args) -> dict:
    tournament = {k: v for k, v in (("concurrency", args.concurrency), ("processes", args.processes))
                  if v is not None}
    cluster = {}
    if args.cluster is not None and args.cluster != "none":
        cluster = {"address": args.cluster}
        if args.cluster_certs is not None:
            cluster["certs"] = str(args.cluster_certs.absolute())
        if args.insecure:
            cluster["insecure"] = True
    return {"tournament": tournament, "cluster": cluster}


def until_time(text: str | None) -> float | None:
    """``--until``: a duration (90s, 30m, 2h) from now, or a time of day (18:30) today or, if past, tomorrow."""
    if text is None:
        return None
    units = {"s": 1, "m": 60, "h": 3600}
    if text[-1:] in units and text[:-1].replace(".", "", 1).isdigit():
        return time.time() + float(text[:-1]) * units[text[-1]]
    try:
        clock = time.strptime(text, "%H:%M")
    except ValueError:
        raise UsageError(f"--until {text!r}: give a duration (90s, 30m, 2h) or a time of day (18:30)") from None
    now = time.localtime()
    target = time.mktime((now.tm_year, now.tm_mon, now.tm_mday, clock.tm_hour, clock.tm_min, 0, 0, 0, -1))
    return target if target > time.time() else target + 86400


# ---------------------------------------------------------------------- results

def run_serve(args) -> int:
    import trio

    from league.builds import build_forever
    from viewer.site import league_site, serve_site

    db = open_league(args.folder)
    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port {args.port}: a port is 0 to 65535")

    async def serve() -> None:
        wake, woken = trio.open_memory_channel(1)
        folder = args.folder.resolve()
        app = league_site(db, folder.name, folder, wake, args.behind_proxy)
        async with trio.open_nursery() as nursery:
            try:
                address = await nursery.start(serve_site, app, args.host, args.port)
            except BaseException as e:  # (the server's nurseries wrap the system's refusal in groups)
                refused = _os_error(e)
                if refused is None:
                    raise
                raise UsageError(f"cannot listen on {args.host}:{args.port}: {refused.strerror or refused}") from None
            nursery.start_soon(build_forever, folder, db, woken)
            print(f"the league's pages: {address}/ (Ctrl-C stops)", flush=True)

    try:
        run_trio_stoppable(serve)  # (until Ctrl-C)
    except BaseExceptionGroup as e:
        refused = e.subgroup(UsageError)
        if refused is None:
            raise
        while isinstance(refused, BaseExceptionGroup):  # (nested as deep as the nurseries it crossed)
            refused = refused.exceptions[0]
        raise refused from None
    return 0


def _os_error(error: BaseException) -> OSError | None:
    """The operating system's refusal to listen inside ``error``, if that is it."""
    while isinstance(error, BaseExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error if isinstance(error, OSError) else None


LADDER_MODEL = ("The ladder: each entrant's newest version, by the league's working fit (Bradley-Terry over every "
                "game the league counts, one unit of weight a game, a normal prior of 350 Elo around 0); +/- is half "
                "its 95% interval against the pool's average, from the fit's curvature; games: this version's.")
TABLES_UP_TO = 5_000  # games: past them, league show leaves out the ratings' tables unless asked (--all)
TABLES_MODEL = ("The tables below: pinochle-arena ratings over the same games, every version that ever played, by "
                "its own model for these games (for two seats the pool's maximum likelihood, for three to five "
                "openskill), its intervals from a bootstrap over deals (a * marks a rating only its prior makes "
                "finite).")
WHY_THEY_DIFFER = ("They differ because the ladder's prior pulls every rating toward 0 from the first game and keeps "
                   "one that won everything finite, where the tables add one virtual draw a pairing only then, and "
                   "their intervals are measured differently (curvature against resampled deals).")


def with_bots(rows: list[list], db) -> list[list]:
    """The ladder's rows with each entrant's newest version's bot, options included, after its version number."""
    bots = {e.name: e.version.command for e in db.entrants() if e.version}
    return [[*row[:3], bots.get(row[1], ""), *row[3:]] for row in rows]


def versions_named(db) -> str:
    """Every version as the tables name it, with its bot: ``alice = greedy noise=0.2; alice.v2 = ...``."""
    return "; ".join(f"{v.label} = {v.command}" for v in sorted(db.versions().values(), key=lambda v: v.id))


def run_void(args) -> int:
    from league.db import LeagueError

    db = open_league(args.folder)
    try:
        version = db.void(args.name, args.version, undo=args.undo)
    except LeagueError as e:
        raise UsageError(str(e)) from None
    if args.undo:
        print(f"{version.label}: counted again (it plays again only if it is {args.name}'s newest version and "
              f"{args.name} is active)")
    else:
        print(f"{version.label}: voided; its games are kept and no longer counted, and it plays no more "
              f"(undo: pinochle-arena league void {args.folder} {args.name} {args.version} --undo)")
    return 0


def run_show(args) -> int:
    from league.ladder import ladder, ladder_csv, ladder_json, ladder_rows
    from referee.records.record import GameRecord

    from .printing import print_report

    db = open_league(args.folder)
    if args.format != "table":
        rows = ladder(db)
        sys.stdout.write(ladder_json(rows) if args.format == "json" else ladder_csv(rows))
        return 0
    rows = ladder_rows(db)
    contest = contest_line(db)
    if contest is not None:
        print(contest)
    print_final(db, args.bootstrap, args.folder)
    if not rows:
        print("no games yet: pinochle-arena league run " + str(args.folder))
        return 0
    print(("\n" if contest is not None else "") + LADDER_MODEL)
    print(tabulate(with_bots(rows, db), headers=["rank", "entrant", "version", "bot", "Elo", "+/-", "games", "",
                                                  "last games"], tablefmt="github"))
    print("* provisional: fewer games than the ladder needs to place a version")
    games = db.game_count()
    if games > TABLES_UP_TO and not args.all:
        print(f"\nThe ratings' tables of every version are left out: they read each of the league's {games:,} games' "
              f"records (about 4 ms a game). --all prints them; or pinochle-arena league export {args.folder} OUT, "
              f"then pinochle-arena ratings OUT.")
        return 0
    print(f"\n{TABLES_MODEL}\n{WHY_THEY_DIFFER}\nversions: {versions_named(db)}")
    records = [GameRecord.from_json(line) for line in db.records(counted=True)]
    print_report(records, None, None, args.bootstrap, title=f"\nevery version, by ratings: {len(records)} games")
    return 0


def run_export(args) -> int:
    from league.export import export

    db = open_league(args.folder)
    check_out(args.out, "OUT")
    if args.out.exists() and any(args.out.iterdir()):
        raise UsageError(f"OUT {args.out} is not empty: export into a new folder")
    if args.final and not db.final_records():
        raise UsageError(f"league {args.folder}: no final game is played yet (league final {args.folder})")
    written = export(db, args.out, final=args.final)
    print(f"exported {written} {'final ' if args.final else ''}games to {args.out}: pinochle-arena replay "
          f"{args.out}")
    return 0


# ---------------------------------------------------------------------- the end of a contest

def run_deadline(args) -> int:
    from league.contest import closed_at, set_deadline, when_text
    from league.db import LeagueError

    if args.none == (args.when is not None):
        raise UsageError("league deadline: give WHEN (2026-12-24T18:00Z) or --none, not both")
    db = open_league(args.folder)
    try:
        set_deadline(db, args.when)
    except LeagueError as e:
        raise UsageError(f"league {args.folder}: {e}") from None
    closed = closed_at(db)
    said = "no deadline" if args.when is None else f"submissions close at {when_text(args.when)}"
    print(f"league {args.folder}: {said}" + (f" (closed since {when_text(closed)})" if closed is not None else ""))
    return 0


def run_close(args) -> int:
    from league.contest import close, when_text
    from league.db import LeagueError

    db = open_league(args.folder)
    try:
        closed = close(db, undo=args.undo)
    except LeagueError as e:
        raise UsageError(f"league {args.folder}: {e}") from None
    if closed is None:
        print(f"league {args.folder}: submissions are open again")
    else:
        print(f"league {args.folder}: submissions closed at {when_text(closed)}"
              + (" (the deadline has passed)" if args.undo else "")
              + f"; the final: pinochle-arena league final {args.folder}")
    return 0


def run_final(args) -> int:
    from league.final import DEFAULT_TOP, FinalError, left_to_play, plan_final, plan_of, play_final
    from league.lock import Hold, LeagueHeld
    from referee.records.record import GameRecord

    from .printing import game_line

    db = open_league(args.folder)
    try:
        hold = Hold.take(db)  # (before anything else: the ladder's runner and the final's never play at once)
    except LeagueHeld as e:
        raise UsageError(f"league {args.folder}: {e}") from None
    try:
        plan = _planned(db, args, plan_of(db), plan_final, DEFAULT_TOP)
    except (FinalError, UsageError) as e:
        hold.release()
        raise UsageError(f"league {args.folder}: {e}") from None
    left = left_to_play(db)
    progress = Progress(plan.games, live=None, start=plan.games - left)
    count = plan.games - left

    def on_game(record: GameRecord) -> None:
        nonlocal count
        count += 1
        progress.update(count, f"last: {game_line(record)}")

    try:
        overrides = {"tournament": {k: v for k, v in (("concurrency", args.concurrency), ("processes", args.processes))
                                    if v is not None}}
        run_trio(play_final, db, args.folder, overrides, on_game, hold, progress.interject)
    except KeyboardInterrupt:
        progress.close()
        print(f"\nstopped: {left_to_play(db)} games of the final are left; go on with: pinochle-arena league final "
              f"{args.folder}", file=sys.stderr)
        return 130
    except FinalError as e:
        progress.close()
        raise UsageError(f"league {args.folder}: {e}") from None
    progress.close()
    print_final(db, args.bootstrap, args.folder)
    return 0


def _planned(db, args, plan, plan_final, default_top: int):
    """The final's plan: the one made already (options that differ from it are refused), or a new one."""
    if plan is None:
        plan = plan_final(db, args.top or default_top, args.games, args.seed)
        names = ", ".join(db.versions()[v].label for v in plan.versions)
        print(f"the final: {len(plan.versions)} finalists ({names}), {plan.tables} tables, each {plan.rounds} "
              f"deals in every seating: {plan.games} games (seed {plan.seed})")
        return plan
    per_table = plan.games // (plan.tables * plan.rounds)
    rounds = None if args.games is None else max(1, -(-args.games // (plan.tables * per_table)))
    asked = {"--top": (args.top, plan.top), "--seed": (args.seed, plan.seed), "--games": (rounds, plan.rounds)}
    if any(given is not None and given != planned for given, planned in asked.values()):
        raise UsageError(f"the final is planned already ({plan.top} top, {plan.games} games, seed {plan.seed}): "
                         f"run league final without --top, --games or --seed to play what is left of it")
    return plan


FINAL_MODEL = ("Final standings: the final's games alone ({games}, the top {top}'s last versions in a round robin "
               "on fresh deals), by pinochle-arena ratings' model (Elo of the pool, its average 0; 95% intervals "
               "from a bootstrap over deals). The same order: league export {folder} OUT --final, then "
               "pinochle-arena ratings OUT.")


def print_final(db, bootstrap: int, folder: Path | None = None) -> None:
    """The final standings, with the line saying which games and which model made them."""
    from league.contest import contest_state
    from league.final import final_standings

    state = contest_state(db, standings=False)
    rows, games = final_standings(db, bootstrap)
    if state.final is None or not rows:
        return
    left = state.final.games - games
    played = f"{games} games" + ("" if state.phase == "done" else f" so far, {left} still to play")
    print("\n" + FINAL_MODEL.format(games=played, top=len(state.final.versions), folder=folder or "DIR"))
    print(tabulate([[r.rank, r.entrant, r.version or "", f"{r.elo:+.1f}", _interval_cell(r), r.games,
                     f"{r.score:g}"] for r in rows],
                   headers=["rank", "entrant", "version", "Elo", "95% interval", "games", "score"],
                   tablefmt="github", disable_numparse=True))


def _interval_cell(row) -> str:
    """A final row's interval as ``ratings`` prints it (an open end: inf)."""
    import math

    from tournaments.report import interval_text

    if row.low is None and row.high is None:
        return "-"
    return interval_text(-math.inf if row.low is None else row.low, math.inf if row.high is None else row.high)


def contest_line(db) -> str | None:
    """Where the contest stands, in one line (None for a league without a deadline that is open)."""
    from league.contest import contest_state, when_text

    state = contest_state(db, standings=False)
    if state.phase == "open":
        return None if state.deadline is None else f"contest: open, submissions close at {when_text(state.deadline)}"
    closed = f"submissions closed at {when_text(state.closed_at)}" if state.closed_at is not None else ""
    phase = {"closed": "closed", "final": "final phase in play", "done": "final phase done"}[state.phase]
    return f"contest: {phase}" + (f", {closed}" if closed else "")


# ---------------------------------------------------------------------- its database's health

def database_of(path: Path) -> str:
    """The database of the league in the folder ``path``, or of the backup's file ``path``."""
    from league.db import DEFAULT_FILE, URL_FILE, database_url

    if path.is_file():
        return f"sqlite:///{path.absolute()}"
    if not (path / DEFAULT_FILE).exists() and not (path / URL_FILE).exists():
        raise UsageError(f"{path} holds no league (make one with: pinochle-arena league init {path})")
    return database_url(path)


def run_check(args) -> int:
    from league.health import check

    progress = None

    def on_progress(done: int, total: int) -> None:
        nonlocal progress
        if progress is None:
            progress = Progress(total)
        if done:
            progress.update(done, "records' seals checked")

    print(f"checking {args.folder}: every page and every record (a big league takes a while)", file=sys.stderr,
          flush=True)
    health = check(database_of(args.folder), on_progress)
    if progress is not None:
        progress.close()
    for note in health.notes:
        print(f"note: {note}")
    if health.sound:
        print(f"{args.folder} is sound: schema {health.schema}, its {health.tables} tables, {health.games} games "
              "whose records pass their seals")
        return 0
    print(f"{args.folder} is damaged:")
    for problem in health.problems:
        print(f"  - {problem}")
    print("what to do:")
    for advice in health.advice:
        print(f"  - {advice.replace('DIR', str(args.folder))}")
    return 1


def run_backup(args) -> int:
    from league.db import LeagueError
    from league.health import backup

    try:
        copy = backup(database_of(args.folder), args.file)
    except LeagueError as e:
        raise UsageError(f"league {args.folder}: {e}") from None
    games = "its games cannot be counted (the league is damaged)" if copy.games is None else f"{copy.games} games"
    print(f"backed up {args.folder} to {copy.path}: {games}, {copy.size / 2**20:.1f} MiB; to restore it, see "
          "docs/league.md (\"Checking and backing up\")")
    return 0
