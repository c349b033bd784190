"""Requests FastAPI cannot read into a route's arguments (a body that is not JSON, or not an
object, or sent as a form; a field missing, of the wrong kind, far too long or unknown; a query
parameter unknown, of the wrong kind or out of range): each is answered in the API's error shape,
`{"detail": "<what was wrong>: <what is allowed>"}` (docs/protocol.md, "Errors"), naming the field,
never with FastAPI's list of pydantic errors, which held the input whole (a 60,000-character name
came back whole). A form a browser posts gets the site's page saying the same, with a way back.

Every route with a body or a query is listed here (ROUTES, QUERIES); a test fails when one is added
that these do not cover.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient
from httpx import Response

from liarsdice.server.limits import MAX_TURN_SECONDS, NAME_RULE
from liarsdice.server.storage import MAX_ID
from test_server import create, serving

LONG = 60_000  # characters: far over every field's limit, and under the 64 KiB a body may have
SENT = "x" * 100  # never seen in an answer: at most a short prefix of what was sent is shown
PRESETS = "a preset is one of jokers"  # the preset field's rule (the list goes on)
TOKEN = "the token shown when the bot account was made"
FORM = "application/x-www-form-urlencoded"
MOVE = "a move in the table socket's list form"
SEEKER = "the seeker's token, as POST /api/lobby/seek gave it"

# Every route with a body: its address, a body it reads, and for each field the words of its rule.
ROUTES: list[tuple[str, dict[str, Any], dict[str, str]]] = [
    ("/api/bot-accounts", {"name": "Robo"}, {"name": NAME_RULE}),
    ("/api/bot-accounts/revoke", {"token": "abc"}, {"token": TOKEN}),
    ("/api/tables", {"preset": "perudo", "name": "Ann"}, {"preset": PRESETS, "name": NAME_RULE}),
    ("/api/tables/ABCDEF/join", {"name": "Ann"}, {"name": NAME_RULE}),
    ("/api/rules", {"preset": "perudo"}, {"preset": PRESETS}),
    ("/api/learn/core/game", {"name": "Ann"}, {"name": NAME_RULE}),
    ("/api/learn/core/1", {"move": ["challenge"]}, {"move": MOVE}),
    ("/api/lobby/seek", {"preset": "any", "name": "Ann"}, {"preset": "a preset is any, or one of jokers"}),
    ("/api/lobby/seek/news", {"token": "abc"}, {"token": SEEKER}),
    ("/api/lobby/seek/cancel", {"token": "abc"}, {"token": SEEKER}),
]
# The route each address above is of, where it is not the address itself.
ROUTE_OF = {"/api/tables/ABCDEF/join": "/api/tables/{code}/join", "/api/learn/core/game": "/api/learn/{name}/game"}
ROUTE_OF["/api/learn/core/1"] = "/api/learn/{name}/{step}"
# The fields above that are text (the others, a lesson's move, are lists: a test of their own).
FIELDS = [(path, body, field, rule) for path, body, rules in ROUTES for field, rule in rules.items() if rule != MOVE]
# Every route with a query: its address and its parameters.
QUERIES = {"/api/games/{game_id}": {"download"}, "/api/ladder": {"preset"}}
QUERIES |= {"/api/leaderboard": {"family"}, "/leaderboard": {"family"}}  # tests/test_ratings.py refuses a bad one


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}") as c:
        yield c


def refused(r: Response, status: int, *words: str) -> str:
    """The detail of an API error in the project's shape, holding `words`, with nothing sent
    echoed back whole."""
    assert r.status_code == status, r.text[:500]
    assert r.headers["content-type"] == "application/json", r.headers
    body = r.json()
    assert list(body) == ["detail"] and isinstance(body["detail"], str), r.text[:500]
    detail: str = body["detail"]
    for word in words:
        assert word in detail, (word, detail)
    assert SENT not in r.text and len(r.text) < 1000, r.text[:500]
    return detail


def page(r: Response, status: int, *words: str) -> str:
    """The site's HTML error page, holding `words`, with nothing sent echoed back whole."""
    assert r.status_code == status, r.text[:500]
    assert r.headers["content-type"].startswith("text/html"), r.headers
    text = r.text
    assert '<nav aria-label="Site">' in text and 'id="error-text"' in text, text
    for word in words:
        assert word in text, (word, text)
    assert SENT not in text and len(text) < 3000, text[:500]
    return text


def post_raw(client: TestClient, path: str, body: bytes, content_type: str = "application/json") -> Response:
    return client.post(path, content=body, headers={"content-type": content_type})


# ----- every route is covered, and says what its fields take -----


