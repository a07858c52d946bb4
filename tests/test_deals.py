"""Deal files: the format, the decks a game is dealt from them, and runs that play them."""

import json
from pathlib import Path

import pytest
from helpers import arena
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.records.deals import DealFile, DealFileError, FixedDeal, generate_deals, parse_deals, render_deals
from referee.rules import PRESETS, get_variant, new_game
from referee.rules.dealing import deal_out, deck_of, recorded_deal, shuffled_deck

ROOT = Path(__file__).resolve().parent.parent
RANDOM = f"python3 {ROOT / 'sample_bots' / 'random_bot.py'} 3"
TWO = get_variant("two-handed")


def records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "games.jsonl").read_text().splitlines()]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(PRESETS)), st.integers(0, 2**40), st.integers(0, 4))
def test_a_deck_is_got_back_from_its_deal_in_every_variant(name, seed, dealer):
    variant = get_variant(name)
    dealer %= variant.players
    deck = shuffled_deck(variant, seed, 1)
    deal = deal_out(variant, deck, dealer)
    assert deck_of(variant, deal, dealer) == deck


def test_a_deal_file_reads_back_what_was_written():
    deals = generate_deals(TWO, 7, 3, 2)
    text = render_deals(deals, "three deals\nfor a test")
    assert text.startswith("# three deals\n# for a test\npinochle-arena deals 1\nvariant two-handed\ndeal 1 seed ")
    assert parse_deals(text, TWO) == deals
    assert [d.decks[0] for d in deals.deals] == [tuple(shuffled_deck(TWO, d.seed, 1)) for d in deals.deals]
    assert deals.deal(4) == deals.deals[1]  # in turn, again from the first


DECK = " ".join(c.to_text() for c in shuffled_deck(TWO, 1, 1))


@pytest.mark.parametrize("text, message", [
    ("", "not a deal file"),
    ("pinochle-arena deals 2\n", "not a deal file"),
    ("pinochle-arena deals 1\ndeal 1 seed 3\n", "line 2: expected 'variant NAME'"),
    ("pinochle-arena deals 1\nvariant three-handed\ndeal 1 seed 3\n", "holds deals of three-handed; this run plays two-handed"),
    ("pinochle-arena deals 1\nvariant two-handed\n", "holds no deals"),
    ("pinochle-arena deals 1\nvariant two-handed\ndeal 2 seed 3\n", "line 3: expected 'deal 1 seed N'"),
    ("pinochle-arena deals 1\nvariant two-handed\ndeal 1 seed -3\n", "line 3: expected 'deal 1 seed N'"),
    ("pinochle-arena deals 1\nvariant two-handed\ndeck " + DECK + "\n", "line 3: a deck before the first 'deal' line"),
    ("pinochle-arena deals 1\nvariant two-handed\ndeal 1 seed 3\ndeck " + DECK[3:] + "\n", "line 4: not one 48-card deck"),
    ("pinochle-arena deals 1\nvariant two-handed\ndeal 1 seed 3\ndeck " + DECK[3:] + " 8H\n", "line 4: "),
    ("pinochle-arena deals 1\nvariant two-handed\ndeal 1 seed 3\ndeck " + DECK[3:] + " AS\n",
     "too many AS"),
    ("pinochle-arena deals 1\nvariant two-handed\ndeal 1 seed 3\nshuffle\n", "line 4: unknown line 'shuffle'"),
])
def test_a_bad_deal_file_is_refused_with_the_line_and_the_reason(text, message):
    with pytest.raises(DealFileError, match=message.replace("(", r"\(")):
        parse_deals(text, TWO, "f.deals")


def test_comments_and_blank_lines_are_ignored_and_a_deal_may_be_only_a_seed():
    text = f"# published deals\n\npinochle-arena deals 1   # format\nvariant two-handed\ndeal 1 seed 5\n\ndeal 2 seed 6\ndeck {DECK}  # hand 1\n"
    deals = parse_deals(text, TWO)
    assert deals.deals[0] == FixedDeal(5) and deals.deals[1].seed == 6 and len(deals.deals[1].decks) == 1


def test_a_game_is_dealt_the_given_decks_and_then_decks_from_its_seed():
    decks = [shuffled_deck(TWO, 99, 1)]
    game, _ = new_game(TWO, 5, decks)
    first = game.deals[0]
    deal, dealer = recorded_deal(first)
    assert deck_of(TWO, deal, dealer) == decks[0]


