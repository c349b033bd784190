"""Rule options (RULES.md section 2.1), their validation (2.2) and the named presets (2.3).

Options are a frozen value: a game is built from them and never changes them. They are read
from plain mappings (a scenario file, a command line, a game record) by `Options.from_dict`,
which reports every bad name and value in the players' vocabulary.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, Literal

WildFace = Literal["none", "1", "top"]
WildBidRule = Literal["plain", "joker_double", "perudo_half"]
BidOrder = Literal["quantity_major", "face_major"]
MaxQuantity = Literal["dice_in_play", "unbounded"]
ChallengeMode = Literal["duel", "siding_vote"]
Goal = Literal["elimination", "shedding"]
ExactRule = Literal["none", "gain_die", "others_lose"]
ExactLimit = Literal["unlimited", "once_per_game"]
PassRule = Literal["none", "at_pass", "at_reveal"]
FaceChange = Literal["one_die_players", "nobody"]
NextStarter = Literal["round_loser", "opener_ccw"]
EliminatedStarter = Literal["next_clockwise", "fewest_dice_then_chips_then_random"]
Rounds = Literal["until_one_left", "single"]
Stake = Literal["call_to_level", "per_turn"]
OddRemainder = Literal["running_pot", "winner"]


class OptionsError(ValueError):
    """A set of options that cannot make a game: an unknown name, a bad value or a conflict."""


@dataclass(frozen=True)
class OneDieRound:
    """The palifico / special round (option 17)."""

    min_players: int = 3
    face_change: FaceChange = "one_die_players"
    exact_allowed: bool = True


@dataclass(frozen=True)
class Economy:
    """The chips of source 004 (option 21)."""

    starting_chips: int = 10
    min_bet: Literal["round_number"] | int = "round_number"
    stake: Stake = "call_to_level"
    odd_remainder: OddRemainder = "running_pot"
    zero_chip_all_in: bool = True
    folded_dice_count: bool = True

    def min_bet_for(self, round_no: int) -> int:
        return round_no if self.min_bet == "round_number" else int(self.min_bet)


@dataclass(frozen=True)
class Options:
    """Every option of RULES.md 2.1. Build with `Options.from_dict` or `preset_options`."""

    num_players: int = 2
    dice_per_player: int | tuple[int, ...] = 5
    faces: int = 6
    max_dice: int | tuple[int, ...] | None = None
    first_starter: Literal["random"] | int = "random"
    wild_face: WildFace = "none"
    wild_bid_rule: WildBidRule = "plain"
    bid_order: BidOrder = "quantity_major"
    wild_opening: bool = True
    max_quantity: MaxQuantity = "dice_in_play"
    challenge_mode: ChallengeMode = "duel"
    goal: Goal = "elimination"
    exact: ExactRule = "none"
    exact_limit: ExactLimit = "unlimited"
    pass_rule: PassRule = "none"
    push: bool = False
    one_die_round: OneDieRound | None = None
    next_starter: NextStarter = "round_loser"
    eliminated_starter: EliminatedStarter = "next_clockwise"
    rounds: Rounds = "until_one_left"
    economy: Economy | None = None

    # ----- derived values the engine asks for often -----

    def starting_dice(self, seat: int) -> int:
        d = self.dice_per_player
        return d[seat] if isinstance(d, tuple) else d

    def dice_cap(self, seat: int) -> int:
        cap = self.max_dice
        if cap is None:
            return self.starting_dice(seat)
        return cap[seat] if isinstance(cap, tuple) else cap

    @property
    def wild(self) -> int | None:
        """The wild face as a number, or None."""
        if self.wild_face == "none":
            return None
        return 1 if self.wild_face == "1" else self.faces

    # ----- conversion -----

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Options:
        """Options from RULES.md 2.1 names; absent options keep the defaults of this class."""
        if not isinstance(data, Mapping):
            raise OptionsError(f"options must be a mapping of option names to values, not {type(data).__name__}")
        unknown = [k for k in data if k not in _PARSERS]
        if unknown:
            raise OptionsError(
                f"unknown option{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))}: "
                f"the options are {', '.join(_PARSERS)}"
            )
        values: dict[str, Any] = {}
        for name, raw in data.items():
            attr = "pass_rule" if name == "pass" else name
            values[attr] = _PARSERS[name](name, raw)
        options = cls(**values)
        options.validate()
        return options

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready mapping with RULES.md 2.1 names; `from_dict` reads it back."""
        out: dict[str, Any] = {}
        for f in fields(self):
            value = getattr(self, f.name)
            name = "pass" if f.name == "pass_rule" else f.name
            if isinstance(value, tuple):
                value = list(value)
            elif isinstance(value, (OneDieRound, Economy)):
                value = {g.name: getattr(value, g.name) for g in fields(value)}
            elif value is None:
                value = "none"
            elif name == "wild_face" and value == "1":
                value = 1
            out[name] = value
        return out

    def with_overrides(self, overrides: Mapping[str, Any]) -> Options:
        """These options patched by name; nested mappings (economy, one_die_round) are merged."""
        return Options.from_dict(merge_overrides(self.to_dict(), overrides))

    def replace(self, **changes: Any) -> Options:
        new = replace(self, **changes)
        new.validate()
        return new

    # ----- validation (2.2 and sanity) -----

    def _first_seat_over_cap(self) -> int | None:
        """The first seat that starts with more dice than max_dice allows, or None.

        Costs the length of the per-seat lists given, never num_players: the options come from
        players (a table's form, a file) before any limit on the table size is applied, and
        a huge num_players with scalar dice must be refused or accepted at once.
        """
        dice, cap = self.dice_per_player, self.max_dice
        if cap is None:
            return None
        # A list given here has been checked to hold exactly num_players entries.
        if isinstance(dice, tuple):
            seats = len(dice)
        elif isinstance(cap, tuple):
            seats = len(cap)
        else:
            return 0 if cap < dice else None
        return next((s for s in range(seats) if self.dice_cap(s) < self.starting_dice(s)), None)

    def validate(self) -> None:
        n = self.num_players
        problems: list[str] = []
        if isinstance(self.dice_per_player, tuple) and len(self.dice_per_player) != n:
            problems.append(f"dice_per_player lists {len(self.dice_per_player)} seats but num_players is {n}")
        if isinstance(self.max_dice, tuple) and len(self.max_dice) != n:
            problems.append(f"max_dice lists {len(self.max_dice)} seats but num_players is {n}")
        if not problems:
            seat = self._first_seat_over_cap()
            if seat is not None:
                problems.append(
                    f"max_dice ({self.dice_cap(seat)}) is below dice_per_player "
                    f"({self.starting_dice(seat)}) for seat {seat}"
                )
        if isinstance(self.first_starter, int) and not 0 <= self.first_starter < n:
            problems.append(f"first_starter is seat {self.first_starter} but the seats are 0 to {n - 1}")
        if self.wild_bid_rule != "plain" and self.wild_face == "none":
            problems.append(f"wild_bid_rule={self.wild_bid_rule} needs a wild face, but wild_face=none")
        if self.wild_bid_rule != "plain" and self.bid_order != "quantity_major":
            problems.append(
                f"wild_bid_rule={self.wild_bid_rule} needs bid_order=quantity_major, but bid_order={self.bid_order}"
            )
        if self.exact == "gain_die" and self.goal != "elimination":
            problems.append("exact=gain_die needs goal=elimination (gaining a die is undefined when shedding)")
        if self.pass_rule != "none" and self.challenge_mode != "duel":
            problems.append(
                f"pass={self.pass_rule} needs challenge_mode=duel, but challenge_mode={self.challenge_mode}"
            )
        if self.push and self.challenge_mode != "duel":
            problems.append(f"push needs challenge_mode=duel, but challenge_mode={self.challenge_mode}")
        if self.one_die_round is not None and self.goal != "elimination":
            problems.append(f"one_die_round needs goal=elimination, but goal={self.goal}")
        if self.economy is not None:
            if self.challenge_mode != "duel":
                problems.append(f"economy needs challenge_mode=duel, but challenge_mode={self.challenge_mode}")
            if self.exact != "none":
                problems.append(f"economy needs exact=none, but exact={self.exact}")
            if self.pass_rule != "none":
                problems.append(f"economy needs pass=none, but pass={self.pass_rule}")
        if problems:
            raise OptionsError("; ".join(problems))


