"""make test's type check is not stopped by a damaged cache: mypy's default SQLite cache was once found "malformed"
here (how, unknown: mypy's own code warns that a Ctrl-C may leave it corrupt), and every later check then stopped with
an INTERNAL ERROR until .mypy_cache was removed by hand. The project keeps the cache as files (pyproject.toml's
sqlite_cache = false): each written whole, under a temporary name then renamed, and an entry whose record cannot be
read is checked again."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _check(folder: Path) -> subprocess.CompletedProcess:
    """mypy with the project's settings (pyproject.toml) over one small module, its cache in ``folder``."""
    return subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
                           "--cache-dir", str(folder / "cache"), str(folder / "small.py")],
                          capture_output=True, text=True, check=False, cwd=folder)


def test_a_check_runs_over_a_cache_whose_records_are_damaged(tmp_path):
    (tmp_path / "small.py").write_text("def double(n: int) -> int:\n    return 2 * n\n")
    assert _check(tmp_path).returncode == 0
    # The records of every module's entry damaged: each .meta.ff file of the file store (the SQLite store's are its
    # .db files, which, damaged, are "malformed" and stop the run)
    stores = [f for f in (tmp_path / "cache").rglob("*") if f.is_file() and f.name.endswith((".meta.ff", ".db"))]
    assert stores
    for f in stores:
        f.write_bytes(f.read_bytes()[: f.stat().st_size // 2])
    again = _check(tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "INTERNAL ERROR" not in again.stdout + again.stderr
