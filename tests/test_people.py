"""People's accounts (docs/accounts.md): storage, hashing, the pages and their forms, CSRF and
cross-site refusals, the cookie's flags, sessions revoked on sign-out and on a password change,
rate limits, and bad input of any size and character."""

from __future__ import annotations

import html
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from liarsdice.server import people
from liarsdice.server.attempts import Attempts
from liarsdice.server.people import AccountRefused, check_password, clean_person_name, hash_password, password_matches
from liarsdice.server.peoplerows import NameTaken, create_person, delete_person, password_hash_of
from liarsdice.server.storage import PersonRow, Store
from test_server import Socket, connect, create, join, serving

PASSWORD = "correct horse battery"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}") as c:
        yield c


def csrf_of(client: TestClient, path: str) -> str:
    page = client.get(path)
    assert page.status_code == 200, page.text
    found = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert found is not None
    return found.group(1)


def post(client: TestClient, path: str, form: dict[str, str], page: str | None = None, **kw: Any) -> Any:
    """Post `form` as the page `page` (default: `path`) would, with its CSRF token."""
    data = {"csrf": csrf_of(client, page or path), **form}
    return client.post(path, data=data, follow_redirects=False, **kw)


def sign_up(client: TestClient, name: str = "Ana", password: str = PASSWORD) -> Any:
    return post(client, "/signup", {"name": name, "password": password})


def error_of(response: Any) -> str:
    found = re.search(r'id="form-error"[^>]*>([^<]*)<', response.text)
    assert found is not None, response.text[:2000]
    return html.unescape(found.group(1))


# ----- rules and hashing -----


def test_a_password_is_kept_only_as_its_argon2id_hash() -> None:
    stored = hash_password(PASSWORD)
    assert stored.startswith("$argon2id$") and PASSWORD not in stored
    assert hash_password(PASSWORD) != stored  # a salt of its own each time
    assert password_matches(stored, PASSWORD)
    assert not password_matches(stored, PASSWORD + "!")
    assert not password_matches(None, PASSWORD)
    assert not password_matches("not a hash", PASSWORD)


def test_names_and_passwords_of_any_size_and_character_get_a_clear_refusal() -> None:
    for bad, said in [("", "not an empty name"), ("x" * 100_000, "not 100,000 characters"), ("a\u202eb", "U+202E")]:
        with pytest.raises(AccountRefused, match="a name has 1 to 24"):
            clean_person_name(bad)
        with pytest.raises(AccountRefused, match=re.escape(said)):
            clean_person_name(bad)
    for bad in ["", "short", "x" * 257, "\U0001f3b2" * 10_000]:
        with pytest.raises(AccountRefused, match="a password has 8 to 256 characters, of any kind"):
            check_password(bad)
    odd = "\x00\ud800 \U0001f3b2\u202e\n\t" + "é" * 20  # any characters at all, a lone surrogate too
    assert password_matches(hash_password(check_password(odd)), odd)


def test_names_are_unique_whatever_their_case_and_a_deleted_name_is_free(database_url: str) -> None:
    store = Store(database_url)  # SQLite and PostgreSQL
    try:
        ana = store.call_sync(lambda s: create_person(s, "Ana", "h1"))
        for same in ["ANA", "ana", "Ａｎａ"]:  # full-width letters too
            with pytest.raises(NameTaken, match="belongs to an account already"):
                store.call_sync(lambda s, same=same: create_person(s, same, "h2"))
        store.call_sync(lambda s: delete_person(s, ana.id))
        assert store.call_sync(lambda s: password_hash_of(s, "Ana")) == (None, None)
        row = store.call_sync(lambda s: s.get(PersonRow, ana.id))
        assert row is not None and row.name == "deleted player" and row.password_hash is None
        again = store.call_sync(lambda s: create_person(s, "ana", "h3"))
        assert again.id != ana.id
    finally:
        store.close()


def test_attempts_wait_longer_then_refuse_then_forget() -> None:
    a = Attempts(free=2, most=4, window=100.0, base=1.0)
    for _ in range(2):
        assert a.wait("x", 0.0) == 0.0
        a.note("x", 0.0)
    assert a.wait("x", 0.0) == 1.0  # the third try waits 1 s after the last
    a.note("x", 1.0)
    assert a.wait("x", 1.0) == 2.0  # the fourth waits 2 s
    a.note("x", 3.0)
    assert a.wait("x", 3.0) == pytest.approx(97.0)  # four tries: none until the first leaves the window
    assert a.wait("y", 3.0) == 0.0  # another key is not held
    assert a.wait("x", 100.5) == 0.0 and len(a.tries["x"]) == 2  # the first two left the window
    assert a.wait("x", 1000.0) == 0.0 and "x" not in a.tries


