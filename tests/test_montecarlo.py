"""The montecarlo sample bot: it knows what its seat knows, plays every variant legally, replays with a seed,
and keeps to its clock."""

from __future__ import annotations

import json
import random
import sys

import attrs
import pytest
import trio
from helpers import arena, lines_for, play, tell_the_game

from protocol import split_points
from referee.bots.samples import SAMPLE_DIR, SAMPLES
from referee.bots.transport import BotCommand
from referee.match import Entrant, wire
from referee.rules import PRESETS, Suit, action_from_text, get_variant, new_game
from referee.rules.cards import make_deck, sort_cards

ROOT = SAMPLE_DIR.parent
sys.path.insert(0, str(SAMPLE_DIR))
import montecarlo_bot  # noqa: E402  (a sample bot, not a package: found by its folder)


def comparable(obs):
    """An observation without what the referee's lines leave out: which table cards a two-handed meld reused."""
    return attrs.evolve(obs, melds=tuple(tuple((x.seat, x.name, x.points, x.cards) for x in seat) for seat in obs.melds))


def start(variant, seed=7, worlds=1):
    """A game of ``variant`` and a montecarlo bot in every seat, each told the game so far."""
    game, notices = new_game(variant, seed=seed)
    bots = [montecarlo_bot.MonteCarlo(worlds=worlds, seed=s) for s in range(variant.players)]
    tell_the_game(bots, variant, notices)
    return game, bots


def step(game, bots, check=None, before=None, time_left_ms=5000):
    """The seat to act is asked as the referee asks it (``before(decision, bot)`` runs just before, and
    ``check(decision, bot)`` once it has replied); its reply is applied and every seat told of it. Returns
    (decision, reply)."""
    d = game.decision()
    if before is not None:
        before(d, bots[d.seat])
    request = wire.request_message(d, time_left_ms, 60000, getattr(game, "meld_value", None))
    reply = bots[d.seat].on_line(request.to_text()).strip()
    if check is not None:
        check(d, bots[d.seat])
    action = action_from_text(split_points(reply)[0])
    assert action in d.legal, f"{reply!r} is not legal for {d.kind.value}"
    shown = game.apply(action)
    for seat, bot in enumerate(bots):
        for line in lines_for(seat, shown):
            bot.on_line(line)
    return d, reply


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_bot_knows_what_the_rules_say_its_seat_knows(name):
    """Every seat is a montecarlo bot fed the referee's lines; at each of its decisions, what it has gathered
    from them is what the rules say the seat may know, in every preset (bids, kitty, passing, burying, dummy,
    stock and melds included), and its replies are legal."""
    game, bots = start(PRESETS[name])
    checked = []

    def check(d, bot):
        if d.kind.value not in ("give", "bury"):  # the bot sets its own card aside as it replies
            assert comparable(bot.observer.observation()) == comparable(game.observation(d.seat))
            checked.append(d)

    def before(d, bot):
        if game.variant.family == "stock":  # two-handed: the bot's own game of the hand agrees too
            shadow = bot.caught_up()
            assert shadow is not None, "the bot lost track of the hand"
            assert comparable(shadow.game.observation(d.seat)) == comparable(game.observation(d.seat))
            assert shadow.game.decision().kind is d.kind and shadow.game.decision().seat == d.seat

    while not game.is_terminal() and len(game.hands_ended) < 2:
        step(game, bots, check, before)
    assert len(checked) > 20




@pytest.mark.parametrize("name", ["three-handed", "two-handed"])
def test_the_same_seed_and_worlds_play_the_same_game(name):
    """With a fixed number of worlds a decision and a seed, the bot's moves do not depend on time: two runs
    of the same deal make the same moves, and another seed makes other moves somewhere. (The clock
    permitting: a bot never overruns its time, so the clock given is one no busy machine makes it reach.)"""
    def moves(seed):
        game, bots = start(PRESETS[name], seed=11, worlds=4)
        for bot in bots:
            bot.seed = seed
        return [step(game, bots, time_left_ms=3_600_000)[1] for _ in range(60) if not game.is_terminal()]

    first = moves(1)
    assert first == moves(1)
    assert first != moves(2)


