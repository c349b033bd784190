"""Pictures of a solution: the convergence curve and the opening strategy as a heat map (PNG)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from . import Solution


def _pyplot() -> ModuleType:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def convergence_png(solution: Solution, path: str | Path, target: float | None = None) -> Path:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5), dpi=120)
    its = [h.iteration for h in solution.history]
    ex = [h.exploitability for h in solution.history]
    ax.loglog(its, ex, color="#1f6f5c", lw=2, label=f"{solution.algorithm.upper()} (average strategy)")
    if target:
        ax.axhline(target, color="#b03a2e", ls="--", lw=1, label=f"target {target:g}")
    ax.set_xlabel("iteration")
    ax.set_ylabel("exploitability ((BR0 + BR1) / 2)")
    d0, d1 = solution.dice
    ax.set_title(
        f"{d0} vs {d1} dice, {solution.options.faces} faces: {solution.iterations} iterations, "
        f"{solution.seconds:.2f} s, value {solution.game_value:+.4f}"
    )
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(p)
    plt.close(fig)
    return p


def opening_png(solution: Solution, path: str | Path) -> Path:
    """Player 0's opening: one row per hand, one column per opening bid, the probability."""
    plt = _pyplot()
    import numpy as np

    tree = solution.tree
    child = solution.bid[1]
    assert child is not None
    bids = [str(tree.spec.bids[int(r)]) for r in tree.levels[1].last]
    hands = ["".join(map(str, h)) for h in tree.hands[0]]
    matrix = np.asarray(child).T  # hands x openings
    fig, ax = plt.subplots(figsize=(max(6, 0.35 * len(bids) + 2), max(3, 0.3 * len(hands) + 1.5)), dpi=120)
    image = ax.imshow(matrix, aspect="auto", cmap="viridis", vmin=0, vmax=1)
    ax.set_xticks(range(len(bids)), bids, rotation=90, fontsize=7)
    ax.set_yticks(range(len(hands)), hands, fontsize=7)
    ax.set_xlabel("opening bid")
    ax.set_ylabel("player 0's hand")
    ax.set_title("Opening strategy of player 0 (probability of each bid)")
    fig.colorbar(image, ax=ax, fraction=0.03)
    fig.tight_layout()
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(p)
    plt.close(fig)
    return p
