"""The pages a person opens, from the templates in server/templates (render.py): the home page,
a table, the history, a replay, the ladder, the bots, the rules of every preset, and the page a
person sees when an address names nothing (a real HTML page with the site's header, not the
API's JSON).

The API (`/api/...`) and the other machine addresses keep their JSON errors.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

from fastapi import FastAPI, HTTPException, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from markupsafe import Markup
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..learn import FIRST as FIRST_LESSON
from ..learn import lesson_for
from ..levels import DEFAULT as DEFAULT_LEVEL
from ..levels import STRONGEST_FIRST
from ..rulebook import rulebook
from ..rules import PRESETS, OptionsError, find_preset
from .limits import (
    MAX_CHIPS,
    MAX_DICE,
    MAX_FACES,
    MAX_MOVES,
    MAX_SEATS,
    MAX_TURN_SECONDS,
    MAX_URL,
    NAME_MAX,
    OPTIONS_RULE,
    PRESET_RULE,
    build_options,
)
from .render import render
from .storage import MAX_ID, Store, game_finished
from .validation import brief, explain, is_form

# Addresses a program asks, not a person: their errors stay JSON (docs/protocol.md).
MACHINE_PREFIXES = ("/api/", "/static/", "/ws/")
MACHINE_PATHS = ("/api", "/ws", "/healthz", "/metrics")

TITLES = {
    404: "Nothing here",
    405: "Not a page to send to",
    413: "Too much sent",
    422: "That address is not right",
}
RATINGS_PATH = "/api/games/{game_id}/ratings"  # a game's rating changes, where the server rates games
FORM_TITLE = "That was not sent right"  # a form's post the API could not read

# Each preset's lesson as [name, title], in JSON: the table page's "Learn these rules" (rulesbox.js).
LESSON_LINKS = json.dumps({name: [lesson_for(name).name, lesson_for(name).title] for name in PRESETS})


def is_page(path: str) -> bool:
    """Whether `path` is an address a person opens in a browser (not the API's)."""
    return not path.startswith(MACHINE_PREFIXES) and path not in MACHINE_PATHS


def wants_page(method: str, path: str, content_type: str) -> bool:
    """Whether a refusal goes to a person's browser: a page's address opened, or a form posted."""
    return is_form(content_type) or (method in ("GET", "HEAD") and is_page(path))


def back_to(request: Request) -> str | None:
    """The page of this site a form was posted from (its Referer), for a link back to it, where
    the browser kept what was typed; None if it came from no page of this site."""
    referer = request.headers.get("referer", "")
    parts = urlsplit(referer)
    path = parts.path or "/"
    # ("//host/..." would be a link to another site)
    if len(referer) > MAX_URL or parts.netloc != request.url.netloc or path.startswith(("//", "/\\")):
        return None
    return path + (f"?{parts.query}" if parts.query else "") if is_page(path) else None


def site_page(title: str, body: str, current: str | None = None, status: int = 200) -> HTMLResponse:
    """A page with the site's header and navigation around `body` (HTML, already escaped): the
    refusals of sizes.py, written before any route answers."""
    return render("site.html", status, title=title, body=Markup(body), current=current or "")


def error_page(status: int, message: str, title: str | None = None, back: str | None = None) -> HTMLResponse:
    """The site's page for a refusal: `message`, and links home (and `back`, to the page a form
    was sent from)."""
    sentence = message[:1].upper() + message[1:]
    if not sentence.endswith((".", "!", "?")):
        sentence += "."
    heading = title or TITLES.get(status, "Something went wrong")
    return render(
        "error.html", status, title=title or TITLES.get(status, "Error"), heading=heading, sentence=sentence, back=back
    )


class RulesRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    preset: str = Field(max_length=100, description=PRESET_RULE)
    options: dict[str, Any] = Field(default_factory=dict, description=OPTIONS_RULE)


def install(app: FastAPI) -> None:
    """The rules pages and API, and HTML error pages for the addresses people open."""

    # Every error message is cut by `brief`: what was sent and repeated in it (a name, an
    # address, an option's value) is shown as a short prefix, never whole.

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        path = request.url.path
        message = brief(exc.detail) if isinstance(exc.detail, str) else ""
        if not wants_page(request.method, path, request.headers.get("content-type", "")):
            if message:
                exc = StarletteHTTPException(exc.status_code, message, exc.headers)
            return await http_exception_handler(request, exc)
        if exc.status_code == 404 and message in ("", "Not Found"):
            message = brief(f"there is no page at {path}")
        elif exc.status_code == 405 and message == "Method Not Allowed":
            message = brief(f"{path} is a page to open, not an address to send a form to")
        return error_page(exc.status_code, message or "this page cannot be shown", back=back_to(request))

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        path = request.url.path
        if request.method in ("GET", "HEAD") and is_page(path):
            return error_page(404, brief(f"there is no page at {path}"))
        status, message = explain(request, exc.errors())
        if is_form(request.headers.get("content-type", "")):
            return error_page(status, message, title=FORM_TITLE, back=back_to(request))
        return JSONResponse({"detail": message}, status_code=status)

    @app.get("/", include_in_schema=False)
    async def home() -> HTMLResponse:
        return render("home.html", first_lesson=FIRST_LESSON)

    @app.get("/t/{code}", include_in_schema=False)
    async def table_page(code: str, request: Request) -> HTMLResponse:
        # The bot levels as the page shows them before it has asked /api/bots (botlevels.js).
        # Each preset's lesson, for the Rules box's "Learn these rules" (rulesbox.js).
        # Whether this server rates games: the end-of-game summary asks for rating changes only then (summary.js).
        ratings = any(getattr(r, "path", "") == RATINGS_PATH for r in request.app.routes)
        return render(
            "table.html", levels=STRONGEST_FIRST, default_level=DEFAULT_LEVEL, lessons=LESSON_LINKS, ratings=ratings
        )

    @app.get("/lobby", include_in_schema=False)
    async def lobby_page() -> HTMLResponse:
        return render(
            "lobby_page.html",
            presets=list(PRESETS.values()),
            levels=STRONGEST_FIRST,
            default_level=DEFAULT_LEVEL,
            waits=[(15, "15 seconds"), (30, "30 seconds"), (60, "1 minute"), (120, "2 minutes"), (300, "5 minutes")],
        )

    @app.get("/history", include_in_schema=False)
    async def history_page() -> HTMLResponse:
        return render("history.html")

    @app.get("/replay/{game_id}", include_in_schema=False)
    async def replay_page(game_id: int, request: Request) -> HTMLResponse:
        # A game that is not there gets the site's "nothing here" page, not a replay page
        # offering to download a record that does not exist.
        store: Store = request.app.state.rooms.store
        if not 1 <= game_id <= MAX_ID or not await store.call(lambda s: game_finished(s, game_id)):
            raise HTTPException(404, f"there is no finished game {game_id}: the history lists every game that ended")
        return render("replay.html")

    @app.get("/ladder", include_in_schema=False)
    async def ladder_page() -> HTMLResponse:
        return render("ladder.html")

    @app.get("/bots", include_in_schema=False)
    async def bots_page() -> HTMLResponse:
        return render("bots.html")

    @app.get("/rules", include_in_schema=False)
    async def rules_index() -> HTMLResponse:
        return render("rules_index.html", presets=list(PRESETS.values()))

    @app.get("/rules/{preset}", include_in_schema=False)
    async def rules_page(preset: str) -> HTMLResponse:
        try:
            p = find_preset(preset)
        except OptionsError as e:
            raise HTTPException(404, f"{e}") from e
        book = rulebook(p.build({"num_players": p.default_players}), p.name)
        most = f"{p.min_players} to {p.max_players}" if p.max_players else f"{p.min_players} or more"
        players = "2 players" if p.max_players == p.min_players == 2 else f"{most} players"
        return render("rules.html", preset=p, book=book, players=players)

    @app.get("/api/limits")
    async def table_limits() -> dict[str, Any]:
        """What a table may have (docs/protocol.md, "Table limits"): each as [lowest, highest]."""
        return {
            "players": [2, MAX_SEATS],
            "dice": [1, MAX_DICE],
            "faces": [2, MAX_FACES],
            "chips": [0, MAX_CHIPS],
            "turn_seconds": [0, MAX_TURN_SECONDS],
            "name": [1, NAME_MAX],
            "moves": MAX_MOVES,
        }

    @app.post("/api/rules")
    async def rules_of(body: RulesRequest) -> dict[str, Any]:
        """The whole rules of a table with these options (a preset patched by `options`, as a
        new table is made): what the Rules box shows, and a check the home form makes before
        it sends; `422` with the reason if a table may not have them."""
        try:
            options = build_options(body.preset, body.options)
        except OptionsError as e:
            raise HTTPException(422, str(e)) from e
        return rulebook(options, find_preset(body.preset).name).to_json()