def test_the_clock_cuts_the_thinking_and_a_short_clock_plays_at_once(monkeypatch):
    """The time a decision may take is the smaller of --think and a share of what the request says is left;
    with almost nothing left, the bot answers with greedy's choice without simulating."""
    game, bots = start(PRESETS["three-handed"])
    d = game.decision()
    bot = bots[d.seat]
    bot.think_ms, bot.worlds = 40, 0
    request = wire.request_message(d, 10_000, 60_000)
    bot.on_line(request.to_text())
    assert bot.deadline - bot.started == pytest.approx(0.040)
    bot.on_line(wire.request_message(d, 100, 60_000).to_text())
    assert bot.deadline - bot.started == pytest.approx(montecarlo_bot.SAFETY * 0.1 - montecarlo_bot.MARGIN_S)

    def no_simulation(*args):
        raise AssertionError("simulated with no time left")

    monkeypatch.setattr(bot, "simulate", no_simulation)
    reply = bot.on_line(wire.request_message(d, 30, 60_000).to_text()).strip()
    assert action_from_text(reply) in d.legal


@pytest.mark.parametrize("name", ["two-handed", "call-for-partner"])
def test_the_sample_bot_plays_in_the_jail(tmp_path, name):
    """montecarlo, jailed (it reads the rules library through the folders its command names), in every seat
    of one board against greedy: every game ends completed, and the records verify."""
    variant = PRESETS[name]
    bots = ["montecarlo", "option.worlds=2"] + ["greedy"] * (variant.players - 1)
    run = arena("match", *bots, "--variant", name, "--boards", "1", "--out", str(tmp_path), "--no-report")
    assert run.returncode == 0, run.stdout + run.stderr
    records = [json.loads(line) for line in (tmp_path / "games.jsonl").read_text().splitlines()]
    assert len(records) == variant.players
    assert {r["termination"] for r in records} == {"completed"}


@pytest.mark.parametrize("name", ["two-handed", "two-handed-hoyle", "two-handed-150"])
def test_the_exact_search_of_the_two_handed_second_phase_finds_the_best_card(name):
    """On random endings of one to five cards a hand, to lead and to follow, the card the search picks is worth
    what plain minimax says the best card is worth (trick points for the seat less the other's, the last
    trick's bonus included). One search per trump serves every ending, as one serves a whole hand in play, so
    a bound it kept from an earlier ending that was wrong for a later one would show."""
    from referee.rules import Suit
    from referee.rules.cards import make_deck
    from referee.rules.tricks import legal_plays, winning_index

    variant = PRESETS[name]
    table = montecarlo_bot.Table(variant)
    searches = {suit: montecarlo_bot.Endgame(table, suit) for suit in Suit}
    rng = random.Random(5)

    def minimax(hands, leader, trick, me, trump):
        if not trick and not hands[0]:
            return 0
        seat = (leader + len(trick)) % 2
        results = []
        for card in legal_plays(hands[seat], trick, trump, table.duty):
            after = [list(h) for h in hands]
            after[seat].remove(card)
            if not trick:
                results.append(minimax(after, leader, [card], me, trump))
                continue
            winner = (leader + winning_index((trick[0], card), trump)) % 2
            points = table.values[trick[0]] + table.values[card] + (variant.last_trick if not after[0] else 0)
            results.append((points if winner == me else -points) + minimax(after, winner, [], me, trump))
        return max(results) if seat == me else min(results)

    for _ in range(150):
        deck = list(make_deck(2, variant.deck_ranks))
        rng.shuffle(deck)
        n = rng.randint(1, 5)
        trump, me, leader = rng.choice(list(Suit)), rng.randrange(2), rng.randrange(2)
        hands = [deck[:n], deck[n:2 * n]]
        trick = []
        if leader != me:  # the other seat has led its first card
            trick, hands[leader] = [hands[leader][0]], hands[leader][1:]
        choice = searches[trump].best(hands[me], hands[1 - me], trick[0] if trick else None, 10**9, float("inf"))
        after = [list(h) for h in hands]
        after[me].remove(choice)
        if trick:
            winner = (leader + winning_index((trick[0], choice), trump)) % 2
            points = table.values[trick[0]] + table.values[choice] + (variant.last_trick if not after[0] else 0)
            got = (points if winner == me else -points) + minimax(after, winner, [], me, trump)
        else:
            got = minimax(after, me, [choice], me, trump)
        assert got == minimax(hands, leader, list(trick), me, trump)


