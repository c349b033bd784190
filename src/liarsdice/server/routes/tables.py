"""`/api/presets` and `/api/tables`: the rule sets a table is made with, making a table, the
lobby of open tables, a table's state and joining it."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Request
from fastapi import Path as PathParam
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy import select
from sqlalchemy.orm import Session

from ...rules import PRESETS, OptionsError
from ..limits import MAX_TURN_SECONDS, NAME_RULE, OPTIONS_RULE, PRESET_RULE, RoomError
from ..manager import CODE_LENGTH
from ..signedin import person_of, remember_seat_taken
from ..storage import SeatRow, TableRow
from .shared import StrictJSONRoute, rooms, status_of

router = APIRouter(route_class=StrictJSONRoute)

# Each field's description is what a refusal of it says is allowed (validation.py).
TURN_RULE = f"the turn timer is a whole number of seconds, 0 (none) to {MAX_TURN_SECONDS}"
CODE_RULE = f"a table's code is {CODE_LENGTH} letters and digits, as in its link (/t/CODE)"
RATED_RULE = "rated and bots_rated are true or false (docs/ratings.md)"
TableCode = Annotated[str, PathParam(description=CODE_RULE)]


class CreateTable(BaseModel):
    model_config = ConfigDict(extra="forbid")
    preset: str = Field(max_length=100, description=PRESET_RULE)
    name: str = Field(description=NAME_RULE)  # its length is checked with the rest of it (clean_name)
    options: dict[str, Any] = Field(default_factory=dict, description=OPTIONS_RULE)
    turn_seconds: int = Field(default=0, description=TURN_RULE)
    rated: bool = Field(default=False, description=RATED_RULE)
    bots_rated: bool = Field(default=False, description=RATED_RULE)


class JoinTable(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(description=NAME_RULE)


@router.get("/api/presets")
async def presets() -> list[dict[str, Any]]:
    return [
        {
            "name": p.name,
            "title": p.title,
            "description": p.description,
            "options": p.build({"num_players": p.default_players}).to_dict(),
            "min_players": p.min_players,
            "max_players": p.max_players,
            "default_players": p.default_players,
        }
        for p in PRESETS.values()
    ]


@router.post("/api/tables")
async def create_table(body: CreateTable, request: Request) -> dict[str, Any]:
    manager = rooms(request)
    name = body.name
    if body.rated:  # a rated table's host is a signed-in account, seated under its name
        person, _ = await person_of(request)
        if person is None:
            raise HTTPException(403, "sign in to make a rated table: its games change its players' ratings")
        name = person.name
    try:
        room, token = await manager.create(
            body.preset, name, body.options, body.turn_seconds, rated=body.rated, bots_rated=body.bots_rated
        )
    except RoomError as e:
        raise HTTPException(status_of(e), e.message) from e
    except OptionsError as e:
        raise HTTPException(422, str(e)) from e
    await remember_seat_taken(request, room.code, 0, token)  # a signed-in host's seat is kept with the account
    return {"code": room.code, "seat": 0, "token": token, "url": f"{manager.base_url}/t/{room.code}"}


@router.get("/api/tables")
async def lobby(request: Request) -> list[dict[str, Any]]:
    # From the database, which holds every seat before anyone is told of it: the same
    # answer from every process, whichever runs each table.
    return await rooms(request).store.call(open_tables)


async def _table_call(request: Request, code: str, method: str, args: dict[str, Any]) -> dict[str, Any]:
    try:
        answer: dict[str, Any] | None = await rooms(request).table_call(code, method, args)
    except RoomError as e:
        raise HTTPException(status_of(e), e.message) from e
    if answer is None:
        raise HTTPException(404, f"no table with the code {code!r}")
    return answer


@router.get("/api/tables/{code}")
async def table_info(code: TableCode, request: Request) -> dict[str, Any]:
    return await _table_call(request, code, "table", {})


@router.post("/api/tables/{code}/join")
async def join(code: TableCode, body: JoinTable, request: Request) -> dict[str, Any]:
    person, _ = await person_of(request)  # at a rated table, only an account sits, under its name
    args = {"name": body.name, "account": person.name if person is not None else None}
    answer = await _table_call(request, code, "join", args)
    await remember_seat_taken(request, str(answer["code"]), int(answer["seat"]), str(answer["token"]))
    return answer


def open_tables(session: Session) -> list[dict[str, Any]]:
    """The newest open tables a person may join (a ladder's table, with no person at it, is not)."""
    tables = list(
        session.scalars(select(TableRow).where(TableRow.status == "open").order_by(TableRow.id.desc()).limit(100))
    )
    seats: dict[int, list[SeatRow]] = {t.id: [] for t in tables}
    if tables:
        for row in session.scalars(
            select(SeatRow).where(SeatRow.table_id.in_(list(seats))).order_by(SeatRow.table_id, SeatRow.seat_no)
        ):
            seats[row.table_id].append(row)
    out = []
    for table in tables:
        rows = seats[table.id]
        if not any(r.kind == "human" and not r.bot_level for r in rows):
            continue
        kinds = [r.kind for r in rows]
        out.append(
            {
                "code": table.code,
                "preset": table.preset,
                "title": PRESETS[table.preset].title if table.preset in PRESETS else table.preset,
                "status": table.status,
                "rated": table.rated,
                "seats": len(kinds),
                "humans": kinds.count("human"),
                "bots": kinds.count("bot"),
                "empty": kinds.count("empty"),
                "names": [r.name for r in rows if r.kind != "empty"],
            }
        )
    return out
