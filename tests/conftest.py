import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
for folder in (ROOT, ROOT / "tests"):  # the project, and tests/helpers.py for tests in subfolders
    if str(folder) not in sys.path:
        sys.path.insert(0, str(folder))
