"""The decision analysis (analysis/, ``pinochle-arena analyse``): every decision weighed from its seat's view.

Games are played here in one process (the bots' objects fed the referee's
lines, as tests/test_montecarlo.py does) and turned into records, which the
analysis replays like any results folder's.
"""

from __future__ import annotations

import json
import random
import sys

import attrs
import pytest
from helpers import lines_for, tell_the_game

from analysis import ANALYSIS_FILE, Budget, SeatAnalysis, Weighed, analyse, analyse_record, losses_by_bot, mark
from analysis.values import Searcher, _from_rows
from analysis.walk import PHASES
from arena.cli import main
from protocol import split_points
from referee.bots.samples import SAMPLE_DIR
from referee.match import wire
from referee.records.deals import record_decks
from referee.records.record import ActionEntry, GameRecord, SeatInfo
from referee.rules import PRESETS, PlayCard, Rank, action_from_text, new_game
from referee.rules.tricks import legal_plays, winning_index

sys.path.insert(0, str(SAMPLE_DIR))
import montecarlo_bot  # noqa: E402  (a sample bot, not a package: found by its folder)
from greedy_bot import Bot as Greedy  # noqa: E402

SMALL = Budget(worlds=64, batches=8, seed=1)  # enough to rank the actions, cheap enough for a test


# ------------------------------------------------------------------ games in one process, as records
class RandomPlayer:
    """A bot object that answers every request with a random legal action (the ``random`` sample's play)."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def on_line(self, line: str):
        words = line.split()
        if words and words[0] == "go":
            legal = [t for t in words[4:] if t != "claim"] or words[4:]
            choice = self.rng.choice(legal)
            return (choice.split("..")[0] if ".." in choice else choice) + "\n"
        return None


def record_of(name: str, seed: int, players: list, names: list[str], actions: int | None = None) -> GameRecord:
    """A game of preset ``name`` between bot objects (``on_line``), fed the referee's lines, as a record (cut
    after ``actions`` actions, if given)."""
    variant = PRESETS[name]
    game, notices = new_game(variant, seed=seed)
    tell_the_game(players, variant, notices)
    entries = []
    while not game.is_terminal() and (actions is None or len(entries) < actions):
        d = game.decision()
        request = wire.request_message(d, 3_600_000, 60_000, getattr(game, "meld_value", None))
        reply = players[d.seat].on_line(request.to_text()).strip()
        action = action_from_text(split_points(reply)[0])
        entries.append(ActionEntry(d.seat, action.to_text(), None))
        shown = game.apply(action)
        for seat, bot in enumerate(players):
            for line in lines_for(seat, shown):
                bot.on_line(line)
    return GameRecord(game_id=f"{name}-{seed}", variant=name, options={}, seed=seed,
                      seats=[SeatInfo(entrant=n, bot_name=n, command=n) for n in names], time_control={},
                      deals=list(game.deals), actions=entries)


def montecarlo(worlds: int = 64, seed: int = 0):
    return montecarlo_bot.MonteCarlo(worlds=worlds, seed=seed)


# ------------------------------------------------------------------ part 1: the engine
def test_every_decision_of_the_chosen_seat_gets_every_legal_action_valued_and_the_seed_replays_it():
    record = record_of("two-handed", 5, [RandomPlayer(1), Greedy()], ["random", "greedy"], actions=60)
    first = analyse_record(record, {1}, SMALL)
    assert {w.seat for w in first} == {1}
    assert [w.number for w in first] == [i for i, e in enumerate(record.actions, 1) if e.seat == 1]
    valued = [w for w in first if w.values is not None]
    assert len(valued) > 10
    for w in valued:
        assert w.chosen in w.values and w.best in w.values
        assert w.values[w.best] == max(w.values.values())
    assert any(w.kind == "meld" and w.values is not None for w in first)  # melds too (test_analysis_decisions.py)
    assert first == analyse_record(record, {1}, SMALL)
    other = analyse_record(record, {1}, Budget(worlds=64, batches=8, seed=2))
    assert [w.values for w in other] != [w.values for w in first]
    some = {w.number for w in valued[::3]}  # a few decisions alone: each search is seeded by its own key
    assert analyse_record(record, {1}, SMALL, only=some) == [w for w in first if w.number in some]


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_has_its_decisions_valued(name):
    """analyse in each of the eight presets: the first decisions of every seat of a game between greedy bots
    are weighed, each valued one with every legal action's value and the chosen and best among them."""
    players = PRESETS[name].players
    record = record_of(name, 7, [Greedy() for _ in range(players)], [f"greedy-{s}" for s in range(players)],
                       actions=12)
    weighed = analyse_record(record, set(range(players)), Budget(worlds=32, batches=8, seed=1))
    assert [w.number for w in weighed] == list(range(1, len(record.actions) + 1))
    valued = [w for w in weighed if w.values is not None]
    assert valued, [w.kind for w in weighed]
    for w in valued:
        assert w.chosen in w.values and w.best in w.values and w.values[w.best] == max(w.values.values())


