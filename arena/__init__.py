"""pinochle-arena, the program: the command line on top of every other package.

``arena.cli`` parses arguments and prints; the work is done below it, in
``referee`` (rules, bots, records, the match loop), ``tournaments`` and
``viewer``. Nothing below imports ``arena``.
"""
