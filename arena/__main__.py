"""``python -m arena``: the same as the ``pinochle-arena`` command."""

import sys

from arena.cli import main

if __name__ == "__main__":  # (a process the report starts to write films imports this module again: not a run)
    sys.exit(main())
