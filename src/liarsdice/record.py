"""Game records: a JSON file that holds a whole game and can be replayed exactly.

A record holds the options, the seats, the seed the dealer used, and every step in order:
chance steps (`starter`, `roll`, `reroll`) with their outcomes and player steps with the seat and
the action in list form. From these the rules engine rebuilds every state, so a record is
checked by replaying it: an illegal action, or a roll that contradicts the options, is refused
with the step's index and the reason. The round outcomes and the result stored beside the steps
are a readable summary; replaying recomputes them and refuses a record whose summary disagrees.
"""

from __future__ import annotations

import itertools
import json
import os
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .rules import (
    Action,
    ChanceAction,
    DrawStarter,
    Event,
    Game,
    GameResult,
    GameState,
    IllegalAction,
    InvalidText,
    Options,
    OptionsError,
    Reroll,
    Roll,
    RoundOutcome,
    RoundResolved,
    Turn,
    action_from_list,
    action_to_list,
)
from .text import plural, stop_message

FORMAT = "liarsdice-record"
VERSION = 1


class RecordError(ValueError):
    """A record that cannot be replayed; `index` is the step at fault (None: the whole file)."""

    def __init__(self, index: int | None, reason: str) -> None:
        self.index = index
        self.reason = reason
        where = f"step {index}: " if index is not None else ""
        super().__init__(where + reason)


def _names(seats: Sequence[str], values: Sequence[Any]) -> dict[str, Any]:
    return {seats[s]: v for s, v in enumerate(values)}


def chance_to_json(chance: ChanceAction, seats: Sequence[str], round_no: int) -> dict[str, Any]:
    if isinstance(chance, Roll):
        return {"chance": "roll", "round": round_no, "hands": _names(seats, [list(h) for h in chance.hands])}
    if isinstance(chance, Reroll):
        return {"chance": "reroll", "seat": seats[chance.seat], "faces": list(chance.faces)}
    return {"chance": "starter", "seat": seats[chance.seat]}


def outcome_to_json(o: RoundOutcome, seats: Sequence[str]) -> dict[str, Any]:
    def name(seat: int | None) -> str | None:
        return seats[seat] if seat is not None else None

    out: dict[str, Any] = {
        "round": o.round_no,
        "kind": o.kind,
        "caller": name(o.caller),
        "target": name(o.target),
        "bid": str(o.bid) if o.bid is not None else None,
        "count": o.count,
        "claim_true": o.claim_true,
        "exact_hit": o.exact_hit,
        "pass_valid": o.pass_valid,
        "votes": {seats[s]: ("believe" if b else "doubt") for s, b in o.votes},
        "one_die_round": o.one_die_round,
        "hands": {seats[s]: list(o.hands[s]) for s in o.active},
        "pushed": {seats[s]: list(o.pushed[s]) for s in o.active if o.pushed[s]},
        "dice_before": {seats[s]: o.dice_before[s] for s in o.active},
        "dice_after": {seats[s]: o.dice_after[s] for s in o.active},
        "out": [seats[s] for s in o.out],
        "round_loser": seats[o.round_loser],
        "winner": name(o.winner),
        "loser": name(o.loser),
        "game_over": o.game_over,
        "next_starter": name(o.next_starter),
        "next_one_die_round": o.next_one_die_round,
    }
    if o.pot is not None:
        assert o.chips_after is not None
        out["folded"] = [seats[s] for s in o.folded]
        out["pot"] = o.pot
        out["pot_share"] = o.pot_share
        out["chips_after"] = {seats[s]: o.chips_after[s] for s in o.active}
        out["running_pot_after"] = o.running_pot_after
    return out


def result_to_json(r: GameResult, seats: Sequence[str]) -> dict[str, Any]:
    return {
        "places": _names(seats, r.places),
        "ranking": [[seats[s] for s in group] for group in r.ranking()],
        "last_with_dice": [seats[s] for s in r.last_with_dice],
        "returns": _names(seats, r.returns) if r.returns is not None else None,
        "running_pot_award": {seats[r.running_pot_award[0]]: r.running_pot_award[1]} if r.running_pot_award else None,
        "chips": _names(seats, r.chips) if r.chips is not None else None,
    }


