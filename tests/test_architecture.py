"""The import rules of docs/architecture.md, checked by reading the source (no module is imported).

Each room may import only the rooms below it: the rules engine nothing of
ours, the command line anything, and nothing below the command line the
command line. Every import statement counts, including those inside a
function: a deferred import is still a dependency.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
OURS = ("arena", "referee", "protocol", "tournaments", "league", "viewer", "sample_bots")

# room -> the rooms it may import (itself always). Longest prefix wins: referee.rules is its own room.
ALLOWED = {
    "protocol": set(),
    "referee.rules": set(),
    "referee.bots": {"protocol"},
    "referee.records": {"referee.rules"},
    "referee.match": {"referee.rules", "referee.bots", "referee.records", "protocol"},
    "referee": {"referee.rules", "referee.bots", "referee.records", "referee.match", "protocol"},
    "tournaments": {"referee", "protocol"},
    "league": {"tournaments", "referee", "protocol"},
    "viewer": {"league", "tournaments", "referee", "protocol"},
    "arena": {"viewer", "league", "tournaments", "referee", "protocol"},
    "sample_bots": {"referee.rules", "protocol"},
}
# The entry point of version 0.1, kept for one release (referee/_moved.py names the module paths it kept).
EXCEPTIONS = {("referee.__main__", "arena.cli")}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def room_of(module: str) -> str:
    matches = [room for room in ALLOWED if module == room or module.startswith(room + ".")]
    return max(matches, key=len)


def imports_of(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import of ours in ``path``, relative imports resolved."""
    module = module_name(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            submodules = [f"{base}.{alias.name}" for alias in node.names if is_module(f"{base}.{alias.name}")]
            if len(submodules) < len(node.names):  # names defined in the module itself (or its package)
                found.append((node.lineno, base))
            found += [(node.lineno, name) for name in submodules]
    return [(line, name) for line, name in found if name.split(".")[0] in OURS]


def is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def sources() -> list[Path]:
    return sorted(p for top in OURS for p in (ROOT / top).rglob("*.py"))


def test_every_room_imports_only_the_rooms_below_it():
    broken = []
    for path in sources():
        module = module_name(path)
        room = room_of(module)
        for line, target in imports_of(path):
            target_room = room_of(target)
            allowed = target_room == room or any(target_room == r or target_room.startswith(r + ".")
                                                 for r in ALLOWED[room])
            if not allowed and (module, target) not in EXCEPTIONS:
                broken.append(f"{path.relative_to(ROOT)}:{line}: {room} imports {target} ({target_room})")
    assert broken == []


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
