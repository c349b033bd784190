"""People's ratings (docs/ratings.md): what a game did to its players' ratings, a player's
profile (`/players/<name>`) and the leaderboard of each family (`/leaderboard`), as pages and
as JSON."""

from __future__ import annotations

import json
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import HTMLResponse

from ..limits import shown_number
from ..profilerows import leaderboard, profile
from ..ratingfamily import families
from ..ratingrows import game_ratings
from ..render import render
from ..signedin import signed_in_name
from ..storage import MAX_ID
from .shared import StrictJSONRoute, rooms

router = APIRouter(route_class=StrictJSONRoute)

GAME_RULE = f"a game id is a whole number, 1 to {MAX_ID}"
FAMILY_RULE = "a family of presets: " + ", ".join(families())
PLAYER_RULE = "a player's name, as their account has it (any case)"
NAME_LONGEST = 100  # characters of a name in an address worth looking up (an account's has at most 24)


@router.get("/api/games/{game_id}/ratings")
async def ratings_of_game(
    request: Request, game_id: Annotated[int, PathParam(description=GAME_RULE)]
) -> dict[str, Any]:
    """Whether the game is rated and what it did to each account's rating (docs/ratings.md)."""
    if not 1 <= game_id <= MAX_ID:
        raise HTTPException(404, f"no game {shown_number(game_id)}: game ids are 1 to {MAX_ID}")
    found = await rooms(request).store.call(lambda s: game_ratings(s, game_id))
    if found is None:
        raise HTTPException(404, f"no game {game_id}")
    return found


async def _profile(request: Request, name: str) -> dict[str, Any]:
    found = None
    if len(name) <= NAME_LONGEST:
        found = await rooms(request).store.call(lambda s: profile(s, name))
    if found is None:
        raise HTTPException(404, f"no such player: no account is named {name[:NAME_LONGEST]!r}")
    return found


def _family(family: str | None) -> str:
    family = family or "perudo"
    if family not in families():
        raise HTTPException(422, f"no family {family[:NAME_LONGEST]!r}: the families are {', '.join(families())}")
    return family


@router.get("/api/players/{name:path}")
async def player(request: Request, name: Annotated[str, PathParam(description=PLAYER_RULE)]) -> dict[str, Any]:
    return await _profile(request, name)


@router.get("/api/leaderboard")
async def leaderboard_api(
    request: Request, family: Annotated[str | None, Query(max_length=200, description=FAMILY_RULE)] = None
) -> dict[str, Any]:
    chosen = _family(family)
    return await rooms(request).store.call(lambda s: leaderboard(s, chosen))


@router.get("/players/{name:path}", include_in_schema=False)
async def player_page(request: Request, name: str) -> HTMLResponse:
    found = await _profile(request, name)
    if found["deleted"]:
        return render("player.html", 410, player=found, own=False, history_json="{}")
    own = signed_in_name() == found["name"]
    history = json.dumps(found["history"])  # in an attribute, escaped by the template
    return render("player.html", player=found, own=own, history_json=history)


@router.get("/leaderboard", include_in_schema=False)
async def leaderboard_page(
    request: Request, family: Annotated[str | None, Query(max_length=200, description=FAMILY_RULE)] = None
) -> HTMLResponse:
    chosen = _family(family)
    board = await rooms(request).store.call(lambda s: leaderboard(s, chosen))
    return render("leaderboard.html", board=board)
