"""Memory: what the machine has free, and whether a solve or a training of a given size fits.

A solve or a training allocates its tables up front and touches them in its first iteration, so a
size that does not fit is best refused before it starts (with the estimate and the limit), not
found out by the kernel's OOM killer minutes later.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

# Above this share of the memory available, a run may starve everything else on the machine.
WARN_SHARE = 0.8

# The compiled solver's arrays per (node, hand): regrets, averages and strategies of the liar call
# and of the bid (6), both players' reaches (2), values (1); the average strategy it returns and
# the tree's arrays on top: 12 float64 in all. The 2 vs 1 solve (262,144 nodes, 21 hands) peaked
# at 592 MiB (docs/performance.md), this estimate 528 MB plus the interpreter's ~100 MB.
SOLVER_FLOATS_PER_NODE_HAND = 12


def available_bytes() -> int | None:
    """Memory this process may still take: the kernel's MemAvailable, lowered by a cgroup limit
    (v2 or v1) where one is set; None where neither can be read."""
    found: list[int] = []
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                found.append(int(line.split()[1]) * 1024)
                break
    except (OSError, ValueError, IndexError):
        pass
    for limit_file, usage_file in (
        ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"),
        ("/sys/fs/cgroup/memory/memory.limit_in_bytes", "/sys/fs/cgroup/memory/memory.usage_in_bytes"),
    ):
        try:
            raw = Path(limit_file).read_text().strip()
            if raw == "max" or int(raw) >= 1 << 60:  # no limit set
                continue
            found.append(int(raw) - int(Path(usage_file).read_text().strip()))
        except (OSError, ValueError):
            continue
    return max(0, min(found)) if found else None


def human(n: float) -> str:
    """A byte count as people read it: 640 MB, 37.5 GB."""
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if n >= size:
            return f"{n / size:.1f} {unit}" if n < 100 * size else f"{n / size:,.0f} {unit}"
    return f"{max(n, 0) / 1e3:.0f} kB"


@dataclass(frozen=True)
class Fit:
    """How an estimate compares with the memory available: `ok` False means refuse; `warning`
    says it comes close."""

    estimate: int
    available: int | None
    ok: bool
    warning: str | None

    def refusal(self, what: str) -> str:
        return (
            f"{what} needs about {human(self.estimate)} of memory, and this machine has "
            f"{human(self.available or 0)} available"
        )


def check(estimate: int, available: int | None = None) -> Fit:
    """Whether `estimate` bytes fit in `available` (`available_bytes()` if None; an unknown
    amount is taken to fit)."""
    free = available_bytes() if available is None else available
    if free is None:
        return Fit(estimate, None, True, None)
    if estimate > free:
        return Fit(estimate, free, False, None)
    warning = None
    if estimate > WARN_SHARE * free:
        warning = (
            f"about {human(estimate)} of the {human(free)} of memory available: "
            "other programs may run short, and the run may be killed if they grow"
        )
    return Fit(estimate, free, True, warning)


def tree_nodes(num_bids: int, openings: tuple[int, ...]) -> int:
    """Nodes of the exact solver's public tree, without building it: after an opening on rung r
    any subset of the B - 1 - r rungs above can follow, in rising order."""
    return 1 + sum(1 << (num_bids - 1 - r) for r in openings)  # shifts: ints for the type checker too


def solver_bytes(num_bids: int, openings: tuple[int, ...], hands: tuple[int, int]) -> int:
    """About what a solve of this tree takes (see SOLVER_FLOATS_PER_NODE_HAND)."""
    return 8 * SOLVER_FLOATS_PER_NODE_HAND * tree_nodes(num_bids, openings) * max(hands)


def hand_count(dice: int, faces: int) -> int:
    """Distinct hands of `dice` dice with `faces` faces (multisets)."""
    return math.comb(dice + faces - 1, faces - 1)


__all__ = ["Fit", "available_bytes", "check", "hand_count", "human", "solver_bytes", "tree_nodes"]
