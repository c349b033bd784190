"""A guest who signs up or signs in mid-game keeps their seat and finds it under "Your tables"
(routes/heldseats.py, personseats.adopt_seats): the browser offers the seats it holds, and the
account keeps only those whose token is the seat's current one."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from test_people import PASSWORD, csrf_of, post, role_with, sign_up
from test_server import connect, create, join, serving

HELD = "/account/seats/held"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}") as c:
        yield c


def offer(client: TestClient, seats: Any, **headers: str) -> Any:
    """What the account page's script posts: the seats this browser holds, with its CSRF token."""
    token = csrf_of(client, "/account")
    return client.post(HELD, json={"seats": seats}, headers={"x-csrf-token": token, **headers})


def listed(client: TestClient) -> list[tuple[str, int]]:
    page = client.get("/account").text
    return [(code, int(seat) - 1) for code, seat in re.findall(r"table (\w+)</a>, seat (\d+)", page)]


def test_a_guest_who_signs_up_mid_game_finds_the_table_under_your_tables(client: TestClient) -> None:
    host = TestClient(client.app)
    made = create(host, name="Host")
    code = made["code"]
    joined = join(client, code, "Ana")  # a guest's seat, held by this browser
    with connect(client, code, joined["token"]) as sock:  # playing: the socket stays open meanwhile
        sign_up(client)
        assert listed(client) == []  # taken before signing up: not the account's yet
        got = offer(client, [{"code": code.lower(), "seat": joined["seat"], "token": joined["token"]}])
        assert got.status_code == 200 and got.json() == {"added": 1, "offered": 1}
        assert listed(client) == [(code, joined["seat"])]
        again = offer(client, [{"code": code, "seat": joined["seat"], "token": joined["token"]}])
        assert again.json()["added"] == 0  # offered at every visit: kept once
        sock.send(type="chat", text="still here")
        sock.until(lambda m: m["type"] == "chat" and m.get("text") == "still here")  # the seat goes on
    assert role_with(client, code, joined["token"]) == ("player", joined["seat"])

    phone = TestClient(client.app)  # the account on another device takes the seat
    assert post(phone, "/signin", {"name": "Ana", "password": PASSWORD}).status_code == 303
    assert listed(phone) == [(code, joined["seat"])]
    taken = post(phone, "/account/seat", {"code": code, "seat": str(joined["seat"])}, page="/account")
    assert taken.status_code == 200
    new_token = re.search(r'data-token="([^"]+)"', taken.text)
    assert new_token is not None
    assert role_with(phone, code, new_token.group(1)) == ("player", joined["seat"])
    assert role_with(client, code, joined["token"])[0] != "player"  # the old token is spent


def test_only_a_seat_s_current_token_is_kept(client: TestClient) -> None:
    made = create(TestClient(client.app), name="Host")
    code = made["code"]
    bo = join(TestClient(client.app), code, "Bo")
    sign_up(client)
    forged = [
        {"code": code, "seat": bo["seat"], "token": "A" * 32},  # a made-up token
        {"code": code, "seat": 0, "token": bo["token"]},  # Bo's token, at the host's seat
        {"code": "ZZZZZZ", "seat": bo["seat"], "token": bo["token"]},  # another table
        {"code": code, "seat": 5, "token": bo["token"]},  # no such seat
    ]
    got = offer(client, forged)
    assert got.status_code == 200 and got.json() == {"added": 0, "offered": 4}
    assert listed(client) == []
    with connect(TestClient(client.app), code, bo["token"]) as sock:  # Bo leaves: his old token is no seat's
        sock.send(type="leave")
        sock.until(lambda m: m["type"] == "welcome" and m["role"] == "spectator")
    assert offer(client, [{"code": code, "seat": bo["seat"], "token": bo["token"]}]).json()["added"] == 0
    assert listed(client) == []


BAD_BODIES: list[tuple[bytes, int]] = [
    (b"", 400),
    (b"not json", 400),
    (b'{"seats": "\xff\xfe"}', 400),  # not UTF-8
    (b"[]", 422),
    (b'{"seats": [], "more": 1}', 422),
    (b'{"seats": [{"code": "ABC", "seat": "0", "token": "t"}]}', 422),
    (b'{"seats": [{"code": "ABC", "seat": true, "token": "t"}]}', 422),
    (b'{"seats": [{"code": "ABC", "seat": -1, "token": "t"}]}', 422),
    (b'{"seats": [{"code": "A\\u0000C", "seat": 0, "token": "t"}]}', 422),
    (b'{"seats": [{"code": "ABC", "seat": 0, "token": "\\ud800"}]}', 422),  # a lone surrogate
    (b'{"seats": [{"code": "\\u202eABC", "seat": 0, "token": "t"}]}', 422),
    (b'{"seats": [{"code": "ABC", "seat": 0, "token": "' + b"x" * 5000 + b'"}]}', 422),
    (b'{"seats": [' + b",".join([b'{"code": "ABC", "seat": 0, "token": "t"}'] * 51) + b"]}", 422),
]


@pytest.mark.parametrize(("body", "status"), BAD_BODIES, ids=[str(i) for i in range(len(BAD_BODIES))])
def test_a_bad_offer_gets_a_clear_error(client: TestClient, body: bytes, status: int) -> None:
    sign_up(client)
    token = csrf_of(client, "/account")
    got = client.post(HELD, content=body, headers={"content-type": "application/json", "x-csrf-token": token})
    assert got.status_code == status, got.text
    assert '{"seats": [{"code": "ABC123", "seat": 0, "token": "..."}]}' in got.json()["detail"]


def test_an_offer_needs_a_session_json_and_its_token(client: TestClient) -> None:
    seats = [{"code": "ABCDEF", "seat": 0, "token": "t"}]
    guest = client.post(HELD, json={"seats": seats})
    assert guest.status_code == 401 and "sign in first" in guest.json()["detail"]
    sign_up(client)
    as_form = client.post(HELD, data={"seats": "x"}, headers={"x-csrf-token": csrf_of(client, "/account")})
    assert as_form.status_code == 415 and "takes JSON" in as_form.json()["detail"]
