"""One bot process, started and fenced: the transport layer.

Owns: starting a bot program from one long-lived thread in its own process
group (``spawn``), its fence (``sandbox``: resource limits, a clean
environment, the bubblewrap jail of ``jail`` with its seccomp filter, a
uid of its own and the control groups of ``cgroups``, and a file system of
its own: ``runtimes`` chooses the system's files, ``images`` keeps their
read-only images, ``seating_fs`` mounts them for one process through the loop
devices of ``mounts``, ``counters`` fixes the machine's figures in its
``/proc``), lines in and out of
its pipes with deadlines and caps (``transport``), killing it and whatever
it left behind, the sample bots addressable by name (``samples``), and the
refusal of layouts in which a jail would show a bot another entrant's
program or a results folder (``apart``).

May import: the standard library, third-party packages, ``protocol`` (only
to find the shipped rules library for the samples) and ``referee.bots``.
Knows nothing of the rules, the records or a game: a bot's failure here is
a ``BotError``, which the match loop turns into a result.
"""
