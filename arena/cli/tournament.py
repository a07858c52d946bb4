"""``pinochle-arena tournament``: a round robin, gauntlet or knockout from a configuration, from flags, or the
default."""

from __future__ import annotations

import collections
import functools
import re
import sys
from pathlib import Path

import attrs
from tabulate import tabulate

from referee.bots.samples import SAMPLES, resolve_bot, unique_names
from referee.bots.sandbox import Isolation, isolation_summary
from referee.records.record import GameRecord
from referee.rules.variants import parse_option_text

from .args import (
    UsageError,
    add_boards_argument,
    add_bootstrap_argument,
    add_cutechess_arguments,
    add_deals_argument,
    add_report_argument,
    add_time_arguments,
    add_variant_arguments,
    bots_with_options,
    fence_keys_from_args,
    given_path,
    limits_from_args,
    positive_int,
    with_startup_timeout,
)
from .printing import (
    films_ahead,
    game_line,
    print_faults,
    rating_interval,
    print_report,
    print_standings,
    seed_text,
    write_html_report,
    write_pgn,
)
from .progress import Progress
from .results import warn_set_aside
from .running import check_bots_start, check_new_file, check_out, default_out, refuse_changes, run_trio

BOT_NAME = re.compile(r"([A-Za-z0-9_.-]+)=(.+)", re.DOTALL)


