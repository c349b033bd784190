"""What `liarsdice train --all` trains and ships: every two-player round of every bidding variant.

A variant is the bidding and counting rules of the presets' two-player rounds (the rules a shipped
strategy is keyed by, `shipped.RULE_FIELDS`). Each variant has an entry per pair of cup sizes
from 1 to 5 dice, the opener's first, except 1 vs 1, which the duel bot solves exactly. An entry
fixes everything the artifact depends on (the memory k, the iterations, the hands sampled, the
seed and the bits a probability), so that the same entry always makes the same file: a count of
iterations, not a time, whatever the machine's load.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..rules import Options, preset_options

# name: (preset, overrides). The keys of the presets' plain two-player rounds: classic (no wild),
# openspiel (top wild), perudo_basic (Perudo's bids: ones wild, halve / double-plus-one, no
# opening on ones) and jokers (ones count double when bid; a two-player round has no vote). Ones
# wild with plain bids is the game of `liarsdice exploit` (classic or openspiel with
# wild_face=1). Perudo with calza, Red Dead's spot-on and Soar's pass and push are other games
# (a spot-on call the training does not model): no preset's duel there is shipped.
VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "ones": ("classic", {"wild_face": 1}),
    "top": ("openspiel", {}),
    "none": ("classic", {}),
    "perudo": ("perudo_basic", {}),
    "jokers": ("jokers", {}),
}
# What `train --all` ships unless --variant names others: the four variants fit in the 40 MB
# (README, "Shipped strategies"); Jokers' would add a quarter.
PLANNED = ("ones", "top", "none", "perudo")
MAX_DICE = 5
SEED = 22

# Per cup sizes (the smaller first; either may open): the memory k, iterations, hands sampled per
# half-iteration (None: every hand), the bits a probability and the threshold under which a
# probability is dropped when it is packed (`packed`). Measured (README, "Shipped strategies"):
# - k as big as the 40 MB of all the files allow: 3 up to 5 dice in all (the trainer's default),
#   2 above, where k=3 would cost 4 to 9 times the bytes (5 vs 5: 1.8 MB at k=2);
# - 12 bits at k=10, where the strategy is nearly exact: 8 bits would show on the full tree
#   (exploitability 0.0014 instead of 0.0003 at 2 vs 1; 12 bits and 0.002, 0.0006 in 170 kB);
#   8 bits and 0.005 up to 5 dice; 7 bits and 0.005 above, 15% smaller again (on the full tree
#   of small games, 3.5% more exploitable than float32 on average instead of 1%);
# - iterations: 6 to 16 minutes a size up to 5 dice, 4,000 above (3 to 93 minutes on one core).
SIZES: dict[tuple[int, int], tuple[int, int, int | None, int, float]] = {
    (1, 2): (10, 2000, None, 12, 0.002),
    (1, 3): (4, 2000, None, 8, 0.005),
    (2, 2): (4, 2000, None, 8, 0.005),
    (1, 4): (3, 3000, 32, 8, 0.005),
    (2, 3): (3, 2000, None, 8, 0.005),
    (1, 5): (2, 4000, 32, 7, 0.005),
    (2, 4): (2, 4000, 32, 7, 0.005),
    (3, 3): (2, 4000, None, 7, 0.005),
    (2, 5): (2, 4000, 32, 7, 0.005),
    (3, 4): (2, 4000, 32, 7, 0.005),
    (3, 5): (2, 4000, 32, 7, 0.005),
    (4, 4): (2, 4000, 32, 7, 0.005),
    (4, 5): (2, 4000, 32, 7, 0.005),
    (5, 5): (2, 4000, 32, 7, 0.005),
}


@dataclass(frozen=True)
class Entry:
    """One artifact of the plan."""

    variant: str
    dice: tuple[int, int]
    k: int
    iterations: int
    sample: int | None
    seed: int
    bits: int
    threshold: float

    @property
    def name(self) -> str:
        return f"{self.variant}-{self.dice[0]}v{self.dice[1]}"

    @property
    def file(self) -> str:
        return f"{self.name}.duel"

    def options(self) -> Options:
        preset, overrides = VARIANTS[self.variant]
        return preset_options(preset, overrides)

    def to_json(self) -> dict[str, Any]:
        """What the manifest keeps of the entry: an artifact made by an equal one is not made again."""
        from .shipped import rules_key

        return {
            "variant": self.variant,
            "rules": rules_key(self.options()),
            "dice": list(self.dice),
            "k": self.k,
            "iterations": self.iterations,
            "sample": self.sample,
            "seed": self.seed,
            "bits": self.bits,
            "threshold": self.threshold,
        }


def entries(seed: int = SEED, iterations: int | None = None, variants: tuple[str, ...] = PLANNED) -> list[Entry]:
    """Every entry of the plan for `variants`, variant by variant, the smaller rounds first;
    `iterations`, if given, instead of the plan's (a quick run: its artifacts are not the plan's
    and a run of the plan makes them again)."""
    out = []
    for variant in variants:
        for total in range(3, 2 * MAX_DICE + 1):
            for a in range(1, MAX_DICE + 1):
                b = total - a
                if not 1 <= b <= MAX_DICE:
                    continue
                k, n, sample, bits, threshold = SIZES[(min(a, b), max(a, b))]
                n = n if iterations is None else iterations
                out.append(Entry(variant, (a, b), k, n, sample, seed, bits, threshold))
    return out


def select(plan: list[Entry], only: str | None = None, variants: str | None = None) -> list[Entry]:
    """The entries of `plan` of the sizes in `only` ("2v2,3v2") and the variants in `variants`
    ("ones,top"); ValueError naming what is not in the plan."""
    chosen = plan
    if variants:
        names = [v.strip() for v in variants.split(",") if v.strip()]
        unknown = [v for v in names if v not in VARIANTS]
        if unknown:
            raise ValueError(f"--variant {', '.join(unknown)} is not a variant: the variants are {', '.join(VARIANTS)}")
        chosen = [e for e in chosen if e.variant in names]
    if only:
        sizes = set()
        for part in only.split(","):
            part = part.strip().lower()
            a, sep, b = part.partition("v")
            if not sep or not a.isdigit() or not b.isdigit():
                raise ValueError(f"--only lists sizes like 2v2,3v2 (the opener's dice first), not {part!r}")
            size = (int(a), int(b))
            if size == (1, 1) or not all(1 <= d <= MAX_DICE for d in size):
                raise ValueError(
                    f"--only {part}: the plan has every size from 1v2 to {MAX_DICE}v{MAX_DICE} "
                    "(1v1 is solved exactly, not shipped)"
                )
            sizes.add(size)
        chosen = [e for e in chosen if e.dice in sizes]
    return chosen
