"""The bot protocol's messages: one JSON object per line, built from what a seat may see.

Everything a bot is told is built here from a `PlayerView` and from events already passed
through `rules.redact` for its seat, so no message can carry another seat's cup: the encoders
refuse the two private event types outright. `docs/bot-protocol.md` is the contract; `schema.json`
beside this file describes every message, and the tests validate real games against it.

Seats are numbers (indices into `seats`) everywhere in the protocol, including a challenge's
target. Actions use the list form of game records (`["bid", 3, 5]`, `["challenge", {"target": 1}]`).
The decoders rebuild the very values the engine made (`decode_view(encode_view(v)) == v`), which is
how the Python helper hands a real `PlayerView` to a bot written against this package.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from typing import Any

from ..bots.base import Forfeited
from ..rules import (
    Action,
    Bid,
    Challenge,
    CupRerolled,
    DiceRerolled,
    Event,
    GameOver,
    GameResult,
    HandsRolled,
    InvalidText,
    LegalMoves,
    Options,
    OwnHandRolled,
    PlayerView,
    RoundOutcome,
    RoundResolved,
    RoundStarted,
    StarterDrawn,
    Turn,
    action_from_list,
    action_to_list,
    format_action,
)

PROTOCOL_VERSION = 1
MAX_LINE = 64 * 1024  # the longest line a bot may write; its answers are a few dozen bytes
FAILURE_KINDS = ("timeout", "illegal", "garbage", "huge_line", "crash")
NOTICE_KINDS = ("late", "extra", "quit_hang")  # counted and logged; they never cost a move


class BadMessage(ValueError):
    """A line from a bot that is not a protocol message: what was wrong and what is allowed."""


class BadHello(BadMessage):
    """A hello the driver cannot accept: another protocol version, or a field of the wrong type."""


class IllegalAnswer(ValueError):
    """A well-formed answer that names no legal action of the request it answers."""


# ----- plain values -----


def _plain(value: Any) -> Any:
    """JSON-ready: bids as [quantity, face], tuples as lists."""
    if isinstance(value, Bid):
        return [value.quantity, value.face]
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"cannot encode {value!r} in a protocol message")


def _tuples(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tuples(v) for v in value)
    return value


def _bid(value: Any) -> Bid | None:
    return None if value is None else Bid(int(value[0]), int(value[1]))


# ----- actions -----


def encode_action(action: Action) -> list[Any]:
    """The record's list form, with a challenge's target as a seat number."""
    if isinstance(action, Challenge):
        return ["challenge", {"target": action.target}]
    return action_to_list(action, ())


def decode_action(items: Any, seats: Sequence[str]) -> Action:
    """An action in list form, complete (a challenge names its target): for decoding what the
    driver sent. A bot's answer goes through `decode_answer`, which also checks it is legal."""
    read = action_from_list(items, seats)
    if read.action is None or read.reroll is not None:
        raise InvalidText(f"{items!r} is not a complete action")
    return read.action


def decode_answer(items: Any, view: PlayerView) -> Action:
    """The action a bot answered for `view`: one of `view.legal_actions`, else IllegalAnswer.

    `["challenge"]` without a target challenges the most recent challengeable action, as in
    scenario files; a target may be a seat number or a seat name.
    """
    try:
        read = action_from_list(items, view.seats)
    except InvalidText as e:
        raise IllegalAnswer(f"{json.dumps(items)} is not an action: {e}") from None
    if read.is_bare_push:
        raise IllegalAnswer('a push goes with a bid or a pass: ["bid", 3, 5, {"push": [5]}]')
    if read.reroll is not None:
        raise IllegalAnswer("reroll is chance: the dealer rolls the dice left under the cup, not the bot")
    action = read.action
    if read.wants_default_target:
        targets = view.legal.challenge_targets if view.legal is not None else ()
        if not targets:
            raise IllegalAnswer("there is nothing to challenge now")
        action = Challenge(targets[0])
    assert action is not None
    if action not in view.legal_actions:
        shown = ", ".join(json.dumps(encode_action(a)) for a in view.legal_actions[:4])
        more = f" and {len(view.legal_actions) - 4} more" if len(view.legal_actions) > 4 else ""
        raise IllegalAnswer(
            f"{format_action(action, view.seats)} is not a legal action now: answer with one of `legal` ({shown}{more})"
        )
    return action


# ----- outcomes, results, the view -----


def encode_outcome(outcome: RoundOutcome) -> dict[str, Any]:
    """The reveal of a round: every field of `RoundOutcome`, its hands included (public by now)."""
    return {name: _plain(getattr(outcome, name)) for name in outcome._fields}


def decode_outcome(data: Mapping[str, Any]) -> RoundOutcome:
    values: dict[str, Any] = {
        name: _bid(data[name]) if name == "bid" else _tuples(data[name])
        for name in RoundOutcome._fields
        if name in data
    }
    return RoundOutcome(**values)


def encode_result(result: GameResult) -> dict[str, Any]:
    return {name: _plain(getattr(result, name)) for name in result._fields}


