"""The things a player can do, the chance outcomes, and their text and list forms.

Two spellings exist. The text form is what a player types (`3x5`, `3x5 push 5,5`, `pass`,
`challenge B`, `exact`, `doubt`, `3x5 raise 4`, `fold`). The list form is what files hold: a
scenario action without its seat, e.g. `["bid", 3, 5, {"push": [5, 5]}]` (FORMAT.md).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, TypeAlias

from .bids import Bid, InvalidText


def _canonical_push(action: BidAction | Pass | Claim) -> None:
    """A push is a multiset of faces: keep it sorted, so that one push has one spelling."""
    push = action.push
    if push and (type(push) is not tuple or tuple(sorted(push)) != push):
        object.__setattr__(action, "push", tuple(sorted(push)))


@dataclass(frozen=True, slots=True)
class BidAction:
    """Bid `bid`, optionally pushing some cup dice (their faces) and rerolling the rest."""

    bid: Bid
    push: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        _canonical_push(self)


_SET_BID = BidAction.__dict__["bid"].__set__
_SET_PUSH = BidAction.__dict__["push"].__set__


def sorted_push_bid(bid: Bid, push: tuple[int, ...]) -> BidAction:
    """`BidAction(bid, push)` for a push already a sorted tuple, built without the check: a Soar
    turn lists every legal bid with every push (hundreds of actions, at every view)."""
    action: BidAction = object.__new__(BidAction)
    _SET_BID(action, bid)
    _SET_PUSH(action, push)
    return action


@dataclass(frozen=True, slots=True)
class Pass:
    """Claim that every die in your hand shows one face (Soar), optionally with a push."""

    push: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        _canonical_push(self)


@dataclass(frozen=True, slots=True)
class Challenge:
    """Call the action of seat `target` a lie (liar, dudo, call bluff)."""

    target: int


@dataclass(frozen=True, slots=True)
class Exact:
    """Claim the standing bid is exactly right (exact, spot-on, calza)."""


@dataclass(frozen=True, slots=True)
class Vote:
    """Side with the accused (`believe`) or with the accuser (`doubt`) after a liar call."""

    believe: bool


@dataclass(frozen=True, slots=True)
class Claim:
    """Tavern: meet the bet, raise it to `raise_to` if given, and claim `bid`."""

    bid: Bid
    raise_to: int | None = None
    push: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        _canonical_push(self)


@dataclass(frozen=True, slots=True)
class Accuse:
    """Tavern: meet the bet, raise it to `raise_to` if given, and accuse the standing claim."""

    raise_to: int | None = None


@dataclass(frozen=True, slots=True)
class AllIn:
    """Tavern: bet every chip you hold and accuse the standing claim (only if you cannot meet)."""


@dataclass(frozen=True, slots=True)
class Fold:
    """Tavern: leave the round and lose a die at its end."""


class Roll(NamedTuple):
    """Chance: the hands rolled at the start of a round, one tuple per seat (empty when out)."""

    hands: tuple[tuple[int, ...], ...]


class Reroll(NamedTuple):
    """Chance: the new faces of the dice left under `seat`'s cup after a push."""

    seat: int
    faces: tuple[int, ...]


class DrawStarter(NamedTuple):
    """Chance: the seat drawn to open the round when the rules leave it to luck."""

    seat: int


Action: TypeAlias = BidAction | Pass | Challenge | Exact | Vote | Claim | Accuse | AllIn | Fold
ChanceAction: TypeAlias = Roll | Reroll | DrawStarter
AnyAction: TypeAlias = Action | ChanceAction


# ----- text form -----

_EXACT_WORDS = ("exact", "spot-on", "spot on", "spoton", "calza")
_CHALLENGE_WORDS = ("challenge", "liar", "dudo", "bluff", "call", "call bluff")
_FACES_RE = re.compile(r"\d")


def _faces(text: str) -> tuple[int, ...]:
    text = text.strip()
    if not text or not re.fullmatch(r"[\d\s,]+", text):
        raise InvalidText(f"{text!r} is not a list of dice faces: write them like 5,5 or 5 5")
    parts = [p for p in re.split(r"[\s,]+", text) if p]
    if len(parts) == 1 and len(parts[0]) > 1:
        parts = list(parts[0])  # "55" is two fives
    return tuple(int(p) for p in parts)


def _seat(word: str, seats: Sequence[str]) -> int:
    lowered = [s.lower() for s in seats]
    if word.lower() in lowered:
        return lowered.index(word.lower())
    if word.isdigit() and int(word) < len(seats):
        return int(word)
    raise InvalidText(f"{word!r} is not a seat: the seats are {', '.join(seats)}")


