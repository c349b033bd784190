"""What the solvers model, and the options they cannot, named one by one.

The exact solver (`liarsdice.solver`) and the duel trainer (`liarsdice.duel`) solve one game: one
round between two players, bids and a liar call, +1 to the winner of the call and -1 to the
loser, under the rules' faces, wild face, wild bid rule, bid order and wild opening (the dice are
given apart: `--dice`). Any other rule that changes that round, or a game of many rounds, is a
different game: `unmodelled` lists each such option with its value, so that a command refuses it
instead of solving something else under the preset's name.

The duel trainer also models the exact call (spot-on, calza): a hit pays its caller +1 (a die
from the bidder, or one gained where the cup has room, else 0), a miss -1; where it may be called
once a game, for one answer to who may still call it (the game's, not the round's). And Soar's
pass, by a player holding two dice (`duel.graph.PASS_MOST_DICE`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..rules import Options

MODELLED = (
    "one round between two players, bids and a liar call only (+1 to the winner of the call, -1 to the "
    "loser; player 0 opens), under the rules' faces, wild_face, wild_bid_rule, bid_order and wild_opening"
)

TRAINER_ALSO = (
    "; the duel trainer also models the exact call (spot-on, calza; once a game for the players --exact-left "
    "names) and Soar's pass with two dice"
)


@dataclass(frozen=True)
class Unmodelled:
    """One option the solvers cannot model: its name, its value, what it adds, what to set instead."""

    name: str
    value: str
    what: str
    instead: str

    def __str__(self) -> str:
        return f"{self.name}={self.value} ({self.what})"


def unmodelled(options: Options, given: Mapping[str, Any] | None = None, *, trainer: bool = False) -> list[Unmodelled]:
    """Every option of `options` (and of `given`, the options the user named, for those a command
    sets itself) that makes the game something other than the one the solvers solve (`trainer`:
    the duel trainer, which models the exact call too)."""
    given = given or {}
    out: list[Unmodelled] = []
    if "num_players" in given and given["num_players"] != 2:
        out.append(Unmodelled("num_players", str(given["num_players"]), "it solves two players", "num_players=2"))
    if "dice_per_player" in given:
        value = given["dice_per_player"]
        out.append(
            Unmodelled("dice_per_player", str(value), "the dice are given by --dice D0 D1", "--dice D0 D1 instead")
        )
    if options.challenge_mode != "duel":
        out.append(Unmodelled("challenge_mode", options.challenge_mode, "votes on a challenge", "challenge_mode=duel"))
    if options.exact != "none" and not trainer:
        out.append(Unmodelled("exact", options.exact, "exact calls: spot-on, calza", "exact=none"))
    if options.pass_rule != "none" and not trainer:
        out.append(Unmodelled("pass", options.pass_rule, "passing instead of bidding", "pass=none"))
    if options.push:
        out.append(Unmodelled("push", "true", "pushing dice aside and rerolling the rest", "push=false"))
    if options.economy is not None:
        out.append(Unmodelled("economy", "on", "chips: bets, raises, all-in and folds", "economy=none"))
    if options.max_quantity != "dice_in_play":
        out.append(
            Unmodelled("max_quantity", options.max_quantity, "bids above the dice in play", "max_quantity=dice_in_play")
        )
    if options.rounds != "single":
        # A round's winner need not win a game of many rounds: its value is not +1/-1.
        what = "a game of many rounds, where dice lost carry over"
        if options.goal != "elimination":
            what += f" and goal={options.goal} decides who wins"
        what += "; it solves one round"
        out.append(Unmodelled("rounds", options.rounds, what, "rounds=single"))
    return out


def same_game_notes(options: Options) -> list[str]:
    """Options that look like they change the game but leave the one round solved as it is."""
    notes = []
    if options.rounds == "single" and options.goal != "elimination":
        notes.append(
            f"goal={options.goal} does not change a single round: its winner is the winner of the liar call "
            "(RULES.md 2.2), as under elimination"
        )
    return notes


def refusal(preset: str, problems: list[Unmodelled], *, trainer: bool = False) -> str:
    """The message that refuses `problems`: each option and its value, what is solved, what to set."""
    fix = " ".join(p.instead if p.instead.startswith("--") else f"-o {p.instead}" for p in problems)
    modelled = MODELLED + (TRAINER_ALSO if trainer else "")
    return (
        f"the solver cannot model these rules ({preset} preset, with the options given): "
        f"{', '.join(map(str, problems))}. It solves {modelled}. "
        f"To solve that round without them, add: {fix}"
    )


__all__ = ["MODELLED", "Unmodelled", "refusal", "same_game_notes", "unmodelled"]
