"""What a table accepts: names, chat lines and the table limits, and how it refuses (RoomError).

Everything here is checked before anything is built or stored, and every refusal says what was
wrong and what is allowed.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Mapping
from typing import Any

from ..rules import PRESETS, Economy, Options, OptionsError, find_preset, merge_overrides

NAME_MAX = 24
CHAT_MAX = 300
MAX_TURN_SECONDS = 3600  # a turn timer is 0 (none) to this
# The size of an HTTP request (sizes.py answers one that is bigger): a few hundred bytes for
# every request the site makes, with room to spare.
MAX_BODY = 64 * 1024  # bytes of a request's body
MAX_URL = 2048  # bytes of a request's address: its path and query string, as sent


class RoomError(Exception):
    """A request the table refuses; `code` is the protocol's error code."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def check_turn_seconds(seconds: int) -> int:
    """`seconds` if it is a turn timer a table may have, else RoomError saying what is allowed."""
    if not 0 <= seconds <= MAX_TURN_SECONDS:
        raise RoomError("bad_options", f"the turn timer is 0 (none) to {MAX_TURN_SECONDS} seconds")
    return seconds


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


# Characters a name may not hold: they cannot be stored (a lone surrogate), or they hide or
# disguise a name (control characters, zero-width and bidi-override formatting like U+202E).
_HIDDEN = {"Cs": "a lone surrogate", "Cc": "a control character", "Cf": "an invisible formatting character"}
NAME_RULE = f"a name has 1 to {NAME_MAX} letters, digits, punctuation marks, symbols or spaces"
# What a request's fields take: said when one is refused (validation.py), and in /api/docs.
PRESET_RULE = f"a preset is one of {', '.join(PRESETS)}"
OPTIONS_RULE = (
    'a JSON object of the preset\'s options to change, by RULES.md 2.1 names, e.g. {"num_players": 4} '
    "(left out: the preset as it is)"
)


def clean_name(name: object) -> str:
    """`name` with its spaces collapsed, or RoomError saying what a name may hold."""
    if not isinstance(name, str):
        raise RoomError("bad_message", "a name is text")
    name = " ".join(name.split())  # every kind of space and line break becomes one space
    if not name:
        raise RoomError("bad_message", f"{NAME_RULE}, not an empty name")
    if len(name) > NAME_MAX:
        raise RoomError("bad_message", f"{NAME_RULE}, not {len(name):,} characters")
    for ch in name:
        what = _HIDDEN.get(unicodedata.category(ch))
        if what is not None:
            raise RoomError("bad_message", f"{NAME_RULE}, not {what} (U+{ord(ch):04X})")
    return name


def clean_chat(text: str) -> str:
    text = _CONTROL.sub(" ", text).strip()
    if not text:
        raise RoomError("bad_message", "an empty chat line")
    if len(text) > CHAT_MAX:
        raise RoomError("bad_message", f"a chat line has at most {CHAT_MAX} characters (this one has {len(text)})")
    return text


# ----- table limits (docs/protocol.md) -----
# Numbers a real table uses. They are checked on the options as sent, before the engine builds
# anything from them: a game's size follows from them, and every view of the seat to act lists
# all its moves, on the event loop that serves every table.
MAX_SEATS = 12
MAX_FACES = 20
MAX_DICE = 20  # a player's dice at the start, and at most (dice_per_player, max_dice)
MAX_CHIPS = 1000  # economy: starting_chips and a constant min_bet
MAX_MOVES = 50_000  # the moves one turn may offer: bids x pushes x raises
OFF_LOOP_MOVES = 2_000  # a table whose turns may offer more has them listed off the event loop


def shown_number(value: int) -> str:
    """`value` in words short enough to show back, however many digits it has."""
    if abs(value) < 10**12:
        return str(value)
    size = abs(value).bit_length()  # str() of more than 4,300 digits is refused: count them another way
    digits = f"{len(str(abs(value))):,}" if size < 14_000 else f"about {int(size * 0.30103):,}"
    return f"a {'negative ' if value < 0 else ''}number of {digits} digits"


def _within(name: str, value: Any, low: int, high: int) -> int | None:
    """`value` if it is a whole number from `low` to `high`; None if it is no whole number (the
    engine's parser says what it must be); OptionsError if it is out of range."""
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    if not low <= value <= high:
        raise OptionsError(f"{name} must be {low} to {high} at a table, not {shown_number(value)}")
    return value


def _per_seat(name: str, value: Any, low: int, high: int) -> list[int] | None:
    """A number of dice, or a list of one per seat, checked like `_within`."""
    if isinstance(value, (list, tuple)):
        if len(value) > MAX_SEATS:
            raise OptionsError(f"{name} lists {len(value)} seats: a table has at most {MAX_SEATS}")
        got = [_within(f"{name} (seat {i})", v, low, high) for i, v in enumerate(value)]
        return [g for g in got if g is not None] if None not in got else None
    one = _within(name, value, low, high)
    return None if one is None else [one]


def _push_choices(cup: int, faces: int) -> int:
    """The most pushes (none included) a cup of `cup` dice may offer: its sub-multisets, most
    when its faces are spread evenly, less the whole cup."""
    used = min(cup, faces)
    q, r = divmod(cup, used)
    return int((q + 2) ** r * (q + 1) ** (used - r)) - 1


