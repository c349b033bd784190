"""`/api/ladder`: the bot ladder's leaderboard (ladder.py), and whether this server runs one."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request

from ...rules import OptionsError, find_preset
from ..ladderratings import MODEL as LADDER_MODEL
from ..ladderratings import leaderboard
from ..limits import PRESET_RULE
from .shared import StrictJSONRoute, rooms, settings_of

router = APIRouter(route_class=StrictJSONRoute)


@router.get("/api/ladder")
async def ladder_board(
    request: Request, preset: Annotated[str | None, Query(description=PRESET_RULE)] = None
) -> dict[str, Any]:
    """The bot ladder: per preset, the bots by rating (ordinal = mu - 3 sigma), best first."""
    if preset is not None:
        try:
            preset = find_preset(preset).name
        except OptionsError as e:
            raise HTTPException(404, str(e)) from e
    wanted = preset
    boards = await rooms(request).store.call(lambda s: leaderboard(s, wanted))
    config = settings_of(request).ladder
    return {
        "running": config is not None,
        "presets": list(config.presets) if config is not None else [],
        "seats": config.seats if config is not None else None,
        "model": LADDER_MODEL,
        "boards": boards,
    }