def parse_action(text: str, seats: Sequence[str], *, economy: bool = False) -> Action | tuple[str, Any]:
    """Read a typed action. A challenge without a target comes back as `("challenge", None)`
    for the state to complete with the most recent challengeable action.
    """
    raw = " ".join(text.strip().lower().split())
    if not raw:
        raise InvalidText("type an action, e.g. 3x5, challenge, exact, or help")
    for word in _EXACT_WORDS:
        if raw == word:
            return Exact()
    if raw in ("believe", "vote believe", "b"):
        return Vote(True)
    if raw in ("doubt", "vote doubt", "d"):
        return Vote(False)
    if raw in ("fold",):
        return Fold()
    if raw in ("all-in", "all in", "allin", "all_in"):
        return AllIn()
    for word in sorted(_CHALLENGE_WORDS, key=len, reverse=True):
        if raw == word:
            return ("challenge", None)
        if raw.startswith(word + " "):
            return Challenge(_seat(raw[len(word) + 1 :].strip(), seats))
    if raw == "accuse" or raw.startswith("accuse "):
        rest = raw[6:].strip()
        if rest.startswith("raise "):
            rest = rest[6:].strip()  # what format_action writes
        return Accuse(_raise_to(rest) if rest else None)
    push: tuple[int, ...] = ()
    if " push " in f" {raw} ":
        head, _, tail = f" {raw} ".partition(" push ")
        raw, push = head.strip(), _faces(tail)
    if raw == "pass":
        if economy:
            raise InvalidText("there is no pass in this game: claim, accuse, all-in or fold")
        return Pass(push)
    if raw.startswith("claim "):
        raw = raw[6:].strip()
    elif raw.startswith("bid "):
        raw = raw[4:].strip()
    raise_to: int | None = None
    if " raise" in raw:
        raw, _, tail = raw.partition(" raise")
        raise_to = _raise_to(tail)
    try:
        bid = Bid.parse(raw)
    except InvalidText:
        raise InvalidText(
            f"{text.strip()!r} is not an action: type a bid like 3x5"
            + (" (claim), accuse, all-in or fold" if economy else ", challenge, exact, pass or believe/doubt")
        ) from None
    if economy:
        return Claim(bid, raise_to, push)
    if raise_to is not None:
        raise InvalidText("there is no betting in this game: a bid cannot raise a bet")
    return BidAction(bid, push)


def _raise_to(text: str) -> int:
    text = text.strip()
    if text.startswith("to "):
        text = text[3:].strip()
    if not text.isdigit():
        raise InvalidText(f"{text!r} is not an amount: write raise N, e.g. 3x5 raise 4")
    return int(text)


def format_action(action: AnyAction, seats: Sequence[str]) -> str:
    """The text form, which `parse_action` reads back."""
    if isinstance(action, BidAction):
        return str(action.bid) + _push_text(action.push)
    if isinstance(action, Claim):
        raise_text = f" raise {action.raise_to}" if action.raise_to is not None else ""
        return str(action.bid) + raise_text + _push_text(action.push)
    if isinstance(action, Pass):
        return "pass" + _push_text(action.push)
    if isinstance(action, Challenge):
        return f"challenge {seats[action.target]}"
    if isinstance(action, Exact):
        return "exact"
    if isinstance(action, Vote):
        return "believe" if action.believe else "doubt"
    if isinstance(action, Accuse):
        return "accuse" + (f" raise {action.raise_to}" if action.raise_to is not None else "")
    if isinstance(action, AllIn):
        return "all-in"
    if isinstance(action, Fold):
        return "fold"
    if isinstance(action, Roll):
        return "roll " + " | ".join(f"{seats[i]}: {','.join(map(str, h))}" for i, h in enumerate(action.hands) if h)
    if isinstance(action, Reroll):
        return f"reroll {seats[action.seat]}: {','.join(map(str, action.faces))}"
    return f"starter {seats[action.seat]}"


def _push_text(push: tuple[int, ...]) -> str:
    return f" push {','.join(map(str, push))}" if push else ""


# ----- list form (scenario files and game records) -----


def action_to_list(action: Action, seats: Sequence[str]) -> list[Any]:
    """`["bid", 3, 5, {"push": [5]}]`, `["challenge", {"target": "B"}]`, ..."""
    if isinstance(action, BidAction):
        return ["bid", action.bid.quantity, action.bid.face] + ([{"push": list(action.push)}] if action.push else [])
    if isinstance(action, Claim):
        extra: dict[str, Any] = {}
        if action.raise_to is not None:
            extra["raise_to"] = action.raise_to
        if action.push:
            extra["push"] = list(action.push)
        return ["claim", action.bid.quantity, action.bid.face] + ([extra] if extra else [])
    if isinstance(action, Pass):
        return ["pass"] + ([{"push": list(action.push)}] if action.push else [])
    if isinstance(action, Challenge):
        return ["challenge", {"target": seats[action.target]}]
    if isinstance(action, Exact):
        return ["exact"]
    if isinstance(action, Vote):
        return ["vote", "believe" if action.believe else "doubt"]
    if isinstance(action, Accuse):
        return ["accuse"] + ([{"raise_to": action.raise_to}] if action.raise_to is not None else [])
    if isinstance(action, AllIn):
        return ["all_in"]
    return ["fold"]


