"""The odds panel's numbers against the engine itself (liarsdice.odds).

Random games are played in every preset on small tables; at a turn, the dice the seat to act
cannot see are set to every outcome in turn (the round is dealt again from the same chance node
with those dice, and every push's reroll given them), and the engine settles the bids: the seat
challenges (or accuses) the standing bid, calls exact where it may, and bids on each face of its
table of next bids for the next seat to challenge. The share of outcomes in which the engine
says a bid holds (or is exactly right) must equal the odds module's fraction, exactly.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import pytest

from liarsdice.odds import chance_at_least, chance_exactly, odds, shown, sight
from liarsdice.rules import (
    Accuse,
    Action,
    AllIn,
    Bid,
    BidAction,
    Challenge,
    Claim,
    Exact,
    Game,
    GameState,
    Reroll,
    Roll,
    RoundResolved,
    Vote,
    preset_options,
)

# Small tables: every outcome of the unseen dice is played out.
TABLES: dict[str, dict[str, Any]] = {
    "classic": {"num_players": 3, "dice_per_player": 2},
    "openspiel": {"dice_per_player": 2},
    "perudo": {"num_players": 3, "dice_per_player": 2},
    "jokers": {"num_players": 3, "dice_per_player": 2},
    "soar": {"num_players": 3, "dice_per_player": 2},
    "red-dead": {"num_players": 2, "dice_per_player": 3},
    "tavern": {"num_players": 3, "dice_per_player": 1, "economy": {"folded_dice_count": False}},
}
MOST_UNSEEN = 4
CASES_PER_PRESET = 6


@dataclass
class Case:
    """A turn to check: the chance node that dealt the round, what followed it, and the state."""

    roll_state: GameState
    roll: Roll
    moves: list[Action | Reroll]
    state: GameState


def cases(preset: str, seed: int) -> list[Case]:
    """Turns of random games of `preset`, chosen so that some have pushes and one-die rounds."""
    options = preset_options(preset, TABLES[preset])
    rng = random.Random(seed)
    found: list[Case] = []
    games = 0
    while len(found) < CASES_PER_PRESET and games < 60:
        games += 1
        state = Game(options).new_initial_state()
        roll_state: GameState | None = None
        roll: Roll | None = None
        moves: list[Action | Reroll] = []
        while not state.is_terminal and len(found) < CASES_PER_PRESET:
            if state.is_chance:
                chance = state.sample_chance(rng)
                if isinstance(chance, Roll):
                    roll_state, roll, moves = state, chance, []
                elif isinstance(chance, Reroll):
                    moves.append(chance)
                state, _ = state.apply(chance)
                continue
            view = state.view(state.to_act)
            if state.phase == "turn" and roll_state is not None and roll is not None:
                unseen = sight(view).unseen
                special = view.one_die_round or any(view.pushed)
                if 0 < unseen <= MOST_UNSEEN and rng.random() < (0.6 if special else 0.15):
                    found.append(Case(roll_state, roll, list(moves), state))
            action = rng.choice(state.legal_actions())
            moves.append(action)
            state, _ = state.apply(action)
    return found


def replay(case: Case, cups: dict[int, tuple[int, ...]]) -> GameState:
    """The same turn with `cups` (seat: the dice under its cup now) for the seats not to act."""
    last_reroll = {m.seat: i for i, m in enumerate(case.moves) if isinstance(m, Reroll)}
    hands = [cups.get(s, h) if s not in last_reroll else h for s, h in enumerate(case.roll.hands)]
    state, _ = case.roll_state.apply(Roll(tuple(hands)))
    for i, move in enumerate(case.moves):
        if isinstance(move, Reroll) and last_reroll.get(move.seat) == i and move.seat in cups:
            move = Reroll(move.seat, cups[move.seat])
        state, _ = state.apply(move)
    return state


def settle(state: GameState, action: Action) -> Any:
    """The round's outcome once `action` is played and every vote it calls for believes."""
    events: tuple[Any, ...]
    state, events = state.apply(action)
    while not any(isinstance(e, RoundResolved) for e in events):
        state, events = state.apply(Vote(True))
    return next(e for e in events if isinstance(e, RoundResolved)).outcome


def call_on(state: GameState, target: int) -> Action | None:
    """The move of the seat to act that calls `target`'s bid a lie, if it has one."""
    for a in state.legal_actions():
        if (isinstance(a, Challenge) and a.target == target) or isinstance(a, (Accuse, AllIn)):
            return a
    return None


def bid_on(state: GameState, face: int) -> Action:
    """A bid (or claim) of the seat to act on `face`, without a push or a raise."""
    for a in state.legal_actions():
        if isinstance(a, BidAction) and a.bid.face == face and not a.push:
            return a
        if isinstance(a, Claim) and a.bid.face == face and not a.push and a.raise_to is None:
            return a
    raise AssertionError(f"no bid on {face} to check")