def decode_result(data: Mapping[str, Any]) -> GameResult:
    return GameResult(**{name: _tuples(data[name]) for name in GameResult._fields if name in data})


def encode_moves(moves: LegalMoves | None) -> dict[str, Any] | None:
    if moves is None:
        return None
    return {f.name: _plain(getattr(moves, f.name)) for f in dataclasses.fields(moves)}


def decode_moves(data: Mapping[str, Any] | None) -> LegalMoves | None:
    if data is None:
        return None
    values = {f.name: _tuples(data[f.name]) for f in dataclasses.fields(LegalMoves)}
    values["bids"] = tuple(Bid(q, f) for q, f in values["bids"])
    return LegalMoves(**values)


# The view's fields that are not plain values, each sent its own way (options once, in new_game;
# the legal actions and their summary beside the view in an act request).
_VIEW_SPECIAL = {"options", "history", "standing_bid", "legal", "legal_actions", "last_outcome", "result"}


def encode_view(view: PlayerView) -> dict[str, Any]:
    """What `view.seat` may see, without the options and the legal actions (sent beside it)."""
    out: dict[str, Any] = {
        f.name: _plain(getattr(view, f.name)) for f in dataclasses.fields(view) if f.name not in _VIEW_SPECIAL
    }
    out["history"] = [{"seat": t.seat, "action": encode_action(t.action)} for t in view.history]
    out["standing_bid"] = _plain(view.standing_bid)
    out["last_outcome"] = encode_outcome(view.last_outcome) if view.last_outcome is not None else None
    out["result"] = encode_result(view.result) if view.result is not None else None
    return out


def decode_view(
    data: Mapping[str, Any],
    options: Options,
    legal: Sequence[Any] = (),
    moves: Mapping[str, Any] | None = None,
) -> PlayerView:
    """The `PlayerView` an act request was built from."""
    seats = tuple(data["seats"])
    values: dict[str, Any] = {
        f.name: _tuples(data[f.name]) for f in dataclasses.fields(PlayerView) if f.name not in _VIEW_SPECIAL
    }
    values["seats"] = seats
    values["options"] = options
    values["history"] = tuple(Turn(t["seat"], decode_action(t["action"], seats)) for t in data["history"])
    values["standing_bid"] = _bid(data["standing_bid"])
    values["last_outcome"] = decode_outcome(data["last_outcome"]) if data["last_outcome"] is not None else None
    values["result"] = decode_result(data["result"]) if data["result"] is not None else None
    values["legal"] = decode_moves(moves)
    values["legal_actions"] = tuple(decode_action(a, seats) for a in legal)
    return PlayerView(**values)


# ----- events -----


def encode_event(event: Event | Forfeited, seat: int) -> dict[str, Any]:
    """One event as `seat` may be told it. The private forms are refused: redact them first."""
    if isinstance(event, Turn):
        return {"event": "turn", "seat": event.seat, "action": encode_action(event.action)}
    if isinstance(event, OwnHandRolled):
        if event.seat != seat:
            raise ValueError(f"seat {seat} may not see the roll of seat {event.seat}")
        return {"event": "rolled", "round_no": event.round_no, "cup": list(event.hand)}
    if isinstance(event, CupRerolled):
        return {"event": "rerolled", "seat": event.seat, "count": event.count}
    if isinstance(event, DiceRerolled):
        if event.seat != seat:
            raise ValueError(f"seat {seat} may not see the dice rerolled under seat {event.seat}'s cup")
        return {"event": "rerolled", "seat": event.seat, "count": len(event.faces), "faces": list(event.faces)}
    if isinstance(event, HandsRolled):
        raise ValueError("HandsRolled holds every cup: pass events through rules.redact(event, seat) first")
    if isinstance(event, StarterDrawn):
        return {"event": "starter_drawn", "seat": event.seat}
    if isinstance(event, RoundStarted):
        return {
            "event": "round_started",
            "round_no": event.round_no,
            "starter": event.starter,
            "one_die_round": event.one_die_round,
            "dice": list(event.dice),
        }
    if isinstance(event, RoundResolved):
        return {"event": "round_over", "outcome": encode_outcome(event.outcome)}
    if isinstance(event, GameOver):
        return {"event": "game_over", "result": encode_result(event.result)}
    if isinstance(event, Forfeited):
        return {"event": "forfeit", "seat": event.seat, "reason": event.reason}
    raise TypeError(f"unknown event {event!r}")


# ----- whole messages -----


def hello_message(software: str) -> dict[str, Any]:
    return {"type": "hello", "protocol": PROTOCOL_VERSION, "software": software}


def new_game_message(
    *,
    game: int,
    preset: str | None,
    options: Options,
    seats: Sequence[str],
    seat: int,
    seed: int | None,
    time: float,
    fallback: str,
) -> dict[str, Any]:
    return {
        "type": "new_game",
        "game": game,
        "preset": preset,
        "options": options.to_dict(),
        "seats": list(seats),
        "seat": seat,
        "seed": seed,
        "time": time,
        "fallback": fallback,
    }


