"""The argument parser: one sub-command per module of ``arena.cli``, with "did you mean" for a misspelt word."""

from __future__ import annotations

import argparse
import difflib
import importlib
import re

# Each command's module (``arena.cli.NAME``) and its line in ``--help``, in the order ``--help`` lists them. Each
# module has ``add_parser(sub)``, which sets ``handler`` to its ``run`` and gives the same help line (a test holds
# them equal). Only the command being run has its module imported: the others, and the libraries they bring (trio,
# SQLAlchemy, numpy ...), cost a command nothing (docs/performance.md, "Start of a command").
COMMANDS = {
    "match": "play games between bots",
    "check": "check that a bot follows the protocol (for bot authors)",
    "tournament": "run a round robin, gauntlet or knockout (default: the sample bots)",
    "league": "an open ladder: entrants join and send new versions while it plays",
    "ratings": "ratings, head-to-head statistics and crosstable of recorded games",
    "sprt": "is NEW stronger than OLD? play duplicate pairs until the SPRT decides",
    "variants": "list variants and their options, or show one variant's settings",
    "deals": "write a deal file: the deals of recorded games, or new ones from a seed",
    "replay": "replay recorded games through the rules and report mismatches",
    "report": "write the HTML report of a match or tournament: tables, plots, every game in a replay viewer",
    "analyse": "weigh every decision of recorded games by search: points lost per bot and phase, mistakes marked",
    "play": "play against bots yourself, in your web browser",
    "cluster": "TLS certificates, scheduler and workers for tournaments on a Dask cluster",
}


class Parser(argparse.ArgumentParser):
    """argparse, with "did you mean" for a misspelt command or flag."""

    def parse_args(self, args=None, namespace=None):
        self.given = list(args) if args is not None else []  # to tell which command a misspelt flag was given to
        return super().parse_args(args, namespace)

    def error(self, message: str):
        """One line, and exit status 2 (argparse's own error prints the usage first: twenty lines for a command
        with many flags, above the one that matters)."""
        given = getattr(self, "given", [])
        hint = _did_you_mean(self, message, given)
        helped = " ".join([self.prog, *_commands_given(self, given)]) if self.prog == "pinochle-arena" else self.prog
        self.exit(2, f"{helped}: error: {message}{f'; did you mean {hint}?' if hint else ''} "
                     f"(see '{helped} --help')\n")

    def command_parser(self, name: str) -> argparse.ArgumentParser:
        """The parser of the sub-command ``name``."""
        (commands,) = [a for a in self._actions if isinstance(a, argparse._SubParsersAction)]
        return commands.choices[name]


def _commands_given(parser: argparse.ArgumentParser, given: list[str]) -> list[str]:
    """The words of ``given`` that name a command, then a command of it (``league run``): whose --help to name."""
    words = []
    for word in given:
        commands = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if not commands or word not in commands[0].choices:
            break
        words.append(word)
        parser = commands[0].choices[word]
    return words


# Flags other tools (cutechess, fastchess) or another of our commands take, which newcomers bring along: what to
# give instead (a spelling suggestion would send them the wrong way: -engine is not --anchor).
HABITS = {
    "-engine": "'--bot' (cutechess's and fastchess's '-engine cmd=PROGRAM' is '--bot PROGRAM' here, one per bot)",
    "-each": "the flags alone ('--time-per-move', '--limit' ...): given once, they apply to every bot",
    "--sprt": "the sprt command ('pinochle-arena sprt NEW OLD' tests whether NEW is stronger than OLD)",
}


def _did_you_mean(parser: argparse.ArgumentParser, message: str, given_words: list[str]) -> str:
    habits = [HABITS[flag] for flag in re.findall(r"(--?[\w-]+)", message.partition("unrecognized arguments:")[2])
              if flag in HABITS]
    if habits:
        return habits[0]
    words: list[str] = []
    commands = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    wanted = re.search(r"invalid choice: '([^']*)'", message)
    if wanted:  # a misspelt command
        words = [name for a in commands for name in a.choices]
        given = [wanted.group(1)]
    else:  # misspelt flags: the top parser reports them for its command, so look in that command's flags
        given = re.findall(r"(--?[\w-]+)", message.partition("unrecognized arguments:")[2])
        named = [p for a in commands for name, p in a.choices.items() if name in given_words[:1]]
        if not named:  # no command given: every command's flags, so every command in full
            commands = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
        parsers = [parser, *(named or (p for a in commands for p in a.choices.values()))]
        words = sorted({flag for p in parsers for action in p._actions for flag in action.option_strings})
    matches = [m for g in given for m in difflib.get_close_matches(g, words, n=1, cutoff=0.6) if m != g]
    return " ".join(f"'{m}'" for m in matches)


class VersionAction(argparse.Action):
    """--version, looked up only when asked for (importlib.metadata costs every other command 60 ms)."""

    def __init__(self, option_strings, dest, **kwargs):
        super().__init__(option_strings, dest, nargs=0, help="show the version and exit")

    def __call__(self, parser, namespace, values, option_string=None):
        from referee import installed_version  # here: importing referee costs every other command 20 ms

        print(f"{parser.prog} {installed_version()}")  # on stdout, as argparse's own version action
        parser.exit()


def build_parser(argv: list[str] | None = None) -> Parser:
    """The parser of every command; given the words of a command line, of the command they name alone (the others
    have only their name and help line: their modules are not imported)."""
    given = next((word for word in argv if not word.startswith("-")), None) if argv is not None else None
    parser = Parser(prog="pinochle-arena", description="Referee and tournament harness for Pinochle bots.")
    parser.add_argument("--version", action=VersionAction)
    sub = parser.add_subparsers(title="commands", metavar="COMMAND", parser_class=Parser)
    for name, help_line in COMMANDS.items():
        if argv is None or name == given:
            importlib.import_module(f"{__package__}.{name}").add_parser(sub)  # the command's module, only now
        else:
            sub.add_parser(name, help=help_line)
    return parser
