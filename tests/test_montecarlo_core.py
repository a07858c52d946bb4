"""The montecarlo bot's compiled search core (sample_bots/montecarlo_core) holds to the rules library.

The core is a second copy of the trick rules, in Rust, for speed; these tests keep it the same as the one
in referee/rules: legal plays under every follow duty, trick winners, whole playouts (trick points under
every counting table and last-trick bonus, the dummy's cards, and each variant's scoring of a hand)
against the Python bot's playout with the same policy, and the exact two-handed endgame against the Python
``Endgame``. Every search is seeded and counted in worlds, never timed.
"""

from __future__ import annotations

import random
import shutil
import sys
import types

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.bots.samples import SAMPLE_DIR, build_core
from referee.rules import PRESETS, Suit
from referee.rules.cards import ALL_FACES, make_deck, sort_cards
from referee.rules.events import DecisionKind
from referee.rules.tricks import FollowDuty, MustWin, legal_plays, winning_index
from referee.rules.variants import COUNTING, Partners

sys.path.insert(0, str(SAMPLE_DIR))
import montecarlo_bot  # noqa: E402  (a sample bot, not a package: found by its folder)
from montecarlo_core import native  # noqa: E402

DUTIES = [FollowDuty(f, t, w) for f in (True, False) for t in (True, False) for w in MustWin]
FAST = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module")
def core():
    """The core, built as the sample bot's first use builds it (skipped where there is no cargo)."""
    if shutil.which("cargo") is None:
        pytest.skip("cargo is not installed: the bot plays with its pure-Python search")
    build_core(SAMPLE_DIR / "montecarlo_core")
    return native.load()


cards_strategy = st.lists(st.sampled_from(ALL_FACES), min_size=1, max_size=16)


@FAST
@given(hand=cards_strategy, played=st.lists(st.sampled_from(ALL_FACES), min_size=0, max_size=4),
       trump=st.sampled_from(list(Suit)), duty=st.sampled_from(DUTIES))
def test_legal_plays_are_the_rules_librarys(core, hand, played, trump, duty):
    expected = {native.number(c) for c in legal_plays(hand, played, trump, duty)}
    assert core.legal_plays(hand, played, trump, duty) == expected


@FAST
@given(played=st.lists(st.sampled_from(ALL_FACES), min_size=1, max_size=5), trump=st.sampled_from(list(Suit)))
def test_the_trick_winner_is_the_rules_librarys(core, played, trump):
    assert core.winning_index(played, trump) == winning_index(played, trump)


def test_card_numbers_sort_as_the_rules_library_sorts():
    """The core breaks the policy's ties by the lowest card number, the Python bot by hand order: the same
    choice when hands are in the rules library's card order."""
    numbers = [native.number(c) for c in sort_cards(ALL_FACES)]
    assert numbers == sorted(numbers) == list(range(24))


