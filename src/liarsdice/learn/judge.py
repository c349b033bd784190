"""The rules engine behind a lesson: the table of a step, a move judged right or wrong, the reveal
it leads to, and the count of a face as the step's rules make it.

Every place a lesson is played (the terminal's `liarsdice learn`, the browser's /learn) judges a
move here, so the same move gets the same answer and the same explanation everywhere.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..rules import (
    Accuse,
    Action,
    AllIn,
    Bid,
    BidAction,
    Challenge,
    Claim,
    Event,
    Exact,
    Fold,
    Game,
    GameState,
    IllegalAction,
    InvalidText,
    Pass,
    Reroll,
    RoundOutcome,
    RoundResolved,
    Turn,
    Vote,
    action_from_list,
    format_action,
    preset_options,
)
from ..text import describe_outcome, describe_turn
from .lesson import Count, Lesson, ListMove, SeatMove, Step

# Luck a wrong move leaves open (a push the script did not foresee) comes from this seed.
LUCK_SEED = 0

KINDS: dict[type, str] = {
    BidAction: "bid",
    Pass: "pass",
    Challenge: "challenge",
    Exact: "exact",
    Vote: "vote",
    Claim: "claim",
    Accuse: "accuse",
    AllIn: "all_in",
    Fold: "fold",
}


# What a legal move the script has no word for is told (the tests keep every offered move worded).
ALLOWED_BUT_NOT = "That is allowed, but not the move to make here."


class BadMove(ValueError):
    """A move that is not a move at all (not the list form of one); the message says why."""


@dataclass(frozen=True)
class Verdict:
    """What a move at a step led to.

    `right` whether it is one of the step's right moves; `legal` whether the rules allow it (a
    refused move changes nothing); `explanation` why it is right or wrong; `said` the moves made,
    in words (the player's and the others' answers); `outcome` the reveal, if the round ended.
    """

    right: bool
    legal: bool
    kind: str
    move: str
    explanation: str
    said: tuple[str, ...]
    outcome: RoundOutcome | None
    reveal: tuple[str, ...]


def game_of(lesson: Lesson, step: Step) -> Game:
    """The table of one step of `lesson`: its preset, and a seat for each cup."""
    overrides = lesson.overrides if step.preset is None else {}
    options = preset_options(step.preset or lesson.preset, {**overrides, "num_players": len(step.seats)})
    return Game(options, step.seats)


def _seat(game: Game, name: str) -> int:
    return list(game.seats).index(name)


def position(lesson: Lesson, step: Step, hands: Sequence[Sequence[int]] | None = None) -> GameState:
    """The first turn of the step's round, its cups (or `hands`) set exactly."""
    game = game_of(lesson, step)
    state = step.state
    chips = state.get("chips")
    return game.position(
        hands if hands is not None else [step.dice[name] for name in game.seats],
        starter=_seat(game, step.starter),
        round_no=state.get("round_no", 1),
        special_round=state.get("special_round", False),
        special_done=[_seat(game, n) for n in state.get("special_done", ())],
        exact_used=[_seat(game, n) for n in state.get("exact_used", ())],
        chips=[chips[n] for n in game.seats] if chips is not None else None,
        running_pot=state.get("running_pot", 0),
    )


def read_move(state: GameState, move: ListMove | Sequence[Any]) -> Action:
    """The action a list-form move means at `state` (a bare challenge completed with its default
    target); BadMove if it is not the list form of a move, IllegalAction if the rules refuse it."""
    try:
        parsed = action_from_list(list(move), state.seats)
    except InvalidText as e:
        raise BadMove(str(e)) from None
    if parsed.is_bare_push:
        raise BadMove("push only with a bid or pass: a push is never a move of its own")
    if parsed.reroll is not None:
        raise BadMove("a move cannot carry a reroll: the lesson rolls the dice")
    if parsed.wants_default_target:
        return state.default_challenge(state.to_act)
    assert parsed.action is not None
    return parsed.action


def _play(
    state: GameState, action: Action, seat: int | None, reroll: tuple[int, ...] | None
) -> tuple[GameState, tuple[Event, ...]]:
    """Apply `action`, and the reroll of its push (the script's, or luck's)."""
    state, events = state.apply(action, seat)
    if state.phase == "reroll":
        assert seat is not None
        chance = Reroll(seat, reroll) if reroll is not None else state.sample_chance(random.Random(LUCK_SEED))
        state, more = state.apply(chance)
        events += more
    return state, events


def _script(state: GameState, moves: Sequence[SeatMove]) -> tuple[GameState, tuple[Event, ...]]:
    """Play the other seats' scripted moves (with their rerolls, if any)."""
    events: tuple[Event, ...] = ()
    for item in moves:
        seat = list(state.seats).index(item[0])
        parsed = action_from_list(list(item[1:]), state.seats)
        action = state.default_challenge(seat) if parsed.wants_default_target else parsed.action
        assert action is not None, item
        state, more = _play(state, action, seat, parsed.reroll)
        events += more
    return state, events


def at_step(lesson: Lesson, index: int) -> GameState:
    """The state at the player's decision of step `index`: the others' moves played."""
    step = lesson.steps[index]
    state, _ = _script(position(lesson, step), step.before)
    return state


def right_actions(lesson: Lesson, index: int) -> tuple[Action, ...]:
    state = at_step(lesson, index)
    return tuple(read_move(state, move) for move in lesson.steps[index].accept)