def test_the_bidding_games_value_bids_trump_burying_and_trick_play():
    record = record_of("three-handed", 3, [Greedy(), Greedy(), Greedy()], ["a", "b", "c"], actions=40)
    weighed = analyse_record(record, {0, 1, 2}, SMALL)
    kinds = {w.kind for w in weighed if w.values is not None}
    assert {"bid", "trump", "bury", "lead", "follow"} <= kinds
    assert {w.phase for w in weighed} >= {"bidding", "trump and passing", "trick play"}


def test_the_second_phase_of_two_handed_is_exact():
    record = record_of("two-handed", 8, [Greedy(), Greedy()], ["a", "b"])
    weighed = [w for w in analyse_record(record, {0}, SMALL) if w.exact]
    assert len(weighed) > 5
    for w in weighed:
        assert w.noise == 0.0
        assert w.loss == pytest.approx(w.values[w.best] - w.values[w.chosen])


@pytest.mark.parametrize(("loss", "noise", "ace", "expected"), [
    (11, 0, 11, "blunder"), (10.9, 0, 11, "mistake"), (5.5, 0, 11, "mistake"), (2.2, 0, 11, "inaccuracy"),
    (2.1, 0, 11, ""), (0, 0, 11, ""), (-3, 0, 11, ""),
    (20, 9.9, 10, "blunder"), (20, 10, 10, ""),  # within two standard errors of the search: not marked
    (1, 0, 1, "blunder"), (0.5, 0, 1, "mistake"), (0.2, 0, 1, "inaccuracy"),  # the unit scale (ace = 1)
])
def test_a_loss_is_marked_by_its_size_in_aces_only_beyond_its_noise(loss, noise, ace, expected):
    assert mark(loss, noise, ace) == expected


def test_the_luck_of_a_world_shared_by_every_action_is_no_noise():
    """The worlds are the same for every action, so what a world gives them all (a good hand, a bad one) cancels
    out of a shortfall: equal actions lose nothing with no noise, and a constant gap is measured exactly."""
    rng = random.Random(3)
    actions = [PlayCard(montecarlo_bot.Card.from_text(t)) for t in ("AS", "TS", "KS")]
    luck = [rng.gauss(0, 10) for _ in range(16)]
    valuation = _from_rows(actions, [[x, x, x] for x in luck])
    assert valuation.shortfalls == (0.0, 0.0, 0.0) and valuation.noise == (0.0, 0.0, 0.0)
    valuation = _from_rows(actions, [[x + 5, x, x + rng.random()] for x in luck])
    assert valuation.loss("TS") == (pytest.approx(5), pytest.approx(0))
    assert valuation.loss("AS") == (0.0, 0.0)
    assert 0 < valuation.loss("KS")[1] < 0.2