def test_in_call_for_partner_the_called_cards_first_holder_after_the_bid_winner_joins_it_and_hands_it_over():
    """The first seat after the bid winner holding the called card is its partner; it hands the card over and
    takes back the card the bid winner passes; the card passed back keeps the most meld."""
    def cards(*texts):
        return [montecarlo_bot.Card.from_text(t) for t in texts]

    hands = [cards("QC"), cards("JD"), cards("AS", "TS", "KH"), cards("AS", "QS"), cards("AS", "TS")]
    ace, spades = montecarlo_bot.Card.from_text("AS"), montecarlo_bot.Suit.SPADES
    assert montecarlo_bot.first_holder(hands, 2, ace) == 3  # seats 3 and 4 hold one: 3 comes first
    assert montecarlo_bot.first_holder(hands, 3, ace) == 4  # after seat 3 come 4, 0, 1, 2
    assert montecarlo_bot.first_holder(hands, 2, montecarlo_bot.Card.from_text("AC")) is None  # nobody holds it
    montecarlo_bot.hand_over(hands, 2, 3, ace, montecarlo_bot.Card.from_text("KH"))
    assert sorted(map(str, hands[2])) == sorted(map(str, cards("AS", "AS", "TS")))
    assert sorted(map(str, hands[3])) == sorted(map(str, cards("QS", "KH")))
    game, bots = start(PRESETS["call-for-partner"])
    bot = bots[0]
    hearts = montecarlo_bot.Suit.HEARTS
    # called the jack of diamonds beside the queen of spades (a pinochle): the passed card is not the jack
    hand = cards("AH", "TH", "KH", "QH", "QS", "JD", "TC", "KC", "QC", "AD", "TD", "KS", "AS", "TS", "JC", "AC")
    passed = bot.pass_back(hand, hearts).to_text()
    assert passed not in ("JD", "QS")
    assert montecarlo_bot.meld_points(hand, hearts, bot.table.variant) > montecarlo_bot.meld_points(
        [c for c in hand if c.to_text() != "AH"], hearts, bot.table.variant)  # the run in hearts: its cards stay
    assert passed not in ("AH", "TH", "KH", "QH")


@pytest.mark.parametrize(("auction", "expected"), [
    (["pass", "bid:25", "pass"], "pass"),  # the partner's bid, both opponents out: a bid would only raise ours
    (["pass", "bid:25", "bid:26"], "bid:27"),  # an opponent holds the bid: it outbids it
    (["bid:25", "bid:26", "pass"], "bid:27"),  # the partner holds it, but an opponent can still bid
])
def test_in_four_handed_it_never_outbids_its_partner_once_the_opponents_are_out(auction, expected):
    """The fourth seat to speak, with a hand its worlds value at 1000 in every suit, after ``auction``."""
    game, bots = start(PRESETS["four-handed"])
    for token in auction:
        shown = game.apply(action_from_text(token))
        for seat, bot in enumerate(bots):
            for line in lines_for(seat, shown):
                bot.on_line(line)
    bot = bots[game.decision().seat]
    bot.suit_values = lambda obs, trumps, bidding: [[1000] * len(trumps)]
    assert step(game, bots)[1] == expected


