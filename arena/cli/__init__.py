"""The ``pinochle-arena`` command line: argument parsing and printing only.

One module per command (``match``, ``tournament``, ``sprt``, ``check``, ``analyse``,
``replay``, ``ratings``, ``report``, ``play``, ``variants``, ``deals``),
each with ``add_parser(sub)`` and ``run(args)``; ``league``, with its many
sub-commands, is a package of one module per family of them. ``parser``
puts them together. Shared pieces: ``args`` (argument groups and what they
become), ``running`` (trio, output folders, resuming), ``results`` (reading
and verifying records), ``printing`` and ``progress``. The work itself is
done below: in ``referee``, ``tournaments``, ``league`` and ``viewer``. To
add a command, see docs/architecture.md.
"""

from __future__ import annotations

import os
import sys


def user_errors() -> tuple[type[Exception], ...]:
    """Errors that are the user's input (a flag, a file, a folder, a bot that cannot start, what a league refuses),
    not a referee bug: each is printed as one line, without a traceback, and the command exits with status 2."""
    # Imported when an error is met, not at start: their modules bring trio and the records (0.1 s of CPU).
    from league.errors import LeagueError
    from referee.bots.transport import BotError
    from referee.records.audit import ScheduleError
    from referee.records.deals import DealFileError
    from referee.records.record import RecordError
    from referee.records.seals import KeyFileError
    from referee.records.store import StoreError
    from referee.rules import VariantError

    from .args import UsageError

    return (UsageError, VariantError, RecordError, BotError, KeyFileError, ScheduleError, DealFileError, StoreError,
            LeagueError)


def __getattr__(name: str) -> object:
    """``USER_ERRORS``, the tuple's name until 0.2 (imported as ``referee.cli.USER_ERRORS`` by 0.1's code), made when
    asked for (PEP 562) so that starting a command imports none of their modules."""
    if name == "USER_ERRORS":
        return user_errors()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main(argv: list[str] | None = None) -> int:
    from .parser import build_parser

    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    args.argv, args.cwd, args.parser = argv, os.getcwd(), parser  # match and sprt resume from OUT alone
    if not getattr(args, "handler", None):
        parser.print_help()
        return 2
    try:
        status = args.handler(args)
        sys.stdout.flush()  # here, so that a closed pipe is met below and not at exit
        return status
    except BrokenPipeError:  # the reader went away (``variants | head``): stop quietly, as cat does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # 128 + SIGPIPE, what a shell reports for a program a closed pipe stopped
    except Exception as e:
        if not isinstance(e, user_errors()):
            raise
        print(f"pinochle-arena: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\npinochle-arena: interrupted", file=sys.stderr)  # (the commands that keep records say what they kept)
        return 130
    finally:
        from referee.records.store import STARTED  # here: a command that never opened a store need not import it

        while STARTED:  # a new run that ends before its first game leaves only its logs: the same command may rerun
            STARTED.pop().discard_if_unplayed()
