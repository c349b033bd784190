""" "What would the best bot do?": a seat's hint on its turn (docs/protocol.md, `hint`), answered
to the socket that asked and to no one else.

The best bot's judgement (liarsdice.review.judge) of the seat's own view, made off the event loop
by one thread for the whole server, so hints wait for each other rather than for the tables; a
socket asks one at a time, and the same turn's hint is worked out once.
"""

from __future__ import annotations

import asyncio
import weakref
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ..review import judge
from .connection import Link
from .limits import RoomError
from .rooms import Room

_THINKER = ThreadPoolExecutor(max_workers=1, thread_name_prefix="liarsdice-hint")
_ASKING: weakref.WeakSet[Any] = weakref.WeakSet()  # sockets whose hint is being worked out
_KEPT: dict[tuple[int, int, int], dict[str, Any]] = {}  # (game, step, seat) -> hint
_KEEP = 500


async def send_hint(room: Room, conn: Link, ref: int | None) -> None:
    """Answer `conn` with the best bot's hint for its seat at this turn; refused with why if it
    is not this seat's turn, or its last hint is still being worked out."""
    seat = conn.seat
    if seat is None:
        raise RoomError("not_seated", "a hint is for a player at their own turn: you are watching")
    if room.rated:  # the best bot's advice would play a rated game for its player
        raise RoomError("no_hint", "there are no hints at a rated table: its games rate the players themselves")
    state, game_id, step = room.state, room.game_id, room.steps_done
    if state is None or game_id is None or room.status != "playing":
        raise RoomError("no_game", "there is no game in play to give a hint in")
    view = state.view(seat)
    if view.legal is None:
        raise RoomError("not_your_turn", "a hint is given at your own turn: it is not yours now")
    if conn in _ASKING:
        raise RoomError("busy", "the best bot is still thinking about your last hint")
    key = (game_id, step, seat)
    hint = _KEPT.get(key)
    if hint is None:
        _ASKING.add(conn)
        try:
            judgement = await asyncio.get_running_loop().run_in_executor(_THINKER, judge, view)
        except Exception as e:  # the judge cannot weigh this position: said, not crashed
            raise RoomError("no_hint", f"the best bot has no hint here: {e}") from e
        finally:
            _ASKING.discard(conn)
        hint = judgement.to_json(list(state.seats))
        if len(_KEPT) >= _KEEP:
            _KEPT.clear()
        _KEPT[key] = hint
    # `step` says which turn it is for: the page shows it only while that turn stands.
    conn.send({"type": "hint", "ref": ref, "game_id": game_id, "version": step, "hint": hint})
