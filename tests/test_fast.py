"""The fast path agrees with the checked path: same legal actions, same outcome, every round."""

from __future__ import annotations

import random

import pytest

from liarsdice.rules import BidAction, Challenge, Exact, Game, GameState, RoundResolved, preset_options
from liarsdice.rules.fast import FastRound

CASES = [
    ("openspiel", 2, {}),
    ("openspiel", 2, {"dice_per_player": 2}),
    ("openspiel", 2, {"dice_per_player": 3, "bid_order": "face_major"}),
    ("classic", 3, {}),
    ("classic", 4, {"wild_face": 1, "exact": "others_lose"}),
    ("perudo", 4, {}),
    ("perudo", 3, {"one_die_round": {"face_change": "nobody"}}),
    ("perudo_basic", 5, {}),
    ("red-dead", 4, {}),
    ("jokers", 2, {}),
    ("classic", 3, {"faces": 8, "bid_order": "face_major", "wild_face": "top"}),
    ("classic", 3, {"goal": "shedding", "exact": "others_lose"}),
]


def _position(game: Game, rng: random.Random) -> GameState:
    o = game.options
    n = game.num_players
    dice = [rng.randint(0, o.dice_cap(s)) for s in range(n)]
    while sum(1 for d in dice if d) < 2:
        dice[rng.randrange(n)] = rng.randint(1, o.dice_cap(0))
    hands = [[rng.randint(1, o.faces) for _ in range(d)] for d in dice]
    starter = rng.choice([s for s in range(n) if dice[s]])
    special = o.one_die_round is not None and rng.random() < 0.3
    used = [s for s in range(n) if rng.random() < 0.3]
    return game.position(hands, starter=starter, special_round=special, exact_used=used)


def _ids(fast: FastRound, state: GameState) -> list[int]:
    out = []
    for action in state.legal_actions():
        if isinstance(action, BidAction):
            out.append(fast.ladder.index[action.bid])
        elif isinstance(action, Challenge):
            out.append(fast.CHALLENGE)
        elif isinstance(action, Exact):
            out.append(fast.EXACT)
        else:
            raise AssertionError(f"unexpected action {action!r}")
    return sorted(out)


def _action(fast: FastRound, state: GameState, a: int) -> BidAction | Challenge | Exact:
    if a < fast.num_bids:
        return BidAction(fast.ladder.bids[a])
    if a == fast.CHALLENGE:
        return state.default_challenge()
    return Exact()


@pytest.mark.parametrize(
    ("preset", "players", "overrides"), CASES, ids=[f"{c[0]}-{c[1]}-{i}" for i, c in enumerate(CASES)]
)
def test_fast_round_agrees_with_game_state(preset: str, players: int, overrides: dict[str, object]) -> None:
    game = Game(preset_options(preset, {"num_players": players, **overrides}))
    rng = random.Random(hash((preset, players, str(overrides))) & 0xFFFF)
    for _ in range(300):
        state = _position(game, rng)
        fast = FastRound.from_state(state)
        outcome = None
        while outcome is None:
            legal = fast.legal_actions()
            assert sorted(legal) == _ids(fast, state)
            assert fast.current_player() == state.to_act
            a = legal[rng.randrange(len(legal))]
            fast.apply(a)
            state, events = state.apply(_action(fast, state, a))
            outcome = next((e.outcome for e in events if isinstance(e, RoundResolved)), None)
        assert fast.is_terminal()
        assert outcome.count == fast.count()
        assert (outcome.winner, outcome.loser) == fast.winner_loser()
        o = game.options
        expected = [max(0, min(o.dice_cap(s), outcome.dice_before[s] + d)) for s, d in enumerate(fast.dice_change())]
        if o.rounds == "single":
            assert state.returns() == tuple(fast.returns())
        else:
            assert [outcome.dice_after[s] for s in range(players)] == expected


def test_undo_restores_every_step() -> None:
    game = Game(preset_options("perudo", {"num_players": 3}))
    fast = FastRound(game)
    rng = random.Random(3)
    fast.deal_random(rng)
    seen = []
    while not fast.is_terminal():
        seen.append((fast.current_player(), fast.legal_actions()))
        legal = fast.legal_actions()
        fast.apply(legal[rng.randrange(len(legal))])
    for player, legal in reversed(seen):
        fast.undo()
        assert (fast.current_player(), fast.legal_actions()) == (player, legal)


def test_unsupported_rules_are_refused() -> None:
    with pytest.raises(ValueError, match="pass and push"):
        FastRound(Game(preset_options("soar", {"num_players": 3})))
    with pytest.raises(ValueError, match="economy"):
        FastRound(Game(preset_options("tavern", {"num_players": 3})))
    with pytest.raises(ValueError, match="siding vote"):
        FastRound(Game(preset_options("jokers", {"num_players": 3})))
