"""The protocol loop every attack bot shares: it plays the first legal action and calls hooks.

An attack bot subclasses :class:`Bot`, overrides the hooks it needs and
calls :func:`run`. What the attack learnt goes to stderr as one line
``ATTACK <name> <result>`` (:func:`report`); the referee saves stderr to
OUT/logs/<entrant>.stderr.log, where the tests read it.

Arguments of the form ``key=value`` are parsed into :data:`ARGS` (words that
do not look like a path, so the jail does not bind the folders they name).
Only the standard library is used, so a bot starts in any jail that can run
Python.
"""

from __future__ import annotations

import errno
import sys

ARGS = dict(word.split("=", 1) for word in sys.argv[1:] if "=" in word and not word.startswith("/"))
MARK = ARGS.get("mark", "no-mark")  # a unique word of the test, in every process's command line


def say(text: str) -> None:
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def report(name: str, result: str) -> None:
    sys.stderr.write(f"ATTACK {name} {result}\n")
    sys.stderr.flush()


def outcome(error: BaseException | None) -> str:
    """'ok', or the errno's name (EACCES, EROFS, ENOENT...) of the failure."""
    if error is None:
        return "ok"
    code = getattr(error, "errno", None)
    return errno.errorcode.get(code, type(error).__name__) if code else type(error).__name__


class Bot:
    """Plays the first legal action; the hooks do the rest."""

    name = "attacker"
    seat = 0
    game_id = ""
    variant = ""
    options: dict[str, str] = {}
    hand: list[str] = []
    requests = 0  # in this process

    def on_game(self) -> None:
        """A ``game`` line arrived (seat, game_id, variant, options are set)."""

    def on_deal(self) -> None:
        """The first ``deal`` of a game arrived (``hand`` is set)."""

    def on_request(self, decision: str, legal: list[str]) -> None:
        """Called before the reply to every request."""

    def on_line(self, words: list[str]) -> None:
        """Called first for every line read."""

    def after_reply(self) -> None:
        """Called after a reply is written: the opponent is (probably) to move now."""

    def choose(self, decision: str, legal: list[str]) -> str:
        choice = legal[0]
        return choice.split("..")[0] if ".." in choice else choice  # a range of bids: its lowest


def run(bot: Bot) -> None:
    while True:
        line = sys.stdin.readline()
        if not line:
            return
        words = line.split()
        if not words:
            continue
        bot.on_line(words)
        kind = words[0]
        if kind == "pinochle":
            say(f"id name {bot.name}")
            say("ready")
        elif kind == "game":
            bot.game_id, bot.variant, bot.seat = words[1], words[2], int(words[3])
            bot.options = dict(w.split("=", 1) for w in words[5:] if "=" in w)
            bot.hand = []
            bot.on_game()
        elif kind == "deal":
            first = not bot.hand
            bot.hand = words[4:]
            if first:
                bot.on_deal()
        elif kind == "go":
            bot.requests += 1
            legal = words[4:]
            bot.on_request(words[1], legal)
            say(bot.choose(words[1], legal))
            bot.after_reply()
        elif kind == "ping":
            say("pong " + words[1])
        elif kind == "quit":
            return
