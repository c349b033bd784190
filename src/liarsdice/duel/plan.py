"""What `liarsdice train --all` trains and ships: every two-player round of every bidding variant.

A variant is the bidding and counting rules of the presets' two-player rounds (the rules a shipped
strategy is keyed by, `shipped.RULE_FIELDS`). Each variant has an entry per pair of cup sizes
from 1 to 5 dice, the opener's first, except 1 vs 1 where the rules have no exact call: the
duel bot plays its exact solution there (shipped in `bots/data/solutions`). An entry
fixes everything the artifact depends on (the memory k, the iterations, the hands sampled, the
seed and the bits a probability), so that the same entry always makes the same file: a count of
iterations, not a time, whatever the machine's load.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..rules import Options, preset_options
from ..solver.tree import GameSpec, hands_of
from .graph import PASS_MOST_DICE, Pushed, exact_worth, push_goes_with

# name: (preset, overrides). The keys of the presets' two-player rounds: classic (no wild),
# openspiel (top wild), perudo_basic (Perudo's bids: ones wild, halve / double-plus-one, no
# opening on ones), jokers (ones count double when bid; a two-player round has no vote), perudo
# (Perudo's bids and calza: a hit gains a die where the cup has room) and red-dead (no wild,
# spot-on: a hit costs the bidder a die). Ones wild with plain bids is the game of `liarsdice
# exploit` (classic or openspiel with wild_face=1). Soar (Perudo's bids, pass, and an exact a
# player may call once a game) has a variant per answer to who may still call it, the opener's
# first: both, the opener only, the other only, neither. A push is not part of those games; the
# round after one is a game of its own (`graph.Pushed`), `soar-pushed`: an entry per pair of cups
# (the pusher's first) and dice it may show, where both may still call exact.
VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "ones": ("classic", {"wild_face": 1}),
    "top": ("openspiel", {}),
    "none": ("classic", {}),
    "perudo": ("perudo_basic", {}),
    "jokers": ("jokers", {}),
    "calza": ("perudo", {}),
    "spot-on": ("red-dead", {}),
    "soar": ("soar", {}),
    "soar-opener": ("soar", {}),
    "soar-other": ("soar", {}),
    "soar-spent": ("soar", {}),
    "soar-pushed": ("soar", {}),
}
# Who may still call exact, the opener's first, where the rules allow one a game.
EXACT_LEFT: dict[str, tuple[bool, bool]] = {
    "soar": (True, True),
    "soar-opener": (True, False),
    "soar-other": (False, True),
    "soar-spent": (False, False),
    "soar-pushed": (True, True),
}
# What `train --all` ships unless --variant names others: every variant, within the 40 MB
# (docs/solving.md, "Shipped strategies").
PLANNED = tuple(VARIANTS)
# The most dice in all of a variant's entries where not every size up to 5 vs 5 is shipped: Soar's
# rounds after a push, one strategy a set of dice shown (54 with a cup of 5), which at bigger cups
# would take several times the 40 MB.
MOST_DICE_IN_ALL: dict[str, int] = {"soar-pushed": 5}
# Soar's rounds once an exact is called (the answers but both), from LAST_ROUNDS_WHOLE dice in all:
# trained on every hand, not 32 drawn, packed at 6 bits and 0.02 and cut again. Every hand makes a
# strategy smooth across hands, which packs small: ones wild 4 vs 1 at k=3, 146 kB at 8 bits
# against 237 kB drawn, 42 kB so packed. LBR reads it about 0.025 a round more exploitable,
# within the noise (4 vs 1: +0.025 against +0.000; 2 vs 4: +0.046 against +0.021; each +-0.04;
# docs/strength.md, "Soar's last rounds"); so Soar's last rounds fit beside the rest.
SPENT = ("soar-opener", "soar-other", "soar-spent")
LAST_ROUNDS_WHOLE = 5
# Variants of the round after a push: the pusher is player 0, and each entry is of one set of
# shown dice (`pushes`).
PUSHED = ("soar-pushed",)
MAX_DICE = 5
SEED = 22
# Where seven variants and Soar's four would not fit the 40 MB at the plan's precision: from
# RECUT_FROM dice in all (three quarters of the bytes, where an abstraction that remembers two
# bids costs most already), each variant but FULL_PRECISION drops, once packed, its moves under
# RECUT and is quantised again (`packed.recut`): 30 to 40% fewer bytes there. Ones wild keeps
# every probability it was measured with: the exploitability goals (LBR at 5 vs 5, dudo.ai's
# game) are on it. The rounds after a push are cut at every size: a strategy per set of dice
# shown (85 of them). What the cut costs: docs/strength.md, "Packing".
RECUT = 0.05
RECUT_FROM = 6
FULL_PRECISION = ("ones",)

# Per cup sizes (the smaller first; either may open): the memory k, iterations, hands sampled per
# half-iteration (None: every hand), the bits a probability and the threshold under which a
# probability is dropped when it is packed (`packed`). Measured (docs/strength.md, "Packing"):
# - k as big as the 40 MB of all the files allow: 3 up to 5 dice in all (the trainer's default),
#   2 above, where k=3 would cost 4 to 9 times the bytes (5 vs 5: 1.8 MB at k=2);
# - 12 bits at 1 vs 2, where the strategy is nearly exact: 8 bits would show on the full tree
#   (2 vs 1, ones wild, k=4: exploitability 0.00016 as trained, 0.00044 at 8 bits and 0.005,
#   0.00015 at 12 bits and 0.002 in 29 kB); k=4 there, not 10: as exact, a sixth of the bytes,
#   and its graph (4,000 nodes, not 219,000) loads in milliseconds, not seconds;
#   8 bits and 0.005 up to 5 dice; 6 bits and 0.02 above, where seven variants must share the
#   40 MB: 40% fewer bytes than 7 bits and 0.005 (3 vs 3: 45 kB instead of 76 kB), 10% more
#   exploitable on the full tree of small games (`benchmarks/packing.py`);
# - iterations: 6 to 16 minutes a size up to 5 dice, 4,000 from 6 to 7 dice, 2,000 from 8 (5 vs
#   5 with 2,034 iterations: LBR +0.027 [-0.029, +0.083] a round, docs/strength.md).
SIZES: dict[tuple[int, int], tuple[int, int, int | None, int, float]] = {
    (1, 1): (12, 2000, None, 12, 0.002),  # every bid remembered: the round itself
    (1, 2): (4, 2000, None, 12, 0.002),
    (1, 3): (4, 2000, None, 8, 0.005),
    (2, 2): (4, 2000, None, 8, 0.005),
    (1, 4): (3, 3000, 32, 8, 0.005),
    (2, 3): (3, 2000, None, 8, 0.005),
    (1, 5): (2, 4000, 32, 6, 0.02),
    (2, 4): (2, 4000, 32, 6, 0.02),
    (3, 3): (2, 4000, None, 6, 0.02),
    (2, 5): (2, 4000, 32, 6, 0.02),
    (3, 4): (2, 4000, 32, 6, 0.02),
    (3, 5): (2, 2000, 32, 6, 0.02),
    (4, 4): (2, 2000, 32, 6, 0.02),
    (4, 5): (2, 2000, 32, 6, 0.02),
    (5, 5): (2, 2000, 32, 6, 0.02),
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
    recut: float | None = None  # once packed, the moves under this dropped in turn (`packed.recut`)
    pushed: tuple[int, ...] | None = None  # the round after player 0 showed these dice (`graph.Pushed`)

    @property
    def name(self) -> str:
        shows = "" if self.pushed is None else "-show" + "".join(map(str, self.pushed))
        return f"{self.variant}-{self.dice[0]}v{self.dice[1]}{shows}"

    @property
    def pushed_round(self) -> Pushed | None:
        return None if self.pushed is None else Pushed(0, self.pushed)

    @property
    def file(self) -> str:
        return f"{self.name}.duel"

    def options(self) -> Options:
        preset, overrides = VARIANTS[self.variant]
        return preset_options(preset, overrides)

    @property
    def worth(self) -> str | None:
        """How the round values a die gained by exact (`graph.exact_worth`), where one may be gained:
        kept in the manifest, since calza's strategies valued it as a round won before."""
        return exact_worth(self.options(), self.dice)

    @property
    def exact_left(self) -> tuple[bool, bool] | None:
        """Who may still call exact (the opener first), where the rules allow one a game."""
        return EXACT_LEFT.get(self.variant)

    def to_json(self) -> dict[str, Any]:
        """What the manifest keeps of the entry: an artifact made by an equal one is not made again."""
        from .shipped import rules_key

        return {
            "variant": self.variant,
            "rules": rules_key(self.options(), self.exact_left, self.pushed),
            "dice": list(self.dice),
            "k": self.k,
            "iterations": self.iterations,
            "sample": self.sample,
            "seed": self.seed,
            "bits": self.bits,
            "threshold": self.threshold,
            **({"recut": self.recut} if self.recut is not None else {}),
            **({"worth": self.worth} if self.worth is not None else {}),
        }


