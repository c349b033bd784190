"""A solution as an OpenSpiel tabular policy of `liars_dice`, where OpenSpiel has the same game.

OpenSpiel's `liars_dice` is two players with the same number of dice, the top face wild, bids
ordered quantity-major (`reset-face`) or face-major (`reset-quantity`), any opening allowed, and
player 0 opening: those solutions export. Action ids: a bid (q, f) is (q-1)*F + (f-1) under
reset-face and (f-1)*Q + (q-1) under reset-quantity; "Liar" is Q*F (Q: dice in play).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..rules import Bid
from . import Solution

if TYPE_CHECKING:
    from open_spiel.python.policy import TabularPolicy


def openspiel_params(solution: Solution) -> dict[str, Any]:
    o = solution.options
    d0, d1 = solution.dice
    problems = []
    if d0 != d1:
        problems.append("both players must hold the same number of dice (OpenSpiel's numdice)")
    if o.wild_face != "top" or o.wild_bid_rule != "plain":
        problems.append("the top face must be wild, with plain bids on it")
    if not o.wild_opening:
        problems.append("any opening bid must be allowed")
    if o.faces > 9:
        problems.append("OpenSpiel writes each die as one digit: at most 9 faces")
    if problems:
        raise ValueError("OpenSpiel's liars_dice is not this game: " + "; ".join(problems))
    rule = "reset-face" if o.bid_order == "quantity_major" else "reset-quantity"
    return {"numdice": d0, "dice_sides": o.faces, "bidding_rule": rule}


def action_id(bid: Bid | None, quantity_major: bool, q_max: int, faces: int) -> int:
    if bid is None:
        return q_max * faces
    if quantity_major:
        return (bid.quantity - 1) * faces + (bid.face - 1)
    return (bid.face - 1) * q_max + (bid.quantity - 1)


def to_tabular_policy(solution: Solution) -> TabularPolicy:
    """The solution as `open_spiel.python.policy.TabularPolicy` of the matching game."""
    import pyspiel
    from open_spiel.python import policy

    params = openspiel_params(solution)
    game = pyspiel.load_game("liars_dice", params)
    table = policy.TabularPolicy(game)
    table.action_probability_array[:] = 0.0
    quantity_major = params["bidding_rule"] == "reset-face"
    q_max = sum(solution.dice)
    faces = solution.options.faces
    for info, row in table.state_lookup.items():
        dice, *said = info.split(" ")
        hand = [int(c) for c in dice]
        bids = [Bid(int(q), int(f)) for q, f in (s.split("-") for s in said)]
        for bid, p in solution.policy(hand, bids).items():
            table.action_probability_array[row, action_id(bid, quantity_major, q_max, faces)] = p
    return table
