"""`/api/lobby`: the site lobby (docs/lobby.md): "Play now" seekers (seek, news, cancel), and the
open tables, the games in play and the number of people online.

A seeker's page asks for news every second (`POST /api/lobby/seek/news`) rather than holding a
websocket: the lobby page has none, any process answers from the database (where the seekers
are), and one small indexed read a second per waiting browser costs less than a socket relayed
between processes. The same ask keeps the seeker alive: a page that stops asking is let go.
"""

from __future__ import annotations

import functools
import secrets
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select
from sqlalchemy.orm import Session

from ...levels import LADDER, resolve
from ...rules import PRESETS
from ..limits import NAME_RULE, RoomError, clean_name, hash_token
from ..online import sockets_online
from ..pairing import MAX_SEATS, MIN_SEATS, WAITS, check_seek
from ..playnow import PlayNow
from ..seekrows import add_seeker, cancel_seeker, pairing_rating, seeker_news, seeking_count
from ..signedin import person_of, remember_seat_taken
from ..storage import SeatRow, TableRow
from ..table import NO_HOST
from .shared import StrictJSONRoute, rooms
from .tables import open_tables

router = APIRouter(route_class=StrictJSONRoute)

LEVELS = tuple(level.key for level in LADDER)
PRESET_CHOICE = f"a preset is any, or one of {', '.join(PRESETS)}"
SEATS_RULE = f"seats is a whole number, {MIN_SEATS} to {MAX_SEATS}"
WAIT_RULE = f"the wait is one of {', '.join(str(w) for w in WAITS)} seconds"
LEVEL_RULE = f"the bots' level is one of {', '.join(LEVELS)}"
TOKEN_RULE = "the seeker's token, as POST /api/lobby/seek gave it"
WATCHED = 50  # the newest games in play the lobby lists


class Seek(BaseModel):
    model_config = ConfigDict(extra="forbid")
    preset: str = Field(max_length=100, description=PRESET_CHOICE)
    seats: int = Field(default=2, description=SEATS_RULE)
    wait: int = Field(default=30, description=WAIT_RULE)
    level: str = Field(default="master", max_length=100, description=LEVEL_RULE)
    rated: bool = Field(default=False, description="rated is true or false (true only when signed in)")
    name: str | None = Field(default=None, description=NAME_RULE)  # a guest's name; an account plays as itself


class SeekToken(BaseModel):
    model_config = ConfigDict(extra="forbid")
    token: str = Field(max_length=200, description=TOKEN_RULE)


def playnow(request: Request) -> PlayNow:
    found: PlayNow = request.app.state.playnow
    return found


@router.post("/api/lobby/seek")
async def seek(body: Seek, request: Request) -> dict[str, Any]:
    """Wait to play: the answer's token is the seat token once seated (keep it)."""
    preset = None if body.preset.strip().lower() == "any" else body.preset.strip()
    wrong = check_seek(preset, body.seats, body.wait)
    if wrong is not None:
        raise HTTPException(422, wrong)
    try:
        level = resolve(body.level)
    except ValueError:
        raise HTTPException(422, f"{LEVEL_RULE}, not {body.level!r}") from None
    person, _ = await person_of(request)
    if body.rated and person is None:
        raise HTTPException(422, "rated games are for signed-in players: sign in, or play casual (rated false)")
    try:
        name = person.name if person is not None else clean_name(body.name or "")
    except RoomError as e:
        raise HTTPException(422, e.message) from e
    token = secrets.token_urlsafe(24)
    person_id = person.id if person is not None else None

    def add(session: Session) -> int:
        rating = pairing_rating(session, person_id, preset)
        return add_seeker(
            session,
            token_hash=hash_token(token),
            person_id=person_id,
            name=name,
            preset=preset,
            seats=body.seats,
            wait_seconds=body.wait,
            level=level,
            rated=body.rated,
            rating=rating,
        )

    seeker_id = await rooms(request).store.call(add)
    playnow(request).wake.set()
    return {"id": seeker_id, "token": token, "name": name, "rated": body.rated, "status": "waiting"}


@router.post("/api/lobby/seek/news")
async def news(body: SeekToken, request: Request) -> dict[str, Any]:
    """Where a seeker stands: waiting (and for how long), seated (the table's code and seat:
    the seeker's token is the seat's), cancelled, or gone (its page stopped asking)."""
    found = await rooms(request).store.call(functools.partial(seeker_news, token_hash=hash_token(body.token)))
    if found is None:
        raise HTTPException(404, "no such seeker: seek again")
    if found["status"] == "seated" and found["person_id"] is not None:
        # A signed-in seeker's seat is kept with the account, as a seat joined is (accounts.md).
        await remember_seat_taken(request, str(found["code"]), int(found["seat"]), body.token)
    found.pop("person_id")
    return found


@router.post("/api/lobby/seek/cancel")
async def cancel(body: SeekToken, request: Request) -> dict[str, Any]:
    status = await rooms(request).store.call(functools.partial(cancel_seeker, token_hash=hash_token(body.token)))
    if status is None:
        raise HTTPException(404, "no such seeker: seek again")
    return {"status": status}


@router.get("/api/lobby")
async def lobby(request: Request) -> dict[str, Any]:
    """The open tables to join, the games in play to watch, and how many people are online."""
    manager = rooms(request)

    def read(session: Session) -> tuple[list[dict[str, Any]], list[dict[str, Any]], int]:
        return [t for t in open_tables(session) if t["empty"] > 0], games_in_play(session), seeking_count(session)

    tables, playing, seeking = await manager.store.call(read)
    sockets = await sockets_online(manager)
    return {"online": sockets + seeking, "seeking": seeking, "open": tables, "playing": playing}


def games_in_play(session: Session) -> list[dict[str, Any]]:
    """The newest tables playing a game with a person at them (a ladder's bots-only games are on
    the ladder's page), each with its watching link."""
    tables = list(
        session.scalars(
            select(TableRow).where(TableRow.status == "playing").order_by(TableRow.id.desc()).limit(WATCHED * 4)
        )
    )
    seats: dict[int, list[SeatRow]] = {t.id: [] for t in tables}
    if tables:
        for row in session.scalars(
            select(SeatRow).where(SeatRow.table_id.in_(list(seats))).order_by(SeatRow.table_id, SeatRow.seat_no)
        ):
            seats[row.table_id].append(row)
    out: list[dict[str, Any]] = []
    for table in tables:
        rows = seats[table.id]
        if not any(r.kind == "human" and not r.bot_level for r in rows):
            continue
        out.append(
            {
                "code": table.code,
                "preset": table.preset,
                "title": PRESETS[table.preset].title if table.preset in PRESETS else table.preset,
                "names": [r.name for r in rows if r.kind != "empty"],
                "play_now": table.host_seat == NO_HOST,
                "watch": f"/t/{table.code}?watch",
            }
        )
        if len(out) == WATCHED:
            break
    return out
