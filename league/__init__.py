"""The league: an open ladder that plays itself.

Entrants join, send new versions and leave while it runs; the league keeps
choosing the next table to learn the most about the ranking, plays it as a
tournament plays its games (the same referee, jail and cluster), and keeps
every game in one database.

* :mod:`league.db`: the database (SQLite by default, PostgreSQL by URL),
  through SQLAlchemy Core: settings, entrants and their versions, games.
* :mod:`league.settings`: a league's settings, checked before it is made.
* :mod:`league.errors`: what a league refuses, as one line
  (``LeagueError``; ``LeagueRefused`` for the league as a whole).
* :mod:`league.matchmaking`: which table to play next (pure).
* :mod:`league.ratings`: the ladder's ratings, quick enough to ask before
  every table (the full tables with their bootstrap are ``ratings``'s).
* :mod:`league.runner`: ``league run``, the loop that plays.
* :mod:`league.export`: a league as a results folder that ``replay``,
  ``ratings`` and ``report`` read.
* :mod:`league.health`: is its database sound (``league check``), a
  consistent copy of it (``league backup``), and the one line a command
  gives when the database fails under it.
* :mod:`league.contest`: the end of a contest: its deadline
  (:mod:`league.deadline`), its phase, and :mod:`league.final`, the final
  phase among the ladder's top and its standings.
* :mod:`league.analysis`: each game's decisions weighed in the background
  (by :mod:`league.analyser`, a process at the lowest priority within a
  share of one core), kept in ``analysis.db`` and shown to the entrant that
  made them, never to another.

The command line is :mod:`arena.cli.league`.
"""