# ------------------------------------------------------------------ part 2: per bot and phase, kept on disk
def test_losses_are_summed_per_bot_phase_and_hand():
    decisions = (Weighed(1, 1, 0, "lead", "AS", "AS", {"AS": 1.0}, 0.0), Weighed(3, 1, 0, "follow", "9S", "TS",
                 {"9S": 0.0, "TS": 6.0}, 6.0, 1.0, False, "mistake"), Weighed(5, 2, 0, "bid", "pass"),
                 Weighed(7, 2, 0, "trump", "trump:S", "trump:S", {"trump:S": 3.0}, 2.0))
    one = SeatAnalysis("g1", 0, "bot", SMALL, decisions)
    (hands, phases), = losses_by_bot([one]).values()
    assert hands == 2
    assert phases["trick play"].mean == 3.0 and phases["trick play"].marks["mistake"] == 1
    assert phases["trump and passing"].mean == 1.0
    assert phases["bidding"].decisions == 1 and phases["bidding"].valued == 0
    assert set(phases) == set(PHASES)
    assert SeatAnalysis.from_json(one.to_json()) == one


def test_a_second_run_reads_the_analysis_kept_beside_the_records(tmp_path, monkeypatch):
    record = record_of("two-handed", 5, [RandomPlayer(1), Greedy()], ["random", "greedy"], actions=30)
    path = tmp_path / ANALYSIS_FILE
    first = analyse([record], lambda r: {0, 1}, SMALL, path)
    assert len(path.read_text().splitlines()) == 2

    def searched(*args):
        raise AssertionError("analysed again")

    monkeypatch.setattr("analysis.summary.analyse_record", searched)
    assert analyse([record], lambda r: {0, 1}, SMALL, path) == first
    assert analyse([record], lambda r: {1}, SMALL, path) == first[1:]
    monkeypatch.undo()
    other = analyse([record], lambda r: {1}, Budget(worlds=64, batches=8, seed=9), path)  # another budget: anew
    assert len(path.read_text().splitlines()) == 3 and other != first[1:]


def test_games_analysed_in_several_processes_have_the_same_values_written_in_the_records_order(tmp_path):
    """analyse(workers=2) searches in two processes: the same values as one (each decision's search is seeded
    by its own key), the lines written in the records' order, and the games read back from the file."""
    records = [record_of("two-handed", s, [RandomPlayer(s), Greedy()], ["random", "greedy"], actions=12)
               for s in (1, 2, 3)]
    alone = analyse(records, lambda r: {0, 1}, SMALL, tmp_path / "alone.jsonl")
    told: list[str] = []
    together = analyse(records, lambda r: {0, 1}, SMALL, tmp_path / "together.jsonl",
                       told=lambda r: told.append(r.game_id), workers=2)
    assert together == alone and told == [r.game_id for r in records]
    written = [json.loads(line)["game_id"] for line in (tmp_path / "together.jsonl").read_text().splitlines()]
    assert written == [r.game_id for r in records for _ in (0, 1)]


@pytest.fixture
def results(tmp_path):
    """A results folder of two short games (unsealed: read with --no-verify)."""
    records = [record_of("two-handed", s, [RandomPlayer(s), Greedy()], ["random", "greedy"], actions=24)
               for s in (1, 2)]
    (tmp_path / "games.jsonl").write_text("".join(r.to_json() + "\n" for r in records))
    return tmp_path


