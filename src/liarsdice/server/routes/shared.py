"""What every router of the API needs: the way it reads a JSON body, and the server it serves
(its manager, settings and metrics, which `create_app` keeps in the app's state)."""

from __future__ import annotations

import json
from collections.abc import Callable, Coroutine
from typing import Any

from fastapi import Request, Response
from fastapi.routing import APIRoute
from starlette.requests import HTTPConnection

from ..frames import BadJSON, parse_json
from ..limits import RoomError
from ..manager import RoomManager
from ..metrics import ServerMetrics
from ..settings import Settings


class _StrictJSONRequest(Request):
    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            try:
                self._json = parse_json(await self.body())
            except BadJSON as e:
                # FastAPI answers a JSONDecodeError as a validation error ("json_invalid", its
                # message in ctx.error), which validation.explain words with what the route reads.
                raise json.JSONDecodeError(str(e), "", 0) from None
        return self._json


class StrictJSONRoute(APIRoute):
    """A route whose JSON body is read by `parse_json`, as the websocket's messages are."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()

        async def strict(request: Request) -> Response:
            return await handler(_StrictJSONRequest(request.scope, request.receive))

        return strict


def settings_of(request: HTTPConnection) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def metrics_of(request: HTTPConnection) -> ServerMetrics:
    metrics: ServerMetrics = request.app.state.metrics
    return metrics


def rooms(request: HTTPConnection) -> RoomManager:
    """The server's tables, which learn the site's address from the first request that asks
    for them (unless `public_url` says it)."""
    manager: RoomManager = request.app.state.rooms
    settings = settings_of(request)
    if settings.public_url:
        manager.base_url = settings.public_url.rstrip("/")
    elif not manager.base_url:
        base = str(request.base_url).rstrip("/")
        manager.base_url = base.replace("ws://", "http://", 1).replace("wss://", "https://", 1)
    return manager


def status_of(error: RoomError) -> int:
    """The HTTP status of a table's refusal."""
    return {"bad_options": 422, "bad_message": 422, "not_ready": 409, "sign_in": 403}.get(error.code, 400)
