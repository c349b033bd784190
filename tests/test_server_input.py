"""The web server under bad input: each gets a clear error to its sender, no traceback, and
nothing else waits for it (issue 7, items 3 to 8).

"Nothing blocked" is tested without a clock: a refused request must be refused before the engine
builds anything from it (so it costs what a check costs), the work a big table does at every move
must run off the event loop's thread, and the server must go on answering.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect as ws_connect

from conftest import free_port
from liarsdice.rules import GameState, Options
from liarsdice.server.connection import Connection
from test_server import Message, Socket, connect, create, serving


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}") as c:
        yield c


@pytest.fixture
def no_tracebacks(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """The server logs no error with a traceback while the test runs."""
    caplog.set_level(logging.WARNING)
    yield
    bad = [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR]
    assert not bad, [r.getMessage() for r in bad]


@pytest.fixture
def built(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The option mappings the server has built `Options` from, in order."""
    calls: list[Any] = []
    real = Options.from_dict.__func__  # type: ignore[attr-defined]

    def spy(cls: type[Options], data: Any) -> Options:
        calls.append(data)
        return real(cls, data)  # type: ignore[no-any-return]

    monkeypatch.setattr(Options, "from_dict", classmethod(spy))
    return calls


def post_raw(client: TestClient, path: str, text: str) -> Any:
    """POST `text` as it is (json= would refuse NaN, or escape what the test means to send)."""
    return client.post(path, content=text.encode(), headers={"content-type": "application/json"})


def strict_json(text: str) -> Message:
    """`text` read as JSON proper: NaN and Infinity are not JSON."""

    def refuse(name: str) -> Any:
        raise AssertionError(f"the server sent {name}, which is not JSON: {text[:200]}")

    message: Message = json.loads(text, parse_constant=refuse)
    return message


# ----- item 3: a seat count is checked before anything is built -----


def test_a_huge_seat_count_is_refused_before_anything_is_built(client: TestClient, built: list[Any]) -> None:
    r = client.post("/api/tables", json={"preset": "classic", "name": "Ann", "options": {"num_players": 30_000_000}})
    assert r.status_code == 422
    assert r.json()["detail"] == "num_players must be 2 to 12 at a table, not 30000000"
    assert built == []  # refused by a check, before the engine looped over thirty million seats
    assert client.get("/api/presets").status_code == 200  # and the server goes on

    table = create(client, "classic", options={"num_players": 2})
    with connect(client, table["code"], table["token"]) as host:
        built.clear()
        host.send(type="configure", options={"num_players": 30_000_000})
        assert "num_players must be 2 to 12" in host.error("bad_options")["message"]
        assert built == []
        host.sync()
    assert client.get(f"/api/tables/{table['code']}").json()["options"]["num_players"] == 2


# ----- item 4: every number in the options has a bound a real table can use -----

TOO_BIG = 10**30


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"faces": TOO_BIG}, "faces must be 2 to 20 at a table, not a number of 31 digits"),
        ({"faces": 1000}, "faces must be 2 to 20 at a table, not 1000"),
        ({"dice_per_player": 100}, "dice_per_player must be 1 to 20 at a table, not 100"),
        ({"dice_per_player": [5, TOO_BIG]}, "dice_per_player (seat 1) must be 1 to 20"),
        ({"dice_per_player": [5] * 13}, "dice_per_player lists 13 seats: a table has at most 12"),
        ({"max_dice": 21}, "max_dice must be 1 to 20 at a table, not 21"),
        ({"first_starter": TOO_BIG}, "first_starter must be 0 to 11"),
        ({"one_die_round": {"min_players": TOO_BIG}}, "one_die_round.min_players must be 2 to 12"),
        ({"economy": {"starting_chips": TOO_BIG}}, "economy.starting_chips must be 0 to 1000"),
        ({"economy": {"min_bet": TOO_BIG}}, "economy.min_bet must be 0 to 1000"),
        ({"economy": {"min_bet": {"const": 5000}}}, "economy.min_bet must be 0 to 1000"),
        ({"economy": {"min_bet": "const 9" + "9" * 4500}}, "economy.min_bet must be round_number or 0 to 1000"),
        ({"economy": {"min_bet": "const ²"}}, "economy.min_bet must be round_number or 0 to 1000"),
        ({"push": True, "dice_per_player": 10}, "too many dice to push for one table: 4 players with 10 dice each"),
        ({"economy": {"starting_chips": 1000}, "num_players": 12}, "lower the players, dice, faces or chips"),
    ],
)
def test_options_beyond_a_tables_limits_are_refused_by_name(
    client: TestClient, built: list[Any], options: dict[str, Any], words: str
) -> None:
    r = client.post("/api/tables", json={"preset": "classic", "name": "Ann", "options": options})
    assert r.status_code == 422, r.text
    assert words in r.json()["detail"], r.json()
    assert built == []


