"""``pinochle-arena play``: people at some seats, in a web browser, against bots at the others."""

from __future__ import annotations

import secrets
import socket
import sys

from referee.bots.sandbox import isolation_summary
from referee.match import TimeControl
from referee.records.record import GameRecord

from .args import (
    UsageError,
    add_report_argument,
    add_time_arguments,
    add_variant_arguments,
    entrants_from_args,
    given_path,
    nonneg_int,
    positive_int,
    variant_from_args,
)
from .printing import game_line, open_in_browser, print_standings, write_html_report
from .running import check_bots_start, check_out, default_out, run_trio_stoppable


def add_parser(sub) -> None:
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
    p.add_argument("--out", type=given_path, default=None, help="output directory (default results/play-TIMESTAMP)")
    add_report_argument(p)
    p.set_defaults(handler=run)


def run(args) -> int:
    from viewer.play import run_play, seat_entrants

    variant = variant_from_args(args)
    seats = args.seat if args.seat is not None else [0]
    check_seats(variant, seats, len(args.bots))
    bots = entrants_from_args(args, args.bots) if args.bots else ()
    human_time = TimeControl(bank_ms=args.human_time * 1000 * 10, increment_ms=0, move_ms=args.human_time * 1000,
                             grace_ms=1000)
    seed = args.seed if args.seed is not None else secrets.randbits(128)
    out = args.out or default_out("play")
    check_out(out)
    check_port(args.port)
    if (out / "games.jsonl").exists():
        raise UsageError(f"{out / 'games.jsonl'} already exists; choose another --out")
    bots = check_bots_start(bots, out / "logs", args.startup_timeout, name_by_bots=True)
    seated, links = seat_entrants(bots, seats, variant.players, human_time)
    records: list[GameRecord] = []

    def on_address(addresses: list[str]) -> None:
        for seat, address in zip(sorted(links), addresses, strict=True):
            print(f"seat {seat}: open {address}", flush=True)
        if args.open:
            open_in_browser(addresses[0])

    def on_game(record: GameRecord) -> None:
        records.append(record)
        print(game_line(record), flush=True)

    print(f"play: {variant.name}, {args.games} game(s), people at seat(s) {', '.join(map(str, seats))}; "
          f"records in {out}/games.jsonl")
    if bots:
        print(isolation_summary(bots[0].sandbox))
    _, stopped = run_trio_stoppable(run_play, seated, links, variant, args.games, seed, out, args.port, on_address,
                                    on_game, args.startup_timeout)
    if stopped:
        print(f"\nstopped after {len(records)} game(s)", file=sys.stderr)
        return 130
    print_standings(records)
    if not args.no_report and records:
        write_html_report(records, out, f"play: {' vs '.join(e.name for e in seated)}")
    return 0


def check_port(port: int) -> None:
    """UsageError, before anything is made, when 127.0.0.1:``port`` is taken (0: a free one is chosen later)."""
    if port == 0:
        return
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds it
        try:
            probe.bind(("127.0.0.1", port))
        except OSError as e:
            raise UsageError(f"--port {port}: 127.0.0.1:{port} cannot be used ({e.strerror}); choose another port, "
                             "or leave --port out for a free one") from None


def check_seats(variant, seats: list[int], bots: int) -> None:
    """Every --seat exists and is taken once, and the bots fill exactly the other seats."""
    if len(set(seats)) != len(seats) or any(s >= variant.players for s in seats):
        raise UsageError(f"--seat: {variant.name} has seats 0 to {variant.players - 1}, each taken once")
    if bots != variant.players - len(seats):
        raise UsageError(f"variant {variant.name} seats {variant.players}; {len(seats)} for people leaves "
                         f"{variant.players - len(seats)} for bots, got {bots}")