def add_parser(sub) -> None:
    p = sub.add_parser("tournament", help="run a round robin, gauntlet or knockout (default: the sample bots)",
                       description=(
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
    p.add_argument("--out", type=given_path, default=None,
                   help="output directory (default: the configuration's, else results/tournament-TIMESTAMP)")
    p.add_argument("--format", choices=("round-robin", "gauntlet", "knockout"), default=None,
                   help="round-robin (default), gauntlet (the --candidate plays everyone else) or knockout (the bots "
                        "in seed order, the order given; a match is --games games, the winner goes through)")
    p.add_argument("--candidate", default=None, metavar="NAME", help="the gauntlet's candidate")
    p.add_argument("--anchor", default=None, metavar="NAME", help="fix this entrant's rating at 0")
    p.add_argument("--name", default=None, help="the tournament's name (default: the configuration's)")
    add_variant_arguments(p, default=None)
    p.add_argument("--concurrency", type=positive_int, default=None, help="games at once (default: cores)")
    p.add_argument("--processes", type=positive_int, default=None,
                   help="referee processes to spread the games over (default: cores, at most --concurrency)")
    p.add_argument("--cluster", default=None, metavar="ADDRESS",
                   help="play the games on the Dask cluster whose scheduler is at ADDRESS (tls://HOST:8786); 'none': "
                        "on this machine (overrides [cluster] address; needs pip install 'pinochle-arena[cluster]')")
    p.add_argument("--cluster-certs", type=Path, default=None, metavar="DIR",
                   help="the TLS certificates of a tls:// cluster (made by: pinochle-arena cluster certs DIR)")
    p.add_argument("--insecure", action="store_true", default=None,
                   help="allow a plain tcp:// scheduler on another machine (only on a network nobody else reaches)")
    p.add_argument("--seatings-apart", action="store_true", default=None,
                   help="on a cluster, play the seatings of each deal on different machines (for prize events)")
    p.add_argument("--no-duplicate", action="store_true", help="independent deals instead of duplicate pairs")
    add_cutechess_arguments(p)
    p.add_argument("--games", type=positive_int, default=None, help="games per pairing (overrides the configuration)")
    add_boards_argument(p, "per pairing, instead of whole games")
    p.add_argument("--seed", type=int, default=None, help="tournament seed (overrides the configuration)")
    add_deals_argument(p)
    add_time_arguments(p, each=True)
    add_bootstrap_argument(p)
    p.add_argument("--transcripts", action="store_true", help="log every protocol line per bot")
    p.add_argument("--pgn", type=Path, default=None, help="also write the results as PGN (for Ordo or BayesElo)")
    add_report_argument(p)
    p.set_defaults(handler=run)


def run(args) -> int:
    from tournaments.runner import WorkersAhead

    config, data, path = config_from_args(args)
    check_out(config.output)
    if args.pgn is not None:
        check_new_file(args.pgn, "--pgn")
    # the referee worker processes start now: their start overlaps the check of the bots, not the first games
    with WorkersAhead.for_run(config) as ahead:
        return _run(args, config, data, path, ahead)


def _run(args, config, data, path, ahead) -> int:
    from tournaments.config import Format
    from tournaments.store import open_tournament

    given_seed = config.seed
    check_bots_start(config.entrants, config.output / "logs", args.startup_timeout)  # before any results exist
    opened = open_tournament(config, data, path, resuming=args.resume is not None)
    config, store = opened.config, opened.store
    if opened.recovery is not None:
        warn_set_aside(store, opened.recovery)
        print(f"resuming: {len(opened.done())} of {opened.total()} games already played")
    names = [e.name for e in config.entrants]
    deals = seed_text(given_seed) if config.deals is None else f"{len(config.deals.deals)} deals of a deal file"
    print(f"tournament '{config.name}': {config.format}, {config.variant.name}, {', '.join(names)}; "
          f"{config.games_text()}, {'duplicate' if config.duplicate else 'independent'} deals, {deals}, "
          f"{config.where_text()}; results in {store.games_path}")
    print(isolation_summary(config.entrants[0].sandbox))
    if config.cluster is not None and any(e.sandbox.isolation is Isolation.NONE for e in config.entrants):
        print("WARNING: on a cluster an unjailed bot can also reach the Dask scheduler, and through it run code on "
              "every worker and change results", file=sys.stderr)
    per_worker = play(args, opened, ahead)
    if per_worker is None:
        return 130
    store.mark_ended({})  # with how many records it wrote: the last ones taken away are missed too
    if per_worker:
        print("\ngames this run played on each cluster worker (bots' logs: "
              f"{config.output / 'logs' / 'cluster'}/WORKER/):")
        print(tabulate(sorted(per_worker.items()), headers=["worker", "games"], tablefmt="github"))
    records = store.recover().records
    summary = print_report(records, config.output, anchor=config.anchor, bootstrap=args.bootstrap,
                           title=f"\n{config.name}: {len(records)} games")
    if args.pgn is not None:
        write_pgn(records, args.pgn, config.name)
    if config.format is Format.KNOCKOUT:
        from tournaments.knockout import bracket, bracket_lines

        print("\nknockout:\n" + "\n".join(bracket_lines(bracket(config, records))))
    print_faults(records, config.output / "logs")
    if not args.no_report:
        write_html_report(records, config.output, f"tournament '{config.name}'", summary)
    return 0


def play(args, opened, ahead=None) -> collections.Counter | None:
    """Play the games not yet saved, with a progress line; returns this run's games by cluster worker (empty when
    played here), or None when stopped by Ctrl-C. ``ahead``: referee workers started before (runner.WorkersAhead)."""
    from tournaments.config import Format
    from tournaments.runner import run_games
    from tournaments.standings import Leader

    config, store = opened.config, opened.store
    live = opened.saved()
    finished = len(opened.done())
    progress = Progress(opened.total(), start=finished)
    per_worker: collections.Counter = collections.Counter()
    leader = Leader()
    for record in live:
        leader.add(record)

    def on_game(record: GameRecord) -> None:
        nonlocal finished
        finished += 1
        live.append(record)
        leader.add(record)
        films.add(record)
        workers = ""
        if "worker" in record.extra:
            per_worker[record.extra["worker"]] += 1
            workers = "  workers: " + ", ".join(f"{w.split('://')[-1]} {n}" for w, n in sorted(per_worker.items()))
        first = leader.now()
        assert first is not None, "the leader has just been given a game"
        progress.update(finished, f"leader: {first[0]} {first[1]:.0f}%{workers}  last: {game_line(record)}")
        rating_interval(progress, live, args.ratinginterval)

    try:
        with films_ahead(config.output, not args.no_report, from_notices=config.cluster is None) as films:
            todo = opened.todo()
            while todo:  # a knockout's next games follow from the last ones' results
                progress.grow(opened.total(live))
                play_these = functools.partial(run_games, planned=opened.planned(live), played=list(live),
                                              say=functools.partial(print, file=sys.stderr, flush=True),
                                              seen=films.seen, ahead=ahead)
                run_on_cluster_or_here(play_these, config, todo, store, on_game, args.transcripts)
                todo = opened.todo(live) if config.format is Format.KNOCKOUT else []
    except KeyboardInterrupt:
        progress.close()
        print(f"\nstopped after {finished} of {opened.total(live)} games; so far:")
        print_standings(live)
        print(f"\nstopped: {finished} of {opened.total(live)} games are saved in {store.games_path}.\n"
              f"To continue: pinochle-arena tournament --resume {config.output}", file=sys.stderr)
        return None
    progress.close()
    return per_worker


def run_on_cluster_or_here(function, config, *args):
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


def config_from_args(args):
    """(config, its data, the path it is read as): kept in OUT for ``--resume OUT``, else from the configuration
    file or the embedded default with the flags over it; ``--processes`` and ``--cluster`` may change on resume."""
    from tournaments.config import (
        ConfigError,
        load_saved_config,
        parse_cluster,
        with_flags,
    )

    resume_out = resume_folder(args)
    try:
        if resume_out is not None:
            config, data, path = load_saved_config(resume_out, args.concurrency)
        else:
            config, data, path = new_config(args)
        if args.processes is not None:
            config = attrs.evolve(config, processes=args.processes)
        if args.wait is not None:  # how it runs, not which games: may change on resume
            config = attrs.evolve(config, wait_ms=args.wait)
        # every game's start allowance, carried by the entrants (so to referee workers and cluster machines too)
        config = attrs.evolve(config, entrants=with_startup_timeout(config.entrants, args.startup_timeout))
        if cluster_flags(args) and resume_out is not None:  # how it runs, not which games: may change
            data = with_flags(data, cluster=cluster_flags(args))
            config = attrs.evolve(config, cluster=parse_cluster(data["cluster"], "--cluster"))
            if config.cluster is not None and config.cluster.seatings_apart and not config.own_deals:
                print("warning: --seatings-apart on a tournament started without it: its pairings share their "
                      "deals, so a bot may meet a deal again against another opponent on one machine (start it with "
                      "--seatings-apart to give each pairing deals of its own)", file=sys.stderr)
    except ConfigError as e:
        raise UsageError(str(e)) from None
    return config, data, path


def resume_folder(args) -> Path | None:
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
    refuse_changes(args, "tournament", f"--resume {given}: the tournament's configuration is kept in {given}, so")
    return given


def new_config(args):
    """The configuration of a new (or, with ``CONFIG --resume``, resumed) tournament: the TOML file or the
    embedded default, with the command line's flags over it. Returns (config, its data, the path it is read as)."""
    from tournaments.config import ConfigError, default_data, load_toml, parse_config, with_flags

    bots = bot_tables_from_args(args.bot)
    if args.config is not None:
        data, path = load_toml(args.config), args.config
    else:
        data, path = (default_data() if not bots else {}), Path.cwd() / "tournament.toml"
    t = tournament_flags(args)
    time = {key: value for key, value in (("move", args.time_per_move), ("bank", args.time_bank),
                                          ("increment", args.increment), ("grace", args.grace)) if value is not None}
    options = dict(parse_option_text(o) for o in args.option)
    cluster = cluster_flags(args) or None
    flagged = bool(t or time or options or args.limit or bots or cluster)
    data = with_flags(data, t, options, time, limits_from_args(args), bots, cluster)
    where = str(args.config) if args.config is not None else ("command line" if bots else "embedded default")
    if flagged and args.config is not None:
        where += " (with the command line's flags)"
    if args.resume is True and args.config is None and args.out is None:
        raise UsageError("--resume: name the tournament's folder (--resume OUT): without a configuration, each "
                         "tournament has a folder of its own, results/tournament-TIMESTAMP")
    output = args.out or (None if args.config is not None else default_out("tournament"))
    try:
        config = parse_config(data, path, output, args.concurrency, where=where)
    except ConfigError as e:
        raise (ConfigError(in_flags(str(e))) if where == "command line" else e) from None
    # kept with the run, so that a resume elsewhere (or with other cluster flags) deals the same games
    return config, with_flags(data, {"own_deals": config.own_deals}), path


def in_flags(message: str) -> str:
    """A configuration's error about a tournament made from the command line alone, in the words of its flags."""
    for key, flag in sorted(FLAG_OF_KEY.items(), key=lambda item: -len(item[0])):  # (deals_order before deals)
        message = message.replace(f"tournament.{key}", flag)
    for said, flags in CONFIG_WORDS.items():
        message = message.replace(said, flags)
    return message


CONFIG_WORDS = {"the config has": "the command line gives", 'format = "gauntlet"': "--format gauntlet",
                "games_per_pairing, duplicate = false or max-hands": "--games, --no-duplicate or the max-hands option"}


def cluster_flags(args) -> dict:
    """The flags that set keys of the configuration's [cluster] table."""
    flags = {"address": args.cluster, "certs": args.cluster_certs and str(args.cluster_certs.absolute()),
             "insecure": args.insecure, "seatings_apart": args.seatings_apart}
    return {key: value for key, value in flags.items() if value is not None}


# The flag that sets each key of the configuration's [tournament] table: read by tournament_flags, and named in
# the errors of a tournament made from the command line alone (in_flags)
FLAG_OF_KEY = {"format": "--format", "candidate": "--candidate", "anchor": "--anchor", "name": "--name",
               "variant": "--variant", "games_per_pairing": "--games", "seed": "--seed", "processes": "--processes",
               "isolation": "--isolation", "restart": "--restart", "duplicate": "--no-duplicate", "boards": "--boards",
               "deals_order": "--deals-order", "deals": "--deals", "rounds": "--rounds", "wait": "--wait",
               "concurrency": "--concurrency"}
TAKEN_AS_GIVEN = ("format", "candidate", "anchor", "name", "variant", "games_per_pairing", "seed", "processes",
                  "isolation", "restart", "deals_order", "rounds", "wait")  # keys whose flag's value is the key's


def tournament_flags(args) -> dict:
    """The flags that set keys of the configuration's [tournament] table."""
    t: dict = {}
    for key in TAKEN_AS_GIVEN:
        value = getattr(args, FLAG_OF_KEY[key].removeprefix("--").replace("-", "_"))  # (the flag's argparse dest)
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
    t.update(fence_keys_from_args(args))
    if args.deals is not None:
        t["deals"] = str(args.deals.absolute())
    return t


def bot_tables_from_args(groups: list[list[str]]) -> list[dict]:
    """``--bot [NAME=]BOT [option.KEY=VALUE ...]`` flags -> [[bot]] tables of a configuration.

    A command's relative paths are made absolute here (they mean the current
    folder, not the configuration's).
    """
    tables = []
    given: set[str] = set()  # the names given (NAME=): two the same are a mistake, not two copies of one bot
    for words in groups:
        grouped = bots_with_options(words)
        if len(grouped) != 1:
            raise UsageError(f"--bot {' '.join(words)}: one bot per --bot (quote a command line with spaces: "
                             "--bot 'mine=./mybot --fast')")
        (text, options), = grouped
        named = BOT_NAME.fullmatch(text)
        name, text = (named.group(1), named.group(2)) if named else (None, text)
        if name is not None:
            given.add(name)
        table: dict = {"sample": text} if text in SAMPLES else {"command": resolve_bot(text)[1].to_text()}
        table["name"] = name or resolve_bot(text)[0]
        if options:
            table["options"] = dict(options)
        tables.append(table)
    named_as = [t["name"] for t in tables]
    clash = next((name for name in given if named_as.count(name) > 1), None)
    if clash is not None:  # a name given (NAME=) that another bot has too, given or its own: no silent NAME-2
        raise UsageError(f"--bot {clash}=...: two bots are named {clash!r}: give each its own name")
    names = unique_names(named_as)
    return [{**t, "name": n} for t, n in zip(tables, names, strict=True)]
