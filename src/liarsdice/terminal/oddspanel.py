"""The odds panel in the terminal: the standing bid's chance to hold (and to be exactly right,
where exact calls exist) and that of the bids a person might make next, one line a face, with one
line of how it is counted (liarsdice.odds)."""

from __future__ import annotations

from ..odds import BidOdds, Odds, shown
from ..rules import PlayerView
from ..text import exact_word


def by_face(bids: tuple[BidOdds, ...]) -> list[list[BidOdds]]:
    """The next bids grouped by face, in the order the panel lists them (lowest bid first)."""
    groups: dict[int, list[BidOdds]] = {}
    for b in bids:
        groups.setdefault(b.bid.face, []).append(b)
    return list(groups.values())


def odds_lines(panel: Odds, view: PlayerView) -> list[str]:
    """The panel as lines of text, the cells of the next bids aligned."""
    word = "claim" if view.options.economy is not None else "bid"
    lines = ["Odds (your cup and the pushed dice are known; every other die is even odds on each face):"]
    s = panel.standing
    if s is not None:
        line = f"  Standing {word} {s.bid} holds: {shown(s.at_least)}"
        if panel.exact:
            line += f"   exactly right ({exact_word(view.options)}): {shown(s.exactly)}"
        lines.append(line)
    groups = by_face(panel.bids)
    if groups:
        cells = [[f"{b.bid} {shown(b.at_least)}" for b in g] for g in groups]
        width = max(len(c) for row in cells for c in row)
        label = f"  Your next {word}: "
        for i, row in enumerate(cells):
            lead = label if i == 0 else " " * len(label)
            lines.append((lead + "   ".join(f"{c:<{width}}" for c in row)).rstrip())
    elif s is not None:
        lines.append(f"  (no {word} of yours to weigh now)")
    lines.append("  How: " + panel.how())
    return lines