def act_message(
    request: int, game: int, view: PlayerView, events: Sequence[dict[str, Any]], time: float
) -> dict[str, Any]:
    return {
        "type": "act",
        "id": request,
        "game": game,
        "time": time,
        "events": list(events),
        "view": encode_view(view),
        "moves": encode_moves(view.legal),
        "legal": [encode_action(a) for a in view.legal_actions],
    }


def refused_message(
    request: int, failure: str, reason: str, played: Action | None, forfeit: bool = False
) -> dict[str, Any]:
    return {
        "type": "refused",
        "id": request,
        "failure": failure,
        "reason": reason,
        "played": encode_action(played) if played is not None else None,
        "forfeit": forfeit,
    }


def game_over_message(game: int, events: Sequence[dict[str, Any]], result: GameResult | None) -> dict[str, Any]:
    return {
        "type": "game_over",
        "game": game,
        "events": list(events),
        "result": encode_result(result) if result is not None else None,
    }


QUIT_MESSAGE: dict[str, Any] = {"type": "quit"}


def dumps(message: Mapping[str, Any]) -> str:
    """One line: compact JSON (never a raw newline inside: JSON escapes them) and a newline."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False) + "\n"


# ----- what a bot writes -----


def _short(line: str) -> str:
    return line if len(line) <= 80 else line[:77] + "..."


BOT_MESSAGE_TYPES = ("hello", "action")


def parse_bot_line(line: str) -> dict[str, Any]:
    """A line a bot wrote, as a message; BadMessage says what was wrong. A message of a type
    this version does not know (not in BOT_MESSAGE_TYPES) comes back as it is, for the caller
    to ignore: bots are told to ignore the driver's unknown types, and the driver does the same."""
    try:
        message = json.loads(line)
    except json.JSONDecodeError as e:
        raise BadMessage(f"not JSON ({e.msg}): {_short(line)!r}; write one JSON object per line") from None
    if not isinstance(message, dict):
        raise BadMessage(f"not a JSON object: {_short(line)!r}; every message is an object with a type")
    kind = message.get("type")
    if not isinstance(kind, str):
        raise BadMessage(
            f"a message needs a type (a string), got {kind!r}: a bot writes hello (once, first) and action messages"
        )
    if kind == "action":
        request = message.get("id")
        if isinstance(request, bool) or not isinstance(request, int):
            raise BadMessage(f"an action needs the id of the act request it answers, got {request!r}")
        if not isinstance(message.get("action"), list):
            raise BadMessage('an action message holds the action as a list, e.g. "action": ["bid", 3, 5]')
        return message
    if kind == "hello":
        return check_bot_hello(message)
    return message


def check_bot_hello(message: dict[str, Any]) -> dict[str, Any]:
    """The bot's hello, checked; BadHello says what is wrong with it and what is allowed."""
    version = message.get("protocol")
    if "protocol" not in message:
        raise BadHello(f'hello must give the protocol version it speaks: "protocol": {PROTOCOL_VERSION}')
    if isinstance(version, bool) or not isinstance(version, int):
        raise BadHello(
            f"hello's protocol must be the integer {PROTOCOL_VERSION}, not {json.dumps(version)} "
            f"(a {_json_type(version)})"
        )
    if version != PROTOCOL_VERSION:
        raise BadHello(
            f"the bot speaks protocol version {version}, which is not supported: this driver speaks {PROTOCOL_VERSION}"
        )
    for key in ("name", "author"):
        if key in message and not isinstance(message[key], str):
            raise BadHello(f"hello's {key} must be a string, not {json.dumps(message[key])}")
    if not isinstance(message.get("name"), str) or not message["name"].strip():
        raise BadHello("hello must give the bot's name")
    presets = message.get("presets")
    if presets is not None and (not isinstance(presets, list) or not all(isinstance(p, str) for p in presets)):
        raise BadHello(f'hello\'s presets is a list of preset names, e.g. ["perudo"], not {presets!r}')
    options = message.get("options")
    if options is not None and (
        not isinstance(options, dict) or not all(isinstance(v, list) for v in options.values())
    ):
        raise BadHello(
            f'hello\'s options maps option names to the values the bot plays, e.g. {{"push": [false]}}, not {options!r}'
        )
    return message


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, str):
        return "string"
    if isinstance(value, (int, float)):
        return "number"
    return "list" if isinstance(value, list) else "object"


def unsupported(hello: Mapping[str, Any], preset: str | None, options: Options) -> str | None:
    """Why a bot that said `hello` cannot play this game, or None if it can."""
    presets = hello.get("presets")
    if presets is not None:
        names = {p.lower() for p in presets}
        if preset is None or preset.lower() not in names:
            game = f"the preset {preset}" if preset else "custom rules"
            return f"it plays {', '.join(presets) or 'no preset'}, not {game}"
    wanted = hello.get("options") or {}
    given = options.to_dict()
    for name, values in wanted.items():
        if name in given and given[name] not in values:
            return f"it plays {name} = {' or '.join(json.dumps(v) for v in values)}, not {json.dumps(given[name])}"
    return None