# ----- parsing of single option values -----


def _choice(*allowed: str) -> Any:
    def parse(name: str, raw: Any) -> str:
        value = "none" if raw is None else raw
        if isinstance(value, str) and value.replace("-", "_") in allowed:
            return value.replace("-", "_")
        raise OptionsError(f"option {name} must be one of {', '.join(allowed)} (got {raw!r})")

    return parse


def _int(minimum: int) -> Any:
    def parse(name: str, raw: Any) -> int:
        if isinstance(raw, bool) or not isinstance(raw, int) or raw < minimum:
            raise OptionsError(f"option {name} must be a whole number of at least {minimum} (got {raw!r})")
        return raw

    return parse


def _dice_count(name: str, raw: Any) -> int | tuple[int, ...]:
    if isinstance(raw, (list, tuple)):
        if not raw:
            raise OptionsError(f"option {name} must be a number of dice or a non-empty list per seat (got [])")
        return tuple(_int(1)(name, x) for x in raw)
    return _int(1)(name, raw)  # type: ignore[no-any-return]


def _max_dice(name: str, raw: Any) -> int | tuple[int, ...] | None:
    if raw is None or raw == "none" or raw == "dice_per_player":
        return None
    return _dice_count(name, raw)


def _bool(name: str, raw: Any) -> bool:
    if isinstance(raw, bool):
        return raw
    if isinstance(raw, str) and raw.lower() in ("yes", "true", "on", "no", "false", "off"):
        return raw.lower() in ("yes", "true", "on")
    raise OptionsError(f"option {name} must be true or false (got {raw!r})")