def test_the_command_prints_the_table_and_lists_a_games_marks(results, capsys):
    assert main(["analyse", str(results), "--no-verify", "--worlds", "64", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "points lost a hand" in out and "random" in out and "greedy" in out and "trick play" in out
    lines = [json.loads(x) for x in (results / ANALYSIS_FILE).read_text().splitlines()]
    assert {(x["game_id"], x["seat"]) for x in lines} == {("two-handed-1", 0), ("two-handed-1", 1),
                                                          ("two-handed-2", 0), ("two-handed-2", 1)}
    assert main(["analyse", str(results), "--no-verify", "--worlds", "64", "--seed", "3", "--game", "two-handed-1",
                 "--bot", "random"]) == 0
    out = capsys.readouterr().out
    assert "greedy" not in out.split("points lost")[1] and "random" in out


@pytest.mark.parametrize(("args", "says"), [
    (["--game", "nope"], "no game 'nope'"),
    (["--bot", "nobody"], "no bot 'nobody'"),
    (["--worlds", "8"], "--worlds 8: at least"),
])
def test_bad_input_gets_one_line(results, capsys, args, says):
    assert main(["analyse", str(results), "--no-verify", *args]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert says in err[-1] and err[-1].startswith("pinochle-arena: error:") and "Traceback" not in "".join(err)


def test_a_missing_folder_and_a_variant_without_search_get_one_line(tmp_path, capsys, monkeypatch):
    assert main(["analyse", str(tmp_path / "nowhere")]) == 2
    assert "no such file or folder" in capsys.readouterr().err
    record = record_of("two-handed", 1, [Greedy(), Greedy()], ["a", "b"], actions=4)
    (tmp_path / "games.jsonl").write_text(record.to_json() + "\n")
    monkeypatch.setattr("analysis.walk.FAMILIES", ("auction",))
    assert main(["analyse", str(tmp_path), "--no-verify"]) == 2
    assert "the search does not analyse the stock family of two-handed" in capsys.readouterr().err
    monkeypatch.undo()

    def unreadable(*args):
        raise ValueError("the core could not read the decision")

    monkeypatch.setattr("analysis.values.Searcher.value", unreadable)
    assert main(["analyse", str(tmp_path), "--no-verify"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].endswith("action 1: the search does not support this decision of two-handed (the core could "
                            "not read the decision)") and "Traceback" not in "".join(err)


# ------------------------------------------------------------------ helpers shared with the trust tests below
def brute_force(mine, theirs, led, trump, duty, values, last) -> int:
    """The exact margin for the seat holding ``mine`` (to lead, or to follow ``led``), by trying every line."""
    if not mine:
        return 0
    if led is None:
        return max(-brute_force(theirs, _less(mine, card), card, trump, duty, values, last) for card in set(mine))
    best = None
    for card in set(legal_plays(mine, [led], trump, duty)):
        rest = _less(mine, card)
        points = values[led] + values[card] + (last if not rest else 0)
        if winning_index([led, card], trump) == 1:
            v = points + brute_force(rest, theirs, None, trump, duty, values, last)
        else:
            v = -(points + brute_force(theirs, rest, None, trump, duty, values, last))
        best = v if best is None else max(best, v)
    return best


def _less(cards, card):
    rest = list(cards)
    rest.remove(card)
    return rest


# ------------------------------------------------------------------ part 3: can it be trusted
def observations(record: GameRecord, seat: int) -> list:
    """``seat``'s observation at each of its decisions, replaying ``record`` (None if an action is illegal)."""
    variant = PRESETS[record.variant]
    game, _ = new_game(variant, record.seed, record_decks(record, variant))
    seen = []
    for entry in record.actions:
        action = action_from_text(entry.action)
        if game.is_terminal() or game.current_seat() != entry.seat or action not in game.legal_actions():
            return None
        if entry.seat == seat:
            seen.append(game.observation(seat))
        game.apply(action)
    return seen


def hidden_swap(record: GameRecord, seat: int, rng: random.Random) -> GameRecord:
    """``record`` with two cards of its last deal swapped between places ``seat`` cannot see (two other
    hands, or another hand and the stock or kitty), such that every action is still legal and ``seat`` sees
    exactly what it saw at each of its decisions: the hidden cards differ, the seat's view does not. (Its deals
    are given to the game as fixed decks, as a deal file's are.)"""
    deal = record.deals[-1]
    places = [("hands", s) for s in range(len(deal["hands"])) if s != seat] + [(k, None) for k in ("stock", "kitty")
                                                                              if deal.get(k)]
    cards = [(p, i) for p in places for i in range(len(_pile(deal, p)))]
    wanted = observations(record, seat)
    for _ in range(2000):
        (p, i), (q, j) = rng.sample(cards, 2)
        if p == q or _pile(deal, p)[i] == _pile(deal, q)[j]:
            continue
        other = json.loads(json.dumps(deal))
        _pile(other, p)[i], _pile(other, q)[j] = _pile(other, q)[j], _pile(other, p)[i]
        swapped = attrs.evolve(record, deals=[*record.deals[:-1], other], extra={"fixed_decks": len(record.deals)})
        if observations(swapped, seat) == wanted:
            return swapped
    raise AssertionError("no swap of hidden cards keeps the seat's view")


def _pile(deal: dict, place: tuple) -> list:
    kind, seat = place
    return deal[kind][seat] if kind == "hands" else deal[kind]


@pytest.mark.parametrize(("name", "actions"), [("two-handed", 40), ("three-handed", 30), ("four-handed", 42)])
def test_the_analysis_never_reads_a_hidden_card(name, actions):
    """The same record with cards the seat never saw swapped between the places it cannot see (every action
    still legal, its view at each decision the same): every value of every decision comes out the same."""
    players = [Greedy() for _ in range(PRESETS[name].players)]
    record = record_of(name, 4, players, [f"s{i}" for i in range(len(players))], actions=actions)
    assert len({h["hand"] for h in record.deals}) == 1, "the first hand only (thrown in and dealt again, maybe)"
    for seat in (0, 1):
        swapped = hidden_swap(record, seat, random.Random(seat))
        assert swapped.deals != record.deals
        mine = analyse_record(record, {seat}, SMALL)
        assert sum(w.values is not None for w in mine) >= 3
        assert analyse_record(swapped, {seat}, SMALL) == mine


@pytest.mark.parametrize("name", ["two-handed", "two-handed-hoyle", "two-handed-150"])
def test_exact_values_are_those_of_an_exhaustive_search_on_small_endings(name):
    """Every card's exact value, leading or following, against trying every line of play, on random endings of
    one to five cards a hand (each preset's follow duty and counting)."""
    variant = PRESETS[name]
    searcher = Searcher(variant, SMALL)
    table, rng = searcher.table, random.Random(name)
    deck = list(table.values)
    checked = 0
    for _ in range(60):
        trump = rng.choice(deck).suit
        searcher.endgame = searcher.core.endgame(trump, table.duty, table.rank_values, variant.last_trick)
        size = rng.randint(1, 5)
        follow = rng.random() < 0.5
        cards = rng.sample(deck * 2, 2 * size)
        mine, theirs = cards[:size], cards[size:]
        led = theirs.pop() if follow else None  # the leader's card is out of its hand
        args = (table.duty, table.values, variant.last_trick)
        if follow:
            for card in set(legal_plays(mine, [led], trump, table.duty)):
                rest = _less(mine, card)
                points = table.values[led] + table.values[card] + (variant.last_trick if not rest else 0)
                won = winning_index([led, card], trump) == 1
                truth = (points + brute_force(rest, theirs, None, trump, *args) if won
                         else -(points + brute_force(theirs, rest, None, trump, *args)))
                assert searcher.card_value(mine, theirs, led, card) == truth
                checked += 1
        else:
            for card in set(mine):
                truth = -brute_force(theirs, _less(mine, card), card, trump, *args)
                assert searcher.card_value(mine, theirs, None, card) == truth
                checked += 1
    assert checked > 100


def test_exact_values_in_a_game_are_the_margin_of_the_hand_under_best_play():
    """In real games, at the second phase's last four tricks: each card's value is the hand so far plus what an
    exhaustive search of the rest gives with the other hand known (the test may look: it is the oracle)."""
    variant = PRESETS["two-handed"]
    searcher = Searcher(variant, SMALL)
    table, checked = searcher.table, 0
    for seed in range(3):
        game, _ = new_game(variant, seed)
        players = random.Random(seed)
        while not game.is_terminal() and checked < 40:
            d = game.decision()
            plays = [a for a in d.legal if isinstance(a, PlayCard)]
            ending = game.phase == 2 and len(game.hands[d.seat]) <= 4
            if d.kind.value in ("lead", "follow") and ending and len(plays) > 1:
                valuation = searcher.value(game, "ending")
                assert valuation is not None and valuation.exact
                obs = game.observation(d.seat)
                other = 1 - d.seat
                so_far = (obs.meld_points[d.seat] + obs.trick_points[d.seat] - obs.meld_points[other]
                          - obs.trick_points[other])
                led = obs.trick[0][1] if obs.trick else None
                theirs = list(game.hands[other])
                for text, value in zip(valuation.actions, valuation.values):
                    card = action_from_text(text).card
                    rest = _less(game.hands[d.seat], card)
                    args = (obs.trump, table.duty, table.values, variant.last_trick)
                    if led is None:
                        truth = -brute_force(theirs, rest, card, *args)
                    else:
                        points = table.values[led] + table.values[card] + (variant.last_trick if not rest else 0)
                        won = winning_index([led, card], obs.trump) == 1
                        truth = (points + brute_force(rest, theirs, None, *args) if won
                                 else -(points + brute_force(theirs, rest, None, *args)))
                    assert value == so_far + truth
                    checked += 1
            game.apply(players.choice([a for a in d.legal if type(a).__name__ != "Claim"] or list(d.legal)))
    assert checked >= 20


def points_lost_a_hand(analyses, bot: str) -> float:
    (hands, phases), = (v for k, v in losses_by_bot(analyses).items() if k == bot)
    return phases["trick play"].mean


@pytest.mark.slow
def test_random_loses_many_times_more_points_a_hand_than_montecarlo(tmp_path):
    """Two two-handed games, each bot in each seat (bench/decision_analysis.py plays 100)."""
    records = [record_of("two-handed", 21, [RandomPlayer(1), montecarlo(200, 1)], ["random", "montecarlo"]),
               record_of("two-handed", 21, [montecarlo(200, 2), RandomPlayer(2)], ["montecarlo", "random"])]
    for i, r in enumerate(records):
        r.game_id = f"g{i}"
    analyses = analyse(records, lambda r: {0, 1}, Budget(worlds=256, batches=16, seed=0), tmp_path / ANALYSIS_FILE)
    mc, rnd = points_lost_a_hand(analyses, "montecarlo"), points_lost_a_hand(analyses, "random")
    assert rnd > 5 * max(mc, 1.0), (rnd, mc)


def planted(record: GameRecord, seat: int) -> list[int]:
    """The action numbers where ``seat`` threw a card counting as much as a ten that leaves the trick to an
    opponent's card, while it held a card that counts nothing (the ace thrower's planted blunder: greedy never
    does it), found from the rules."""
    variant = PRESETS[record.variant]
    game, _ = new_game(variant, record.seed, record_decks(record, variant))
    values = variant.counter_values
    found = []
    for number, entry in enumerate(record.actions, 1):
        d = game.decision()
        action = action_from_text(entry.action)
        if entry.seat == seat and d.kind.value == "follow" and values[action.card.rank] >= values[Rank.TEN]:
            obs = game.observation(seat)
            trick = [c for _, c in obs.trick]
            winner = obs.trick[winning_index(trick, game.trump)][0]
            partners = montecarlo_bot.Table(variant).sides(obs)
            loses = winning_index([*trick, action.card], game.trump) != len(trick)
            cheap = any(values[a.card.rank] == 0 for a in d.legal if isinstance(a, PlayCard))
            if loses and cheap and partners[winner] != partners[seat]:
                found.append(number)
        game.apply(action)
    return found


@pytest.mark.slow
def test_the_planted_blunder_is_found():
    """The ace thrower (tests/bots/ace_thrower.py) against greedy in three games, at the default budget: its
    thrown counters are marked nearly every time, most as mistakes or blunders (bench/decision_analysis.py measures the
    share on many games)."""
    sys.path.insert(0, str(SAMPLE_DIR.parent / "tests" / "bots"))
    from ace_thrower import AceThrower

    marks = []
    for seed in range(3):
        record = record_of("two-handed", 30 + seed, [AceThrower(), Greedy()], ["ace-thrower", "greedy"])
        numbers = planted(record, 0)
        marks += [w.mark for w in analyse_record(record, {0}, Budget(), only=set(numbers))]  # (seeded per decision)
    assert len(marks) >= 20
    assert sum(m != "" for m in marks) >= 0.9 * len(marks), marks
    assert sum(m in ("mistake", "blunder") for m in marks) >= 0.8 * len(marks), marks
