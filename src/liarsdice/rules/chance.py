"""Luck: who opens, the roll of every cup, the reroll after a push.

Chance is explicit: at a chance node the state says what luck must supply (`chance_spec`), and
the caller applies a `Roll`, `Reroll` or `DrawStarter`, drawn with `sample_chance(rng)` from a
generator it owns or given outright.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from typing import Self

from .actions import ChanceAction, DrawStarter, Reroll, Roll
from .events import DiceRerolled, Event, HandsRolled, StarterDrawn
from .table import (
    _ROLLS_KEPT,
    REROLL,
    ROLL,
    STARTER,
    TURN,
    IllegalAction,
    _Economy,
    _new_tuple,
    _Round,
    _StateCore,
    _with_starter,
)


@dataclass(frozen=True, slots=True)
class ChanceSpec:
    """What luck must supply at a chance node.

    `kind` is `starter` (one of `candidates`), `roll` (`dice[seat]` dice for every seat) or
    `reroll` (`dice[seat]` dice for `seat`). Faces run from 1 to `faces`.
    """

    kind: str
    faces: int
    dice: tuple[int, ...]
    seat: int | None
    candidates: tuple[int, ...]

    def sample(self, rng: random.Random) -> ChanceAction:
        faces = self.faces
        if self.kind == STARTER:
            return DrawStarter(self.candidates[int(rng.random() * len(self.candidates))])
        rnd = rng.random
        if self.kind == ROLL:
            return Roll(tuple(tuple(int(rnd() * faces) + 1 for _ in range(n)) for n in self.dice))
        assert self.seat is not None
        return Reroll(self.seat, tuple(int(rnd() * faces) + 1 for _ in range(self.dice[self.seat])))

    def outcomes(self, limit: int = 100_000) -> list[tuple[ChanceAction, float]]:
        """Every outcome with its probability (refused above `limit` outcomes)."""
        if self.kind == STARTER:
            p = 1.0 / len(self.candidates)
            return [(DrawStarter(s), p) for s in self.candidates]
        total = sum(self.dice) if self.kind == ROLL else self.dice[self.seat or 0]
        if self.faces**total > limit:
            raise ValueError(f"{self.faces}^{total} outcomes is more than the limit of {limit}")
        p = 1.0 / self.faces**total
        faces = range(1, self.faces + 1)
        out: list[tuple[ChanceAction, float]] = []
        for combo in itertools.product(faces, repeat=total):
            if self.kind == REROLL:
                assert self.seat is not None
                out.append((Reroll(self.seat, combo), p))
                continue
            hands, i = [], 0
            for n in self.dice:
                hands.append(tuple(combo[i : i + n]))
                i += n
            out.append((Roll(tuple(hands)), p))
        return out


class _Chance(_StateCore):
    """A state's chance nodes: what luck owes, drawing it, applying it."""

    __slots__ = ()

    def _begin_round(self, hands: tuple[tuple[int, ...], ...]) -> Self:
        """The first turn of the round this roll state's table describes, with these cups."""
        g = self._game
        t = self._t
        s = object.__new__(type(self))
        s._game = g
        s._t = t
        s._phase = TURN
        s._to_act = t.starter
        s._history = ()
        s._standing = s._rung = -1
        s._legal = t.opening if g._simple else None
        s._r = r = object.__new__(_Round)
        r.cups = hands
        r.pushed = g._no_cups
        r.passed = r.bad_passes = 0
        r.vote = None
        r.pending = -1
        r.candidates = ()
        r.outcome = self._r.outcome
        r.result = None
        r.counts = r.ends = None
        eco = g.options.economy
        if eco is None:
            r.econ = None
        else:
            assert t.chips is not None
            r.econ = _Economy(t.chips, 0, eco.min_bet_for(t.round_no), (0,) * g.num_players, 0, None)
        return s

    def chance_spec(self) -> ChanceSpec:
        if self._phase == STARTER:
            return ChanceSpec(STARTER, self.options.faces, (), None, self._r.candidates)
        if self._phase == ROLL:
            return ChanceSpec(ROLL, self.options.faces, self._t.dice, None, ())
        if self._phase == REROLL:
            n = self._game.num_players
            seat = self._r.candidates[0]
            dice = tuple(len(self._r.cups[s]) if s == seat else 0 for s in range(n))
            return ChanceSpec(REROLL, self.options.faces, dice, seat, ())
        raise IllegalAction("this is not a chance node: a player is to act or the game is over")

    def sample_chance(self, rng: random.Random) -> ChanceAction:
        """A chance outcome drawn with `rng` (the caller's generator: the core keeps none)."""
        if self._phase == ROLL:
            # The common case, drawn here without building a ChanceSpec (playouts roll a lot).
            rnd = rng.random
            faces = self._game.options.faces
            t = self._t
            # Dice are drawn in seat order either way, so a seed gives the same roll.
            rolls = t.rolls
            if rolls is not None:
                # Few outcomes: the draws number the roll, and a roll drawn before is reused.
                if t.total_dice == 2:  # two players with one die each, the commonest research game
                    i = int(rnd() * faces) * faces + int(rnd() * faces)
                else:
                    i = 0
                    for _ in range(t.total_dice):
                        i = i * faces + int(rnd() * faces)
                known = rolls[i]
                if known is None:
                    known = rolls[i] = self._numbered_roll(i)
                return known
            if t.one_die_each:
                hands = tuple([(int(rnd() * faces) + 1,) for _ in range(t.total_dice)])
            else:
                flat = tuple([int(rnd() * faces) + 1 for _ in range(t.total_dice)])
                # mypy picks the int overload of __getitem__ for map; these are slices.
                hands = tuple(map(flat.__getitem__, t.hand_slices))  # type: ignore[arg-type]
            roll: Roll = _new_tuple(Roll, (hands,))
            return roll
        return self.chance_spec().sample(rng)

    def _numbered_roll(self, i: int) -> Roll:
        """The roll whose faces, less one, are the digits of `i` in base `faces`, first die first."""
        t = self._t
        faces = self._game.options.faces
        flat = [0] * t.total_dice
        for k in range(t.total_dice - 1, -1, -1):
            i, digit = divmod(i, faces)
            flat[k] = digit + 1
        return Roll(tuple(tuple(flat[a:b]) for a, b in t.roll_slices))

    def chance_outcomes(self, limit: int = 100_000) -> list[tuple[ChanceAction, float]]:
        return self.chance_spec().outcomes(limit)

    def _bad_roll(self, hands: tuple[tuple[int, ...], ...]) -> str:
        t = self._t
        n = self._game.num_players
        if len(hands) != n:
            return f"a roll needs a hand for each of the {n} seats"
        for seat, hand in enumerate(hands):
            if len(hand) != t.dice[seat]:
                return f"{self._name(seat)} holds {t.dice[seat]} dice, but the roll gives {len(hand)}"
        faces = self._game.options.faces
        bad = next(d for hand in hands for d in hand if d not in self._game._faces)
        return f"a die cannot show {bad!r}: the faces are 1 to {faces}"

    def _apply_roll(self, action: Roll) -> tuple[Self, tuple[Event, ...]]:
        t = self._t
        kept = t.rolled
        if kept is not None:
            try:
                known = kept.get(action.hands)  # only valid rolls are kept, so this is checked
            except TypeError:  # lists for tuples: read below
                known = None
            if known is not None:
                return known  # type: ignore[return-value]  # a state of this class
        hands = tuple(map(tuple, action.hands))  # free when they are tuples already
        if tuple(map(len, hands)) != t.dice or not all(map(self._game._faces.issuperset, hands)):
            raise IllegalAction(self._bad_roll(hands))
        rolled: HandsRolled = _new_tuple(HandsRolled, (t.round_no, hands))
        state = self._begin_round(hands)
        applied = (state, (rolled, t.started))
        if kept is not None and len(kept) < _ROLLS_KEPT:
            kept[hands] = applied
            # This round will be played again: it keeps its counts and, where they are simple and
            # the rounds few (bounded memory), its ends.
            state._r.counts = [None] * (self._game.options.faces + 1)
            if self._game._plain_single and t.rolls is not None:
                state._r.ends = {}
        return applied

    def _apply_chance(self, action: ChanceAction) -> tuple[Self, tuple[Event, ...]]:
        o = self._game.options
        t = self._t
        if self._phase == STARTER:
            if not isinstance(action, DrawStarter):
                raise IllegalAction("luck must first pick who opens the round (a DrawStarter)")
            if action.seat not in self._r.candidates:
                raise IllegalAction(
                    f"seat {action.seat} cannot be drawn to open: the candidates are "
                    f"{', '.join(self._name(c) for c in self._r.candidates)}"
                )
            s = self._copy()
            s._t = _with_starter(t, action.seat)
            s._phase = ROLL
            s._r = s._r.copy()
            s._r.candidates = ()
            return s, (StarterDrawn(action.seat),)
        if self._phase == ROLL:
            if not isinstance(action, Roll):
                raise IllegalAction("the dice of the round must be rolled (a Roll)")
            return self._apply_roll(action)
        if not isinstance(action, Reroll):
            raise IllegalAction(f"{self._name(self._r.candidates[0])}'s pushed cup must be rerolled first (a Reroll)")
        seat = self._r.candidates[0]
        if action.seat != seat:
            raise IllegalAction(f"the reroll due is {self._name(seat)}'s, not {self._name(action.seat)}'s")
        need = len(self._r.cups[seat])
        if len(action.faces) != need:
            raise IllegalAction(
                f"{need} dice stay under {self._name(seat)}'s cup, but the reroll gives {len(action.faces)}"
            )
        for face in action.faces:
            if not 1 <= face <= o.faces:
                raise IllegalAction(f"a die cannot show {face}: the faces are 1 to {o.faces}")
        s = self._copy()
        s._r = r = self._r.copy()
        cups = list(r.cups)
        cups[seat] = tuple(action.faces)
        r.cups = tuple(cups)
        s._phase = TURN
        s._to_act = r.pending
        r.pending = -1
        r.candidates = ()
        return s, (DiceRerolled(seat, tuple(action.faces)),)