def _first_starter(name: str, raw: Any) -> Literal["random"] | int:
    if raw == "random":
        return "random"
    if isinstance(raw, int) and not isinstance(raw, bool) and raw >= 0:
        return raw
    raise OptionsError(f"option {name} must be random or a seat index from 0 (got {raw!r})")


def _wild_face(name: str, raw: Any) -> WildFace:
    if raw is None or raw == "none":
        return "none"
    if raw in (1, "1"):
        return "1"
    if raw == "top":
        return "top"
    raise OptionsError(f"option {name} must be one of none, 1, top (got {raw!r})")


def _sub_options(cls: type, name: str, raw: Any, parsers: Mapping[str, Any]) -> Any:
    if raw is None or raw == "none" or raw is False:
        return None
    if raw is True:
        return cls()
    if not isinstance(raw, Mapping):
        raise OptionsError(f"option {name} must be none or a mapping with keys {', '.join(parsers)} (got {raw!r})")
    unknown = [k for k in raw if k not in parsers]
    if unknown:
        raise OptionsError(
            f"unknown key{'s' if len(unknown) > 1 else ''} {', '.join(map(repr, unknown))} in option {name}: "
            f"the keys are {', '.join(parsers)}"
        )
    return cls(**{k: parsers[k](f"{name}.{k}", v) for k, v in raw.items()})


def _min_bet(name: str, raw: Any) -> Literal["round_number"] | int:
    if raw == "round_number":
        return "round_number"
    if isinstance(raw, Mapping) and set(raw) == {"const"}:
        raw = raw["const"]
    if isinstance(raw, str) and raw.startswith("const"):
        raw = raw[5:].strip(" :=")
        raw = int(raw) if raw.isdigit() else raw
    if isinstance(raw, int) and not isinstance(raw, bool) and raw >= 0:
        return raw
    raise OptionsError(f"option {name} must be round_number or a whole number of chips (got {raw!r})")


_ONE_DIE_PARSERS: dict[str, Any] = {
    "min_players": _int(2),
    "face_change": _choice("one_die_players", "nobody"),
    "exact_allowed": _bool,
}
_ECONOMY_PARSERS: dict[str, Any] = {
    "starting_chips": _int(0),
    "min_bet": _min_bet,
    "stake": _choice("call_to_level", "per_turn"),
    "odd_remainder": _choice("running_pot", "winner"),
    "zero_chip_all_in": _bool,
    "folded_dice_count": _bool,
}

