"""OpenSpiel `liars_dice`'s own information states and observations, for games that are one.

`liars_dice` describes a state by its move list alone: each player's dice as rolled (one chance
node per die, player 0's first), sorted once every die is down, and the bids so far, "Liar"
last. Its strings and tensors (see open_spiel/games/liars_dice/liars_dice.cc):

- information state string: the player's dice, then every bid (`q-f`, or `Liar`), e.g. `12 4-4 Liar`;
  an unrolled die reads -1;
- information state tensor: one-hot player, one-hot face of each of the player's dice (max dice
  per player x faces), then one slot per bid id and one for Liar, set for every bid made;
- observation tensor: the same with only the last `players` bids.

`liars_dice` has no observation string; here it is the observation tensor's content in the
information state string's words (the dice, then the last `players` bids).

A game can use them when its action ids are bids then one challenge (Liar, right after the
bids), it plays one round, and a fixed seat opens: `problems` says what else stands in the way.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from liarsdice.rules import Encoding, Options

UNROLLED = -1


def problems(options: Options, encoding: Encoding) -> list[str]:
    """Why `options` cannot be described as liars_dice describes its states (empty: it can)."""
    out = []
    extra = [b.name for b in encoding.blocks.values() if b.size and b.name not in ("bid", "challenge")]
    if extra:
        out.append(f"its moves include {', '.join(n.replace('_', ' ') for n in extra)}")
    if encoding.blocks["challenge"].size == 0:
        out.append("it has no challenge (economy games accuse instead)")
    if options.rounds != "single":
        out.append(f"it plays many rounds (rounds={options.rounds})")
    if not isinstance(options.first_starter, int):
        out.append("a random seat opens (liars_dice: player 0)")
    return out


class NativeDescriber:
    """liars_dice's strings and tensors for one game, computed from the move list."""

    def __init__(self, options: Options, encoding: Encoding) -> None:
        self.players = options.num_players
        self.dice = tuple(options.starting_dice(s) for s in range(self.players))
        self.faces = options.faces
        self.num_bids = encoding.num_bids
        self.liar = encoding.blocks["challenge"].start
        self.encoding = encoding
        self.max_dice = max(self.dice)
        self.size = self.players + self.max_dice * self.faces + self.num_bids + 1

    def split(self, moves: Sequence[tuple[int, int]]) -> tuple[list[list[int]], list[int]]:
        """Each player's dice as liars_dice holds them (UNROLLED where not yet rolled) and the bid ids."""
        faces = [a + 1 for p, a in moves if p < 0]
        bids = [a for p, a in moves if p >= 0]
        dice: list[list[int]] = []
        start = 0
        for n in self.dice:
            own = faces[start : start + n]
            dice.append(own + [UNROLLED] * (n - len(own)))
            start += n
        if len(faces) >= start:  # every die is down: liars_dice sorts each cup then
            dice = [sorted(d) for d in dice]
        return dice, bids

    def _bid_text(self, action: int) -> str:
        if action == self.liar:
            return "Liar"
        bid = self.encoding.ladder.bids[action]
        return f"{bid.quantity}-{bid.face}"

    def string(self, moves: Sequence[tuple[int, int]], player: int, private: bool, last: int | None) -> str:
        dice, bids = self.split(moves)
        own = dice[player] if private else [UNROLLED] * self.dice[player]
        shown = bids if last is None else bids[max(0, len(bids) - last) :]
        return "".join(map(str, own)) + "".join(f" {self._bid_text(b)}" for b in shown)

    def tensor(
        self, moves: Sequence[tuple[int, int]], player: int, private: bool, last: int | None, out: np.ndarray
    ) -> None:
        dice, bids = self.split(moves)
        out[:] = 0.0
        out[player] = 1.0
        if private:
            for d, face in enumerate(dice[player]):
                if face != UNROLLED:
                    out[self.players + d * self.faces + face - 1] = 1.0
        offset = self.players + self.max_dice * self.faces
        shown = bids if last is None else bids[max(0, len(bids) - last) :]
        for b in shown:
            out[offset + b] = 1.0