def _turn_size(cups: list[int], faces: int, push: bool, chips: int | None) -> tuple[int, int, int]:
    """The most bids, pushes (none included) and raises (none included) a turn may offer."""
    pushes = _push_choices(max(cups), faces) if push else 1
    raises = 1 + len(cups) * chips if chips is not None else 1  # any raise up to every chip in play
    return sum(cups) * faces, pushes, raises


def moves_bound(options: Options) -> int:
    """The most moves a turn of a game with these options may offer (MAX_MOVES at a table)."""
    cups = [options.dice_cap(seat) for seat in range(options.num_players)]
    chips = options.economy.starting_chips if options.economy is not None else None
    bids, pushes, raises = _turn_size(cups, options.faces, options.push, chips)
    return (bids + 1) * pushes * raises


def check_table_limits(options: Mapping[str, Any]) -> None:
    """OptionsError, naming the option, the value and the range, for options (by RULES.md 2.1
    names, merged over a preset) beyond the table limits. Cheap: nothing is built."""
    n = _within("num_players", options.get("num_players"), 2, MAX_SEATS)
    faces = _within("faces", options.get("faces"), 2, MAX_FACES)
    start = _per_seat("dice_per_player", options.get("dice_per_player"), 1, MAX_DICE)
    cap_value = options.get("max_dice")
    uncapped = cap_value in (None, "none", "dice_per_player")  # as many as at the start
    cap = None if uncapped else _per_seat("max_dice", cap_value, 1, MAX_DICE)
    first = options.get("first_starter")
    if first != "random":
        _within("first_starter", first, 0, MAX_SEATS - 1)
    one_die = options.get("one_die_round")
    if isinstance(one_die, Mapping) and "min_players" in one_die:
        _within("one_die_round.min_players", one_die["min_players"], 2, MAX_SEATS)
    economy = options.get("economy")
    chips: int | None = None
    if economy is True:
        chips = Economy().starting_chips
    elif isinstance(economy, Mapping):
        chips = _within("economy.starting_chips", economy.get("starting_chips", Economy().starting_chips), 0, MAX_CHIPS)
        bet = economy.get("min_bet")
        if isinstance(bet, Mapping) and set(bet) == {"const"}:
            bet = bet["const"]
        digits = bet[5:].strip(" :=") if isinstance(bet, str) and bet.startswith("const") else ""
        if digits.isdigit():  # "const 3"; digits other than 0 to 9 too, which the engine cannot read
            if not digits.isascii() or len(digits) > 12:
                shown = repr(digits if len(digits) <= 12 else digits[:12] + "...")
                raise OptionsError(f"economy.min_bet must be round_number or 0 to {MAX_CHIPS} chips, not {shown}")
            bet = int(digits)
        _within("economy.min_bet", bet, 0, MAX_CHIPS)
    if n is None or faces is None or start is None or (cap is None and not uncapped):
        return  # not numbers: the engine says what they must be
    caps = cap or start
    if {len(start), len(caps)} - {1, n}:
        return  # lists that do not fit the seats: the engine says so
    cups = [max(start[i % len(start)], caps[i % len(caps)]) for i in range(n)]
    push = options.get("push")
    bids, pushes, raises = _turn_size(cups, faces, push is True or str(push).lower() in ("yes", "true", "on"), chips)
    moves = (bids + 1) * pushes * raises
    if moves > MAX_MOVES:
        raise OptionsError(_too_big(n, cups, faces, pushes > 1, chips if raises > 1 else None, moves))


def _too_big(players: int, cups: list[int], faces: int, push: bool, chips: int | None, moves: int) -> str:
    """Why a table is too big, in what a player chooses (players, dice, faces, pushing, chips),
    with the limit it breaks (the choices one turn may offer)."""
    most, least = max(cups), min(cups)
    dice = _plural(most, "die", "dice") + " each" if most == least else f"up to {_plural(most, 'die', 'dice')}"
    what = "dice and chips" if chips is not None else "dice to push" if push else "dice"
    setup = f"{players} players with {dice} ({faces} faces)"
    if chips is not None:
        setup += f" and {chips:,} chips each"
    if push:
        setup += ", pushing allowed"
    levers = ["players", "dice", "faces"] + (["chips"] if chips is not None else [])
    lower = ", ".join(levers[:-1]) + f" or {levers[-1]}" + (" (or play without pushing)" if push else "")
    return (
        f"too many {what} for one table: {setup} would give a turn up to {moves:,} moves to choose from, "
        f"and a table allows at most {MAX_MOVES:,}; lower the {lower}"
    )


def _plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def build_options(preset: str, overrides: dict[str, Any], num_players: int | None = None) -> Options:
    """The options of a table; OptionsError with the engine's message if they cannot be."""
    p = find_preset(preset)
    merged = merge_overrides(p.options, overrides)
    if num_players is not None:
        merged["num_players"] = num_players
    elif "num_players" not in overrides:
        merged["num_players"] = p.default_players
    check_table_limits(merged)
    options = Options.from_dict(merged)
    p.check_table_size(options.num_players)
    return options