def refusal(step: Step, error: IllegalAction, text: str, kind: str) -> str:
    """Why a move the rules refuse is refused: the engine's reason, then the step's word on it
    (its word on refused moves only for a kind of move the step offers: the step's "illegal"
    text is about the moves it is teaching)."""
    offered = {choice.move[0] for choice in step.choices}
    why = step.wrong.get(text) or (step.wrong.get("illegal") if kind in offered else None)
    return f"Not allowed: {error}." + (f" {why}" if why else "")


def _outcome(events: Sequence[Event]) -> RoundOutcome | None:
    for event in events:
        if isinstance(event, RoundResolved):
            return event.outcome
    return None


def judge(lesson: Lesson, index: int, action: Action, bid_text: Callable[[Bid], str] = str) -> Verdict:
    """The verdict on `action`, made by the player at step `index`; bids in its words written by
    `bid_text` (the terminal's "3x5"; the browser's "3 × 5s")."""
    step = lesson.steps[index]
    state = at_step(lesson, index)
    me = state.to_act
    assert me is not None
    seats, options = state.seats, state.options
    text = format_action(action, seats)
    kind = KINDS[type(action)]
    right = action in right_actions(lesson, index)
    try:
        after, events = _play(state, action, me, step.reroll if right else None)
    except IllegalAction as e:
        return Verdict(False, False, kind, text, refusal(step, e, text, kind), (), None, ())
    if right:
        after, more = _script(after, step.then)
        events += more
    said = tuple(describe_turn(e, seats, options, bid_text) for e in events if isinstance(e, Turn))
    outcome = _outcome(events)
    reveal = tuple(describe_outcome(outcome, seats, options, bid_text)) if outcome is not None else ()
    if right:
        explanation = step.right
    else:
        explanation = step.wrong.get(text) or step.wrong.get(kind) or f"{ALLOWED_BUT_NOT} {step.instruction}"
    return Verdict(right, True, kind, text, explanation, said, outcome, reveal)


def judge_list(
    lesson: Lesson, index: int, move: ListMove | Sequence[Any], bid_text: Callable[[Bid], str] = str
) -> Verdict:
    """The verdict on a list-form move (the browser's); BadMove if it is not one. A move the
    rules refuse is a verdict (not right, not legal), as a typed one is."""
    state = at_step(lesson, index)
    try:
        action = read_move(state, move)
    except IllegalAction as e:
        kind = str(move[0])
        return Verdict(False, False, kind, kind, refusal(lesson.steps[index], e, kind, kind), (), None, ())
    return judge(lesson, index, action, bid_text)


def count_of(lesson: Lesson, step: Step, count: Count) -> int:
    """How many dice count for `count.face` at the step's deal, as the engine counts them at a
    reveal: a round set up with the step's cups (or, for one seat's count, that seat's cup and one
    die elsewhere that counts for nothing), a bid on the face, and a challenge of it."""
    game = game_of(lesson, step)
    hands: list[tuple[int, ...]] | None = None
    if count.seat is not None:
        wild = None if step.state.get("special_round") else game.options.wild
        blank = next(f for f in range(1, game.options.faces + 1) if f not in (count.face, wild))
        hands = [
            step.dice[name] if name == count.seat else ((blank,) if step.dice[name] else ()) for name in game.seats
        ]
    state = position(lesson, step, hands)
    for _ in range(game.num_players + 1):
        on_face = [a for a in state.legal_actions() if isinstance(a, (BidAction, Claim)) and a.bid.face == count.face]
        if on_face:
            state, _ = state.apply(on_face[0])
            break
        # a round may not open on this face (perudo's ones): open lower, then bid it
        state, _ = state.apply(next(a for a in state.legal_actions() if isinstance(a, (BidAction, Claim))))
    else:
        raise ValueError(f"no seat may bid on {count.face}s at this step")
    call: Action = Accuse() if game.options.economy is not None else state.default_challenge()
    state, events = state.apply(call)
    while state.phase == "vote":
        state, more = state.apply(Vote(True))
        events += more
    outcome = _outcome(events)
    assert outcome is not None and outcome.count is not None
    return outcome.count


def describe_before(lesson: Lesson, index: int, bid_text: Callable[[Bid], str] = str) -> list[str]:
    """The moves made before the player's turn, in words (bids written by `bid_text`)."""
    state = position(lesson, lesson.steps[index])
    _, events = _script(state, lesson.steps[index].before)
    return [describe_turn(e, state.seats, state.options, bid_text) for e in events if isinstance(e, Turn)]


def to_json(verdict: Verdict, seats: Sequence[str]) -> dict[str, Any]:
    """The verdict as the browser reads it (POST /api/learn/LESSON/STEP)."""
    o = verdict.outcome
    reveal: dict[str, Any] | None = None
    if o is not None:
        reveal = {
            # a hand is every die of the seat, the pushed ones among them
            "hands": {seats[s]: list(o.hands[s]) for s in o.active},
            "pushed": {seats[s]: list(o.pushed[s]) for s in o.active if o.pushed[s]},
            "bid": [o.bid.quantity, o.bid.face] if o.bid is not None else None,
            "count": o.count,
            "lines": list(verdict.reveal),
        }
    return {
        "right": verdict.right,
        "legal": verdict.legal,
        "kind": verdict.kind,
        "move": verdict.move,
        "explanation": verdict.explanation,
        "said": list(verdict.said),
        "reveal": reveal,
    }