def test_a_match_from_a_deal_file_plays_its_decks_and_replays_consistently(tmp_path):
    deals = DealFile("two-handed", (FixedDeal(41, (tuple(shuffled_deck(TWO, 1000, 1)),)), FixedDeal(42)))
    path = tmp_path / "event.deals"
    path.write_text(render_deals(deals))
    out = tmp_path / "m"
    run = arena("match", "greedy", RANDOM, "--deals", str(path), "--games", "6", "--out", str(out), "--isolation", "none")
    assert run.returncode == 0, run.stderr
    assert "the 2 deals of" in run.stdout
    played = records(out)
    assert [r["seed"] for r in played] == [41, 41, 42, 42, 41, 41]  # in turn, both seatings of each
    for r in played:
        deal, dealer = recorded_deal(r["deals"][0])
        if r["seed"] == 41:
            assert deck_of(TWO, deal, dealer) == list(deals.deals[0].decks[0]) and r["extra"]["fixed_decks"] == 1
            n = min(len(r["deals"]), len(played[0]["deals"]))
            assert r["deals"][1:n] == played[0]["deals"][1:n]  # later hands: from the deal's seed, alike
        else:
            assert deck_of(TWO, deal, dealer) == shuffled_deck(TWO, 42, 1) and "fixed_decks" not in r["extra"]
    replay = arena("replay", str(out))
    assert replay.returncode == 0 and "6 consistent" in replay.stdout, replay.stdout

    # the deals of those results, written by the tool, are the same deals; played again they give the same games
    written = tmp_path / "again.deals"
    assert arena("deals", str(out), "--out", str(written)).returncode == 0
    again = parse_deals(written.read_text(), TWO)
    assert [d.seed for d in again.deals] == [41, 42]
    assert again.deals[0].decks[0] == deals.deals[0].decks[0]
    out2 = tmp_path / "m2"
    assert arena("match", "greedy", RANDOM, "--deals", str(written), "--games", "4", "--out", str(out2),
                 "--isolation", "none").returncode == 0
    assert [(r["deals"], r["totals"]) for r in records(out2)] == [(r["deals"], r["totals"]) for r in played[:4]]


def test_a_tournament_and_an_sprt_play_a_deal_file(tmp_path):
    path = tmp_path / "g.deals"
    made = arena("deals", "--seed", "9", "--count", "2", "--decks", "3", "--out", str(path))
    assert made.returncode == 0 and "2 deals of two-handed written" in made.stdout
    deals = parse_deals(path.read_text(), TWO)
    out = tmp_path / "t"
    run = arena("tournament", "--bot", "greedy", "--bot", RANDOM, "--deals", str(path), "--games", "4", "--out",
                str(out), "--isolation", "none", "--bootstrap", "0")
    assert run.returncode == 0, run.stderr
    assert sorted(r["seed"] for r in records(out)) == sorted([d.seed for d in deals.deals] * 2)
    out = tmp_path / "s"
    run = arena("sprt", "greedy", RANDOM, "--deals", str(path), "--max-pairs", "3", "--out", str(out),
                "--isolation", "none", "--option", "target=300")
    assert run.returncode in (0, 1, 3), run.stderr
    seeds = [r["seed"] for r in records(out)]
    assert seeds and set(seeds) <= {d.seed for d in deals.deals}


def test_deal_file_mistakes_on_the_command_line(tmp_path):
    path = tmp_path / "g.deals"
    path.write_text(render_deals(generate_deals(TWO, 1, 1, 1)))
    run = arena("match", "greedy", "random", "greedy", "--variant", "three-handed", "--deals", str(path))
    assert run.returncode == 2 and "holds deals of two-handed; this run plays three-handed" in run.stderr
    run = arena("match", "greedy", "random", "--deals", str(tmp_path / "missing.deals"))
    assert run.returncode == 2 and "cannot read" in run.stderr
    run = arena("deals")
    assert run.returncode == 2 and "give RESULTS" in run.stderr
    run = arena("tournament", "--bot", "greedy", "--bot", "random", "--deals", str(tmp_path / "missing.deals"))
    assert run.returncode == 2 and "--deals: " in run.stderr and "cannot read" in run.stderr  # (the flag given)
