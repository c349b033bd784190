"""Differential test of the `openspiel` preset against OpenSpiel's `liars_dice` (RULES.md 2.4 item 2).

Both engines get the same rolls and the same moves. At every step the player to act, and the
legal actions mapped to OpenSpiel's integer ids (RULES.md 0.3), must agree:

- `reset-face` (our `bid_order: quantity_major`): id = (q-1)*F + (f-1);
- `reset-quantity` (our `face_major`): id = (f-1)*Q + (q-1), where Q is the total number of dice;
- "Liar" (our challenge of the last bid) = Q*F.

At the end the returns must be equal. OpenSpiel rolls player 0's dice and then player 1's, one
chance node per die with outcome index face-1; ours takes the same faces as one `Roll`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest

from liarsdice.rules import Action, Bid, BidAction, Challenge, Game, GameState, IllegalAction, Roll, preset_options

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel (pip package open_spiel) is not installed")

BID_ORDER = {"reset-face": "quantity_major", "reset-quantity": "face_major"}


class Pair:
    """Our game and OpenSpiel's, built from the same parameters."""

    def __init__(self, numdice: int, rule: str, sides: int = 6) -> None:
        self.numdice = numdice
        self.rule = rule
        self.sides = sides
        self.total = 2 * numdice
        self.ours = Game(
            preset_options("openspiel", {"dice_per_player": numdice, "bid_order": BID_ORDER[rule], "faces": sides})
        )
        self.spiel = pyspiel.load_game("liars_dice", {"numdice": numdice, "bidding_rule": rule, "dice_sides": sides})
        self.liar = self.total * sides

    def __repr__(self) -> str:
        return f"Pair(numdice={self.numdice}, rule={self.rule!r}, sides={self.sides})"

    def action_id(self, action: Action) -> int:
        if isinstance(action, Challenge):
            return self.liar
        assert isinstance(action, BidAction) and not action.push, action
        q, f = action.bid.quantity, action.bid.face
        if self.rule == "reset-face":
            return (q - 1) * self.sides + (f - 1)
        return (f - 1) * self.total + (q - 1)

    def roll(self, faces: Sequence[int]) -> tuple[GameState, Any]:
        """Both games after the roll: `faces` are player 0's dice, then player 1's."""
        assert len(faces) == self.total
        spiel = self.spiel.new_initial_state()
        ours = self.ours.new_initial_state()
        spec = ours.chance_spec()
        assert spec.kind == "roll" and spec.dice == (self.numdice, self.numdice) and spec.faces == self.sides
        for face in faces:
            assert spiel.is_chance_node() and ours.is_chance and ours.to_act is None
            outcomes = spiel.chance_outcomes()
            assert [a for a, _ in outcomes] == list(range(self.sides))
            assert all(p == pytest.approx(1 / self.sides) for _, p in outcomes)
            spiel.apply_action(face - 1)
        hands = (tuple(faces[: self.numdice]), tuple(faces[self.numdice :]))
        ours, _ = ours.apply(Roll(hands))
        return ours, spiel

    def check(self, ours: GameState, spiel: Any) -> list[Action]:
        """The two states agree on who acts and what they may do; our legal actions."""
        assert ours.is_terminal == spiel.is_terminal()
        if spiel.is_terminal():
            assert ours.legal_actions() == ()
            assert ours.returns() == tuple(spiel.returns()), (ours.returns(), spiel.returns(), str(spiel))
            return []
        assert not spiel.is_chance_node()
        assert ours.to_act == spiel.current_player(), str(spiel)
        legal = list(ours.legal_actions())
        ids = [self.action_id(a) for a in legal]
        assert set(ids) == set(spiel.legal_actions()), (self, str(spiel), ours.history)
        assert len(set(ids)) == len(ids)
        assert ids == spiel.legal_actions(), "same actions, but not in OpenSpiel's (ascending id) order"
        return legal

    def step(self, ours: GameState, spiel: Any, action: Action) -> GameState:
        spiel.apply_action(self.action_id(action))
        after, _ = ours.apply(action, ours.to_act)
        return after


def play(pair: Pair, rng: random.Random, liar_rate: float, small_rate: float) -> GameState:
    """One random game driven in lockstep; returns our final state."""
    faces = [rng.randint(1, pair.sides) for _ in range(pair.total)]
    ours, spiel = pair.roll(faces)
    while True:
        legal = pair.check(ours, spiel)
        if not legal:
            return ours
        roll = rng.random()
        action: Action
        if isinstance(legal[-1], Challenge) and roll < liar_rate:
            action = legal[-1]
        elif roll < liar_rate + small_rate:
            action = legal[min(len(legal) - 1, int(rng.random() * 3))]  # a small raise
        else:
            action = rng.choice(legal)
        ours = pair.step(ours, spiel, action)


# (numdice, bidding_rule, games): 50,000 games in all, a few seconds.
CONFIGS = [
    (1, "reset-face", 15000),
    (1, "reset-quantity", 15000),
    (2, "reset-face", 10000),
    (2, "reset-quantity", 10000),
]