class ListAction:
    """A list-form action read from a file, with the parts the state must complete.

    `reroll` is the explicit chance outcome of a push, if the file gives it; `challenge_target`
    is None for `[challenge]`, which means the most recent challengeable action.
    """

    __slots__ = ("action", "reroll", "wants_default_target", "is_bare_push")

    def __init__(
        self,
        action: Action | None,
        reroll: tuple[int, ...] | None = None,
        wants_default_target: bool = False,
        is_bare_push: bool = False,
    ) -> None:
        self.action = action
        self.reroll = reroll
        self.wants_default_target = wants_default_target
        self.is_bare_push = is_bare_push


def _int_arg(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidText(f"{what} must be a whole number, not {value!r}")
    return value


def _face_list(value: Any, what: str) -> tuple[int, ...]:
    if not isinstance(value, (list, tuple)):
        raise InvalidText(f"{what} must be a list of dice faces, not {value!r}")
    return tuple(_int_arg(v, f"each face in {what}") for v in value)


def action_from_list(items: Sequence[Any], seats: Sequence[str]) -> ListAction:
    """Read `[kind, args..., {extras}]` (the seat already removed)."""
    if not isinstance(items, (list, tuple)) or not items or not isinstance(items[0], str):
        raise InvalidText(f"{items!r} is not an action: it must be a list that starts with its kind, e.g. [bid, 3, 5]")
    kind = items[0].lower().replace("-", "_")
    args = list(items[1:])
    extras: dict[str, Any] = {}
    if args and isinstance(args[-1], dict):
        extras = args.pop()
    allowed_extras = {
        "bid": {"push", "reroll"},
        "pass": {"push", "reroll"},
        "claim": {"raise_to", "push", "reroll"},
        "accuse": {"raise_to"},
        "challenge": {"target"},
    }.get(kind, set())
    unknown = set(extras) - allowed_extras
    if unknown:
        raise InvalidText(
            f"{kind} does not take {', '.join(sorted(unknown))}"
            + (f": it takes {', '.join(sorted(allowed_extras))}" if allowed_extras else "")
        )
    push = _face_list(extras["push"], "push") if "push" in extras else ()
    reroll = _face_list(extras["reroll"], "reroll") if "reroll" in extras else None

    def need(n: int, shape: str) -> None:
        if len(args) != n:
            raise InvalidText(f"{kind} is written {shape}, got {list(items)!r}")

    if kind == "bid":
        need(2, "[bid, quantity, face]")
        return ListAction(BidAction(Bid(_int_arg(args[0], "quantity"), _int_arg(args[1], "face")), push), reroll)
    if kind == "claim":
        need(2, "[claim, quantity, face]")
        raise_to = _int_arg(extras["raise_to"], "raise_to") if "raise_to" in extras else None
        bid = Bid(_int_arg(args[0], "quantity"), _int_arg(args[1], "face"))
        return ListAction(Claim(bid, raise_to, push), reroll)
    if kind == "pass":
        need(0, "[pass]")
        return ListAction(Pass(push), reroll)
    if kind == "push":
        return ListAction(None, is_bare_push=True)
    if kind in ("challenge", "liar", "dudo", "call_bluff"):
        need(0, "[challenge] or [challenge, {target: P}]")
        if "target" in extras:
            target = extras["target"]
            if isinstance(target, int) and not isinstance(target, bool):
                if not 0 <= target < len(seats):
                    raise InvalidText(f"challenge target {target} is not a seat")
                return ListAction(Challenge(target))
            if target not in seats:
                raise InvalidText(f"challenge target {target!r} is not a seat: the seats are {', '.join(seats)}")
            return ListAction(Challenge(list(seats).index(target)))
        return ListAction(None, wants_default_target=True)
    if kind in ("exact", "spot_on", "calza"):
        need(0, f"[{kind}]")
        return ListAction(Exact())
    if kind == "vote":
        need(1, "[vote, believe|doubt]")
        if args[0] not in ("believe", "doubt"):
            raise InvalidText(f"a vote is believe or doubt, not {args[0]!r}")
        return ListAction(Vote(args[0] == "believe"))
    if kind == "accuse":
        need(0, "[accuse] or [accuse, {raise_to: X}]")
        return ListAction(Accuse(_int_arg(extras["raise_to"], "raise_to") if "raise_to" in extras else None))
    if kind == "all_in":
        need(0, "[all_in]")
        return ListAction(AllIn())
    if kind == "fold":
        need(0, "[fold]")
        return ListAction(Fold())
    raise InvalidText(
        f"unknown action {items[0]!r}: the actions are bid, pass, push, challenge, exact, vote, "
        "claim, accuse, all_in, fold"
    )
