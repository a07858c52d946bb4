"""make test's type check survives its own interruption: a Ctrl-C while mypy writes its cache must not leave a cache
that stops every later check (mypy's default SQLite cache, written unsynchronised, did: "INTERNAL ERROR ... database
disk image is malformed" until .mypy_cache was removed by hand)."""

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


def test_a_check_runs_over_a_cache_left_half_written(tmp_path):
    (tmp_path / "small.py").write_text("def double(n: int) -> int:\n    return 2 * n\n")
    assert _check(tmp_path).returncode == 0
    # Every store of the modules' entries cut short, as a write that never finished would leave it. (The file store
    # writes each file whole, under a temporary name then renamed, so an interruption leaves whole files; its reader
    # takes an entry it cannot read for a stale one. The SQLite store, cut short, is "malformed" and stops the run.)
    stores = [f for f in (tmp_path / "cache").rglob("*") if f.is_file() and f.suffix in (".ff", ".db")]
    assert stores
    for f in stores:
        f.write_bytes(f.read_bytes()[: f.stat().st_size // 2])
    again = _check(tmp_path)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "INTERNAL ERROR" not in again.stdout + again.stderr