# ----- the pages -----


def test_sign_up_sign_out_sign_in_with_the_cookie_flags(client: TestClient) -> None:
    made = sign_up(client)
    assert made.status_code == 303 and made.headers["location"] == "/account"
    cookie = made.headers["set-cookie"]
    assert "ld_session=" in cookie and "HttpOnly" in cookie and "SameSite=lax" in cookie and "Path=/" in cookie
    assert "Secure" not in cookie  # plain http: a Secure cookie would never come back
    account = client.get("/account")
    assert account.status_code == 200 and ">Ana</h1>" in account.text
    home = client.get("/")
    assert 'class="account-link" href="/players/Ana">Ana</a>' in home.text  # the name: the profile's link
    out = post(client, "/signout", {}, page="/account")
    assert out.status_code == 303
    assert client.get("/account", follow_redirects=False).headers["location"] == "/signin"
    assert 'class="account-link" href="/signin">Sign in</a>' in client.get("/").text
    back = post(client, "/signin", {"name": "ANA", "password": PASSWORD})
    assert back.status_code == 303 and ">Ana</h1>" in client.get("/account").text


def test_the_cookie_is_secure_over_https(tmp_path: Path) -> None:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}") as plain:
        client = TestClient(plain.app, base_url="https://testserver")
        made = sign_up(client)
        assert made.status_code == 303 and "Secure" in made.headers["set-cookie"]


def test_wrong_and_bad_sign_ins_say_what_was_wrong(client: TestClient) -> None:
    sign_up(client)
    client.cookies.clear()
    wrong = post(client, "/signin", {"name": "Ana", "password": "not the password"})
    assert wrong.status_code == 401 and "No account has this name and password" in error_of(wrong)
    nobody = post(client, "/signin", {"name": "Nobody", "password": PASSWORD})
    assert nobody.status_code == 401 and error_of(nobody) == error_of(wrong)  # no hint who exists
    for form, said in [
        ({"name": "x" * 60_000, "password": PASSWORD}, "A name has 1 to 24"),
        ({"name": "Ana", "password": "p" * 60_000}, "A password has 8 to 256 characters"),
        ({"name": "\x00\x01", "password": PASSWORD}, "not a control character"),
        ({"name": "Ana"}, "A password has 8 to 256"),
    ]:
        got = post(client, "/signin", form)
        assert got.status_code == 422 and said in error_of(got), (form.keys(), got.text[:300])
        assert "Traceback" not in got.text


def test_sign_up_refuses_a_taken_name_and_bad_input_clearly(client: TestClient) -> None:
    assert sign_up(client).status_code == 303
    client.cookies.clear()
    taken = sign_up(client, "aNa")
    assert taken.status_code == 409 and "belongs to an account already" in error_of(taken)
    short = sign_up(client, "Bea", "short")
    assert short.status_code == 422 and "A password has 8 to 256 characters, of any kind, not 5" in error_of(short)
    odd = sign_up(client, "Bea", "\U0001f3b2 é ü \u202e \t dice")  # any characters in a password
    assert odd.status_code == 303
    huge = client.post(
        "/signup", content=b"name=" + b"x" * 200_000, headers={"content-type": "application/x-www-form-urlencoded"}
    )
    assert huge.status_code == 413 and "at most 65,536 bytes" in huge.text


def test_a_cross_site_post_or_one_without_the_token_is_refused(client: TestClient) -> None:
    token = csrf_of(client, "/signup")
    form = {"csrf": token, "name": "Eve", "password": PASSWORD}
    for headers in [{"origin": "https://evil.example"}, {"sec-fetch-site": "cross-site"}, {"origin": "null"}]:
        got = client.post("/signup", data=form, headers=headers, follow_redirects=False)
        assert got.status_code == 403 and "sent from another site" in error_of(got)
    for bad in [{**form, "csrf": "forged"}, {k: v for k, v in form.items() if k != "csrf"}]:
        got = client.post("/signup", data=bad, follow_redirects=False)
        assert got.status_code == 403 and "not sent from this browser's own page" in error_of(got)
    # signed in: a token of this session's, which a guest's token is not
    assert client.post("/signup", data=form, follow_redirects=False).status_code == 303
    refused = client.post("/signout", data={"csrf": token}, follow_redirects=False)
    assert refused.status_code == 403
    assert client.get("/account").status_code == 200  # still signed in
    as_json = client.post("/account/delete", json={"password": PASSWORD}, follow_redirects=False)
    assert as_json.status_code == 415


