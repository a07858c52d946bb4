"""A command imports what it uses: the parser and the quick commands start without the heavy libraries.

Checked by the modules a fresh interpreter holds after the command, never by its time (the figures are
bench/cli_start.py's, in docs/performance.md "Start of a command").
"""

import subprocess
import sys
from pathlib import Path

import pytest

from arena.cli.parser import COMMANDS, build_parser

HEAVY = {"sqlalchemy", "numpy", "scipy", "distributed", "dask", "jinja2", "starlette", "hypothesis", "playwright"}

# What a fresh interpreter has imported after ``main(ARGV)``, by top-level package.
LOADED = """
import sys
from arena.cli import main
try:
    main(sys.argv[1:])
except SystemExit:
    pass
print(" ".join(sorted({name.split(".")[0] for name in sys.modules})))
"""


def loaded_after(*argv: str) -> set[str]:
    run = subprocess.run([sys.executable, "-c", LOADED, *argv], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return set(run.stdout.split())


def test_the_parser_alone_imports_no_heavy_library():
    code = "import sys, arena.cli.parser; print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert HEAVY & set(run.stdout.split()) == set()


@pytest.mark.parametrize("argv", [["--help"], ["ratings", "--help"], ["replay", "--help"]])
def test_help_of_a_quick_command_imports_neither_trio_nor_the_records(argv):
    loaded = loaded_after(*argv)
    assert HEAVY & loaded == set()
    assert {"trio", "tabulate", "referee"} & loaded == set()


def test_a_league_command_imports_its_database_but_not_numpy(tmp_path):
    folder = tmp_path / "league"
    main = "import sys; from arena.cli import main; sys.exit(main(sys.argv[1:]))"
    init = subprocess.run([sys.executable, "-c", main, "league", "init", str(folder), "--isolation", "none"],
                          capture_output=True, text=True, timeout=120)
    assert init.returncode == 0, init.stderr
    loaded = loaded_after("league", "list", str(folder))
    assert "sqlalchemy" in loaded  # (the command did run)
    assert {"numpy", "scipy", "distributed", "dask", "jinja2", "starlette"} & loaded == set()


def test_every_command_is_listed_with_its_own_help_line():
    whole = build_parser()  # every command's module imported, as each gives its own help line
    lazy = build_parser([])  # none imported: the help lines of parser.COMMANDS
    assert lazy.format_help() == whole.format_help()
    assert all(len(whole.command_parser(name)._actions) > 1 for name in COMMANDS)  # each in full: more than -h


def test_only_the_command_given_is_built_in_full():
    parser = build_parser(["ratings", "games.jsonl"])
    flags = {flag for action in parser.command_parser("ratings")._actions for flag in action.option_strings}
    assert "--anchor" in flags
    assert [a.option_strings for a in parser.command_parser("match")._actions] == [["-h", "--help"]]


def test_a_misspelt_flag_before_any_command_is_still_looked_up_in_every_command(capsys):
    from arena.cli import main

    with pytest.raises(SystemExit):
        main(["--no-reprt"])  # a flag of match, tournament, sprt ... whose modules the lazy parser had not imported
    assert "did you mean '--no-report'?" in capsys.readouterr().err


def test_cli_md_lists_every_command_in_its_table():
    table = (Path(__file__).resolve().parent.parent / "docs" / "cli.md").read_text().split("\n## ", 1)[0]
    assert [name for name in COMMANDS if f"| [`{name}`](#{name}) |" not in table] == []
