"""The import rules of docs/architecture.md, checked by reading the source (no module is imported).

Each room may import only the rooms below it: the rules engine nothing of
ours, the command line anything, and nothing below the command line the
command line. Every import counts, including those inside a function (a
deferred import is still a dependency) and ``importlib.import_module`` or
``__import__`` with a name written out. The packages are found, not listed:
every folder of the repository with an ``__init__.py``; one that ``ALLOWED``
does not place fails the test, so a new package needs a decision about where
it stands.
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

# room -> the rooms it may import (itself always). Longest prefix wins: referee.rules is its own room.
ALLOWED = {
    "protocol": set(),
    "referee.rules": set(),
    "referee.bots": {"protocol"},
    "referee.records": {"referee.rules"},
    "referee.match": {"referee.rules", "referee.bots", "referee.records", "protocol"},
    "referee": {"referee.rules", "referee.bots", "referee.records", "referee.match", "protocol"},
    "tournaments": {"referee", "protocol"},
    "analysis": {"referee", "protocol", "sample_bots"},  # borrows the montecarlo bot's search (by its folder)
    "league": {"tournaments", "analysis", "referee", "protocol"},  # weighs its games in the background
    "viewer": {"league", "tournaments", "analysis", "referee", "protocol"},  # shows analyse's marks
    "arena": {"viewer", "league", "tournaments", "analysis", "referee", "protocol"},
    "sample_bots": {"referee.rules", "protocol"},
}
# The entry point of version 0.1, kept for one release (referee/_moved.py names the module paths it kept).
EXCEPTIONS = {("referee.__main__", "arena.cli")}
# The calls that import the module their first argument names: importlib.import_module(name, package), __import__.
IMPORT_CALLS = {"import_module", "__import__"}


def packages(root: Path = ROOT) -> list[str]:
    """Our top-level packages: the repository's folders that hold an ``__init__.py``."""
    return sorted(p.parent.name for p in root.glob("*/__init__.py"))


def module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def room_of(module: str) -> str | None:
    """The room ``module`` belongs to (the longest room of ALLOWED it is in), or None for one of no room."""
    matches = [room for room in ALLOWED if module == room or module.startswith(room + ".")]
    return max(matches, key=len) if matches else None


def imports_in(source: str, module: str, is_package: bool = False,
               root: Path = ROOT) -> list[tuple[int, str]]:
    """(line, module) of every import in ``source`` (the text of ``module``), relative imports resolved: the
    statements, and the calls of :data:`IMPORT_CALLS` whose name is a literal string."""
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolved(node.module or "", node.level, package)
            submodules = [f"{base}.{alias.name}" for alias in node.names if is_module(f"{base}.{alias.name}", root)]
            if len(submodules) < len(node.names):  # names defined in the module itself (or its package)
                found.append((node.lineno, base))
            found += [(node.lineno, name) for name in submodules]
        elif isinstance(node, ast.Call):
            name = _imported_by_call(node, package)
            if name is not None:
                found.append((node.lineno, name))
    return found


def _imported_by_call(call: ast.Call, package: str) -> str | None:
    """The module an ``import_module("...")`` or ``__import__("...")`` call imports, when its name is written out
    (a relative one resolved against the ``package=`` it is given, written out or ``__package__``)."""
    func = call.func
    called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else None
    if called not in IMPORT_CALLS or not call.args:
        return None
    first = call.args[0]
    if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
        return None
    name = first.value
    if not name.startswith("."):
        return name
    anchor = next((k.value for k in call.keywords if k.arg == "package"), call.args[1] if len(call.args) > 1 else None)
    if isinstance(anchor, ast.Constant) and isinstance(anchor.value, str):
        anchor_package = anchor.value
    elif isinstance(anchor, ast.Name) and anchor.id == "__package__":
        anchor_package = package
    else:
        return None
    level = len(name) - len(name.lstrip("."))
    return _resolved(name[level:], level, anchor_package)


def _resolved(name: str, level: int, package: str) -> str:
    """``from .name import`` (``level`` dots) in ``package``, as an absolute module name."""
    if not level:
        return name
    parts = package.split(".")
    anchor = parts[: len(parts) - level + 1]
    return ".".join([*anchor, *([name] if name else [])])


