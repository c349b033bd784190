"""What a connection is sent: a seat's (or a spectator's) view of the game, as JSON.

Everything here is built from `GameState.view(seat)`, the engine's per-seat view, so a seat's
message can hold only what that seat may know: its own part from its own view, the rest (the
same for everyone) from a spectator's. The reveal of the last round and the result are public
once they exist.
"""

from __future__ import annotations

from typing import Any

from ..odds import BidOdds, odds, shown
from ..record import outcome_to_json, result_to_json
from ..rules import BidAction, Claim, GameState, Pass, PlayerView, Turn, action_to_list
from ..text import challenge_word, describe_outcome, describe_result, describe_turn, exact_word, faces_text


def _challenged(view: PlayerView, target: int) -> str:
    """What a challenge of `target` would call a lie: the last action, or the one behind a pass."""
    history = view.history
    turn = history[-1] if history[-1].seat == target else history[-2]
    if isinstance(turn.action, (BidAction, Claim)):
        return f"bid {turn.action.bid}"
    if isinstance(turn.action, Pass):
        return "pass" + (f" (pushing {faces_text(turn.action.push)})" if turn.action.push else "")
    return "action"


def legal_json(view: PlayerView) -> dict[str, Any] | None:
    legal = view.legal
    if legal is None:
        return None
    if legal.voting:
        return {
            "voting": True,
            "bids": [],
            "pass": False,
            "push": None,
            "challenge": [],
            "exact": False,
            "economy": None,
        }
    ranges: dict[int, list[int]] = {}
    for bid in legal.bids:
        r = ranges.get(bid.face)
        if r is None:
            ranges[bid.face] = [bid.quantity, bid.quantity]
        else:
            r[0] = min(r[0], bid.quantity)
            r[1] = max(r[1], bid.quantity)
    push = None
    if legal.pushes:
        push = {"cup": sorted(view.cup), "max": max(len(p) for p in legal.pushes)}
    economy = None
    if legal.economy:
        economy = {
            "owed": legal.owed,
            "can_meet": legal.can_meet,
            "raise_min": legal.raise_min,
            "raise_max": legal.raise_max,
            "accuse": legal.can_accuse,
            "all_in": legal.can_all_in,
            "fold": legal.can_fold,
        }
    return {
        "voting": False,
        "bids": [[face, lo, hi] for face, (lo, hi) in sorted(ranges.items())],
        "pass": legal.can_pass,
        "push": push,
        "challenge": [{"seat": s, "what": _challenged(view, s)} for s in legal.challenge_targets],
        "exact": legal.can_exact,
        "economy": economy,
    }


# A server shows the same rows at table after table: each row follows from a few small numbers
# (the bid, the dice seen and unseen, the round's counting rules), so it is built once for them.
_ODDS_ROWS: dict[tuple[Any, ...], dict[str, Any]] = {}
_ODDS_ROWS_KEPT = 50_000


def bid_odds_json(b: BidOdds) -> dict[str, Any]:
    """One row of the odds panel (docs/protocol.md, `odds`); the same object for the same row."""
    key = (b.bid.quantity, b.bid.face, b.seen, b.unseen, b.ways, b.faces, b.wild, b.one_die_round, b.pushes)
    row = _ODDS_ROWS.get(key)
    if row is None:
        if len(_ODDS_ROWS) >= _ODDS_ROWS_KEPT:
            _ODDS_ROWS.clear()
        row = _ODDS_ROWS[key] = _bid_odds_row(b)
    return row


def _bid_odds_row(b: BidOdds) -> dict[str, Any]:
    return {
        "bid": [b.bid.quantity, b.bid.face],
        "holds": shown(b.at_least),
        "p": float(b.at_least),
        "fraction": f"{b.at_least.numerator}/{b.at_least.denominator}",
        "exactly": shown(b.exactly),
        "p_exactly": float(b.exactly),
        "how": b.how(),
    }


def odds_json(view: PlayerView) -> dict[str, Any] | None:
    """The odds panel of `view.seat` (docs/protocol.md, `odds`): from this seat's own view, so
    it knows this seat's cup and the public dice only."""
    panel = odds(view)
    if panel is None:
        return None
    return {
        "standing": bid_odds_json(panel.standing) if panel.standing is not None else None,
        "bids": [bid_odds_json(b) for b in panel.bids],
        "exact": panel.exact,
        "how": panel.how(),
    }


