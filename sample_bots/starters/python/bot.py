#!/usr/bin/env python3
"""python-starter: a pinochle-arena bot to copy and make your own.

It speaks protocol 3 (protocol/PROTOCOL.md) and plays every variant
legally with a deliberately simple strategy. The files:

    bot.py       this file: the strategy (``choose``, the one function to
                 replace) and the main loop that talks to the referee
    model.py     the game model: your hand, trump, the trick, the scores,
                 kept up to date from the referee's messages
    messages.py  every line the referee sends, read into Python types

Run it with ``python3 bot.py`` (Python 3.11+, standard library only).
Standard output is for protocol lines only: debug with ``log(...)``,
which writes to standard error (the referee saves it in a log file).
"""

import sys

sys.dont_write_bytecode = True  # import our modules without writing __pycache__ next to them

import traceback  # noqa: E402
from collections import Counter  # noqa: E402

import messages as m  # noqa: E402
from messages import SUITS, Action, Card  # noqa: E402
from model import Model  # noqa: E402

NAME = "python-starter"
AUTHOR = "pinochle-arena starter kits"
# Options the organiser may set (protocol 3), one 'option' line each, e.g.
#   "option depth int 4 1 12"   (a whole number: default 4, from 1 to 12)
# Their values arrive before the first game, in model.options["depth"] (text).
OPTIONS: list[str] = []


def log(*args) -> None:
    """Debug output: standard error, never standard output."""
    print(*args, file=sys.stderr, flush=True)


# =============================================================================
#  YOUR BOT: replace choose() (and its helpers below) with your own thinking.
#
#  choose() gets the request (go.decision, go.actions: every legal action,
#  bid ranges already expanded) and the model (model.py), and returns ONE of
#  go.actions. Everything below it is one simple way to do that.
# =============================================================================
def choose(go: m.Go, model: Model) -> Action:
    actions = go.actions
    by_kind: dict[str, list[Action]] = {}  # the legal actions by kind: "card", "meld", "bid", "pass"...
    for a in actions:
        by_kind.setdefault(a.kind, []).append(a)

    # Claim the game when our points reach the target (only some variants offer 'claim';
    # a wrong claim loses the game).
    if "claim" in by_kind and model.target and model.my_points() >= model.target:
        return by_kind["claim"][0]

    match go.decision:
        case "bid":
            return choose_bid(by_kind, model)
        case "trump" if "trump" in by_kind:  # the suit that melds most, then the longest (never 'throw-in')
            return max(by_kind["trump"], key=lambda a: (hand_meld(model.hand, a.suit, model),
                                                        sum(c.suit == a.suit for c in model.hand)))
        case "meld":  # the meld that scores most, if there is one
            melds = by_kind.get("meld")
            return max(melds, key=lambda a: a.points or 0) if melds else by_kind["pass"][0]
        case "lead" | "follow":
            return choose_card(go, by_kind, model)
        case "give":
            gives = by_kind["give"]
            if model.bidder == model.seat:  # we won the bid: give back our weakest cards
                return min(gives, key=lambda a: weakness(a.card, model))
            return max(gives, key=lambda a: (a.card.suit == model.trump, a.card.strength))  # partner: our best
        case "bury":  # our weakest cards (buried counters still score for us)
            return min(by_kind["bury"], key=lambda a: weakness(a.card, model))
        case _:  # take, call, and any request this kit does not know yet: the first action offered
            return actions[0]


def choose_bid(by_kind: dict[str, list[Action]], model: Model) -> Action:
    """Bid the minimum when our meld alone is worth it; pass otherwise (unless passing is not allowed)."""
    bids = sorted(by_kind.get("bid", []), key=lambda a: a.amount)
    if not bids:
        return by_kind["pass"][0]
    best_meld = max(hand_meld(model.hand, suit, model) for suit in SUITS)
    if "pass" not in by_kind or best_meld >= bids[0].amount:
        return bids[0]
    return by_kind["pass"][0]


def choose_card(go: m.Go, by_kind: dict[str, list[Action]], model: Model) -> Action:
    """Lead: a non-trump ace, else the weakest card. Follow: the weakest card that wins, else the weakest."""
    plays = by_kind.get("card", []) + by_kind.get("table", [])
    if not plays:
        return go.actions[0]
    weakest = min(plays, key=lambda a: weakness(a.card, model))
    if not model.trick:  # we lead
        aces = [a for a in plays if a.card.rank == "A" and a.card.suit != model.trump]
        return aces[0] if aces else weakest
    winner, best = trick_winner(model.trick, model.trump)
    if model.is_partner(winner):
        return weakest  # our side is winning already
    winning = [a for a in plays if beats(a.card, best, model.trump)]
    return min(winning, key=lambda a: weakness(a.card, model)) if winning else weakest


