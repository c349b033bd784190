"""The text form of every action reads back as the same action (`format_action` -> `parse_action`),
and a move in words (`text.describe_turn`) names seats and bids as players say them."""

from __future__ import annotations

import random

import pytest

from liarsdice.rules import (
    PRESETS,
    Bid,
    BidAction,
    Challenge,
    Game,
    Turn,
    format_action,
    parse_action,
    preset_options,
)
from liarsdice.text import bid_words, describe_turn


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_legal_action_reads_back_from_its_text(preset: str) -> None:
    players = 2 if preset == "openspiel" else 3
    game = Game(preset_options(preset, {"num_players": players}))
    rng = random.Random(5)
    economy = game.options.economy is not None
    checked = 0
    for _ in range(20):
        state = game.new_initial_state()
        while not state.is_terminal:
            if state.is_chance:
                state, _ = state.apply(state.sample_chance(rng))
                continue
            for action in state.legal_actions():
                text = format_action(action, game.seats)
                assert parse_action(text, game.seats, economy=economy) == action, text
                checked += 1
            state, _ = state.apply(rng.choice(state.legal_actions()))
    assert checked > 100


def test_an_accusation_with_a_raise_reads_as_written() -> None:
    seats = ["A", "B"]
    action = parse_action("accuse raise 4", seats, economy=True)
    assert format_action(action, seats) == "accuse raise 4"  # type: ignore[arg-type]


def test_a_move_in_words_names_you_as_players_say_it() -> None:
    options = preset_options("perudo")
    seats = ("You", "Ana")
    assert describe_turn(Turn(1, Challenge(0)), seats, options) == "Ana challenges you"
    assert describe_turn(Turn(0, Challenge(1)), seats, options) == "You challenge Ana"
    assert describe_turn(Turn(1, BidAction(Bid(3, 5))), seats, options) == "Ana bids 3x5"
    assert describe_turn(Turn(1, BidAction(Bid(1, 6))), seats, options, bid_words) == "Ana bids 1 × 6"
    assert bid_words(Bid(3, 5)) == "3 × 5s"
