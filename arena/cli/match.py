"""``pinochle-arena match``: games between bots named on the command line."""

from __future__ import annotations

import sys
from pathlib import Path

from referee.bots.samples import SAMPLES
from referee.bots.sandbox import isolation_summary
from referee.match import MatchPlan, match_games, match_group, run_match
from referee.records.record import GameRecord

from .args import (
    UsageError,
    add_boards_argument,
    add_cutechess_arguments,
    add_deals_argument,
    add_report_argument,
    add_resume_argument,
    add_time_arguments,
    add_variant_arguments,
    bots_with_options,
    deals_from_args,
    deals_in_order,
    entrants_from_args,
    given_path,
    positive_int,
    variant_from_args,
)
from .printing import (
    films_ahead,
    deals_text,
    game_line,
    print_faults,
    rating_interval,
    print_report,
    print_standings,
    write_html_report,
    write_pgn,
)
from .progress import Progress
from .results import open_results
from .running import check_bots_start, check_new_file, resumed_arguments, run_trio, seed_and_out


def add_parser(sub) -> None:
    p = sub.add_parser("match", help="play games between bots", description=(
        "Play games between bots. BOT is a sample bot's name (" + ", ".join(SAMPLES) + ") or any command line "
        "that starts a bot, e.g. './mybot --fast' or 'node bot.js'. Give one bot per seat, seat 0 first "
        "(partners sit opposite: seats 0 and 2, the first and third BOT, against 1 and 3). Games go in groups with the "
        "same cards, one game per seating (two bots: both ways; three: all six orders; more: each rotation), so every "
        "bot holds every hand."))
    p.add_argument("bots", nargs="*", metavar="BOT", help="one bot per seat, in seat order; a bot's options "
                   "(protocol 3) follow it as option.NAME=VALUE, e.g. './mybot option.depth=4 greedy'")
    add_resume_argument(p, "match")
    add_boards_argument(p, "instead of --games")
    add_deals_argument(p)
    add_cutechess_arguments(p)
    add_variant_arguments(p)
    p.add_argument("--games", type=positive_int, default=None,
                   help="games to play: one game per seating of each deal, so a multiple of the seatings (2 for two "
                        "seats, 6 for three, 4 for four; default 20, or the next multiple: 24 for three seats)")
    p.add_argument("--no-duplicate", action="store_true",
                   help="a new deal for every game (any number of games) instead of each deal once per seating")
    p.add_argument("--seed", type=int, default=None,
                   help="seed for the deals (default: a secret one from the operating system, kept in OUT)")
    add_time_arguments(p)
    p.add_argument("--out", type=given_path, default=None, help="output directory (default results/match-TIMESTAMP)")
    p.add_argument("--concurrency", type=positive_int, default=1, metavar="N",
                   help="games at once, as cutechess's -concurrency (default 1); each of the N lanes has processes of "
                        "its own, logged in OUT/logs/BOT.wLANE.stderr.log")
    p.add_argument("--transcripts", action="store_true",
                   help="write every protocol line to OUT/logs/BOT.protocol.log ('>' to the bot, '<' from it)")
    p.add_argument("--pgn", type=Path, default=None, metavar="FILE",
                   help="also write the results as PGN (seat 0 as White; two-player games), for Ordo or BayesElo")
    add_report_argument(p)
    p.set_defaults(handler=run)


def run(args) -> int:
    if args.resume is not None:
        args = resumed_arguments(args, "match")
    variant = variant_from_args(args, boards=args.boards is not None)
    bots = [b for b, _ in bots_with_options(args.bots)]
    if len(bots) != variant.players:
        raise UsageError(f"variant {variant.name} seats {variant.players} players: give {variant.players} bots, one a "
                         f"seat ({f'got {len(bots)}: ' + ' '.join(bots) if bots else 'got none'})")
    entrants = entrants_from_args(args, args.bots)
    games = games_to_play(args, match_group(variant.players))
    deals = deals_from_args(args, variant)
    seed, out = seed_and_out(args, "match")
    deals = deals_in_order(args, deals, seed)
    if args.pgn is not None:
        check_new_file(args.pgn, "--pgn")
    what = f"{games // match_group(variant.players)} boards ({games} one-hand games)" if args.boards else f"{games} games"
    print(f"match: {' vs '.join(e.name for e in entrants)}, {variant.name}, {what}, {deals_text(args, deals)}, "
          f"records in {out}/games.jsonl")  # before the bots start, so that a bot that cannot start shows the plan
    print(isolation_summary(entrants[0].sandbox))
    entrants = named(check_bots_start(entrants, out / "logs", args.startup_timeout, name_by_bots=True), entrants)
    names = [e.name for e in entrants]
    plan = MatchPlan(entrants, variant, games, seed, out, args.startup_timeout, args.transcripts,
                     duplicate=not args.no_duplicate, deals=deals, boards=args.boards is not None,
                     wait_ms=args.wait or 0)
    store, records = open_results(args, "match", seed, out, match_games(plan), deals)
    if records:
        print(f"resuming: {len(records)} of {games} games already played")
    progress = Progress(games, start=len(records))

    def on_game(record: GameRecord) -> None:
        records.append(record)
        films.add(record)
        progress.update(len(records), game_line(record))
        rating_interval(progress, records, args.ratinginterval)

    try:
        with films_ahead(out, not args.no_report, from_notices=True) as films:
            run_trio(run_match, plan, on_game, store, {r.game_id for r in records}, args.concurrency, films.seen)
    except KeyboardInterrupt:
        progress.close()
        print(f"\nstopped after {len(records)} of {games} games (all saved in {store.games_path}); so far:")
        print_match_table(records, args.boards)
        print(f"To continue: pinochle-arena match --resume {out}", file=sys.stderr)
        return 130
    progress.close()
    store.mark_ended({})  # with how many records it wrote: the last ones taken away are missed too
    print_match_table(records, args.boards)
    print_faults(records, out / "logs")
    if args.pgn is not None:
        write_pgn(records, args.pgn)
    if not args.no_report:
        write_html_report(records, out, f"match: {' vs '.join(names)}")
    return 0


def named(entrants: tuple, before: tuple) -> tuple:
    """The entrants as their bots named themselves, saying so when that changed a name."""
    if [e.name for e in entrants] != [e.name for e in before]:
        print(f"as the bots call themselves ('id name'): {' vs '.join(e.name for e in entrants)}")
    return entrants


def games_to_play(args, seatings: int) -> int:
    """The games of --games or --boards (a board is one game per seating: ``seatings`` games), checked against
    duplicate deals."""
    if args.boards is not None and (args.games is not None or args.no_duplicate):
        raise UsageError("--boards N plays N deals as one hand in every seating: it takes no --games or "
                         "--no-duplicate")
    games = (args.boards * seatings if args.boards else args.games if args.games is not None
             else -(-20 // seatings) * seatings)
    games *= args.rounds or 1  # cutechess's -rounds: the games (or boards) played that many times over
    if games % seatings and not args.no_duplicate:
        raise UsageError(f"--games {games}: each deal is played once per seating ({seatings} games), so give a "
                         f"multiple of {seatings}, or --no-duplicate for a new deal every game")
    return games


def print_match_table(records: list[GameRecord], boards: int | None) -> None:
    """The standings of a match's games, or the board tables of a match of boards (while it has a whole board)."""
    from tournaments.boards import boards_of

    if boards and boards_of(records)[0]:
        print_report(records, None, anchor=None, bootstrap=300)
    else:
        print_standings(records)