# ---------------------------------------------------------------- card sense
def weakness(card: Card, model: Model) -> tuple:
    """Sort key, weakest first: non-trumps before trumps, then fewer counter points, then lower rank."""
    return (card.suit == model.trump, model.rules.points.get(card.rank, 0), card.strength)


def beats(card: Card, best: Card, trump: str | None) -> bool:
    """Does ``card`` beat ``best``, the card winning the trick so far? (Of two identical cards the first wins.)"""
    if card.suit == best.suit:
        return card.strength > best.strength
    return card.suit == trump


def trick_winner(trick: list[tuple[int, Card]], trump: str | None) -> tuple[int, Card]:
    """(seat, card) winning the trick so far."""
    seat, best = trick[0]
    for s, c in trick[1:]:
        if beats(c, best, trump):
            seat, best = s, c
    return seat, best


def hand_meld(cards: list[Card], trump: str, model: Model) -> int:
    """Roughly what ``cards`` meld with ``trump``, at this game's meld values ('rule meld' lines)."""
    count = Counter(cards)
    values = model.rules.melds

    def times(*names: str) -> int:  # how many complete sets of these cards we hold
        return min(count[Card.parse(n)] for n in names)

    def value(kind: str, n: int) -> int:  # n of a meld: as many times over as the table allows, then again
        row, total = values.get(kind, ()), 0
        while n > 0 and row:
            k = min(n, len(row))
            total, n = total + row[k - 1], n - k
        return total

    runs = times(*(r + trump for r in "ATKQJ"))
    total = value("run", runs) + value("royal", times("K" + trump, "Q" + trump) - runs)
    total += sum(value("marriage", times("K" + s, "Q" + s)) for s in SUITS if s != trump)
    total += value("dix", count[Card("9", trump)])
    for kind, rank in (("aces", "A"), ("kings", "K"), ("queens", "Q"), ("jacks", "J")):
        total += value(kind, times(*(rank + s for s in SUITS)))
    return total + value("pinochle", times("JD", "QS"))


# =============================================================================
#  The main loop: talks to the referee. You should not need to change it.
# =============================================================================
def send(line: str) -> None:
    """One protocol line to the referee, flushed at once (a reply stuck in a buffer never arrives)."""
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def decide(go: m.Go, model: Model) -> Action:
    """choose(), made safe: a crash or a reply that is not on the list becomes the first legal action."""
    try:
        action = choose(go, model)
        if isinstance(action, str):  # a token is fine too: 'AS', 'bid:25', 'royal:KH,QH'
            action = next((a for a in go.actions if action.lower() in (a.token.lower(), a.token.split("=")[0].lower())),
                          action)
        if action in go.actions:
            return action
        log(f"choose() returned {action!r}, which is not a legal action; playing the first one instead")
    except Exception:
        log(f"choose() failed on: go {go.decision} {' '.join(go.tokens)}")
        log(traceback.format_exc())
    return go.actions[0] if go.actions else Action("pass", "pass")


def main() -> None:
    # (the type checker knows sys.stdin only as a TextIO; it is a TextIOWrapper, which has reconfigure)
    sys.stdin.reconfigure(encoding="utf-8", errors="replace")  # type: ignore[union-attr]
    sys.stdout.reconfigure(encoding="utf-8")  # type: ignore[union-attr]
    model = Model()
    for line in sys.stdin:
        msg = m.parse_line(line)
        try:
            model.update(msg)
        except Exception:  # a bookkeeping bug must not stop the bot; the next state line puts it right
            log(f"model.update failed on: {line.strip()}")
            log(traceback.format_exc())
        match msg:
            case m.Hello(version=version):
                send(f"id name {NAME}")
                send(f"id author {AUTHOR}")
                if version >= 3:  # a referee that greets with 'pinochle 2' would refuse these lines
                    send("protocol 3")
                    for option in OPTIONS:
                        send(option)
                    send("want state")
                send("ready")
            case m.Go():
                action = decide(msg, model)
                if action.kind in ("give", "bury") and action.card is not None:
                    model.put_aside(action.card)  # it leaves the hand now, as the state line counts it
                send(action.token)
            case m.Ping(token=token):
                send(f"pong {token}")
            case m.Error(text=text):
                log(f"referee: error {text}")
            case m.GameOver(termination=termination, result=result):
                log(f"game over ({termination}), result {result}")
            case m.Quit():
                return
            # every other message only updates the model; unknown ones (m.Unknown) are ignored


if __name__ == "__main__":
    main()
