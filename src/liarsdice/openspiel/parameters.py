"""OpenSpiel game parameters to `liarsdice.rules.Options`.

OpenSpiel parameters are flat and typed (int, str, bool), with one default each, fixed when the
game is registered. So every option of RULES.md 2.1 is a parameter whose default (`""` or `0`,
`-1` for chips) means "the preset's value"; nested options are flattened with an underscore
(`one_die_round_min_players`, `economy_starting_chips`). OpenSpiel's own `liars_dice` names
(`numdice`, `dice_sides`, `bidding_rule`) are accepted too, so its users change only the name.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from liarsdice.rules import Options, OptionsError, preset_options

DEFAULT_PRESET = "perudo"

PARAMETERS: dict[str, Any] = {
    "preset": DEFAULT_PRESET,
    "players": 0,  # num_players
    "dice_per_player": 0,
    "dice_per_seat": "",  # e.g. "2;1": dice_per_player as a list per seat (separated by ; , / or spaces)
    "faces": 0,
    "max_dice": 0,
    "first_starter": "",  # random, or a seat number
    "wild_face": "",  # none, 1, top
    "wild_bid_rule": "",
    "bid_order": "",
    "wild_opening": "",  # true or false
    "max_quantity": "",
    "challenge_mode": "",
    "goal": "",
    "exact": "",
    "exact_limit": "",
    "pass": "",
    "push": "",  # true or false
    "one_die_round": "",  # none, or on (with the preset's or the default settings)
    "one_die_round_min_players": 0,
    "one_die_round_face_change": "",
    "one_die_round_exact_allowed": "",
    "next_starter": "",
    "eliminated_starter": "",
    "rounds": "",
    "economy": "",  # none, or on
    "economy_starting_chips": -1,
    "economy_min_bet": "",  # round_number, or a number of chips
    "economy_stake": "",
    "economy_odd_remainder": "",
    "economy_zero_chip_all_in": "",
    "economy_folded_dice_count": "",
    # OpenSpiel liars_dice's names
    "numdice": 0,
    "dice_sides": 0,
    "bidding_rule": "",  # reset-face (quantity_major) or reset-quantity (face_major)
    # the adapter's own: stop a game after this many rounds (0: the natural bound, see docs)
    "max_rounds": 0,
    # information states and observations: native (liars_dice's own, where the game is one it can
    # describe: the default of the openspiel preset) or full (every rule's; the default elsewhere)
    "encoding": "",
}
ENCODINGS = ("native", "full")

_PLAIN_STRINGS = (
    "wild_face",
    "wild_bid_rule",
    "bid_order",
    "wild_opening",
    "max_quantity",
    "challenge_mode",
    "goal",
    "exact",
    "exact_limit",
    "pass",
    "push",
    "next_starter",
    "eliminated_starter",
    "rounds",
)
_ON = ("on", "true", "yes")
_OFF = ("none", "off", "false", "no")


def _nested(params: Mapping[str, Any], name: str, ints: tuple[str, ...]) -> tuple[str, dict[str, Any]]:
    """The switch (`""`, on or none) and the sub-options given for `name`."""
    switch = str(params.get(name, "")).strip().lower()
    if switch and switch not in _ON + _OFF:
        raise OptionsError(f"parameter {name} must be on or none (got {params[name]!r})")
    sub: dict[str, Any] = {}
    prefix = name + "_"
    for key, value in params.items():
        if not key.startswith(prefix):
            continue
        field = key[len(prefix) :]
        if field in ints:
            if value != PARAMETERS[key]:
                sub[field] = value
        elif value != "":
            sub[field] = _number_or_text(value) if field == "min_bet" else value
    if switch in _OFF and sub:
        raise OptionsError(f"parameter {name}=none contradicts {', '.join(prefix + k for k in sub)}")
    return switch, sub


def _number_or_text(value: Any) -> Any:
    return int(value) if isinstance(value, str) and value.strip().isdigit() else value


def encoding_from_parameters(params: Mapping[str, Any]) -> str:
    """The `encoding` asked for: native, full, or "" (the preset's default)."""
    value = str(params.get("encoding", "")).strip().lower()
    if value and value not in ENCODINGS:
        raise OptionsError(f"parameter encoding must be {' or '.join(ENCODINGS)} (got {params['encoding']!r})")
    return value


def options_from_parameters(params: Mapping[str, Any]) -> tuple[Options, int]:
    """The options the parameters describe, and `max_rounds`. OptionsError says what is wrong."""
    unknown = [k for k in params if k not in PARAMETERS]
    if unknown:
        raise OptionsError(f"unknown parameter(s) {', '.join(unknown)}: the parameters are {', '.join(PARAMETERS)}")
    p = {**PARAMETERS, **params}
    overrides: dict[str, Any] = {}
    for name, option in (("players", "num_players"), ("numdice", "dice_per_player"), ("dice_sides", "faces")):
        if p[name]:
            overrides[option] = p[name]
    if p["dice_per_player"]:
        overrides["dice_per_player"] = p["dice_per_player"]
    if p["dice_per_seat"]:
        try:
            # any separator: a comma would split OpenSpiel's game string, so "2;1" reads too
            overrides["dice_per_player"] = [int(x) for x in re.split(r"[\s,;/]+", str(p["dice_per_seat"]).strip())]
        except ValueError:
            raise OptionsError(
                f"parameter dice_per_seat must list whole numbers of dice, e.g. 2;1 (got {p['dice_per_seat']!r})"
            ) from None
    for name in ("faces", "max_dice"):
        if p[name]:
            overrides[name] = p[name]
    if p["first_starter"] != "":
        overrides["first_starter"] = _number_or_text(p["first_starter"])
    for name in _PLAIN_STRINGS:
        if p[name] != "":
            overrides[name] = p[name]
    if p["bidding_rule"]:
        rules = {"reset-face": "quantity_major", "reset-quantity": "face_major"}
        if p["bidding_rule"] not in rules:
            raise OptionsError(
                f"parameter bidding_rule must be reset-face or reset-quantity (got {p['bidding_rule']!r})"
            )
        overrides["bid_order"] = rules[p["bidding_rule"]]
    for name, ints in (("one_die_round", ("min_players",)), ("economy", ("starting_chips",))):
        switch, sub = _nested(p, name, ints)
        if switch in _OFF:
            overrides[name] = "none"
        elif switch in _ON or sub:
            overrides[name] = sub
    max_rounds = p["max_rounds"]
    if not isinstance(max_rounds, int) or max_rounds < 0:
        raise OptionsError(f"parameter max_rounds must be 0 (no cap but the game's own) or more (got {max_rounds!r})")
    return preset_options(str(p["preset"]), overrides), max_rounds
