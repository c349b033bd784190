"""Pages built on the server: the rules of every preset, and the page a person sees when an
address names nothing (a real HTML page with the site's header, not the API's JSON).

The API (`/api/...`) and the other machine addresses keep their JSON errors.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from fastapi import FastAPI, HTTPException, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, JSONResponse, Response
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from ..rulebook import Rulebook, rulebook
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
from .storage import MAX_ID, Store, game_finished
from .validation import brief, explain, is_form

STATIC = Path(__file__).parent / "static"

# Addresses a program asks, not a person: their errors stay JSON (docs/protocol.md).
MACHINE_PREFIXES = ("/api/", "/static/", "/ws/")
MACHINE_PATHS = ("/api", "/ws", "/healthz", "/metrics")

NAV = (("/", "Play"), ("/history", "History"), ("/ladder", "Ladder"), ("/bots", "Bots"), ("/rules", "Rules"))

TITLES = {
    404: "Nothing here",
    405: "Not a page to send to",
    413: "Too much sent",
    422: "That address is not right",
}
FORM_TITLE = "That was not sent right"  # a form's post the API could not read


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


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def site_page(title: str, body: str, current: str | None = None, status: int = 200) -> HTMLResponse:
    """A page with the site's header and navigation around `body` (HTML, already escaped)."""
    here = ' aria-current="page"'
    nav = "\n      ".join(f'<a href="{href}"{here if href == current else ""}>{label}</a>' for href, label in NAV)
    text = f"""<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>{_e(title)} · Liar's Dice</title>
  <link rel="icon" href="/static/favicon.svg" type="image/svg+xml">
  <link rel="stylesheet" href="/static/style.css">
</head>
<body>
  <a class="skip-link" href="#main">Skip to content</a>
  <header class="topbar">
    <a class="brand" href="/"><img src="/static/favicon.svg" alt="">Liar's Dice</a>
    <nav aria-label="Site">
      {nav}
    </nav>
  </header>
  <main id="main">
{body}
  </main>
</body>
</html>
"""
    return HTMLResponse(text, status_code=status, headers={"Cache-Control": "no-store"} if status >= 400 else None)


def error_page(status: int, message: str, title: str | None = None, back: str | None = None) -> HTMLResponse:
    """The site's page for a refusal: `message`, and links home (and `back`, to the page a form
    was sent from)."""
    sentence = message[:1].upper() + message[1:]
    if not sentence.endswith((".", "!", "?")):
        sentence += "."
    heading = title or TITLES.get(status, "Something went wrong")
    links = f'<a class="button primary" href="{_e(back)}">Go back</a>\n        ' if back else ""
    links += f'<a class="button{"" if back else " primary"}" href="/">Back to the tables</a>'
    body = f"""    <section class="card error-page" aria-labelledby="error-title">
      <h1 id="error-title">{_e(heading)}</h1>
      <p id="error-text">{_e(sentence)}</p>
      <p class="row">
        {links}
        <a class="button" href="/history">Finished games</a>
      </p>
    </section>"""
    return site_page(title or TITLES.get(status, "Error"), body, status=status)


def _book_html(book: Rulebook, heading: str = "h2") -> str:
    sub = "h3" if heading == "h2" else "h4"
    parts = []
    for section in book.sections:
        items = "".join(f"<li>{_e(line)}</li>" for line in section.lines)
        parts.append(f'<{sub}>{_e(section.title)}</{sub}><ul class="rules-lines">{items}</ul>')
    return "\n".join(parts)


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

    def page(name: str) -> FileResponse:
        return FileResponse(STATIC / name, media_type="text/html")

    @app.get("/", include_in_schema=False)
    async def home() -> FileResponse:
        return page("index.html")

    @app.get("/t/{code}", include_in_schema=False)
    async def table_page(code: str) -> FileResponse:
        return page("table.html")

    @app.get("/history", include_in_schema=False)
    async def history_page() -> FileResponse:
        return page("history.html")

    @app.get("/replay/{game_id}", include_in_schema=False)
    async def replay_page(game_id: int, request: Request) -> FileResponse:
        # A game that is not there gets the site's "nothing here" page, not a replay page
        # offering to download a record that does not exist.
        store: Store = request.app.state.rooms.store
        if not 1 <= game_id <= MAX_ID or not await store.call(lambda s: game_finished(s, game_id)):
            raise HTTPException(404, f"there is no finished game {game_id}: the history lists every game that ended")
        return page("replay.html")

    @app.get("/ladder", include_in_schema=False)
    async def ladder_page() -> FileResponse:
        return page("ladder.html")

    @app.get("/bots", include_in_schema=False)
    async def bots_page() -> FileResponse:
        return page("bots.html")

    @app.get("/rules", include_in_schema=False)
    async def rules_index() -> HTMLResponse:
        cards = []
        for p in PRESETS.values():
            cards.append(
                f'<li><a href="/rules/{_e(p.name)}"><strong>{_e(p.title)}</strong></a>'
                f'<span class="small muted"> {_e(p.description)}</span></li>'
            )
        body = f"""    <section class="card rules-page" aria-labelledby="rules-title">
      <h1 id="rules-title">The rules</h1>
      <p>Every table plays one of these rule sets, or a mix of their options chosen under "More rules"
      on the home page. Each page gives the whole rules in plain words; a table's own Rules box gives
      the rules of its exact options.</p>
      <ul class="rules-index">{"".join(cards)}</ul>
    </section>"""
        return site_page("Rules", body, current="/rules")

    @app.get("/rules/{preset}", include_in_schema=False)
    async def rules_page(preset: str) -> HTMLResponse:
        try:
            p = find_preset(preset)
        except OptionsError as e:
            raise HTTPException(404, f"{e}") from e
        book = rulebook(p.build({"num_players": p.default_players}), p.name)
        most = f"{p.min_players} to {p.max_players}" if p.max_players else f"{p.min_players} or more"
        players = "2 players" if p.max_players == p.min_players == 2 else f"{most} players"
        body = f"""    <section class="card rules-page" aria-labelledby="rules-title">
      <p class="small"><a href="/rules">All the rules</a></p>
      <h1 id="rules-title">{_e(p.title)}</h1>
      <p class="preset-desc">{_e(p.description)}</p>
      <p class="small muted">For {_e(players)} ({p.default_players} by default at a new table). The numbers
      below are this rule set's defaults; a table may change some of them, and its Rules box says so.</p>
      {_book_html(book)}
      <p class="row"><a class="button primary" href="/">Play {_e(p.title)}</a></p>
    </section>"""
        return site_page(f"{p.title} rules", body, current="/rules")

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
