"""Where a bot lost its points: every decision of a recorded game weighed by the house bot's search.

``analyse_record(record, seats, budget)`` replays a record and values each
decision of ``seats`` from that seat's observation only (values.py: the
montecarlo bot's sampled worlds and compiled core, exact in the two-handed
second phase; rollout.py plays the hand out after a bid, call, card passed
or buried, or meld; exact.py searches the bidding games' last tricks);
``summary`` sums the losses per bot and phase and keeps
them in ``analysis.jsonl`` beside the records. docs/analysis.md is the
page for bot authors.

It stands below the command line and the viewer, beside ``tournaments``:
it reads records (``referee.records``), plays the rules
(``referee.rules``) and borrows the montecarlo sample bot's search.
"""

from .house import AnalysisError
from .summary import ANALYSIS_FILE, SeatAnalysis, analyse, losses_by_bot, table_rows
from .values import Budget, Searcher, Valuation
from .walk import PHASES, Weighed, analyse_record, mark

__all__ = ["ANALYSIS_FILE", "AnalysisError", "Budget", "PHASES", "Searcher", "SeatAnalysis", "Valuation", "Weighed",
           "analyse", "analyse_record", "losses_by_bot", "mark", "table_rows"]