def test_every_route_with_a_body_or_query_is_covered_and_says_what_it_takes(client: TestClient) -> None:
    bodies, queries = {}, {}
    for route in client.app.routes:  # type: ignore[attr-defined]
        if not isinstance(route, APIRoute):
            continue
        if route.body_field is not None:
            bodies[route.path] = route.body_field.field_info.annotation.model_fields
        if route.dependant.query_params:
            queries[route.path] = {p.alias for p in route.dependant.query_params}
        for param in [*route.dependant.query_params, *route.dependant.path_params]:
            if route.path.startswith("/api/"):
                assert param.field_info.description, (route.path, param.alias)
    assert queries == QUERIES
    covered = {ROUTE_OF.get(path, path): rules for path, _, rules in ROUTES}
    assert set(bodies) == set(covered)
    for path, fields in bodies.items():
        for name, field in fields.items():
            assert field.description, (path, name)  # the rule a refusal quotes
        assert set(covered[path]) <= set(fields)


# ----- bodies -----


@pytest.mark.parametrize(("path", "body", "field", "rule"), FIELDS)
def test_a_far_too_long_text_is_refused_with_its_length(
    client: TestClient, path: str, body: dict[str, Any], field: str, rule: str
) -> None:
    path = path.replace("ABCDEF", create(client)["code"])  # a name is checked at the table
    r = client.post(path, json={**body, field: "x" * LONG})
    refused(r, 422, field, f"{LONG:,}", rule)


@pytest.mark.parametrize(("path", "body", "field", "rule"), FIELDS)
def test_a_number_where_text_goes_is_refused_saying_so(
    client: TestClient, path: str, body: dict[str, Any], field: str, rule: str
) -> None:
    r = client.post(path, json={**body, field: 12345})
    refused(r, 422, f"{field} is a number (12345), not text", rule)
    r = client.post(path, json={**body, field: ["x" * LONG]})
    refused(r, 422, f"{field} is a list, not text", rule)


@pytest.mark.parametrize(("path", "body", "field", "rule"), FIELDS)
def test_a_missing_field_is_refused_by_name(
    client: TestClient, path: str, body: dict[str, Any], field: str, rule: str
) -> None:
    rest = {k: v for k, v in body.items() if k != field}
    refused(client.post(path, json=rest), 422, f"{field} is missing", rule)


@pytest.mark.parametrize(("path", "body", "rules"), ROUTES)
def test_malformed_json_is_refused_saying_what_is_read(
    client: TestClient, path: str, body: dict[str, Any], rules: dict[str, str]
) -> None:
    text = json.dumps(body)[:-1] + ', "x": "' + "x" * LONG  # cut short, a long text open
    detail = refused(post_raw(client, path, text.encode()), 422, "the body is not JSON", "reads a JSON object")
    assert all(f'"{field}"' in detail for field in rules), detail
    refused(post_raw(client, path, b""), 422, "the body is empty", "reads a JSON object")


@pytest.mark.parametrize(("path", "body", "rules"), ROUTES)
def test_a_body_that_is_not_an_object_is_refused(
    client: TestClient, path: str, body: dict[str, Any], rules: dict[str, str]
) -> None:
    refused(client.post(path, json=["x" * LONG]), 422, "the body is a list, not a JSON object", "reads a JSON object")
    refused(client.post(path, json="x" * LONG), 422, f"the body is text ({LONG:,} characters)", "reads a JSON object")
    r = post_raw(client, path, json.dumps(body).encode(), "text/plain")
    refused(r, 422, "the body is sent as text/plain, not application/json", "reads a JSON object")


@pytest.mark.parametrize(("path", "body", "rules"), ROUTES)
def test_an_unknown_field_is_refused_by_name(
    client: TestClient, path: str, body: dict[str, Any], rules: dict[str, str]
) -> None:
    detail = refused(client.post(path, json={**body, "colour": "red"}), 422, "there is no field 'colour' here")
    assert all(f'"{field}"' in detail for field in rules), detail
    refused(client.post(path, json={**body, "y" * LONG: 1}), 422, "there is no field 'yyyy", f"({LONG:,} characters)")


def test_a_wrong_option_or_turn_timer_is_refused_by_name(client: TestClient) -> None:
    made = {"preset": "perudo", "name": "Ann"}
    r = client.post("/api/tables", json={**made, "turn_seconds": "soon"})
    refused(r, 422, "turn_seconds is text ('soon'), not a whole number", f"0 (none) to {MAX_TURN_SECONDS}")
    r = client.post("/api/tables", json={**made, "options": "x" * LONG})
    refused(r, 422, f"options is text ({LONG:,} characters), not a JSON object", "num_players")
    r = client.post("/api/rules", json={"preset": "perudo", "options": [1, 2]})
    refused(r, 422, "options is a list, not a JSON object", "num_players")
    # What the engine refuses in the options says which option and what it takes, and shows a
    # short prefix of the value.
    r = client.post("/api/tables", json={**made, "options": {"faces": "x" * LONG}})
    refused(r, 422, "option faces must be a whole number", f"{LONG:,} characters")
    r = client.post("/api/rules", json={"preset": "perudo", "options": {"x" * LONG: 1}})
    refused(r, 422, "unknown option", f"{LONG:,} characters")
    r = client.post("/api/rules", json={"preset": "perudo", "options": {"faces": list(range(10_000))}})
    refused(r, 422, "option faces must be a whole number", "characters left out")