_PARSERS: dict[str, Any] = {
    "num_players": _int(2),
    "dice_per_player": _dice_count,
    "faces": _int(2),
    "max_dice": _max_dice,
    "first_starter": _first_starter,
    "wild_face": _wild_face,
    "wild_bid_rule": _choice("plain", "joker_double", "perudo_half"),
    "bid_order": _choice("quantity_major", "face_major"),
    "wild_opening": _bool,
    "max_quantity": _choice("dice_in_play", "unbounded"),
    "challenge_mode": _choice("duel", "siding_vote"),
    "goal": _choice("elimination", "shedding"),
    "exact": _choice("none", "gain_die", "others_lose"),
    "exact_limit": _choice("unlimited", "once_per_game"),
    "pass": _choice("none", "at_pass", "at_reveal"),
    "push": _bool,
    "one_die_round": lambda name, raw: _sub_options(OneDieRound, name, raw, _ONE_DIE_PARSERS),
    "next_starter": _choice("round_loser", "opener_ccw"),
    "eliminated_starter": _choice("next_clockwise", "fewest_dice_then_chips_then_random"),
    "rounds": _choice("until_one_left", "single"),
    "economy": lambda name, raw: _sub_options(Economy, name, raw, _ECONOMY_PARSERS),
}

OPTION_NAMES: tuple[str, ...] = tuple(_PARSERS)


def merge_overrides(base: Mapping[str, Any], overrides: Mapping[str, Any]) -> dict[str, Any]:
    """`base` patched by `overrides`; a mapping laid over a mapping is merged key by key."""
    if not isinstance(overrides, Mapping):
        raise OptionsError(f"overrides must be a mapping of option names to values, not {type(overrides).__name__}")
    out = dict(base)
    for key, value in overrides.items():
        old = out.get(key)
        if isinstance(value, Mapping) and isinstance(old, Mapping):
            out[key] = {**old, **value}
        else:
            out[key] = value
    return out


# ----- presets (2.3, 2.4) -----


