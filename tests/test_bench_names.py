"""A benchmark script is run from bench/, which Python puts first on the import path: a script named like one of
the project's packages would be imported in its place (bench/analysis.py once hid the ``analysis`` package from
every benchmark that wrote a report)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_no_benchmark_is_named_like_a_package_of_the_project():
    packages = {p.parent.name for p in ROOT.glob("*/__init__.py")} | {p.stem for p in ROOT.glob("*.py")}
    scripts = {p.stem for p in (ROOT / "bench").glob("*.py")} | {p.name for p in (ROOT / "bench").iterdir() if p.is_dir()}
    assert "referee" in packages and "analysis" in packages
    assert scripts & packages == set()