class Recorder:
    """Builds the record of a game while it is played; `apply` is the one door for every step."""

    def __init__(
        self,
        game: Game,
        *,
        seed: int | None = None,
        preset: str | None = None,
        players: Sequence[Mapping[str, Any]] | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> None:
        self.game = game
        seats = game.seats
        self.data: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "preset": preset,
            "options": game.options.to_dict(),
            "seats": list(seats),
            "players": [dict(p) for p in players] if players else [{"name": s} for s in seats],
            "seed": seed,
            "meta": dict(meta or {}),
            "steps": [],
            "rounds": [],
            "result": None,
        }

    def apply(self, state: GameState, action: Action | ChanceAction) -> tuple[GameState, tuple[Event, ...]]:
        """Apply a step to `state` and record it (only if the rules accept it)."""
        new, events = state.apply(action)
        self.note(state, action, new, events)
        return new, events

    def step_json(self, before: GameState, action: Action | ChanceAction) -> dict[str, Any]:
        """The record's entry for `action` played at `before`."""
        seats = self.game.seats
        if isinstance(action, (Roll, Reroll, DrawStarter)):
            return chance_to_json(action, seats, before.round_no)
        seat = before.to_act
        assert seat is not None
        return {"seat": seats[seat], "action": action_to_list(action, seats)}

    def note(
        self,
        before: GameState,
        action: Action | ChanceAction,
        after: GameState,
        events: tuple[Event, ...],
        step: dict[str, Any] | None = None,
    ) -> None:
        """Record a step that was applied elsewhere (`before.apply(action)` gave `after, events`)."""
        seats = self.game.seats
        self.data["steps"].append(step if step is not None else self.step_json(before, action))
        for event in events:
            if isinstance(event, RoundResolved):
                self.data["rounds"].append(outcome_to_json(event.outcome, seats))
        if after.result is not None:
            self.data["result"] = result_to_json(after.result, seats)

    def to_json(self) -> dict[str, Any]:
        return self.data

    def write(self, path: str | Path) -> Path:
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(json.dumps(self.data, indent=1) + "\n", encoding="utf-8")
        return p

    def write_new(self, path: str | Path) -> Path:
        """Write to `path`, or, if a file is there already, to `NAME-2.json`, `NAME-3.json`, ...:
        never over another record (each name is opened with 'x', so two games ending at once
        cannot take the same one). Returns the path written."""
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        text = json.dumps(self.data, indent=1) + "\n"
        for n in itertools.count(1):
            candidate = p if n == 1 else p.with_name(f"{p.stem}-{n}{p.suffix}")
            try:
                with candidate.open("x", encoding="utf-8") as f:
                    f.write(text)
            except FileExistsError:
                continue
            return candidate
        raise AssertionError("unreachable")


