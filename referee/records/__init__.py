"""What a game leaves behind, and the checks that it is genuine.

Owns: the game record and its JSONL lines (``record``), the results folder
that keeps them with its secret key, schedule and ledger (``store``), the
seals on every record (``seals``), the sealed account of every record a run
wrote (``ledger``), the checks of records against their seals, schedule and
ledger (``audit``), replaying a record through the rules (``replay``), and
deal files (``deals``).

May import: the standard library, third-party packages, ``referee.rules``
and ``referee.records``. Knows nothing of processes, pipes or time limits.
"""
