"""GameState (referee/rules/state.py) is an abstract base: a family of games provides what it names, or cannot be
made; the fields a later stage of a hand sets are read through known(), which refuses a None."""

from __future__ import annotations

import pytest

from referee.rules import FAMILIES, Game, IllegalActionError, get_variant
from referee.rules.actions import action_from_text
from referee.rules.state import GameState, known
from referee.rules.variants import CLASSIC_MELDS


def test_every_family_is_a_game_state_and_a_new_one_must_provide_its_methods() -> None:
    assert all(issubclass(cls, GameState) for cls in FAMILIES.values())

    class Unfinished(GameState):  # a new family, as it starts: everything but _place
        @classmethod
        def new(cls, variant, seed, decks=(), deal=None, dealer=0, totals=None):
            return cls(), []

        seats = 2
        target = 1000

        def _decide(self):
            raise NotImplementedError

        def _act(self, decision, action):
            raise NotImplementedError

        def _why_illegal(self, decision, action):
            raise NotImplementedError

    with pytest.raises(TypeError, match="_place"):
        Unfinished.new(get_variant("two-handed"), seed=1)


def test_known_refuses_a_field_a_stage_has_not_set() -> None:
    assert known(3) == 3
    with pytest.raises(RuntimeError, match="earlier stage"):
        known(None)


def test_a_bidding_game_refuses_to_price_a_meld_its_seats_never_choose() -> None:
    game = Game.new("three-handed", seed=5)
    with pytest.raises(IllegalActionError, match="counted"):
        game.meld_value(action_from_text("royal:KH,QH"))


def test_a_meld_table_gives_the_points_of_a_meld_it_has_and_refuses_one_it_lacks() -> None:
    assert CLASSIC_MELDS.points("pinochle") == CLASSIC_MELDS.value("pinochle")
    with pytest.raises(ValueError, match="no dix-of-spades"):
        CLASSIC_MELDS.points("dix-of-spades")
