"""`/api/games`: the finished games (the History page's list), each one's record and its analysis."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import JSONResponse
from sqlalchemy import select
from sqlalchemy.orm import Session

from ...review import ANALYSIS_VERSION
from ...rules import PRESETS
from ..analysisrows import DONE, FAILED, QUEUED, analysis_state
from ..gamepeople import deleted_seats, hidden_names, renamed, renames_of_game
from ..limits import shown_number
from ..storage import MAX_ID, GameRow, TableRow, as_utc
from ..tablerows import recorded_forfeit
from .shared import StrictJSONRoute, rooms

router = APIRouter(route_class=StrictJSONRoute)

# Each parameter's description is what a refusal of it says is allowed (validation.py).
DOWNLOAD_RULE = "download is 0 (the record to read, the default) or 1 (the record as a file to save)"
GAME_RULE = f"a game id is a whole number, 1 to {MAX_ID}"


@router.get("/api/games")
async def games(request: Request) -> list[dict[str, Any]]:
    return await rooms(request).store.call(finished_games)


@router.get("/api/games/{game_id}", response_model=None)
async def game_record(
    request: Request,
    game_id: Annotated[int, PathParam(description=GAME_RULE)],
    download: Annotated[int, Query(ge=0, le=1, description=DOWNLOAD_RULE)] = 0,
) -> JSONResponse:
    if not 1 <= game_id <= MAX_ID:  # no such row, and a number the database could not compare
        raise HTTPException(404, f"no finished game {shown_number(game_id)}: game ids are 1 to {MAX_ID}")
    record = await rooms(request).store.call(lambda s: game_record_of(s, game_id))
    if record is None:
        raise HTTPException(404, f"no finished game {game_id}")
    headers = {"Content-Disposition": f'attachment; filename="liarsdice-game-{game_id}.json"'} if download else {}
    return JSONResponse(record, headers=headers)


@router.get("/api/games/{game_id}/analysis", response_model=None)
async def game_analysis(request: Request, game_id: Annotated[int, PathParam(description=GAME_RULE)]) -> JSONResponse:
    """The best bot's analysis of a finished game (docs/replay.md): 200 with it once made, 202
    with its status while it waits or runs (ask again: it is being made), 404 for no such game,
    422 with the reason if it cannot be made."""
    if not 1 <= game_id <= MAX_ID:
        raise HTTPException(404, f"no finished game {shown_number(game_id)}: game ids are 1 to {MAX_ID}")
    manager = rooms(request)
    state = await manager.store.call(lambda s: analysis_state(s, game_id, ANALYSIS_VERSION))
    if state is None:
        raise HTTPException(404, f"no finished game {game_id}")
    if state.status == DONE:
        renames = await manager.store.call(lambda s: renames_of_game(s, game_id))  # deleted accounts' seats
        return JSONResponse(renamed(state.data, renames) if renames else state.data)
    if state.status == FAILED:
        raise HTTPException(422, f"game {game_id} could not be analysed: {state.reason}")
    if state.status == QUEUED and manager.reviewer is not None:
        manager.reviewer.request(game_id)  # here, unless it is queued here already
    detail = "the best bot is analysing this game" if state.status != QUEUED else "this game waits for its analysis"
    return JSONResponse({"status": state.status, "detail": detail}, status_code=202)


def finished_games(session: Session) -> list[dict[str, Any]]:
    rows = session.execute(
        select(GameRow, TableRow.code)
        .join(TableRow, TableRow.id == GameRow.table_id)
        .where(GameRow.status == "finished")
        .order_by(GameRow.id.desc())
        .limit(200)
    ).all()
    hidden = deleted_seats(session, [game.id for game, _ in rows])  # deleted accounts' seats
    return [
        renamed(
            {
                "id": game.id,
                "table": code,
                "preset": game.preset,
                "title": PRESETS[game.preset].title if game.preset in PRESETS else game.preset,
                "seats": game.seats,
                "winners": game.winners or [],
                "forfeit": recorded_forfeit(game.record),
                "rounds": game.rounds,
                "started": as_utc(game.started_at).isoformat(timespec="seconds"),
                "finished": as_utc(game.finished_at).isoformat(timespec="seconds") if game.finished_at else None,
            },
            hidden_names(game.seats, hidden.get(game.id, [])),
        )
        for game, code in rows
    ]


def game_record_of(session: Session, game_id: int) -> dict[str, Any] | None:
    game = session.get(GameRow, game_id)
    if game is None or game.record is None:
        return None
    deleted = deleted_seats(session, [game_id]).get(game_id)
    if deleted:  # an account deleted since: its seats are "deleted player" (gamepeople.py)
        return dict(renamed(game.record, hidden_names(game.seats, deleted)))
    return game.record
