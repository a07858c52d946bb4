"""``pinochle-arena check``: the compliance report for a bot's author."""

from __future__ import annotations

import secrets

import attrs

from referee.bots.sandbox import isolation_summary
from referee.match.compliance import run_check

from .args import (
    UsageError,
    add_time_arguments,
    add_variant_arguments,
    entrants_from_args,
    given_path,
    positive_int,
    variant_from_args,
)
from .running import default_out, run_trio


def add_parser(sub) -> None:
    p = sub.add_parser("check", help="check that a bot follows the protocol (for bot authors)", description=(
        "Play a few games between BOT and the reference bot (the sample 'greedy') with strict checks: "
        "it starts, completes the handshake, answers a ping, stays up, plays legally in every phase, replies on time "
        "(no grace), sends only valid lines, and exits cleanly on 'quit'; and warns about play that loses without "
        "an error (never bidding, always the first legal action, never melding, claims that lose the game, with "
        "their count). Prints a report with the exact "
        "offending lines; exit status 0 only when every check passes (warnings do not fail it)."))
    p.add_argument("bot", nargs="+", metavar="BOT", help="a command line that starts the bot, or a sample bot's name; "
                   "its options (protocol 3) follow as option.NAME=VALUE")
    add_variant_arguments(p)
    p.add_argument("--games", type=positive_int, default=4, help="games to play (default 4)")
    p.add_argument("--seed", type=int, default=None,
                   help="seed for the deals (default: a new one every run, printed, so that no two runs deal alike "
                        "or give their games the same ids; --seed N deals those games again)")
    add_time_arguments(p)
    p.add_argument("--out", type=given_path, default=None, help="where logs and the transcript go (default results/check-TIMESTAMP)")
    p.set_defaults(handler=run)


def run(args) -> int:
    variant = variant_from_args(args)
    entrants = entrants_from_args(args, args.bot)
    if len(entrants) != 1:
        raise UsageError(f"check takes one bot (and its option.NAME=VALUE words); got {len(entrants)}: "
                         f"{', '.join(e.name for e in entrants)}")
    (entrant,) = entrants
    out = args.out or default_out("check")
    seed = args.seed if args.seed is not None else secrets.randbits(63)
    report = run_trio(run_check, entrant, variant, args.games, seed, out, args.startup_timeout)
    print(report.render())
    # (one process plays every game of a check, to see it stay up: no line on a fresh process each game)
    print(isolation_summary(attrs.evolve(entrant.sandbox, kept_jail=False)) + "; check plays its games in one process")
    print(f"(seed {seed}: 'check ... --seed {seed}' deals these games again)")
    return 0 if report.passed else 1
