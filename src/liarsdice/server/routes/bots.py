"""The bots a host may seat: `/api/bots` (the built-in levels and the bots online), the bot
accounts made on the /bots page (`/api/bot-accounts`), and a bot account's event socket
(`/ws/bot`, botsocket.py)."""

from __future__ import annotations

import math
import time
from typing import Any

from fastapi import APIRouter, HTTPException, Request, WebSocket
from pydantic import BaseModel, ConfigDict, Field
from sqlalchemy.orm import Session

from ...levels import DEFAULT as DEFAULT_LEVEL
from ...levels import LADDER, STRONGEST_FIRST
from ..botaccounts import AccountError, NameTaken, SignupLimit, create_account, list_accounts, revoke_by_token
from ..botsocket import serve_bot
from ..limits import NAME_RULE, clean_name
from .shared import StrictJSONRoute, rooms, settings_of

router = APIRouter(route_class=StrictJSONRoute)

# Each field's description is what a refusal of it says is allowed (validation.py).
TOKEN_RULE = "the token shown when the bot account was made (at most 200 characters)"


class NewBotAccount(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(max_length=200, description=NAME_RULE)


class RevokeBotAccount(BaseModel):
    model_config = ConfigDict(extra="forbid")
    token: str = Field(max_length=200, description=TOKEN_RULE)


def _create_account(session: Session, name: str) -> tuple[str, str]:
    """Make the account `name` (as `create_account` cleans it); its name and token."""
    token = create_account(session, name)
    return clean_name(name), token


@router.get("/api/bots")
async def bots() -> list[dict[str, Any]]:
    """The bot levels a host may seat, strongest (and the default) first; `order` counts up
    from the weakest, 1."""
    return [
        {
            "level": level.key,
            "name": level.name,
            "description": level.sentence,
            "order": LADDER.index(level) + 1,
            "default": level.key == DEFAULT_LEVEL,
            "aliases": list(level.aliases),
            "bot": level.bot,
        }
        for level in STRONGEST_FIRST
    ]


@router.get("/api/bots/online")
async def bots_online(request: Request) -> list[dict[str, str]]:
    """The bots a host may invite to an empty seat: the operator's, then the accounts online."""
    return rooms(request).lobby.listing()


# ----- bot accounts made on the /bots page -----


@router.get("/api/bot-accounts")
async def bot_accounts(request: Request) -> dict[str, Any]:
    """The live bot accounts (never a token or its hash), each online or not, and whether
    this page may make one."""
    manager = rooms(request)
    accounts = await manager.store.call(list_accounts)
    online = set(manager.lobby.online_names())
    listed = [
        {"name": a["name"], "created": a["created"], "online": a["name"] in online}
        for a in accounts
        if a["revoked"] is None
    ]
    return {"signup": settings_of(request).bot_signup, "accounts": listed}


@router.post("/api/bot-accounts")
async def make_bot_account(body: NewBotAccount, request: Request) -> dict[str, str]:
    settings = settings_of(request)
    if not settings.bot_signup:
        raise HTTPException(
            403,
            "this server makes no bot accounts on its page: the operator makes them (liarsdice bot create NAME)",
        )
    signups: SignupLimit = request.app.state.signups
    address = request.client.host if request.client else "unknown"
    now = time.monotonic()
    wait = signups.wait(address, now)
    if wait > 0:
        minutes = math.ceil(wait / 60)
        raise HTTPException(
            429,
            f"at most {settings.bot_signups_per_hour} bot accounts an hour from one address: "
            f"try again in {minutes} minute{'s' if minutes != 1 else ''}",
            headers={"Retry-After": str(math.ceil(wait))},
        )
    try:
        name, token = await rooms(request).store.call(lambda s: _create_account(s, body.name))
    except NameTaken as e:
        raise HTTPException(409, str(e)) from e
    except AccountError as e:
        raise HTTPException(422, str(e)) from e
    signups.note(address, now)
    return {"name": name, "token": token}


@router.post("/api/bot-accounts/revoke")
async def revoke_bot_account(body: RevokeBotAccount, request: Request) -> dict[str, Any]:
    """Whoever holds a bot's token may revoke it: the bot is let go at once."""
    manager = rooms(request)
    name = await manager.store.call(lambda s: revoke_by_token(s, body.token))
    if name is None:
        raise HTTPException(403, "this token is no live bot account's: it is wrong, or revoked already")
    await manager.revoked(name)
    return {"name": name, "revoked": True}


# A route of its own, before the table's `/ws/{code}` (which would take "bot"): create_app
# includes this router first.
@router.websocket("/ws/bot")
async def bot_socket(websocket: WebSocket) -> None:
    await serve_bot(rooms(websocket), websocket, settings_of(websocket))
