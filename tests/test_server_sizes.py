"""Requests over the server's size limits (docs/protocol.md, "Sizes"): a body over 64 KiB, an
address over 2 KiB, a websocket message over 4 KiB. Each is answered, just over its limit and far
over it, with the project's error saying what was too big and what is allowed: `{"detail": ...}`
for the API, the site's page for a browser (a page's address, a form's post), an `error` on a
table's socket. Never a bare "413 Content Too Large" or "400 Invalid HTTP request received.".
"""

from __future__ import annotations

import contextlib
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from websockets.exceptions import ConnectionClosed, InvalidStatus
from websockets.sync.client import connect as ws_connect

from liarsdice.server.limits import MAX_BODY, MAX_URL
from liarsdice.server.run import MAX_FRAME
from test_server import Socket, create, serving
from test_server_input import real_server

BODY_SIZES = [MAX_BODY + 1, 100_037, 10_000_000]  # just over, the 100,000-character name, far over
URL_SIZES = [MAX_URL + 1, 9_000, 60_000]  # (httpx sends no address over 64 KiB)
NAME_RULE = "a name has 1 to 24 letters"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}") as c:
        yield c


def table_body(size: int) -> bytes:
    """A request to make a table, of `size` bytes, by the length of its name."""
    empty = json.dumps({"preset": "classic", "name": ""})
    body = json.dumps({"preset": "classic", "name": "x" * (size - len(empty))}).encode()
    assert len(body) == size
    return body


def address(path: str, size: int) -> str:
    """`path` with a query string that makes it `size` bytes long."""
    start = f"{path}?preset="
    return start + "x" * (size - len(start))


# ----- HTTP bodies -----


@pytest.mark.parametrize("size", BODY_SIZES)
def test_a_json_body_over_the_limit_is_refused_saying_so(client: TestClient, size: int) -> None:
    r = client.post("/api/tables", content=table_body(size), headers={"content-type": "application/json"})
    assert r.status_code == 413
    assert r.headers["content-type"] == "application/json"
    detail = r.json()["detail"]
    assert f"is {size:,} bytes" in detail and f"at most {MAX_BODY:,} bytes" in detail, detail
    assert NAME_RULE in detail  # the likeliest culprit, named
    assert create(client)["code"]  # and the server goes on


def test_a_body_at_the_limit_is_read(client: TestClient) -> None:
    r = client.post("/api/tables", content=table_body(MAX_BODY), headers={"content-type": "application/json"})
    assert r.status_code == 422 and r.json()["detail"].startswith(NAME_RULE), r.text