def turn_json(turn: Turn, view: PlayerView) -> dict[str, Any]:
    return {
        "seat": turn.seat,
        "action": action_to_list(turn.action, view.seats),
        "text": describe_turn(turn, view.seats, view.options),
    }


def own_view_json(state: GameState, seat: int | None, bot_account: bool = False, odds: bool = False) -> dict[str, Any]:
    """The part of `seat`'s GameView that is its own: the seat, its cup and its moves (and, for
    a bot account's seat, the same view in the bot protocol's words)."""
    view = state.view(seat)
    own: dict[str, Any] = {
        "seat": seat,
        "cup": sorted(view.cup),
        "legal": legal_json(view) if seat is not None else None,
        # Only where asked, and on this seat's turn (or vote): counted for every seat at every
        # step, the odds cost a fifth more server CPU a move (benchmarks/server_load.py).
        "odds": odds_json(view) if odds and seat is not None and view.legal is not None else None,
    }
    if bot_account and seat is not None:
        own["bot_view"] = bot_view_json(state, seat)
    return own


def public_view_json(
    state: GameState,
    game_id: int,
    deadline: int | None,
    version: int = 0,
    reveal_until: int | None = None,
    round_moves: tuple[int, list[dict[str, Any]]] | None = None,
) -> dict[str, Any]:
    """The rest of a GameView, the same for every seat: built from a spectator's view, so it
    holds no cup. A table builds it once per update and sends it with each seat's own part.
    `round_moves` (round number, moves) are the moves of the round the last reveal ended."""
    view = state.view(None)
    seats = view.seats
    o = view.options
    standing = None
    if view.standing_bid is not None and view.standing_bidder is not None:
        standing = {
            "bid": [view.standing_bid.quantity, view.standing_bid.face],
            "seat": view.standing_bidder,
            "text": str(view.standing_bid),
        }
    last_round = None
    if view.last_outcome is not None:
        last_round = outcome_to_json(view.last_outcome, seats)
        lines = describe_outcome(view.last_outcome, seats, o)
        last_round["lines"] = lines
        last_round["verdict"] = lines[len(view.last_outcome.active) :]  # without the hands
        if round_moves is not None and round_moves[0] == last_round["round"]:
            last_round["moves"] = round_moves[1]
    result = None
    if view.result is not None:
        result = result_to_json(view.result, seats)
        result["lines"] = describe_result(view.result, seats)
    history = [turn_json(t, view) for t in view.history]
    return {
        "game_id": game_id,
        "version": version,
        "seats": list(seats),
        "round": view.round_no,
        "phase": view.phase,
        "to_act": view.to_act,
        "starter": view.starter,
        "one_die_round": view.one_die_round,
        "wild": view.wild,
        "dice": list(view.dice),
        "active": list(view.active),
        "pushed": [list(p) for p in view.pushed],
        "history": history,
        "standing": standing,
        "dice_in_play": view.dice_in_play,
        "passed": list(view.passed),
        "exact_used": list(view.exact_used),
        "chips": list(view.chips) if view.chips is not None else None,
        "round_pot": view.round_pot,
        "running_pot": view.running_pot,
        "current_bet": view.current_bet,
        "paid": list(view.paid) if view.paid is not None else None,
        "folded": list(view.folded),
        "deadline": deadline,
        "last_round": last_round,
        "result": result,
        "words": {
            "exact": exact_word(o),
            "bid": "claim" if o.economy is not None else "bid",
            "challenge": challenge_word(o),
        },
        "reveal_until": reveal_until,
    }


def bot_view_json(state: GameState, seat: int) -> dict[str, Any]:
    """`seat`'s view in the bot protocol's words (docs/bot-protocol.md, `act`): from the same
    per-seat view, so it holds this seat's cup and no other."""
    from ..botproto.messages import encode_action, encode_moves, encode_view

    view = state.view(seat)
    return {
        "view": encode_view(view),
        "moves": encode_moves(view.legal),
        "legal": [encode_action(a) for a in view.legal_actions] if state.to_act == seat else [],
    }