def stolen_cookie(client: TestClient) -> str:
    value = client.cookies.get("ld_session")
    assert value
    return value


def test_a_stolen_cookie_dies_on_sign_out(client: TestClient) -> None:
    sign_up(client)
    stolen = stolen_cookie(client)
    thief = TestClient(client.app)
    thief.cookies.set("ld_session", stolen)
    assert thief.get("/account").status_code == 200
    post(client, "/signout", {}, page="/account")
    assert thief.get("/account", follow_redirects=False).status_code == 303


def test_a_stolen_cookie_dies_on_a_password_change_and_the_new_one_works(client: TestClient) -> None:
    sign_up(client)
    stolen = stolen_cookie(client)
    other_device = TestClient(client.app)
    assert post(other_device, "/signin", {"name": "Ana", "password": PASSWORD}).status_code == 303
    wrong = post(
        client, "/account/password", {"password": "not mine!", "new_password": "a new secret"}, page="/account"
    )
    assert wrong.status_code == 401 and "not your password" in error_of(wrong)
    bad = post(client, "/account/password", {"password": PASSWORD, "new_password": "x"}, page="/account")
    assert bad.status_code == 422 and "The new password: a password has 8 to 256" in error_of(bad)
    changed = post(client, "/account/password", {"password": PASSWORD, "new_password": "a new secret"}, page="/account")
    assert changed.status_code == 303 and stolen_cookie(client) != stolen
    assert "Your password is changed" in client.get(changed.headers["location"]).text
    thief = TestClient(client.app)
    thief.cookies.set("ld_session", stolen)
    assert thief.get("/account", follow_redirects=False).status_code == 303
    assert other_device.get("/account", follow_redirects=False).status_code == 303
    client.cookies.clear()
    assert post(client, "/signin", {"name": "Ana", "password": PASSWORD}).status_code == 401
    assert post(client, "/signin", {"name": "Ana", "password": "a new secret"}).status_code == 303


def test_deleting_an_account_asks_the_password_and_frees_the_name(client: TestClient) -> None:
    sign_up(client)
    create(client, name="Ana")
    stolen = stolen_cookie(client)
    kept = post(client, "/account/delete", {"password": "not mine!"}, page="/account")
    assert kept.status_code == 401
    gone = post(client, "/account/delete", {"password": PASSWORD}, page="/account")
    assert gone.status_code == 303
    thief = TestClient(client.app)
    thief.cookies.set("ld_session", stolen)
    assert thief.get("/account", follow_redirects=False).status_code == 303
    assert post(client, "/signin", {"name": "Ana", "password": PASSWORD}).status_code == 401
    assert sign_up(client, "Ana", "another one!").status_code == 303
    assert "No tables yet" in client.get("/account").text  # the new Ana has none of the old one's seats


