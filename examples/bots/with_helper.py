#!/usr/bin/env python3
"""A protocol bot in a few lines with liarsdice's helper: it gets a real `PlayerView`.

It bids the face it holds most of, one more than the standing bid allows, and challenges a bid
that needs more of a face than half the dice it cannot see would give; it needs the package
installed (`pip install liarsdice`), as the Python it runs under has.

    liarsdice play --humans 0 --bots exec:"python3 examples/bots/with_helper.py",strong
"""

from liarsdice.botproto.helper import run_bot
from liarsdice.rules import BidAction, Challenge, Claim, Vote


def decide(view, seconds):
    hand = view.hand
    unseen = sum(view.dice) - len(hand)
    bid = view.standing_bid
    doubt = bid is not None and bid.quantity > hand.count(bid.face) + unseen / 2
    for action in view.legal_actions:
        if isinstance(action, Vote) and action.believe != doubt:
            return action
        if doubt and isinstance(action, Challenge):
            return action
    bids = [a for a in view.legal_actions if isinstance(a, (BidAction, Claim)) and not a.push]
    if bids:
        return max(bids[:12], key=lambda a: hand.count(a.bid.face))
    return view.legal_actions[0]


run_bot(decide, name="with-helper", author="liarsdice examples")
