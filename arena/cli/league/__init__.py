"""``pinochle-arena league``: a ladder that plays itself while entrants join, send new versions and leave.

``league init DIR`` makes a league (one folder: its database and the bots'
logs); ``league add``, ``update``, ``remove`` and ``list`` change and show its
entrants, also while ``league run DIR`` plays; ``league show DIR`` prints the
ladder and the ratings' tables, ``league serve DIR`` its web pages; ``league
export DIR OUT`` writes its games as a results folder that ``replay``,
``ratings`` and ``report`` read. See docs/league.md.

Each command is parsed and printed here and does its work in :mod:`league`:

* :mod:`.init`: ``init`` (its settings checked by :func:`league.settings.check_settings`);
* :mod:`.entrants`: ``add``, ``update``, ``remove``, ``list``, ``entrant add``,
  ``token``, ``pause``, ``restore`` and ``void``;
* :mod:`.run`: ``run`` (the loop is :class:`league.runner.LeagueRunner`);
* :mod:`.show`: ``show`` and ``export``;
* :mod:`.serve`: ``serve`` (the pages are :mod:`viewer.site`'s);
* :mod:`.contest`: ``deadline``, ``close`` and ``final``;
* :mod:`.health`: ``check`` and ``backup``;
* :mod:`.analysis`: ``analysis`` (the games weighed in the background: league.analysis);
* :mod:`.common`: opening a league, and the one place where what a league
  refuses (:class:`league.errors.LeagueRefused`, named after its folder) and a
  database that fails become one line. Any other LeagueError is one of the
  command line's user errors as it is.
"""

from __future__ import annotations

import argparse

from . import analysis, contest, entrants, health, init, run, serve, show
from .common import meet_errors_in_one_line

# In the order ``league --help`` lists the commands; each adds its commands' parsers, with their handlers.
ADDERS = (init.add_init, entrants.add_changes, entrants.add_list, run.add_run, show.add_show, serve.add_serve,
          entrants.add_uploaders, entrants.add_void, show.add_export, contest.add_contest, health.add_health,
          analysis.add_analysis)


def add_parser(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("league", help="an open ladder: entrants join and send new versions while it plays",
                       description="A league that plays itself: entrants are added, updated and removed while "
                                   "'league run' plays, and it chooses each next table where the ranking is most in "
                                   "doubt. See docs/league.md.")
    commands = p.add_subparsers(title="league commands", metavar="WHAT", required=True)
    for add in ADDERS:
        add(commands)
    meet_errors_in_one_line(commands)  # (last: every command above)