def prepare_record_dir(directory: str | Path) -> Path:
    """Create `directory` if needed and prove that a record can be written in it, before a game
    is played rather than after (OSError if it cannot)."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    fd, probe = tempfile.mkstemp(prefix=".write-test-", dir=d)
    os.close(fd)
    os.unlink(probe)
    return d


# ----- reading and replaying -----


def load_record(path: str | Path) -> dict[str, Any]:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise RecordError(None, f"cannot read {path}: {e.strerror or e}") from e
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise RecordError(None, f"{path} is not JSON: {e}") from e
    if not isinstance(data, dict):
        raise RecordError(None, "a record is a JSON object")
    return data


def game_from_record(data: Mapping[str, Any]) -> Game:
    if data.get("format") != FORMAT:
        raise RecordError(None, f"not a liarsdice game record (format must be {FORMAT!r})")
    if data.get("version") != VERSION:
        raise RecordError(None, f"record version {data.get('version')!r} is not supported (this reads {VERSION})")
    seats = data.get("seats")
    if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
        raise RecordError(None, "seats must be a list of names")
    options_data = data.get("options")
    if not isinstance(options_data, dict):
        raise RecordError(None, "options must be an object of option names to values")
    try:
        options = Options.from_dict(options_data)
        return Game(options, seats)
    except OptionsError as e:
        raise RecordError(None, f"bad options: {e}") from e


@dataclass(frozen=True)
class ReplayStep:
    index: int
    before: GameState
    after: GameState
    action: Action | ChanceAction
    seat: int | None
    events: tuple[Event, ...]


def _chance_from_json(step: Mapping[str, Any], game: Game, state: GameState) -> ChanceAction:
    seats = game.seats
    kind = step.get("chance")

    def seat_of(name: Any) -> int:
        if name not in seats:
            raise ValueError(f"{name!r} is not a seat")
        return list(seats).index(name)

    def faces(value: Any, what: str) -> tuple[int, ...]:
        if not isinstance(value, list) or not all(isinstance(f, int) and not isinstance(f, bool) for f in value):
            raise ValueError(f"{what} must be a list of faces")
        return tuple(value)

    if kind == "starter":
        return DrawStarter(seat_of(step.get("seat")))
    if kind == "roll":
        hands = step.get("hands")
        if not isinstance(hands, dict):
            raise ValueError("a roll gives hands: an object of seat names to faces")
        unknown = [k for k in hands if k not in seats]
        if unknown:
            raise ValueError(f"the roll names {', '.join(map(repr, unknown))}, not seats")
        return Roll(tuple(faces(hands.get(s, []), f"{s}'s hand") for s in seats))
    if kind == "reroll":
        return Reroll(seat_of(step.get("seat")), faces(step.get("faces"), "the reroll"))
    raise ValueError(f"unknown chance step {kind!r}: it is starter, roll or reroll")


def replay(data: Mapping[str, Any]) -> Iterator[ReplayStep]:
    """Every step of the record applied in turn; RecordError at the first one that fails."""
    game = game_from_record(data)
    steps = data.get("steps")
    if not isinstance(steps, list):
        raise RecordError(None, "steps must be a list")
    seats = game.seats
    state = game.new_initial_state()
    rounds = data.get("rounds") if isinstance(data.get("rounds"), list) else None
    round_index = 0
    for i, step in enumerate(steps):
        if not isinstance(step, dict):
            raise RecordError(i, "a step is an object with either chance or seat and action")
        action: Action | ChanceAction
        seat: int | None = None
        raw: Any = None
        try:
            if "chance" in step:
                if not state.is_chance:
                    due = "the game is over" if state.is_terminal else f"{seats[state.to_act or 0]} is to act"
                    raise RecordError(i, f"a {step.get('chance')} is recorded, but {due}")
                action = _chance_from_json(step, game, state)
            else:
                name = step.get("seat")
                if name not in seats:
                    raise RecordError(i, f"seat {name!r} is not at the table ({', '.join(seats)})")
                seat = list(seats).index(name)
                if state.is_chance:
                    raise RecordError(i, f"{name} acts, but the dice are due ({state.phase})")
                if state.is_terminal:
                    raise RecordError(i, f"{name} acts after the game is over")
                raw = step.get("action")
                if not isinstance(raw, list):
                    raise RecordError(i, "an action is a list such as [bid, 3, 5]")
                parsed = action_from_list(raw, seats)
                if parsed.is_bare_push:
                    raise IllegalAction("push only with a bid or pass")
                if parsed.wants_default_target:
                    parsed.action = state.default_challenge(seat)
                if parsed.reroll is not None:
                    raise RecordError(i, "a reroll is a chance step of its own in a record")
                assert parsed.action is not None
                action = parsed.action
            after, events = state.apply(action, seat)
        except RecordError:
            raise
        except (IllegalAction, InvalidText) as e:
            if seat is not None:
                raise RecordError(i, f"{seats[seat]}'s action {raw!r} is illegal: {e}") from e
            raise RecordError(i, f"the {step.get('chance')} contradicts the rules: {e}") from e
        except ValueError as e:
            raise RecordError(i, str(e)) from e
        for event in events:
            if isinstance(event, RoundResolved) and rounds is not None:
                if round_index < len(rounds):
                    _compare_round(i, rounds[round_index], outcome_to_json(event.outcome, seats))
                round_index += 1
        yield ReplayStep(i, state, after, action, seat, events)
        state = after
    if rounds is not None and round_index < len(rounds):
        raise RecordError(None, f"the record lists {len(rounds)} rounds but its steps play {round_index}")
    recorded = data.get("result")
    if recorded is not None:
        if state.result is None:
            raise RecordError(None, "the record gives a result, but its steps do not finish the game")
        replayed = result_to_json(state.result, seats)
        if _strip_none(recorded) != _strip_none(replayed):
            raise RecordError(None, f"the recorded result {recorded} differs from the replayed one {replayed}")


def _strip_none(d: Any) -> Any:
    if isinstance(d, dict):
        return {k: _strip_none(v) for k, v in d.items() if v is not None}
    return d


def _compare_round(index: int, recorded: Any, replayed: dict[str, Any]) -> None:
    if not isinstance(recorded, dict):
        raise RecordError(index, "a recorded round must be an object")
    for key, value in replayed.items():
        if key == "next_starter" and value is None:
            continue  # a drawn starter is only known at the next step
        if key in recorded and recorded[key] != value and not (key == "next_starter" and recorded[key] is None):
            raise RecordError(
                index,
                f"round {replayed['round']} is recorded with {key} = {recorded[key]!r}, but replaying gives {value!r}",
            )


def replay_text(data: Mapping[str, Any]) -> Iterator[str]:
    """The game round by round, every cup shown, as lines of text (RecordError if invalid)."""
    from .text import describe_outcome, describe_result, describe_turn, says

    game = game_from_record(data)
    seats = game.seats
    o = game.options
    preset = data.get("preset")
    yield f"Game of {preset or 'custom rules'} with {', '.join(seats)}" + (
        f" (seed {data['seed']})" if data.get("seed") is not None else ""
    )
    for step in replay(data):
        a = step.action
        if isinstance(a, DrawStarter):
            yield f"Luck picks {seats[a.seat]} to open."
        elif isinstance(a, Roll):
            st = step.after
            special = " (one-die round: no wilds)" if st.one_die_round else ""
            yield ""
            yield f"Round {st.round_no}{special}, {says(seats[st.starter or 0], 'opens')}."
            for seat in st.active_seats:
                yield f"  {seats[seat]:>10}: {' '.join(map(str, a.hands[seat]))}"
        elif isinstance(a, Reroll):
            yield f"    {says(seats[a.seat], 'rerolls', 'the cup')}: {' '.join(map(str, a.faces))}"
        else:
            assert step.seat is not None
            for event in step.events:
                if isinstance(event, Turn):
                    yield "    " + describe_turn(event, seats, o)
                elif isinstance(event, RoundResolved):
                    yield "    Reveal:"
                    yield from ("    " + line for line in describe_outcome(event.outcome, seats, o))
        if step.after.result is not None:
            yield ""
            yield "Final ranking:"
            yield from ("  " + line for line in describe_result(step.after.result, seats))
    if data.get("result") is None:
        yield ""
        yield unfinished_text(data)


def unfinished_text(data: Mapping[str, Any]) -> str:
    """Why a record ends before the game does, in a player's words: who stopped it and why, when,
    and how far it got (the round, and the moves the seats made: deals and rolls are not moves),
    or simply that it was cut short."""
    meta = data.get("meta")
    meta = meta if isinstance(meta, Mapping) else {}
    steps = data.get("steps")
    steps = [s for s in steps if isinstance(s, Mapping)] if isinstance(steps, list) else None
    moves = 0 if steps is None else sum(1 for s in steps if "chance" not in s)
    rounds = [s.get("round") for s in steps or () if s.get("chance") == "roll"]
    in_round = f"in round {rounds[-1]}" if rounds and isinstance(rounds[-1], int) else ""
    stopped = meta.get("stopped")
    if stopped is None:
        if steps is None:
            return "The record ends early."
        played = ", ".join(part for part in (in_round, f"after {plural(moves, 'move')}") if part)
        return f"The record ends before the game is over ({played})."
    who = meta.get("stopped_by") if isinstance(meta.get("stopped_by"), str) else None
    forfeit = meta.get("forfeit")
    if isinstance(forfeit, Mapping) and isinstance(forfeit.get("seat"), str):
        # A forfeit ends the game: that seat is last, every other seat shares first (match.py).
        after = f"after {plural(moves, 'move')}" if moves else "before anyone moved"
        why = f" ({forfeit['reason']})" if forfeit.get("reason") else ""
        return f"{forfeit['seat']} forfeited the game {after}{why}: last place, and everyone else shares first."
    said = stop_message(str(stopped), who, moves)
    when = f" It stopped {in_round}" if in_round else ""
    if meta.get("stopped_at"):
        when += (" at " if when else " It stopped at ") + str(meta["stopped_at"])
    return said + (when + "." if when else "") + " The game is unfinished."