def random_position(rng: random.Random, variant):
    """A hand part played: every seat's cards, a trick in progress (legal cards), sides, points so far."""
    table = montecarlo_bot.Table(variant)
    n = variant.players
    deck = list(make_deck(variant.deck_copies, variant.deck_ranks))
    rng.shuffle(deck)
    size = rng.randint(1, min(variant.hand_size, len(deck) // (n + (1 if variant.dummy else 0))))
    hands = [sort_cards(deck[s * size:(s + 1) * size]) for s in range(n)]
    dummy = deck[n * size:n * size + size] if variant.dummy else []
    trump, leader = rng.choice(list(Suit)), rng.randrange(n)
    tricks_played = rng.choice([0, 0, 1, 3])
    trick = []
    for k in range(rng.randrange(n)):
        seat = (leader + k) % n
        legal = legal_plays(hands[seat], [c for _, c in trick], trump, table.duty)
        card = rng.choice(legal)
        hands[seat].remove(card)
        trick.append((seat, card))
    if variant.partners is Partners.OPPOSITE:
        side = [s % 2 for s in range(n)]
    elif variant.partners is Partners.CALLED:
        team = {rng.randrange(n), rng.randrange(n)}
        side = [0 if s in team else 1 for s in range(n)]
    else:
        side = list(range(n))
    bidder = None if table.stock_game else rng.randrange(n)
    obs = types.SimpleNamespace(
        bidder=bidder, bid=rng.choice([20, 30, 50, 250]) if bidder is not None else None,
        meld_points=[rng.choice([0, 0, 4, 20, 40]) for _ in range(n)],
        trick_points=[rng.randrange(0, 30) for _ in range(n)], won=[rng.randrange(0, 2) for _ in range(n)])
    return table, hands, dummy, trump, leader, tricks_played, trick, side, obs


@pytest.mark.parametrize("counting", list(COUNTING))
@pytest.mark.parametrize("name", list(PRESETS))
def test_a_playout_is_the_python_bots_card_for_card(core, name, counting):
    """From random positions of every preset, under every counting table and a few last-trick bonuses: the
    core's playout by the fast policy ends with the trick points, tricks and result for the seat to act
    that the Python bot's ``play_out``, ``hand_scores`` and ``utility`` give."""
    rng = random.Random(f"{name}:{counting}")
    for _ in range(40):
        variant = attrs.evolve(PRESETS[name], counting=counting, last_trick=rng.choice([0, 1, 2, 10]))
        table, hands, dummy, trump, leader, tricks_played, trick, side, obs = random_position(rng, variant)
        seat = (leader + len(trick)) % variant.players
        legal = legal_plays(hands[seat], [c for _, c in trick], trump, table.duty)
        first = rng.choice([None, rng.choice(legal)])
        buried = rng.choice([0, 5, 10])

        words = native.decision_words(
            seats=variant.players, seat=seat, trump=trump, duty=table.duty,
            first_lead_trump=variant.first_lead_trump and not table.stock_game, last_trick=variant.last_trick,
            values=table.rank_values, leader=leader, tricks_played=tricks_played, stock_game=table.stock_game,
            bidder=obs.bidder, bid=obs.bid, save_by_point=variant.save_meld.value == "point",
            two_one=variant.scoring.value == "two-one", buried=buried, sides=side, meld=obs.meld_points,
            points=obs.trick_points, won=obs.won, trick=trick, hand=hands[seat],
            candidates=[first] if first is not None else [],
            places=([*[(s, 0, hands[s]) for s in range(variant.players) if s != seat],
                     *([("dummy", 0, dummy)] if dummy else [])], []))
        got_points, got_won, got_result = core.play_out(words, variant.players)

        python_hands = [list(h) for h in hands]
        points, won = list(obs.trick_points), list(obs.won)
        montecarlo_bot.play_out(table, trump, python_hands, trick, leader, tricks_played, points, won, dummy, side,
                                first=first)
        assert (got_points, got_won) == (points, won)
        scores = montecarlo_bot.hand_scores(table, obs, points, won, buried, side)
        assert got_result == pytest.approx(montecarlo_bot.utility(scores, seat, side), abs=1e-3)


@pytest.mark.parametrize("name", ["two-handed", "two-handed-hoyle", "two-handed-150"])
def test_the_exact_endgame_is_worth_what_the_python_search_says(core, name):
    """On random endings of one to six cards a hand, to lead and to follow, the core's card and its value are
    the best the Python ``Endgame`` finds (the margin of the rest of the hand for the seat). One core search
    per trump serves every ending, as one serves a whole hand in play."""
    variant = PRESETS[name]
    table = montecarlo_bot.Table(variant)
    searches = {suit: core.endgame(suit, table.duty, table.rank_values, variant.last_trick) for suit in Suit}
    rng = random.Random(name)
    for _ in range(150):
        deck = list(make_deck(2, variant.deck_ranks))
        rng.shuffle(deck)
        n = rng.randint(1, 6)
        trump = rng.choice(list(Suit))
        mine, theirs = tuple(deck[:n]), tuple(deck[n:2 * n])
        python = montecarlo_bot.Endgame(table, trump)
        python.budget, python.limit = 10**12, float("inf")
        led = None
        if rng.random() < 0.5:  # the other seat has led its first card
            led, theirs = theirs[0], theirs[1:]
        card, value = searches[trump].best(mine, theirs, led, 10**9, None)
        by_number = {native.number(c): c for c in mine}
        assert card in by_number
        chosen = by_number[card]
        rest = montecarlo_bot._without(mine, chosen)
        if led is None:
            best = python.to_lead(mine, theirs, -montecarlo_bot.LOSS, montecarlo_bot.LOSS)
            worth = python.after_lead(rest, theirs, chosen, -montecarlo_bot.LOSS, montecarlo_bot.LOSS)
        else:
            worths = {c: -python.after_lead(theirs, mine, led, -montecarlo_bot.LOSS, montecarlo_bot.LOSS,
                                            follower_played=c) for c in python.replies(mine, led)}
            best, worth = max(worths.values()), worths.get(chosen)
        assert value == best
        assert worth == best


def three_handed_decision(seed: int):
    """A real decision of a three-handed game (a montecarlo bot in every seat, one world a decision), played
    until the first card of the second trick: the words the bot sends the core, and its legal cards."""
    sys.path.insert(0, str(SAMPLE_DIR.parent / "tests"))
    from test_montecarlo import start, step

    game, bots = start(PRESETS["three-handed"], seed=seed, worlds=1)
    while len(game.observation(0).played) < 4:
        step(game, bots)
    d = game.decision()
    bot = bots[d.seat]
    obs = bot.observer.observation()
    cards = sorted({a.card for a in d.legal}, key=native.number)
    side = bot.table.sides(obs)
    return montecarlo_bot.core_decision(bot.table, obs, d.seat, side, bot.won, cards, obs.sampler()), cards


def test_the_same_worlds_and_seed_give_the_same_means_and_choice(core):
    """A search of N worlds with seed S gives the same results every time (the moves of ``option.worlds=N``
    do not depend on the machine), and another seed other results."""
    words, cards = three_handed_decision(5)
    first = core.play(words, len(cards), seed=7, worlds=300, seconds=None)
    assert first[1] == 300
    assert first == core.play(words, len(cards), seed=7, worlds=300, seconds=None)
    assert first != core.play(words, len(cards), seed=8, worlds=300, seconds=None)


def test_without_its_core_the_bot_says_why_once_and_plays_on(monkeypatch, capsys, tmp_path):
    """A library that is not there (no cargo, a failed build): the bot says so once on stderr, without a
    traceback, and its pure-Python search plays."""
    monkeypatch.setattr(native, "LIBRARY", tmp_path / "libmontecarlo_core.so")
    monkeypatch.setattr(native, "FAILED", tmp_path / "build-failed.txt")
    (tmp_path / "build-failed.txt").write_text("cargo is not on PATH\n")
    monkeypatch.setattr(montecarlo_bot, "_CORE", [])
    monkeypatch.setattr(native, "load", lambda: native.Core(native.LIBRARY))
    sys.path.insert(0, str(SAMPLE_DIR.parent / "tests"))
    from test_montecarlo import start, step

    game, bots = start(PRESETS["three-handed"], seed=2, worlds=2)
    for _ in range(12):
        step(game, bots)
    err = capsys.readouterr().err
    assert err.count("playing without its compiled core") == 1
    assert "cargo is not on PATH" in err and "Traceback" not in err


def test_a_core_that_cannot_be_built_leaves_the_reason_and_stops_nothing(tmp_path, monkeypatch):
    """The referee's first-use build: a crate that does not compile, or no cargo at all, raises nothing (the
    bot plays without its core) and leaves the reason where the bot reads it."""
    crate = tmp_path / "broken_core"
    (crate / "src").mkdir(parents=True)
    (crate / "Cargo.toml").write_text('[package]\nname = "broken_core"\nversion = "0.1.0"\nedition = "2021"\n\n'
                                      '[lib]\ncrate-type = ["cdylib"]\n')
    (crate / "src" / "lib.rs").write_text("this is not Rust\n")
    if shutil.which("cargo") is not None:
        build_core(crate)
        assert "cannot build" in (crate / "target" / "build-failed.txt").read_text()
    monkeypatch.setattr(shutil, "which", lambda name: None)
    build_core(crate)
    assert "needs cargo on PATH" in (crate / "target" / "build-failed.txt").read_text()
    assert not (crate / "target" / "libbroken_core.so").exists()


def test_option_core_python_never_calls_the_core(monkeypatch):
    """``option.core=python`` is the montecarlo of before the core: the baseline the benchmark measures."""
    sys.path.insert(0, str(SAMPLE_DIR.parent / "tests"))
    from test_montecarlo import start, step

    def no_core():
        raise AssertionError("the core was used")

    monkeypatch.setattr(montecarlo_bot, "compiled_core", no_core)
    game, bots = start(PRESETS["two-handed"], seed=4, worlds=1)
    for bot in bots:
        bot.on_line("setoption core python")
    for _ in range(30):
        step(game, bots)


def test_the_first_phase_search_weighs_every_choice_the_same_way_twice(core):
    """Two-handed, while the stock lasts: a card to play and the last stock card to take are each weighed
    by the core over N seeded worlds, the same every time."""
    sys.path.insert(0, str(SAMPLE_DIR.parent / "tests"))
    from test_montecarlo import start, step

    game, bots = start(PRESETS["two-handed"], seed=6, worlds=1)
    seen = set()
    while game.phase == 1:
        d = game.decision()
        bot = bots[d.seat]
        if d.kind.value in ("lead", "follow", "take") and d.kind.value not in seen and len(d.legal) > 1:
            seen.add(d.kind.value)
            assert bot.caught_up() is not None
            obs = bot.observer.observation()
            words = montecarlo_bot.core_stock_decision(bot.table, obs, d.seat, list(d.legal), obs.sampler())
            first = core.stock(words, len(d.legal), seed=3, worlds=200, seconds=None)
            assert first[1] == 200 and len(first[0]) == len(d.legal)
            assert first == core.stock(words, len(d.legal), seed=3, worlds=200, seconds=None)
        step(game, bots)
    assert seen == {"lead", "follow", "take"}


def test_a_calls_worth_in_a_world_is_the_same_with_the_core_and_in_pure_python(core):
    """call-for-partner: one world's worth of each card worth calling, the hand played out by the core and by
    the Python bot (each counts the meld of the hands as they are before the play)."""
    from test_montecarlo import start, step

    game, bots = start(PRESETS["call-for-partner"])
    while game.decision().kind is not DecisionKind.CALL:
        step(game, bots)
    bot = bots[game.decision().seat]
    obs, variant = bot.observer.observation(), bot.table.variant
    hands = [list(h) for h in obs.sampler().sample(random.Random(3)).hands]
    melds = [montecarlo_bot.meld_points(h, obs.trump, variant) for h in hands]
    options = montecarlo_bot.call_candidates(list(obs.hand), obs.trump, bot.table.values.keys(), variant)
    assert len(options) >= 2
    calls = []
    for card in options:
        back = bot.pass_back([*obs.hand, card], obs.trump)
        own = montecarlo_bot.meld_points(montecarlo_bot._without((*obs.hand, card), back), obs.trump, variant)
        calls.append((card, back, own))
    with_core = [bot.call_value(obs, hands, melds, call) for call in calls]
    bot.use_core = False
    assert [bot.call_value(obs, hands, melds, call) for call in calls] == with_core