def test_a_thousand_wrong_passwords_from_one_address_are_refused_not_another_address(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    sign_up(client)
    attacker = TestClient(client.app, client=("203.0.113.9", 5000))
    token = csrf_of(attacker, "/signin")
    statuses: list[int] = []
    hashes: list[int] = []
    original = people.password_matches

    def counted(stored: str | None, password: str) -> bool:
        hashes.append(1)
        return original(stored, password)

    monkeypatch.setattr(people, "password_matches", counted)
    for i in range(1000):
        got = attacker.post(
            "/signin", data={"csrf": token, "name": "Ana", "password": f"guess {i:04}"}, follow_redirects=False
        )
        statuses.append(got.status_code)
        if got.status_code == 429:
            assert int(got.headers["retry-after"]) >= 1
            assert "Too many tries to sign in from your address: try again in" in error_of(got)
    # Five tries freely, then waits of 1, 2, 4... seconds between tries (how many of those a
    # loop meets depends on the machine's speed), and never more than 20 in the window.
    assert statuses[:5] == [401] * 5
    assert statuses.count(401) <= 20 and statuses.count(429) >= 980
    assert len(hashes) == statuses.count(401)  # a refused try hashes nothing
    friend = TestClient(client.app, client=("198.51.100.7", 5000))
    assert post(friend, "/signin", {"name": "Ana", "password": PASSWORD}).status_code == 303
    assert friend.post("/api/tables", json={"preset": "perudo", "name": "Bo"}).status_code == 200  # play goes on


def test_sign_ups_from_one_address_are_limited(client: TestClient) -> None:
    got = []
    for i in range(12):
        client.cookies.clear()
        got.append(sign_up(client, f"Player {i}").status_code)
    assert got[:3] == [303] * 3 and got[-1] == 429


def test_hashing_runs_off_the_event_loop(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    threads: list[str] = []
    original_hash, original_match = people.hash_password, people.password_matches

    def hash_in(password: str) -> str:
        threads.append(threading.current_thread().name)
        return original_hash(password)

    def match_in(stored: str | None, password: str) -> bool:
        threads.append(threading.current_thread().name)
        return original_match(stored, password)

    monkeypatch.setattr(people, "hash_password", hash_in)
    monkeypatch.setattr(people, "password_matches", match_in)
    sign_up(client)
    post(client, "/signout", {}, page="/account")
    post(client, "/signin", {"name": "Ana", "password": PASSWORD})
    loop_thread = client.portal.call(lambda: threading.current_thread().name)  # type: ignore[union-attr]
    assert len(threads) == 2 and loop_thread not in threads


def test_guests_play_as_before_with_no_cookie_set(client: TestClient) -> None:
    made = client.post("/api/tables", json={"preset": "perudo", "name": "Guest"})
    assert made.status_code == 200 and "set-cookie" not in made.headers
    home = client.get("/")
    assert "set-cookie" not in home.headers and 'href="/signin">Sign in</a>' in home.text


# ----- seats kept with the account -----


def taken_token(response: Any) -> str:
    found = re.search(r'data-token="([^"]+)"', response.text)
    assert found is not None, response.text[:2000]
    return found.group(1)


def role_with(client: TestClient, code: str, token: str) -> tuple[str, Any]:
    """What a table says to a device saying hello with `token`: its role and seat, or its refusal."""
    with client.websocket_connect(f"/ws/{code}") as session:
        sock = Socket(session)
        sock.send(type="hello", token=token)
        first = sock.until(lambda m: m["type"] in ("welcome", "error"))
        return (first["role"], first["seat"]) if first["type"] == "welcome" else ("refused", first["code"])


def test_a_signed_in_player_takes_their_seat_back_on_a_second_device(client: TestClient) -> None:
    sign_up(client)
    made = create(client, name="Ana")  # the signed-in host's seat is kept with the account
    code, first_token = made["code"], made["token"]
    guest = TestClient(client.app)
    joined = join(guest, code, "Bo")  # a guest's seat: nobody's account
    listed = client.get("/account").text
    assert f"table {code}</a>, seat 1" in listed and "seat 2" not in listed

    phone = TestClient(client.app)
    assert post(phone, "/signin", {"name": "Ana", "password": PASSWORD}).status_code == 303
    assert f"table {code}</a>, seat 1" in phone.get("/account").text  # found on the second device
    taken = post(phone, "/account/seat", {"code": code, "seat": "0"}, page="/account")
    assert taken.status_code == 200 and "Your seat at table" in taken.text
    new_token = taken_token(taken)
    assert role_with(phone, code, new_token) == ("player", 0)
    assert role_with(client, code, first_token)[0] != "player"  # the old device's token is spent
    assert role_with(guest, code, joined["token"]) == ("player", 1)  # nobody else's seat changed


def test_no_account_can_take_another_s_seat(client: TestClient) -> None:
    sign_up(client)
    made = create(client, name="Ana")
    code = made["code"]
    eve = TestClient(client.app)
    assert sign_up(eve, "Eve").status_code == 303
    for seat in ["0", "1", "-1", "x" * 5000, "\x00"]:
        refused = post(eve, "/account/seat", {"code": code, "seat": seat}, page="/account")
        assert refused.status_code == 403 and "not one you took while signed in" in error_of(refused)
    assert role_with(client, code, made["token"]) == ("player", 0)  # Ana's seat is still Ana's
    forged = eve.post("/account/seat", data={"code": code, "seat": "0", "csrf": "x"}, follow_redirects=False)
    assert forged.status_code == 403


def test_a_seat_taken_by_someone_else_since_is_not_handed_over(tmp_path: Path) -> None:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}") as host:
        made = create(host, name="Host")
        code = made["code"]
        ana = TestClient(host.app)
        sign_up(ana)
        joined = join(ana, code, "Ana")
        with connect(ana, code, joined["token"]) as sock:
            sock.send(type="leave")
            sock.until(lambda m: m["type"] == "welcome" and m["role"] == "spectator")
        other = join(TestClient(host.app), code, "Bo")
        assert other["seat"] == joined["seat"]  # Bo sits where Ana sat
        refused = post(ana, "/account/seat", {"code": code, "seat": str(joined["seat"])}, page="/account")
        assert refused.status_code == 409 and "not yours any more" in error_of(refused)
        assert role_with(host, code, other["token"]) == ("player", joined["seat"])
