"""The bot levels a player chooses from: an ordered ladder of names, each said in one sentence.

Pure data and lookups, stdlib only, below the bots, the bot protocol and the server: every place
that takes a level (`--bots`, `--bot-fallback`, `serve --ladder-anchors`, the websocket's
`fill_bots`, the bot protocol's helper) asks `resolve` here, so they accept the same names in any
case and refuse the same way.

A level maps to one bot of `liarsdice.bots.BOT_LEVELS` (its `bot`, the name stored in game
records, seats and ratings). The names the bots had before the ladder (`probability`, `strong`,
`duel`) stay aliases of their level, so scripts, records and bot programs that use them go on
working; `random` and `cfr` are not rungs of the ladder (one is no fun to play, the other plays
the Skilled level's moves except in tiny duels) but are still accepted by name, for tests and
research.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Level:
    """One level: the name a player reads, one full sentence about how it plays, the bot that
    plays it (a key of `liarsdice.bots.BOT_LEVELS`) and the other names it answers to."""

    name: str
    sentence: str
    bot: str
    aliases: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        """The name as typed and sent: lower case."""
        return self.name.lower()


# Weakest first. benchmarks/levels.py plays each against the one before it (docs/strength.md, "The ladder of levels").
LADDER: tuple[Level, ...] = (
    Level(
        "Beginner",
        "Beginner plays the odds of its own dice but half the time follows a hunch instead, "
        "a small raise or a challenge, so it is easy to beat.",
        "beginner",
    ),
    Level(
        "Casual",
        "Casual plays the odds of its own dice and follows a hunch about one move in five, so it slips now and then.",
        "casual",
    ),
    Level(
        "Skilled",
        "Skilled counts the dice it can see and makes the move most likely to pay, "
        "but it never reads anything into the other players' bids.",
        "probability",
        ("probability",),
    ),
    Level(
        "Expert",
        "Expert reads the other cups from how their owners bid, weighs every move one turn ahead "
        "and mixes its bids so that they do not give its own cup away.",
        "strong",
        ("strong",),
    ),
    Level(
        "Master",
        "Master plays a strategy worked out for the duel once two players are left, and reads "
        "every other cup from its owner's bids, more sharply once the dice shown at each reveal "
        "teach it how that player bids.",
        "duel",
        ("duel",),
    ),
)

# Accepted by name, never offered to players.
OTHER_BOTS: tuple[Level, ...] = (
    Level(
        "reader",
        "reader plays Master's moves where no duel strategy is played: Expert's, with each other cup read "
        "by a model of Expert's own bidding as far as the reveals show it fits.",
        "reader",
    ),
    Level("random", "random makes any legal move at random: a baseline for tests, no fun to play.", "random"),
    Level(
        "cfr",
        "cfr plays the exact solution of a duel small enough to solve, and Skilled's moves everywhere else.",
        "cfr",
    ),
)

DEFAULT = "master"  # the level of "Add bot", `play` and the websocket's fill_bots
STRONGEST_FIRST: tuple[Level, ...] = tuple(reversed(LADDER))

_BY_NAME: dict[str, Level] = {
    name: level
    for level in (*LADDER, *OTHER_BOTS)
    for name in dict.fromkeys((level.key, level.bot, *(a.lower() for a in level.aliases)))
}


def names_in_order() -> str:
    """The ladder as an error names it: "Beginner, Casual, Skilled, Expert or Master"."""
    names = [level.name for level in LADDER]
    return f"{', '.join(names[:-1])} or {names[-1]}"


def allowed() -> str:
    """What a level may be, for an error message: the ladder in order, and the older names."""
    old = [a for level in LADDER for a in level.aliases]
    other = [b.bot for b in OTHER_BOTS]
    return f"{names_in_order()} (weakest to strongest; older names work too: {', '.join(old)}; and {', '.join(other)})"


def find(name: str) -> Level | None:
    """The level (or other bot) called `name`, in any case, or None."""
    return _BY_NAME.get(name.strip().lower())


def resolve(name: str) -> str:
    """The bot that plays the level called `name` (a key of `BOT_LEVELS`); ValueError naming the
    levels if there is none."""
    level = find(name)
    if level is None:
        raise ValueError(f"unknown bot level {name.strip()!r}: the levels are {allowed()}")
    return level.bot


def is_level(name: str) -> bool:
    return find(name) is not None


def label(bot: str) -> str:
    """How a player sees the bot `bot` named: its level's name ("duel" -> "Master"), or `bot`
    itself when it is none of ours."""
    level = find(bot)
    return level.name if level is not None else bot


def all_names() -> tuple[str, ...]:
    """Every name a level is accepted by, lower case: the ladder's, the aliases, the other bots."""
    return tuple(_BY_NAME)


def describe(width: int = 78) -> list[str]:
    """The levels strongest first, each with its whole sentence, for a help text or a listing."""
    import textwrap

    lines = ["Bot levels, strongest first:"]
    for level in STRONGEST_FIRST:
        notes = (["the default"] if level.key == DEFAULT else []) + [f"also {a}" for a in level.aliases]
        lines.append(f"  {level.name}" + (f" ({'; '.join(notes)})" if notes else ""))
        lines += textwrap.wrap(level.sentence, width, initial_indent="    ", subsequent_indent="    ")
    lines.append(f"Also accepted, for tests and research: {', '.join(b.bot for b in OTHER_BOTS)}.")
    return lines
