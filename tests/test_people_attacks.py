"""The attacks on accounts (issue 25), each refused, on one process (tests/test_people.py has the
stolen cookie on sign-out and on a password change, the thousand wrong passwords from one
address, and taking a seat the account never took; tests/test_server_cluster_people.py the same
on two processes):
- a cross-site post is refused on every state-changing form and JSON POST of people's routes;
- a name or password of any size or character gets a clear error, never a 500;
- a flood of wrong passwords does not stop a game being played meanwhile;
- a socket with a seat token that is not the seat's acts for nobody."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from fastapi.testclient import TestClient

from liarsdice.server.wsplayer import random_move
from test_people import PASSWORD, csrf_of, error_of, post, role_with, sign_up
from test_server import connect, create, join, serving

FORM = {"content-type": "application/x-www-form-urlencoded"}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}") as c:
        yield c


# ----- cross-site posts -----

# (path, the page whose token a form carries, whether it needs a session, the form)
ROUTES: list[tuple[str, str, bool, dict[str, str]]] = [
    ("/signup", "/signup", False, {"name": "Eve", "password": PASSWORD}),
    ("/signin", "/signin", False, {"name": "Ana", "password": PASSWORD}),
    ("/signout", "/account", True, {}),
    ("/account/password", "/account", True, {"password": PASSWORD, "new_password": "changed by eve"}),
    ("/account/delete", "/account", True, {"password": PASSWORD}),
    ("/account/seat", "/account", True, {"code": "CODE", "seat": "0"}),
]
CROSS = [{"origin": "https://evil.example"}, {"sec-fetch-site": "cross-site"}, {"origin": "null"}]


def unchanged(client: TestClient, signed_in: bool) -> None:
    """Nothing the refused posts asked for happened."""
    if signed_in:
        assert client.get("/account").status_code == 200  # not signed out, not deleted
    ana, eve = TestClient(client.app), TestClient(client.app)
    assert post(ana, "/signin", {"name": "Ana", "password": PASSWORD}).status_code == 303  # the password is Ana's
    assert post(eve, "/signin", {"name": "Eve", "password": PASSWORD}).status_code == 401  # no Eve was made


@pytest.mark.parametrize(("path", "page", "signed_in", "form"), ROUTES, ids=[r[0] for r in ROUTES])
def test_a_cross_site_post_is_refused_on_every_form(
    client: TestClient, path: str, page: str, signed_in: bool, form: dict[str, str]
) -> None:
    sign_up(client)
    made = create(client, name="Ana")
    code = made["code"]
    form = {k: code if v == "CODE" else v for k, v in form.items()}
    if not signed_in:
        client.cookies.delete("ld_session")
    token = csrf_of(client, page)
    for headers in CROSS:
        got = client.post(path, data={"csrf": token, **form}, headers=headers, follow_redirects=False)
        assert got.status_code == 403 and "sent from another site" in error_of(got), headers
    guest_token = csrf_of(TestClient(client.app), "/signin")  # a token, but another browser's
    for bad in ["", "forged", guest_token, "\x00" * 40]:
        got = client.post(path, data={"csrf": bad, **form}, follow_redirects=False)
        assert got.status_code == 403 and "not sent from this browser's own page" in error_of(got)
    got = client.post(path, content=urlencode(form), headers=FORM, follow_redirects=False)  # no token at all
    assert got.status_code == 403 and "not sent from this browser's own page" in error_of(got)
    unchanged(client, signed_in)
    assert role_with(client, code, made["token"]) == ("player", 0)  # the seat was not handed over


def test_a_cross_site_json_post_of_held_seats_is_refused(client: TestClient) -> None:
    sign_up(client)
    made = create(TestClient(client.app), name="Host")
    bo = join(TestClient(client.app), made["code"], "Bo")
    seats = {"seats": [{"code": made["code"], "seat": bo["seat"], "token": bo["token"]}]}
    token = csrf_of(client, "/account")
    for headers in CROSS:
        got = client.post("/account/seats/held", json=seats, headers={"x-csrf-token": token, **headers})
        assert got.status_code == 403 and "sent from another site" in got.json()["detail"]
    for bad in [{}, {"x-csrf-token": "forged"}, {"x-csrf-token": csrf_of(TestClient(client.app), "/signin")}]:
        got = client.post("/account/seats/held", json=seats, headers=bad)
        assert got.status_code == 403 and "own account page" in got.json()["detail"]
    assert "No tables yet" in client.get("/account").text  # nothing was kept


# ----- names and passwords of any size or character -----

NAMES: list[tuple[bytes, int, str]] = [
    (b"", 422, "not an empty name"),
    (b"%20%20%20", 422, "not an empty name"),
    (b"x" * 25, 422, "not 25 characters"),
    (b"A%00na", 422, "not a control character"),
    (b"A%E2%80%AEna", 422, "U+202E"),  # right-to-left override
    (b"A%E2%80%8Bna", 422, "U+200B"),  # zero-width space
    (b"%ED%A0%80", 400, "not UTF-8 text"),  # a lone surrogate, as UTF-8 would spell it
    (b"%FF%FEAna", 400, "not UTF-8 text"),  # bytes that are no UTF-8
]


@pytest.mark.parametrize(("name", "status", "said"), NAMES, ids=[str(i) for i in range(len(NAMES))])
@pytest.mark.parametrize("path", ["/signup", "/signin"])
def test_a_bad_name_gets_a_clear_error(client: TestClient, path: str, name: bytes, status: int, said: str) -> None:
    body = b"csrf=" + csrf_of(client, path).encode() + b"&password=" + PASSWORD.encode().replace(b" ", b"+")
    got = client.post(path, content=body + b"&name=" + name, headers=FORM, follow_redirects=False)
    assert got.status_code == status and said in error_of(got), got.text[:500]
    if status == 422:
        assert "a name has 1 to 24 letters" in error_of(got).lower()


def test_raw_bytes_that_are_no_utf8_get_a_clear_error(client: TestClient) -> None:
    body = b"csrf=" + csrf_of(client, "/signup").encode() + b"&name=Ana\xff\xfe&password=" + b"\xed\xa0\x80" * 9
    got = client.post("/signup", content=body, headers=FORM, follow_redirects=False)
    assert got.status_code == 400 and "not UTF-8 text" in error_of(got)


def test_names_and_passwords_of_every_alphabet_and_emoji_are_accepted(client: TestClient) -> None:
    for name, password in [
        ("Ана 🎲", "пароль из кириллицы"),
        ("محمد", "كلمة السر طويلة"),  # right to left, as typed: no override character
        ("李小龍", "🎲🎲🎲🎲🎲🎲🎲🎲"),
        ("Zoë", "\x00\x01\x02 nul and controls"),
    ]:
        fresh = TestClient(client.app, client=(f"192.0.2.{len(name)}{len(password)}", 5000))  # not one address's limit
        made = sign_up(fresh, name, password)
        assert made.status_code == 303, (name, made.text[:300])
        again = TestClient(client.app)
        assert post(again, "/signin", {"name": name, "password": password}).status_code == 303


def test_a_password_of_any_size_gets_a_clear_error(client: TestClient) -> None:
    for password, status, said in [
        ("", 422, "not 0"),
        ("seven c", 422, "not 7"),
        ("x" * 257, 422, "not 257"),
        ("🎲" * 257, 422, "not 257"),
        ("x" * 60_000, 422, "not 60,000"),
    ]:
        got = sign_up(TestClient(client.app), "Ana", password)
        assert got.status_code == status and said in error_of(got), got.text[:300]
        assert "a password has 8 to 256 characters, of any kind" in error_of(got).lower()
    ten_mb = b"name=Ana&password=" + b"x" * 10_000_000
    got = client.post("/signup", content=ten_mb, headers=FORM)
    assert got.status_code == 413 and "at most 65,536 bytes" in got.text
    sign_up(client)
    for field in ["password", "new_password"]:  # the account's forms too
        form = {"password": PASSWORD, "new_password": "a new secret", field: "x" * 60_000}
        got = post(client, "/account/password", form, page="/account")
        assert got.status_code in (401, 422) and "password" in error_of(got)
    got = post(client, "/account/delete", {"password": "\x00" * 20_000}, page="/account")  # 60,000 bytes sent
    assert got.status_code == 401 and "not your password" in error_of(got)
    assert client.get("/account").status_code == 200


# ----- a flood of wrong passwords while a game is played -----


def test_a_game_is_played_on_during_a_flood_of_wrong_passwords(client: TestClient) -> None:
    sign_up(client)
    made = create(TestClient(client.app), name="Host")
    attacker = TestClient(client.app, client=("203.0.113.9", 5000))
    token = csrf_of(attacker, "/signin")
    statuses: list[int] = []
    rng = random.Random(1)
    moves = 0
    with connect(client, made["code"], made["token"]) as host:
        host.send(type="fill_bots", level="random")
        host.send(type="start")
        state = host.state(lambda s: s["phase"] != "lobby")
        for i in range(1000):
            got = attacker.post(
                "/signin", data={"csrf": token, "name": "Ana", "password": f"guess {i:04}"}, follow_redirects=False
            )
            statuses.append(got.status_code)
            if i % 50 == 49 and state["result"] is None:  # the host plays on, answered each time
                move = random_move(state, rng)
                if move is None:
                    state = host.state()
                    continue
                moves += 1
                host.send(type="act", action=move, ref=moves)
                reply = host.until(lambda m, r=moves: m["type"] in ("state", "error") and m.get("ref") == r)
                assert reply["type"] == "state", reply
                state = reply["state"]
    assert statuses.count(429) >= 980 and moves >= 1
    friend = TestClient(client.app, client=("198.51.100.7", 5000))
    assert post(friend, "/signin", {"name": "Ana", "password": PASSWORD}).status_code == 303


# ----- nobody acts for another's seat -----


def act_refused(sock: Any, **message: Any) -> str:
    sock.send(**message)
    return str(sock.until(lambda m: m["type"] == "error")["code"])


def test_a_socket_with_a_token_not_the_seat_s_acts_for_nobody(client: TestClient) -> None:
    sign_up(client)
    made = create(client, name="Ana")  # Ana's seat, kept with her account
    code = made["code"]
    other = create(TestClient(client.app), name="Cy")  # a seat at another table
    eve = TestClient(client.app)
    sign_up(eve, "Eve")
    forged: list[Callable[[], str | None]] = [
        lambda: "A" * 32,
        lambda: other["token"],  # a real token, of another table's seat
        lambda: made["token"][:-1] + ("A" if made["token"][-1] != "A" else "B"),
        lambda: None,  # Eve's session cookie alone
    ]
    for token_of in forged:
        token = token_of()
        if token is not None:  # a token that is no seat's here is refused at the hello
            assert role_with(eve, code, token) == ("refused", "not_seated")
            continue
        with connect(eve, code, token) as sock:  # no token: a spectator, who acts for nobody
            assert act_refused(sock, type="start") in ("not_seated", "not_host")
            assert act_refused(sock, type="leave") == "not_seated"
    assert role_with(client, code, made["token"]) == ("player", 0)  # Ana's seat is hers