def test_in_call_for_partner_the_calls_tried_are_those_that_complete_its_meld_and_greedys():
    """Holding all four aces of trump: the queen that completes the run in trump comes first (the most meld
    added), the ten of trump (greedy's call then) is tried too; a card it holds every copy of never is."""
    variant = PRESETS["call-for-partner"]
    hand = [montecarlo_bot.Card.from_text(t) for t in "AH AH AH AH TH KH JH KS QS JD TC TC KC QC AS AD".split()]
    callable_cards = sort_cards(make_deck(1, variant.deck_ranks))
    options = montecarlo_bot.call_candidates(hand, Suit.HEARTS, callable_cards, variant)
    text = [c.to_text() for c in options]
    assert text[0] == "QH" and "TH" in text and "AH" not in text
    assert len(options) <= montecarlo_bot.CALL_CANDIDATES + 2
    gain = montecarlo_bot.meld_points([*hand, montecarlo_bot.Card.from_text("QH")], Suit.HEARTS, variant)
    assert gain > montecarlo_bot.meld_points(hand, Suit.HEARTS, variant)  # the run in hearts

STRICT_EDITABLE = """
import importlib.abc, importlib.util, runpy, sys
ROOT = @ROOT@  # in the code, not a word of the command (the jail shows what words name)
class Finder(importlib.abc.MetaPathFinder):  # as setuptools' strict editable install maps a package to its folder
    def find_spec(self, name, path=None, target=None):
        if name in ('referee', 'protocol'):
            return importlib.util.spec_from_file_location(name, f'{ROOT}/{name}/__init__.py',
                                                          submodule_search_locations=[f'{ROOT}/{name}'])
sys.meta_path.insert(0, Finder())
sys.path = [p for p in sys.path if p != ROOT]  # no plain path to the checkout: only the hook finds it
sys.argv = sys.argv[1:]
sys.path.insert(0, sys.argv[0].rsplit('/', 1)[0])  # the script's folder, as 'python script.py' puts it first
runpy.run_path(sys.argv[0], run_name='__main__')
"""


def test_montecarlo_starts_in_its_jail_under_an_editable_installs_import_hook(tmp_path):  # issue 34, item 18
    """``pip install -e .`` (setuptools' default, strict mode) imports ``referee`` through an import hook that
    loads ``referee/__init__.py`` from the checkout: the jail must show the whole package, not only its rules."""
    sample = SAMPLES["montecarlo"]
    command = BotCommand((sample.argv[0], "-c", STRICT_EDITABLE.replace("@ROOT@", repr(str(ROOT))), *sample.argv[1:]),
                         read_only=sample.read_only)
    entrants = [Entrant("montecarlo", command), Entrant("greedy", SAMPLES["greedy"].command())]
    (record,), _ = trio.run(play, entrants, get_variant("two-handed", {"max-hands": "1"}), 3, tmp_path)
    assert record.termination.value == "completed", record.detail


def test_it_claims_exactly_when_the_claim_wins():
    """Hoyle's claim: the bot claims when its total, with the hand's meld and trick points so far, reaches the
    target (the target as raised by a tie), and not a point before; the pure-Python baseline never claims."""
    game, bots = start(PRESETS["two-handed-hoyle"])
    d = game.decision()
    bot = bots[d.seat]
    real = bot.observer.observation()

    def mine(values, x):
        return tuple(x if s == d.seat else v for s, v in enumerate(values))

    def seen(trick_points):  # the seat's total 1100, its meld 100 and these trick points; the target 1250
        return attrs.evolve(real, totals=mine(real.totals, 1100), meld_points=mine(real.meld_points, 100),
                            trick_points=mine(real.trick_points, trick_points), target=1250)

    request = wire.request_message(d, 5000, 60000, getattr(game, "meld_value", None)).to_text()
    assert "claim" in request
    bot.observer.observation = lambda: seen(49)
    assert not bot.claim_wins()
    assert bot.on_line(request).strip() != "claim"
    bot.observer.observation = lambda: seen(50)
    assert bot.claim_wins()
    assert bot.on_line(request).strip() == "claim"
    bot.use_core = False
    assert bot.on_line(request).strip() != "claim"