@pytest.mark.parametrize("size", [MAX_BODY + 1, 1_000_000])
def test_a_body_sent_without_its_length_is_refused_once_over(client: TestClient, size: int) -> None:
    body = table_body(size)
    chunks = (body[i : i + 8192] for i in range(0, size, 8192))  # chunked: no Content-Length
    r = client.post("/api/tables", content=chunks, headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.headers["content-type"] == "application/json"
    detail = r.json()["detail"]
    assert f"more than {MAX_BODY:,} bytes" in detail and NAME_RULE in detail, detail


@pytest.mark.parametrize("size", BODY_SIZES)
def test_a_form_post_over_the_limit_gets_a_page(client: TestClient, size: int) -> None:
    form = ("name=" + "x" * (size - 5)).encode()
    r = client.post("/api/bot-accounts", content=form, headers={"content-type": "application/x-www-form-urlencoded"})
    assert r.status_code == 413
    assert r.headers["content-type"].startswith("text/html")
    assert '<h1 id="error-title">Too much sent</h1>' in r.text
    assert f"{size:,} bytes" in r.text and f"at most {MAX_BODY:,} bytes" in r.text and NAME_RULE in r.text


# ----- addresses -----


@pytest.mark.parametrize("size", URL_SIZES)
def test_an_address_over_the_limit_is_refused_saying_so(client: TestClient, size: int) -> None:
    r = client.get(address("/api/ladder", size))
    assert r.status_code == 414 and r.headers["content-type"] == "application/json"
    detail = r.json()["detail"]
    assert f"is {size:,} bytes long" in detail and f"at most {MAX_URL:,}" in detail, detail
    page = client.get(address("/history", size))  # a page's address: the site's page
    assert page.status_code == 414 and page.headers["content-type"].startswith("text/html")
    assert "That address is too long" in page.text and f"{size:,} bytes long" in page.text


def test_an_address_at_the_limit_is_read(client: TestClient) -> None:
    r = client.get(address("/api/ladder", MAX_URL))
    assert r.status_code == 404 and "preset" in r.json()["detail"]


@pytest.mark.parametrize("size", URL_SIZES)
def test_a_sockets_address_over_the_limit_is_answered_on_the_socket(client: TestClient, size: int) -> None:
    table = create(client)
    with client.websocket_connect(address(f"/ws/{table['code']}", size)) as session:
        error = Socket(session).error("too_large")
        assert f"{size:,} bytes long" in error["message"] and f"at most {MAX_URL:,}" in error["message"]


# ----- a real server: uvicorn's own limits answered the same way -----


def raw_request(port: int, head: str, body: bytes = b"") -> tuple[int, dict[str, str], bytes]:
    """Send a request as it is (however long its address); the status, headers and body of the
    answer, read until the server closes."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        with contextlib.suppress(OSError):  # it answered and closed before reading all of it
            s.sendall(head.encode() + body)
        answer = b""
        try:
            while chunk := s.recv(65536):
                answer += chunk
        except ConnectionResetError:
            pass
    top, _, content = answer.partition(b"\r\n\r\n")
    lines = top.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:])
    return int(lines[0].split()[1]), headers, content


def test_a_real_server_answers_every_size_with_the_projects_error(tmp_path: Path) -> None:
    with real_server(tmp_path) as (port, output):
        for size in BODY_SIZES:
            if size > 1_000_000:  # declared, not sent: it is refused before it is read
                status, headers, content = raw_request(
                    port,
                    f"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    f"Content-Length: {size}\r\nConnection: close\r\n\r\n",
                )
            else:
                body = table_body(size)
                status, headers, content = raw_request(
                    port,
                    f"POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                    f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n",
                    body,
                )
            assert status == 413 and headers["content-type"] == "application/json", (size, status, content[:200])
            detail = json.loads(content)["detail"]
            assert f"{size:,} bytes" in detail and f"at most {MAX_BODY:,}" in detail and NAME_RULE in detail

        for size in [*URL_SIZES, 100_000, 1_000_000]:  # past 8,000 bytes, uvicorn's parser is stopped: the same answer
            status, headers, content = raw_request(
                port, f"GET {address('/api/ladder', size)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            )
            assert status == 414 and headers["content-type"] == "application/json", (size, status, content[:200])
            detail = json.loads(content)["detail"]
            assert "bytes long" in detail and f"at most {MAX_URL:,}" in detail, detail
            status, headers, content = raw_request(
                port, f"GET {address('/history', size)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            )
            assert status == 414 and headers["content-type"].startswith("text/html"), (size, status)
            assert b"That address is too long" in content

        code = json.loads(raw_request(port, *_make_table())[2])["code"]
        with ws_connect(f"ws://127.0.0.1:{port}{address(f'/ws/{code}', MAX_URL + 1)}") as ws:
            error = json.loads(ws.recv(timeout=30))
            assert error["type"] == "error" and error["code"] == "too_large", error
        with pytest.raises(InvalidStatus) as refused:  # too long to read: its handshake is answered
            ws_connect(f"ws://127.0.0.1:{port}{address(f'/ws/{code}', 100_000)}", open_timeout=30)
        assert refused.value.response.status_code == 414
        assert f"at most {MAX_URL:,}" in json.loads(refused.value.response.body)["detail"]

        for size in (MAX_FRAME + 1, 1_000_000):  # a websocket message too big to read at all
            with ws_connect(f"ws://127.0.0.1:{port}/ws/{code}", max_size=None) as ws:
                empty = json.dumps({"type": "ping", "t": ""})
                ws.send(json.dumps({"type": "ping", "t": "x" * (size - len(empty))}))
                error = json.loads(ws.recv(timeout=30))
                assert error["code"] == "too_large" and "at most 4096 bytes" in error["message"], error
                with pytest.raises(ConnectionClosed) as closed:
                    ws.recv(timeout=30)
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 1009
    assert "Traceback" not in output[0] and "ERROR" not in output[0], output[0]


def _make_table() -> tuple[str, bytes]:
    body = json.dumps({"preset": "classic", "name": "Ann", "options": {"num_players": 2}}).encode()
    head = (
        "POST /api/tables HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    )
    return head, body