def imports_of(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """(line, module) of every import of one of our packages in ``path``."""
    ours = tuple(packages(root))
    found = imports_in(path.read_text(encoding="utf-8"), module_name(path, root), path.name == "__init__.py", root)
    return [(line, name) for line, name in found if name.split(".")[0] in ours]


def is_module(name: str, root: Path = ROOT) -> bool:
    path = root.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def sources(root: Path = ROOT) -> list[Path]:
    return sorted(p for top in packages(root) for p in (root / top).rglob("*.py"))


def is_allowed(module: str, target: str) -> bool:
    room, target_room = room_of(module), room_of(target)
    if room is None or target_room is None:
        return False
    return target_room == room or any(target_room == r or target_room.startswith(r + ".") for r in ALLOWED[room])


def problems(root: Path = ROOT) -> list[str]:
    """Every break of the rules in the tree at ``root``: a package with no room, an import that goes up or
    sideways (or into a package with no room)."""
    found = [f"{name}/: a package with no place in the layers: add it to ALLOWED (and to docs/architecture.md)"
             for name in packages(root) if room_of(name) is None]
    for path in sources(root):
        module = module_name(path, root)
        for line, target in imports_of(path, root):
            if not is_allowed(module, target) and (module, target) not in EXCEPTIONS:
                found.append(f"{path.relative_to(root)}:{line}: {room_of(module)} imports {target} "
                             f"({room_of(target) or 'no room'})")
    return found


def test_every_room_imports_only_the_rooms_below_it():
    assert problems() == []


def test_the_packages_found_are_the_ones_the_wheel_ships_and_the_type_check_reads():
    """pyproject.toml's package lists and the folders with an ``__init__.py`` agree, so that a package is neither
    shipped unchecked nor checked but left out of the wheel, nor left out of the type check."""
    tool = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]
    assert sorted(pattern.rstrip("*") for pattern in tool["setuptools"]["packages"]["find"]["include"]) == packages()
    assert set(packages()) <= set(tool["mypy"]["files"])


def test_no_module_imports_itself_round_a_circle():
    graph = {module_name(p): {t for _, t in imports_of(p) if is_module(t)} for p in sources()}
    circles = set()

    def visit(module: str, path: list[str]) -> None:
        for target in sorted(graph.get(module, ())):
            if target in path:
                circle = path[path.index(target):]
                turn = circle.index(min(circle))
                circles.add(" -> ".join(circle[turn:] + circle[:turn]))
            elif len(path) < 12:
                visit(target, [*path, target])

    for module in graph:
        visit(module, [module])
    assert sorted(circles) == []


def test_the_rules_engine_needs_nothing_but_itself():
    """A bot may ship referee/rules/ alone (the montecarlo sample does, in its jail)."""
    for path in (ROOT / "referee" / "rules").rglob("*.py"):
        assert all(t.startswith("referee.rules") for _, t in imports_of(path)), path


def plant(root: Path, files: dict[str, str]) -> Path:
    """A small source tree at ``root``: each package folder gets an ``__init__.py``."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        for folder in path.relative_to(root).parents[:-1]:
            (root / folder / "__init__.py").touch()
        path.write_text(text, encoding="utf-8")
    return root


@pytest.mark.parametrize("source", [
    "from tournaments import schedule\n",
    "def later():\n    import tournaments.schedule\n",
    "import importlib\nimportlib.import_module('tournaments.schedule')\n",
    "from importlib import import_module\nimport_module('tournaments.schedule')\n",
    "__import__('tournaments.schedule')\n",
    "import importlib\nimportlib.import_module('..match.game', __package__)\n",
    "import importlib\nimportlib.import_module('..match.game', package='referee.rules')\n",
])
def test_an_import_that_goes_up_is_found_however_it_is_written(tmp_path, source):
    root = plant(tmp_path, {"referee/rules/cards.py": "", "referee/rules/bad.py": source,
                            "referee/match/game.py": "", "tournaments/schedule.py": "from referee.rules import cards\n"})
    line = source.count("\n")
    target = "referee.match.game" if "match" in source else "tournaments.schedule"
    assert problems(root) == [f"referee/rules/bad.py:{line}: referee.rules imports {target} ({room_of(target)})"]


def test_an_import_whose_name_is_not_written_out_is_not_guessed(tmp_path):
    root = plant(tmp_path, {"referee/rules/bad.py": "import importlib\nname = 'tournaments'\n"
                                                    "importlib.import_module(name)\n__import__(name.upper())\n",
                            "tournaments/schedule.py": ""})
    assert problems(root) == []


def test_a_package_with_no_place_in_the_layers_fails(tmp_path):
    root = plant(tmp_path, {"protocol/messages.py": "import newroom.things\n", "newroom/things.py": ""})
    assert packages(root) == ["newroom", "protocol"]
    assert problems(root) == [
        "newroom/: a package with no place in the layers: add it to ALLOWED (and to docs/architecture.md)",
        "protocol/messages.py:1: protocol imports newroom.things (no room)",
    ]


@pytest.mark.parametrize("old, new, name", [
    ("referee.record", "referee.records.record", "GameRecord"),
    ("referee.transport", "referee.bots.transport", "BotCommand"),
    ("referee.results", "referee.records.store", "ResultStore"),
    ("referee.cli", "arena.cli", "main"),
])
def test_the_old_flat_paths_still_import_for_one_release(old, new, name):
    import importlib
    import sys

    sys.modules.pop(old, None)
    with pytest.warns(DeprecationWarning, match=f"{old} moved to {new}"):
        alias = importlib.import_module(old)
    assert getattr(alias, name) is getattr(importlib.import_module(new), name)


def test_python_m_referee_still_runs_the_command_line():
    import subprocess
    import sys

    old = subprocess.run([sys.executable, "-m", "referee", "variants"], capture_output=True, text=True, cwd=ROOT)
    new = subprocess.run([sys.executable, "-m", "arena", "variants"], capture_output=True, text=True, cwd=ROOT)
    assert old.returncode == new.returncode == 0
    assert old.stdout == new.stdout and "two-handed" in new.stdout
