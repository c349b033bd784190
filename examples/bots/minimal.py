#!/usr/bin/env python3
"""A Liar's Dice bot in plain Python: no import from liarsdice, only the bot protocol.

It reads one JSON message per line on stdin and answers on stdout (docs/bot-protocol.md). It
plays every preset: it bids what its own dice and the odds of the unseen dice make likely,
challenges (or accuses) a bid that is unlikely, votes the same way, and otherwise takes the
lowest legal move. Run it against the built-in bots:

    liarsdice play --humans 0 --bots exec:examples/bots/minimal.py,probability
"""

import json
import sys


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()  # a pipe buffers: without a flush the driver never sees the answer


def matches(die, face, wild):
    return die == face or (wild is not None and face != wild and die == wild)


def expected(quantity_face, view, seat, faces):
    """How many dice are likely to show the face: mine and the pushed ones exactly, the rest by odds."""
    face = quantity_face
    wild = view["wild"]
    seen = list(view["cup"])
    for pushed in view["pushed"]:
        seen += pushed
    unseen = sum(view["dice"]) - len(seen)
    chance = (1 if wild is None or face == wild else 2) / faces
    return sum(1 for d in seen if matches(d, face, wild)) + unseen * chance


def choose(request, game):
    view, legal = request["view"], request["legal"]
    seat, faces = game["seat"], game["options"]["faces"]
    standing = view["standing_bid"]
    doubtful = standing is not None and standing[0] > expected(standing[1], view, seat, faces) + 1

    kinds = {action[0]: action for action in legal}
    if "vote" in kinds:
        return ["vote", "doubt" if doubtful else "believe"]
    if doubtful:
        for kind in ("challenge", "accuse", "all_in"):
            if kind in kinds:
                return kinds[kind]
    # Plain bids and claims (no push, no raise): the one the odds back most, lowest on a tie.
    best, best_margin = None, None
    for action in legal:
        if action[0] in ("bid", "claim") and len(action) == 3:
            margin = expected(action[2], view, seat, faces) - action[1]
            if best_margin is None or margin > best_margin:
                best, best_margin = action, margin
    if best is not None and best_margin > -1:
        return best
    for kind in ("challenge", "accuse", "all_in"):
        if kind in kinds:
            return kinds[kind]
    return best or legal[0]


def main():
    game = None
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            send({"type": "hello", "protocol": 1, "name": "minimal", "author": "liarsdice examples"})
        elif kind == "new_game":
            game = message
        elif kind == "act":
            send({"type": "action", "id": message["id"], "action": choose(message, game)})
        elif kind == "refused":
            print(f"refused: {message['reason']}", file=sys.stderr)  # stderr goes to the driver's log
        elif kind == "quit":
            return
        # game_over (and any message type added later) needs no answer


if __name__ == "__main__":
    main()