def check(case: Case) -> dict[str, int]:
    """Every outcome of the unseen dice played out; returns what was checked."""
    state = case.state
    me = state.to_act
    assert me is not None
    view = state.view(me)
    panel = odds(view)
    assert panel is not None
    # Every other seat's cup, counted at the reveal or not (folded): the engine decides.
    counted = [s for s in range(state.game.num_players) if s != me and view.active[s]]
    sizes = [view.dice[s] - len(view.pushed[s]) for s in counted]
    faces = view.options.faces
    rows = panel.bids
    row_faces = sorted({r.bid.face for r in rows})
    holds: Counter[tuple[str, Bid]] = Counter()
    hits: Counter[tuple[str, Bid]] = Counter()
    total = 0
    checked = Counter[str]()
    for flat in itertools.product(range(1, faces + 1), repeat=sum(sizes)):
        total += 1
        cups: dict[int, tuple[int, ...]] = {}
        at = 0
        for s, n in zip(counted, sizes, strict=True):
            cups[s] = tuple(flat[at : at + n])
            at += n
        again = replay(case, cups)
        assert again.view(me).cup == view.cup and again.view(me).pushed == view.pushed
        standing = view.standing_bid
        if standing is not None and view.standing_bidder is not None:
            call = call_on(again, view.standing_bidder)
            if call is not None:
                out = settle(again, call)
                holds["standing", standing] += bool(out.claim_true)
                checked["standing"] += total == 1
            if Exact() in again.legal_actions():
                out = settle(again, Exact())
                hits["standing", standing] += bool(out.exact_hit)
                checked["exact"] += total == 1
        for face in row_faces:
            bid = bid_on(again, face)
            after, _ = again.apply(bid)
            call = call_on(after, me)
            assert call is not None
            count = settle(after, call).count
            for r in rows:
                if r.bid.face == face:
                    holds["row", r.bid] += count >= r.bid.quantity
                    hits["row", r.bid] += count == r.bid.quantity
        checked["rows"] += (total == 1) * len(rows)
    if panel.standing is not None:
        if checked["standing"]:
            assert Fraction(holds["standing", panel.standing.bid], total) == panel.standing.at_least
        if checked["exact"]:
            assert Fraction(hits["standing", panel.standing.bid], total) == panel.standing.exactly
    for r in rows:
        assert Fraction(holds["row", r.bid], total) == r.at_least, r.how()
        assert Fraction(hits["row", r.bid], total) == r.exactly, r.how()
    checked["pushes"] = int(any(view.pushed))
    checked["one_die_round"] = int(view.one_die_round)
    return dict(checked)


@pytest.mark.parametrize("preset", list(TABLES))
def test_the_odds_equal_the_engine_over_every_outcome_of_the_unseen_dice(preset: str) -> None:
    seen: Counter[str] = Counter()
    for seed in range(3):
        for case in cases(preset, seed):
            seen.update(check(case))
    assert seen["rows"] > 0 and seen["standing"] > 0
    if preset in ("soar", "red-dead", "perudo"):
        assert seen["exact"] > 0
    if preset == "soar":
        assert seen["pushes"] > 0
    if preset in ("soar", "perudo"):
        assert seen["one_die_round"] > 0


def test_the_tail_sums_to_one_and_the_line_says_how() -> None:
    for unseen in range(6):
        for ways in (1, 2):
            assert sum(chance_exactly(unseen, k, ways, 6) for k in range(unseen + 1)) == 1
            assert chance_at_least(unseen, 0, ways, 6) == 1
    assert chance_at_least(9, 1, 2, 6) == 1 - Fraction(2, 3) ** 9
    state = Game(preset_options("perudo", {"num_players": 3})).position(
        [(1, 5, 2, 3, 4), (2, 2, 2, 2, 2), (3, 3, 3, 3, 3)], starter=0
    )
    view = state.view(0)
    panel = odds(view)
    assert panel is not None and panel.standing is None
    row = next(r for r in panel.bids if r.bid == Bid(3, 5))
    assert row.seen == 2 and row.unseen == 10 and row.ways == 2
    assert row.at_least == 1 - Fraction(2, 3) ** 10
    assert row.how() == (
        "3x5: you see 2 that count in your cup; 10 dice unseen, each counts with chance 1/3 "
        f"(5s and wild 1s): P(at least 1 more) = {shown(row.at_least)}."
    )
    # no row for ones: a perudo round may not open on pacos
    assert {r.bid.face for r in panel.bids} == {2, 3, 4, 5, 6}


def test_shown_reads_only_certainties_as_0_and_100() -> None:
    assert shown(Fraction(0)) == "0%" and shown(Fraction(1)) == "100%"
    assert shown(Fraction(1, 100000)) == "<0.1%" and shown(1 - Fraction(1, 100000)) == ">99.9%"
    assert shown(Fraction(1, 3)) == "33.3%" and shown(Fraction(2, 3)) == "66.7%"


def test_with_many_faces_the_panel_keeps_the_faces_likeliest_to_hold() -> None:
    game = Game(preset_options("classic", {"num_players": 2, "dice_per_player": 3, "faces": 40}))
    view = game.position([(7, 7, 30), (1, 2, 3)], starter=0).view(0)
    panel = odds(view)
    assert panel is not None
    faces = list(dict.fromkeys(r.bid.face for r in panel.bids))
    # 7s and 30s surely hold at 1x (held), then the rest tie and go in ladder order; kept in it
    assert faces == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 30]


def test_one_die_seen_is_said_in_the_singular() -> None:
    from liarsdice.odds import BidOdds

    def line(seen: int) -> str:
        return BidOdds(Bid(9, 5), seen, 15, 2, 6, 1, False, False, Fraction(1, 2), Fraction(1, 4)).how()

    assert line(1).startswith("9x5: you see 1 that counts in your cup;")
    assert line(2).startswith("9x5: you see 2 that count in your cup;")
