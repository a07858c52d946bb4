"""``python -m arena``: the same as the ``pinochle-arena`` command."""

import sys

from arena.cli import main

sys.exit(main())
