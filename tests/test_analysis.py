"""The decision analysis (analysis/, ``pinochle-arena analyse``): every decision weighed from its seat's view.

Games are played here in one process (the bots' objects fed the referee's
lines, as tests/test_montecarlo.py does) and turned into records, which the
analysis replays like any results folder's.
"""

from __future__ import annotations

import json
import random
import sys

import pytest

from analysis import ANALYSIS_FILE, Budget, SeatAnalysis, Weighed, analyse, analyse_record, losses_by_bot, mark
from analysis.values import Searcher, _from_rows
from analysis.walk import PHASES
from arena.cli import main
from protocol import split_points
from referee.bots.samples import SAMPLE_DIR
from referee.match import wire
from referee.records.record import ActionEntry, GameRecord, SeatInfo
from referee.rules import PRESETS, PlayCard, action_from_text, new_game
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


def lines_for(seat, notices):
    return [text for n in notices if seat in n.seats for text in [wire.event_text(n.event)] if text is not None]


def record_of(name: str, seed: int, players: list, names: list[str], actions: int | None = None) -> GameRecord:
    """A game of preset ``name`` between bot objects (``on_line``), fed the referee's lines, as a record (cut
    after ``actions`` actions, if given)."""
    variant = PRESETS[name]
    game, notices = new_game(variant, seed=seed)
    for seat, bot in enumerate(players):
        bot.on_line("pinochle 3")
        bot.on_line(wire.new_game_message("t1", variant, seat).to_text())
        for rule in wire.rule_messages(variant):
            bot.on_line(rule.to_text())
        for line in lines_for(seat, notices):
            bot.on_line(line)
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
    assert any(w.kind == "meld" and w.values is None for w in first)  # melds: counted, not valued
    assert first == analyse_record(record, {1}, SMALL)
    other = analyse_record(record, {1}, Budget(worlds=64, batches=8, seed=2))
    assert [w.values for w in other] != [w.values for w in first]


def test_the_bidding_games_value_trick_play_and_trump_and_count_bids_and_passing():
    record = record_of("three-handed", 3, [Greedy(), Greedy(), Greedy()], ["a", "b", "c"], actions=40)
    weighed = analyse_record(record, {0, 1, 2}, SMALL)
    kinds = {w.kind for w in weighed if w.values is not None}
    assert {"trump", "lead", "follow"} <= kinds
    assert all(w.values is None for w in weighed if w.kind in ("bid", "bury"))
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


def test_actions_of_equal_worth_lose_nothing_whatever_the_luck_of_the_worlds():
    """The shortfall is cross-fitted (the best picked on half the batches, measured on the other): where every
    action is worth the same in every world, none loses anything, though one has the highest mean by luck."""
    rng = random.Random(3)
    rows = []
    for _ in range(16):
        luck = rng.gauss(0, 10)
        rows.append([luck, luck, luck])
    actions = [PlayCard(c) for c in (montecarlo_bot.Card.from_text(t) for t in ("AS", "TS", "KS"))]
    valuation = _from_rows(actions, rows)
    assert valuation.shortfalls == (0.0, 0.0, 0.0) and valuation.noise == (0.0, 0.0, 0.0)
    rows = [[x + 5, x, x - rng.random()] for x in (rng.gauss(0, 10) for _ in range(16))]
    valuation = _from_rows(actions, rows)
    assert valuation.loss("TS")[0] == pytest.approx(5)
    assert valuation.loss("AS") == (0.0, 0.0)


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