def test_a_lessons_move_that_is_not_a_list_is_refused_by_name(client: TestClient) -> None:
    path = "/api/learn/core/1"
    refused(client.post(path, json={}), 422, "move is missing", MOVE)
    refused(client.post(path, json={"move": "x" * LONG}), 422, f"move is text ({LONG:,} characters)", MOVE)
    refused(client.post(path, json={"move": ["x"] * 50}), 422, "move", MOVE)


def test_a_number_too_big_to_be_finite_is_not_echoed(client: TestClient) -> None:
    number = "1" + "0" * LONG + ".5"
    body = f'{{"preset": "perudo", "name": "Ann", "turn_seconds": {number}}}'.encode()
    refused(post_raw(client, "/api/tables", body), 422, "finite", "not JSON this server reads", "turn_seconds")


# ----- a browser's form -----


@pytest.mark.parametrize(("path", "body", "rules"), ROUTES)
def test_a_form_posted_to_the_api_gets_the_sites_page(
    client: TestClient, path: str, body: dict[str, Any], rules: dict[str, str]
) -> None:
    form = {field: "x" * (LONG // len(rules)) for field in rules}  # under the 64 KiB a body may have
    r = client.post(path, data=form, headers={"referer": "http://testserver/bots"})
    text = page(r, 422, "The body is a form (application/x-www-form-urlencoded), not JSON", "reads a JSON object")
    assert 'href="/bots"' in text  # back to the form, where the browser kept what was typed
    assert all(f"&quot;{field}&quot;" in text for field in rules), text


def test_the_bots_pages_form_posted_without_its_script_gets_a_page(client: TestClient) -> None:
    r = client.post("/bots", data={"name": "x" * LONG}, headers={"referer": "http://testserver/bots"})
    text = page(r, 405, "Not a page to send to")
    assert 'href="/bots"' in text
    # A link back names only this site's own pages.
    r = client.post("/api/bot-accounts", data={"name": "Robo"}, headers={"referer": "https://elsewhere.example/x"})
    text = page(r, 422, "The body is a form")
    assert "elsewhere" not in text and 'href="/"' in text
    r = client.post(
        "/api/bot-accounts", data={"name": "Robo"}, headers={"referer": "http://testserver//elsewhere.example"}
    )
    assert "elsewhere" not in page(r, 422, "The body is a form")


# ----- queries and addresses -----


def test_query_parameters_are_checked(client: TestClient) -> None:
    refused(client.get("/api/games/1?download=soon"), 422, "download is text ('soon'), not a whole number", "or 1")
    refused(client.get("/api/games/1?download=" + "x" * 1900), 422, "download is text (1,900 characters)")
    refused(client.get("/api/games/1?download=7"), 422, "download is 7, out of range", "or 1")
    refused(client.get("/api/ladder?preset=" + "x" * 1900), 404, "unknown preset 'xxxx", "1,900 characters")
    # A query parameter a route does not read is ignored, as web APIs do (a cache-buster, a tag).
    assert client.get("/api/tables?colour=red&_=1700000000").status_code == 200
    assert client.get("/api/ladder?preset=perudo&colour=red").status_code == 200
    assert client.get("/api/games/1?download=1").status_code == 404  # (no game 1 yet) read as before


def test_a_path_that_is_no_game_or_table_is_not_found_without_echo(client: TestClient) -> None:
    refused(client.get("/api/games/abc"), 404, "game_id is text ('abc'), not a whole number", f"1 to {MAX_ID}")
    refused(client.get("/api/games/" + "9" * 1500), 404, "no finished game", "1,500 digits")
    refused(client.get("/api/tables/" + "x" * 1500), 404, "no table with the code", "1,500 characters")
    refused(client.post("/api/tables/" + "x" * 1500 + "/join", json={"name": "Ann"}), 404, "no table with the code")
    # A page's address keeps its page, and shows no more of the address than a prefix.
    page(client.get("/rules/" + "x" * 1500), 404, "Unknown preset", "1,500 characters")
    page(client.get("/" + "x" * 1500), 404, "There is no page at")