def pushes(options: Options, cup: int) -> list[tuple[int, ...]]:
    """The dice a player holding `cup` may show by a push of just the dice that count for its bid
    (one at least, and one left under the cup), smallest sets first: with ones wild, some ones and
    some of one other face. 6 with a cup of 2, 17 with 3, 33 with 4."""
    spec = GameSpec.from_options(options, (cup, 1))
    faces = range(1, spec.faces + 1)
    return [
        shown
        for size in range(1, cup)
        for shown in hands_of(size, spec.faces)
        if any(push_goes_with(spec, shown, face) for face in faces)
    ]


def entries(seed: int = SEED, iterations: int | None = None, variants: tuple[str, ...] = PLANNED) -> list[Entry]:
    """Every entry of the plan for `variants`, variant by variant, the smaller rounds first;
    `iterations`, if given, instead of the plan's (a quick run: its artifacts are not the plan's
    and a run of the plan makes them again)."""
    out = []
    for variant in variants:
        # 1 vs 1 is solved exactly (the cfr bot), but not with an exact call: then it is shipped too
        preset, overrides = VARIANTS[variant]
        rules = preset_options(preset, overrides)
        smallest = 3 if rules.exact == "none" else 2
        passes = rules.pass_rule != "none"
        for total in range(smallest, MOST_DICE_IN_ALL.get(variant, 2 * MAX_DICE) + 1):
            for a in range(1, MAX_DICE + 1):
                b = total - a
                if not 1 <= b <= MAX_DICE:
                    continue
                k, n, sample, bits, threshold = SIZES[(min(a, b), max(a, b))]
                if passes and PASS_MOST_DICE in (a, b) and k < 12:
                    k = max(2, k - 1)  # where a player may pass the graph has 3 to 7 times the edges
                cut_here = total >= RECUT_FROM or variant in PUSHED
                if variant in SPENT and total >= LAST_ROUNDS_WHOLE:
                    sample, bits, threshold, cut_here = None, 6, 0.02, True
                n = n if iterations is None else iterations
                cut = RECUT if cut_here and variant not in FULL_PRECISION else None
                shown_sets: list[tuple[int, ...] | None] = [None]
                if variant in PUSHED:
                    shown_sets = list(pushes(rules, a))  # a cup of one die cannot push: none
                for shown in shown_sets:
                    out.append(Entry(variant, (a, b), k, n, sample, seed, bits, threshold, cut, shown))
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
            if not all(1 <= d <= MAX_DICE for d in size):
                raise ValueError(f"--only {part}: the plan has every size from 1v1 to {MAX_DICE}v{MAX_DICE}")
            sizes.add(size)
        if (1, 1) in sizes and not any(e.dice == (1, 1) for e in chosen):
            raise ValueError(
                "--only 1v1: 1v1 is solved exactly, not shipped, but where exact may be called (calza, spot-on)"
            )
        chosen = [e for e in chosen if e.dice in sizes]
    return chosen
