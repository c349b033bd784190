"""Accounts on two `liarsdice serve` processes sharing one PostgreSQL and one Redis
(docs/accounts.md, "For operators"), seen from outside as a browser behind a balancer
sees them: its cookies go to whichever process answers.

Sign up on A, sign in on B; a stolen cookie dies at B when its owner signs out at A, and when
the password changes; the sign-in limits count the tries made at A and at B together; "Take my
seat here" at B hands over a seat at a table run by A; a guest who joined at A and signs up at
B finds the table under "Your tables"."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import httpx
import pytest
import redis
from websockets.sync.client import connect

from test_server_cluster import Node, cluster, urls

__all__ = ["urls"]  # the fixture, shared with tests/test_server_cluster.py

PASSWORD = "correct horse battery"
WRONG = "not the password"


def at(node: Node, path: str) -> str:
    return f"http://127.0.0.1:{node.port}{path}"


def browser() -> httpx.Client:
    """A browser: its cookies (bound to the host, not the port) go to both processes."""
    return httpx.Client(follow_redirects=False, timeout=30)


def csrf(client: httpx.Client, node: Node, path: str) -> str:
    page = client.get(at(node, path))
    assert page.status_code == 200, page.text[:500]
    found = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert found is not None
    return found.group(1)


def send(client: httpx.Client, node: Node, path: str, form: dict[str, str], page: str | None = None) -> Any:
    """Post `form` to `node` as its page `page` (default: `path`) would, with its CSRF token."""
    return client.post(at(node, path), data={"csrf": csrf(client, node, page or path), **form})


def signed_in(client: httpx.Client, node: Node) -> bool:
    got = client.get(at(node, "/account"))
    assert got.status_code in (200, 303), got.text[:500]
    return got.status_code == 200


def thief_with(client: httpx.Client) -> httpx.Client:
    thief = browser()
    stolen = client.cookies.get("ld_session")
    assert stolen
    thief.cookies.set("ld_session", stolen)
    return thief


def role(node: Node, code: str, token: str) -> tuple[str, Any]:
    """What the table says to a socket at `node` saying hello with `token`."""
    with connect(f"ws://127.0.0.1:{node.port}/ws/{code}", open_timeout=10) as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        while True:
            m = json.loads(ws.recv(timeout=15))
            if m["type"] == "welcome":
                return m["role"], m["seat"]
            if m["type"] == "error":
                return "refused", m["code"]


def listed(client: httpx.Client, node: Node) -> list[tuple[str, int]]:
    page = client.get(at(node, "/account")).text
    return [(code, int(seat) - 1) for code, seat in re.findall(r"table (\w+)</a>, seat (\d+)", page)]


def forget_tries(redis_url: str) -> None:
    """The session's Redis holds the tries earlier tests made from this address: a test starts
    with none (each makes at most the three sign-ups an address makes freely)."""
    with redis.Redis.from_url(redis_url, decode_responses=True) as store:
        for key in store.scan_iter("liarsdice:tries:*"):
            store.delete(key)


@pytest.mark.timeout(300)
def test_sessions_are_one_across_processes_and_die_everywhere(urls: tuple[str, str]) -> None:
    forget_tries(urls[1])
    with cluster(*urls) as (a, b):
        ana = browser()
        assert send(ana, a, "/signup", {"name": "Ana", "password": PASSWORD}).status_code == 303
        assert signed_in(ana, b)  # made at A, known at B
        phone = browser()
        assert send(phone, b, "/signin", {"name": "ana", "password": PASSWORD}).status_code == 303
        assert signed_in(phone, a)

        thief = thief_with(ana)
        assert signed_in(thief, b)
        assert send(ana, a, "/signout", {}, page="/account").status_code == 303
        assert not signed_in(thief, b) and not signed_in(thief, a)  # signed out at A: dead at B too
        assert signed_in(phone, b)  # the other device stays

        thief = thief_with(phone)
        changed = send(phone, b, "/account/password", {"password": PASSWORD, "new_password": "a new one!"}, "/account")
        assert changed.status_code == 303
        assert signed_in(phone, a)  # the device that changed it holds a fresh session
        assert not signed_in(thief, a) and not signed_in(thief, b)
        again = browser()
        assert send(again, a, "/signin", {"name": "Ana", "password": PASSWORD}).status_code == 401
        assert send(again, b, "/signin", {"name": "Ana", "password": "a new one!"}).status_code == 303


@pytest.mark.timeout(300)
def test_the_sign_in_limits_count_the_tries_at_both_processes(urls: tuple[str, str]) -> None:
    database_url, redis_url = urls
    store = redis.Redis.from_url(redis_url, decode_responses=True)
    key = "liarsdice:tries:signin-address:127.0.0.1"
    forget_tries(redis_url)
    with cluster(database_url, redis_url) as (a, b):
        ana = browser()
        assert send(ana, a, "/signup", {"name": "Ana", "password": PASSWORD}).status_code == 303
        attacker = browser()
        statuses = [
            send(attacker, node, "/signin", {"name": "Ana", "password": WRONG}).status_code for node in [a, b] * 3
        ]
        last = time.monotonic()
        # Five tries freely, three at A and two at B; the sixth, at B, comes before the
        # second the fifth earned (unless this machine took that long to ask).
        assert statuses[:5] == [401] * 5
        assert statuses[5] == 429 or time.monotonic() - last > 1.0
        assert store.zcard(key) == 5  # one count for both processes
        refused = send(attacker, a, "/signin", {"name": "Ana", "password": PASSWORD})
        if refused.status_code == 429:
            assert "Too many tries to sign in from your address" in refused.text
            assert int(refused.headers["retry-after"]) >= 1
    store.close()


@pytest.mark.timeout(300)
def test_take_my_seat_at_b_for_a_table_run_by_a_and_a_guest_s_seat_kept(urls: tuple[str, str]) -> None:
    forget_tries(urls[1])
    with cluster(*urls) as (a, b):
        laptop = browser()
        assert send(laptop, a, "/signup", {"name": "Dario", "password": PASSWORD}).status_code == 303
        made = laptop.post(at(a, "/api/tables"), json={"preset": "perudo", "name": "Dario"}).json()
        code = made["code"]  # run by A: the seat is kept with the account
        assert role(a, code, made["token"]) == ("player", 0)

        phone = browser()
        assert send(phone, b, "/signin", {"name": "dario", "password": PASSWORD}).status_code == 303
        assert listed(phone, b) == [(code, 0)]
        eve = browser()
        assert send(eve, b, "/signup", {"name": "Eve", "password": PASSWORD}).status_code == 303
        forged = send(eve, b, "/account/seat", {"code": code, "seat": "0"}, page="/account")
        assert forged.status_code == 403  # Eve never took it
        taken = send(phone, b, "/account/seat", {"code": code, "seat": "0"}, page="/account")
        assert taken.status_code == 200, taken.text[:500]
        token = re.search(r'data-token="([^"]+)"', taken.text)
        assert token is not None
        assert role(b, code, token.group(1)) == ("player", 0)
        assert role(a, code, token.group(1)) == ("player", 0)
        assert role(a, code, made["token"]) == ("refused", "not_seated")  # the laptop's token is spent

        guest = browser()
        joined = guest.post(at(a, f"/api/tables/{code}/join"), json={"name": "Lia"}).json()
        assert send(guest, b, "/signup", {"name": "Lia", "password": PASSWORD}).status_code == 303
        assert listed(guest, b) == []
        held = [{"code": code, "seat": joined["seat"], "token": joined["token"]}]
        headers = {"x-csrf-token": csrf(guest, b, "/account")}
        offered = guest.post(at(b, "/account/seats/held"), json={"seats": held}, headers=headers)
        assert offered.json() == {"added": 1, "offered": 1}
        assert listed(guest, a) == [(code, joined["seat"])]
        assert role(b, code, joined["token"]) == ("player", joined["seat"])
        problems = [line for node in (a, b) for line in node.log_problems()]
        assert not problems, problems