@pytest.mark.parametrize(("numdice", "rule", "games"), CONFIGS)
def test_random_games_agree_with_openspiel(numdice: int, rule: str, games: int) -> None:
    pair = Pair(numdice, rule)
    rng = random.Random(f"openspiel-{numdice}-{rule}")
    wins = [0, 0]
    for _ in range(games):
        policy = rng.choice([(0.0, 0.0), (0.15, 0.6), (0.4, 0.4), (0.05, 0.9)])
        final = play(pair, rng, *policy)
        result = final.result
        assert result is not None and result.returns is not None
        wins[result.winners[0]] += 1
    assert min(wins) > games // 10, f"one seat nearly always wins: {wins}"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("numdice", "rule", "sides"), [(3, "reset-face", 4), (3, "reset-quantity", 3), (1, "reset-face", 2)]
)
def test_other_sizes_agree_with_openspiel(numdice: int, rule: str, sides: int) -> None:
    pair = Pair(numdice, rule, sides)
    rng = random.Random(f"openspiel-{numdice}-{rule}-{sides}")
    for _ in range(2000):
        play(pair, rng, rng.choice([0.0, 0.2]), 0.5)


# ----- hand-written positions -----


def bid(q: int, f: int) -> BidAction:
    return BidAction(Bid(q, f))


def play_moves(pair: Pair, faces: Sequence[int], moves: Sequence[Action]) -> tuple[GameState, Any]:
    ours, spiel = pair.roll(faces)
    for action in moves:
        pair.check(ours, spiel)
        ours = pair.step(ours, spiel, action)
    pair.check(ours, spiel)
    return ours, spiel


def test_ids_follow_openspiel_encoding() -> None:
    face = Pair(2, "reset-face")
    quantity = Pair(2, "reset-quantity")
    assert face.action_id(bid(1, 1)) == 0 and face.action_id(bid(2, 3)) == 8 and face.action_id(bid(4, 6)) == 23
    assert quantity.action_id(bid(1, 1)) == 0 and quantity.action_id(bid(3, 2)) == 6
    assert quantity.action_id(bid(4, 6)) == 23
    assert face.action_id(Challenge(0)) == quantity.action_id(Challenge(1)) == 24
    assert face.spiel.num_distinct_actions() == quantity.spiel.num_distinct_actions() == 25


def test_opening_has_no_liar() -> None:
    pair = Pair(1, "reset-face")
    ours, spiel = pair.roll([3, 5])
    assert pair.check(ours, spiel) == [bid(q, f) for q in (1, 2) for f in range(1, 7)]
    assert pair.liar not in spiel.legal_actions()
    with pytest.raises(IllegalAction):
        ours.apply(Challenge(1))


def test_wild_top_face_helps_the_bidder() -> None:
    # 2x3 with a 3 and a wild 6 on the table is true: the bidder (player 0) wins.
    ours, spiel = play_moves(Pair(1, "reset-face"), [3, 6], [bid(2, 3), Challenge(0)])
    assert ours.returns() == tuple(spiel.returns()) == (1.0, -1.0)


def test_a_bid_on_the_top_face_counts_only_that_face() -> None:
    # 2x6 is the highest bid: only Liar follows. A 6 and a 5 make one six, so the caller wins.
    pair = Pair(1, "reset-face")
    ours, spiel = pair.roll([6, 5])
    ours = pair.step(ours, spiel, bid(2, 6))
    assert pair.check(ours, spiel) == [Challenge(0)]
    ours = pair.step(ours, spiel, Challenge(0))
    pair.check(ours, spiel)
    assert ours.returns() == (-1.0, 1.0)


def test_reset_quantity_orders_by_face_first() -> None:
    pair = Pair(2, "reset-quantity")
    ours, spiel = play_moves(pair, [1, 2, 2, 4], [bid(1, 2), bid(3, 2)])
    legal = pair.check(ours, spiel)
    assert bid(1, 3) in legal and spiel.legal_actions()[0] == pair.action_id(bid(4, 2))
    with pytest.raises(IllegalAction):
        ours.apply(bid(2, 2))
    ours = pair.step(ours, spiel, Challenge(1))
    pair.check(ours, spiel)
    # two 2s (no 6s) do not make three: the caller, player 0, wins
    assert ours.returns() == (1.0, -1.0)


def test_an_exact_count_makes_the_bid_true() -> None:
    ours, spiel = play_moves(Pair(1, "reset-face"), [2, 2], [bid(1, 5), bid(2, 2), Challenge(1)])
    assert ours.returns() == tuple(spiel.returns()) == (-1.0, 1.0)


def test_a_long_bidding_war_to_the_top() -> None:
    # every bid in turn, lowest first, up to the top: both engines agree at each of the 24 steps
    pair = Pair(2, "reset-quantity")
    ours, spiel = pair.roll([6, 6, 1, 6])
    while not ours.is_terminal:
        legal = pair.check(ours, spiel)
        ours = pair.step(ours, spiel, legal[0])
    # 4x6 (face 6 counts only sixes: three of them) was called: the caller wins
    assert ours.history[-2].action == bid(4, 6)
    assert ours.returns() == tuple(spiel.returns()) == (1.0, -1.0)