def test_the_limits_leave_room_for_a_big_table_and_every_preset(client: TestClient) -> None:
    big = create(client, "classic", options={"num_players": 12, "dice_per_player": 20, "faces": 20})
    with connect(client, big["code"], big["token"]) as host:
        host.send(type="fill_bots", level="random")
        host.send(type="start")
        view = host.state()
        assert view["dice"] == [20] * 12 and len(view["cup"]) == 20
    for preset in ("jokers", "soar", "red-dead", "tavern", "classic"):
        create(client, preset, options={"num_players": 12})


def test_a_big_tables_moves_are_listed_off_the_event_loop(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every view of the seat to act lists all its moves; at a table whose turns offer thousands
    (pushes in soar, raises in tavern), listing them must not hold the loop every table runs on."""
    loop_thread = client.portal.call(threading.get_ident)  # type: ignore[union-attr]
    listed_on: list[int] = []
    real = GameState.legal_actions

    asked: set[int] = set()

    def spy(state: GameState) -> Any:
        moves = real(state)
        if id(state) not in asked and len(moves) > 1000:  # the first time: listed now (a state keeps them)
            listed_on.append(threading.get_ident())
        asked.add(id(state))
        return moves

    monkeypatch.setattr(GameState, "legal_actions", spy)
    for preset in ("soar", "tavern"):
        table = create(client, preset, options={"num_players": 3, "dice_per_player": 5, "faces": 10})
        with connect(client, table["code"], table["token"]) as ann:
            ann.send(type="fill_bots", level="random")
            ann.send(type="start")
            ann.state(lambda s: s["legal"] is not None)  # my turn: my view lists my moves
    assert listed_on
    assert loop_thread not in listed_on


# ----- item 5: binary frames and deep nesting -----


def test_a_binary_frame_is_answered_and_the_socket_stays(client: TestClient, no_tracebacks: None) -> None:
    table = create(client, "classic", options={"num_players": 2})
    with connect(client, table["code"], table["token"]) as sock:
        sock.session.send_bytes(b'{"type": "ping"}')
        assert "binary" in sock.error("bad_message")["message"]
        sock.sync()
    with client.websocket_connect(f"/ws/{table['code']}") as session:  # even as the hello
        session.send_bytes(json.dumps({"type": "hello", "token": None}).encode())
        Socket(session).error("bad_message")


def test_deep_nesting_is_answered_and_the_socket_stays(client: TestClient, no_tracebacks: None) -> None:
    table = create(client, "classic", options={"num_players": 2})
    with connect(client, table["code"], table["token"]) as sock:
        sock.send_raw("[" * 2040 + "]" * 2040)  # 4 KB
        assert "nested more than 16 levels" in sock.error("bad_message")["message"]
        sock.send_raw('{"type": "ping", "t": ' + "[" * 100 + "]" * 100 + "}")  # under the recursion limit
        assert "nested" in sock.error("bad_message")["message"]
        sock.send(type="ping", t={"a": [{"b": [1]}]})
        assert sock.of("pong")["t"] == {"a": [{"b": [1]}]}
    deep = '{"preset": "classic", "name": "Ann", "options": ' + "[" * 3000 + "]" * 3000 + "}"
    r = post_raw(client, "/api/tables", deep)
    assert r.status_code == 422 and "nested" in r.json()["detail"]


# ----- item 6: names -----


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("a\ud800b", "lone surrogate"),
        ("\u200b\u200b", "invisible formatting character (U+200B)"),
        ("\u200b \ufeff", "invisible formatting character"),
        ("Ann\u202eoB", "invisible formatting character (U+202E)"),
        ("A\x07B", "control character (U+0007)"),
        (" \t\n ", "a name has 1 to 24"),
    ],
)
def test_names_that_hide_or_cannot_be_stored_are_refused(
    client: TestClient, no_tracebacks: None, name: str, words: str
) -> None:
    body = json.dumps({"preset": "classic", "name": name})
    r = post_raw(client, "/api/tables", body)
    assert r.status_code == 422, r.text
    assert words in r.json()["detail"]
    assert "surrogate" in words or "a name has 1 to 24 letters, digits" in r.json()["detail"]  # what is allowed
    code = create(client, "classic", options={"num_players": 3})["code"]
    r = post_raw(client, f"/api/tables/{code}/join", json.dumps({"name": name}))
    assert r.status_code == 422 and words in r.json()["detail"]
    with client.websocket_connect(f"/ws/{code}") as session:  # a spectator's name in the chat
        session.send_text(json.dumps({"type": "hello", "token": None, "name": name}))
        assert words in Socket(session).error("bad_message")["message"]
    assert [s["kind"] for s in client.get(f"/api/tables/{code}").json()["seats"]] == ["human", "empty", "empty"]


def test_spaces_in_names_are_still_collapsed(client: TestClient) -> None:
    table = create(client, "classic", name=" Ann\t Lee\u00a0 ", options={"num_players": 2})
    assert client.get(f"/api/tables/{table['code']}").json()["seats"][0]["name"] == "Ann Lee"


# ----- item 7: ids and codes the database cannot hold -----


def test_ids_and_codes_out_of_range_are_not_found(database_url: str, no_tracebacks: None) -> None:
    with serving(database_url) as client:
        for game_id in ("9223372036854775808", "2147483648", "-9223372036854775809", "0"):
            r = client.get(f"/api/games/{game_id}")
            assert r.status_code == 404, (game_id, r.text)
            assert "no finished game" in r.json()["detail"]
        for code in ("%00", "ABC%00EF", "x" * 2000):  # (a longer address is refused for its size: test_server_sizes)
            assert client.get(f"/api/tables/{code}").status_code == 404
            assert client.post(f"/api/tables/{code}/join", json={"name": "Ann"}).status_code == 404
        with client.websocket_connect("/ws/%00") as session:
            Socket(session).error("no_table")
        assert client.get("/api/games").status_code == 200


# ----- item 8: numbers that are not JSON, sizes in bytes -----


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e400", "-1e400"])
def test_non_finite_numbers_are_refused_and_never_sent(client: TestClient, no_tracebacks: None, number: str) -> None:
    table = create(client, "classic", options={"num_players": 2})
    with connect(client, table["code"], table["token"]) as sock:
        sock.send_raw(f'{{"type": "ping", "t": {number}, "ref": 3}}')
        answer = strict_json(sock.session.receive_text())
        while answer["type"] != "error":
            assert answer["type"] != "pong", answer
            answer = strict_json(sock.session.receive_text())
        assert answer["code"] == "bad_message" and "finite" in answer["message"]
        sock.send_raw(f'{{"type": "act", "action": ["bid", {number}, 2]}}')
        assert "finite" in sock.error("bad_message")["message"]
        sock.send(type="ping", t=1.5)
        assert sock.of("pong")["t"] == 1.5
    r = post_raw(client, "/api/tables", f'{{"preset": "classic", "name": "Ann", "turn_seconds": {number}}}')
    assert r.status_code == 422 and "finite" in r.json()["detail"]
    r = post_raw(client, "/api/tables", f'{{"preset": "classic", "name": {number}}}')
    assert r.status_code == 422 and "finite" in r.json()["detail"]


def test_the_server_sends_no_nan() -> None:
    async def send(text: str) -> None:
        pass

    async def close(code: int) -> None:
        pass

    conn = Connection(send, close)
    with pytest.raises(ValueError):
        conn.send({"type": "pong", "t": float("nan"), "ref": None})
    assert conn.queue.empty()


def test_the_size_limit_counts_bytes(client: TestClient) -> None:
    table = create(client, "classic", options={"num_players": 2})
    with connect(client, table["code"], table["token"]) as sock:
        raw = json.dumps({"type": "ping", "t": "é" * 2040}, ensure_ascii=False)
        assert len(raw) < 4096 < len(raw.encode())  # 2,064 characters, 4,104 bytes
        sock.send_raw(raw)
        answer = sock.until(lambda m: m["type"] in ("error", "pong"))
        assert answer["type"] == "error" and answer["code"] == "too_large", answer
        assert "at most 4096 bytes" in answer["message"] and f"this one has {len(raw.encode())}" in answer["message"]
        sock.send_raw(json.dumps({"type": "ping", "t": "é" * 1000}, ensure_ascii=False))
        assert sock.of("pong")["t"] == "é" * 1000
    with client.websocket_connect(f"/ws/{table['code']}") as session:  # the hello too
        session.send_text(json.dumps({"type": "hello", "token": "x" * 5000}))
        Socket(session).error("too_large")


def test_a_body_over_64_kib_is_refused(client: TestClient) -> None:
    r = client.post("/api/tables", json={"preset": "classic", "name": "x" * 70_000})
    assert r.status_code == 413
    assert create(client)["code"]


# ----- a real server: what uvicorn itself does with a message too big to read -----


@contextmanager
def real_server(tmp_path: Path) -> Iterator[tuple[int, list[str]]]:
    port = free_port()
    exe = Path(sys.executable).with_name("liarsdice")
    db = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    proc = subprocess.Popen(
        [str(exe), "serve", "--port", str(port), "--database-url", db, "--log-level", "warning"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert "serving on" in line, line
    output: list[str] = []
    try:
        yield port, output
    finally:
        proc.terminate()
        output.append(proc.communicate(timeout=30)[0])


def test_a_real_server_answers_bad_frames_and_a_message_too_big_to_read(tmp_path: Path) -> None:
    with real_server(tmp_path) as (port, output):
        body = json.dumps({"preset": "classic", "name": "Ann", "options": {"num_players": 2}}).encode()
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/tables", data=body, headers={"content-type": "application/json"}
        )
        table = json.loads(urllib.request.urlopen(request, timeout=30).read())
        with ws_connect(f"ws://127.0.0.1:{port}/ws/{table['code']}", max_size=None) as ws:

            def until(kind: str) -> Message:
                while True:
                    message = strict_json(str(ws.recv(timeout=30)))
                    if message["type"] == kind:
                        return message

            ws.send(json.dumps({"type": "hello", "token": table["token"]}))
            until("chat_history")
            ws.send(b'{"type": "ping"}')
            assert "binary" in until("error")["message"]
            ws.send("[" * 2040 + "]" * 2040)
            assert "nested" in until("error")["message"]
            ws.send(json.dumps({"type": "ping", "t": "x" * 10_000}))  # read, and refused
            assert until("error")["code"] == "too_large"
            ws.send(json.dumps({"type": "ping", "t": 7}))
            assert until("pong")["t"] == 7
            ws.send(json.dumps({"type": "ping", "t": "x" * 70_000}))  # too big to read at all
            error = until("error")
            assert error["code"] == "too_large" and "closed" in error["message"]
            with pytest.raises(ConnectionClosed) as closed:
                until("pong")
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
        big = json.dumps({"preset": "classic", "name": "x" * 70_000}).encode()
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/tables", data=big, headers={"content-type": "application/json"}
        )
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=30)
        assert refused.value.code == 413
    assert "Traceback" not in output[0] and "ERROR" not in output[0], output[0]