@dataclass(frozen=True)
class Preset:
    name: str
    title: str
    description: str
    options: Mapping[str, Any]
    min_players: int = 2
    max_players: int | None = None
    default_players: int = 4
    aliases: tuple[str, ...] = field(default=())
    # Options that define the preset: overriding one of them leaves the preset (RULES.md 2.2,
    # "the openspiel preset itself fixes num_players = 2"), so it is refused, with the reason.
    fixed: Mapping[str, Any] = field(default_factory=dict)
    fixed_reason: str = ""

    def merged(self, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The preset's option mapping patched by `overrides`; OptionsError if a fixed option is changed."""
        out = merge_overrides(self.options, overrides or {})
        for name, value in self.fixed.items():
            if name in out and out[name] != value:
                raise OptionsError(
                    f"the {self.name} preset fixes {name} at {value}, not {out[name]!r}: {self.fixed_reason}"
                )
        return out

    def build(self, overrides: Mapping[str, Any] | None = None) -> Options:
        return Options.from_dict(self.merged(overrides))

    def check_table_size(self, num_players: int) -> None:
        """OptionsError unless a game of this preset is started for play with this many seats
        (RULES.md S6: a scenario may seat more)."""
        lo, hi = self.min_players, self.max_players
        if num_players < lo or (hi is not None and num_players > hi):
            most = "" if hi == lo else f" to {hi}" if hi is not None else " or more"
            raise OptionsError(f"{self.name} is played by {lo}{most} players, not {num_players}")


_COMMON: dict[str, Any] = {
    "dice_per_player": 5,
    "faces": 6,
    "max_dice": None,
    "first_starter": "random",
    "wild_face": "none",
    "wild_bid_rule": "plain",
    "bid_order": "quantity_major",
    "wild_opening": True,
    "max_quantity": "dice_in_play",
    "challenge_mode": "duel",
    "goal": "elimination",
    "exact": "none",
    "exact_limit": "unlimited",
    "pass": "none",
    "push": False,
    "one_die_round": None,
    "next_starter": "round_loser",
    "eliminated_starter": "next_clockwise",
    "rounds": "until_one_left",
    "economy": None,
}


def _preset(name: str, title: str, description: str, players: int, **opts: Any) -> Preset:
    aliases = opts.pop("aliases", ())
    lo = opts.pop("min_players", 2)
    hi = opts.pop("max_players", None)
    fixed = opts.pop("fixed", {})
    why = opts.pop("fixed_reason", "")
    options = {**_COMMON, "num_players": players, **opts}
    return Preset(name, title, description, options, lo, hi, players, aliases, fixed, why)


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        _preset(
            "jokers",
            "Jokers",
            "Ones are jokers that count double when bid; after a liar call everyone sides with the "
            "accuser or the accused, and the correct side sheds a die. First to empty their cup wins.",
            4,
            wild_face=1,
            wild_bid_rule="joker_double",
            challenge_mode="siding_vote",
            goal="shedding",
        ),
        _preset(
            "soar",
            "Soar",
            "Wild ones with halve / double-plus-one conversion; pass, push, one exact per game, "
            "challenge through one pass, and a one-die round. Last with dice wins.",
            4,
            wild_face=1,
            wild_bid_rule="perudo_half",
            exact="gain_die",
            exact_limit="once_per_game",
            **{"pass": "at_pass"},
            push=True,
            one_die_round={"min_players": 3, "face_change": "one_die_players", "exact_allowed": True},
        ),
        _preset(
            "red-dead",
            "Red Dead",
            "No wilds; raise, call bluff or declare spot-on: a correct spot-on costs everyone else a "
            "die. The opening bid rotates counter-clockwise. Last with dice wins.",
            4,
            exact="others_lose",
            next_starter="opener_ccw",
            aliases=("red_dead", "reddead", "rdr"),
        ),
        _preset(
            "tavern",
            "Tavern",
            "Chips on the table: meet the bet, raise, claim or accuse, go all in or fold; half of each "
            "round's pot goes to the winner of the accusation and half to the running pot, which the "
            "last player with dice takes. Claims order by face, then quantity.",
            3,
            dice_per_player=3,
            faces=8,
            bid_order="face_major",
            eliminated_starter="fewest_dice_then_chips_then_random",
            economy={
                "starting_chips": 10,
                "min_bet": "round_number",
                "stake": "call_to_level",
                "odd_remainder": "running_pot",
                "zero_chip_all_in": True,
                "folded_dice_count": True,
            },
            aliases=("loria",),
        ),
        _preset(
            "perudo",
            "Perudo",
            "Pacos (ones) are wild with halve / double-plus-one conversion and may not open a round; "
            "dudo or calza; the palifico round when a player first drops to one die. Last with dice wins.",
            4,
            wild_face=1,
            wild_bid_rule="perudo_half",
            wild_opening=False,
            exact="gain_die",
            one_die_round={"min_players": 3, "face_change": "one_die_players", "exact_allowed": False},
            max_players=6,
            aliases=("dudo", "calza"),
        ),
        _preset(
            "perudo_basic",
            "Perudo (basic)",
            "Perudo without calza.",
            4,
            wild_face=1,
            wild_bid_rule="perudo_half",
            wild_opening=False,
            one_die_round={"min_players": 3, "face_change": "one_die_players", "exact_allowed": False},
            max_players=6,
            aliases=("perudo-basic",),
        ),
        _preset(
            "openspiel",
            "OpenSpiel",
            "OpenSpiel's liars_dice: two players, one round, the top face wild, player 0 opens; "
            "the winner of the liar call scores +1 and the loser -1.",
            2,
            dice_per_player=1,
            first_starter=0,
            wild_face="top",
            rounds="single",
            min_players=2,
            max_players=2,
            fixed={"num_players": 2},
            fixed_reason="OpenSpiel's liars_dice is a two-player game; for a single round at a bigger "
            "table, take another preset with rounds=single (e.g. classic with rounds=single, wild_face=top)",
            aliases=("open_spiel", "liars_dice"),
        ),
        _preset(
            "classic",
            "Classic",
            "Plain 'at least' liar's dice: no wilds, no exact; the loser of a challenge starts the "
            "next round. Last with dice wins.",
            4,
        ),
    )
}


def find_preset(name: str) -> Preset:
    """The preset called `name` (case-insensitive; aliases accepted)."""
    key = str(name).strip().lower()
    for preset in PRESETS.values():
        if key == preset.name or key in preset.aliases:
            return preset
    raise OptionsError(f"unknown preset {name!r}: the presets are {', '.join(PRESETS)}")


def preset_options(name: str, overrides: Mapping[str, Any] | None = None) -> Options:
    """The options of a named preset, patched option by option."""
    return find_preset(name).build(overrides)
