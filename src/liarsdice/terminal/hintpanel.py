"""`hint` in the terminal: "What would the best bot do?" at a person's turn, from their own view
alone: the best bot's move (or its mix of moves), the worth of each choice in expected dice, and
whether that worth is exact (a two-player round a trained duel strategy covers) or the multi-seat
level's estimate (liarsdice.review, docs/analysis.md)."""

from __future__ import annotations

from fractions import Fraction

from ..odds import shown
from ..review import EXACT, Judgement
from ..rules import BidAction, Claim, Exact

# Bids listed with their worth, best first (besides every call, and the best bot's own mix).
LISTED = 8
# Moves of the mix named in its sentence: those the bot plays at least this often.
NAMED = 0.005


def percent(p: float) -> str:
    return shown(Fraction(p).limit_denominator(10**6))


def hint_lines(judgement: Judgement) -> list[str]:
    """The hint as lines of text."""
    if judgement.source == EXACT:
        where = "exact: this two-player round's trained duel strategy, both sides playing it from here"
    else:
        where = "an estimate: the multi-seat (Expert) level's reading of the other cups"
    lines = [f"What would the best bot do? ({where})"]
    mix = judgement.mix()
    named = [m for m in mix if m.chance >= NAMED]
    if len(mix) == 1:
        lines.append(f"  It plays {mix[0].text}.")
    elif named:
        rare = ", and now and then others" if len(named) < len(mix) else ""
        lines.append("  It mixes: " + ", ".join(f"{m.text} {percent(m.chance)}" for m in named) + rare + ".")
    lines.append(f"  Worth of each move (expected {judgement.unit}, higher is better):")
    listed = [
        m
        for i, m in enumerate(judgement.moves)
        if i < LISTED or m.chance >= NAMED or not isinstance(m.action, (BidAction, Claim))
    ]
    width = max(len(m.text) for m in listed)
    for m in listed:
        line = f"    {m.text:<{width}}  {m.value:+.2f}"
        if m.holds is not None:
            line += f"   {'exactly right' if isinstance(m.action, Exact) else 'holds'} {percent(m.holds)}"
        if m.chance >= NAMED:
            line += f"   (the bot plays it {percent(m.chance)})"
        lines.append(line)
    more = len(judgement.moves) - len(listed)
    if more > 0:
        lines.append(f"    ... and {more} more bids")
    return lines
