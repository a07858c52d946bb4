"""``python -m referee``, the entry point of 0.1, kept for one release: the same as ``python -m arena``."""

from arena.cli import main

raise SystemExit(main())
