"""The site lobby's API (routes/lobby.py): Play now seeks paired into a table whose seats are the
seekers' own tokens, the game starting by itself, everyone's rematch, bots after the wait,
cancelling, the lists and the count online; and the atomic claim that never seats a seeker twice."""

from __future__ import annotations

import asyncio
import random
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import select, update

from liarsdice.server.seekrows import KEPT_FOR, Taken, add_seeker, claim_seekers, forget_old_seekers, waiting_seekers
from liarsdice.server.storage import SeekerRow, Store, utcnow
from liarsdice.server.wsplayer import random_move
from test_people import sign_up
from test_server import Socket, connect, serving


def seek(client: TestClient, **body: Any) -> dict[str, Any]:
    r = client.post("/api/lobby/seek", json=body)
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def news_until(client: TestClient, token: str, status: str, limit: float = 20.0) -> dict[str, Any]:
    end = time.monotonic() + limit
    while True:
        r = client.post("/api/lobby/seek/news", json={"token": token})
        assert r.status_code == 200, r.text
        news: dict[str, Any] = r.json()
        if news["status"] == status:
            return news
        assert time.monotonic() < end, news
        time.sleep(0.05)


def test_two_seekers_are_seated_at_one_table_that_starts_by_itself(tmp_path: Path) -> None:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}") as client:
        ann = seek(client, preset="openspiel", seats=2, wait=60, name="Ann")
        bob = seek(client, preset="any", seats=2, wait=60, name="Ann")  # the same name: made unique
        a = news_until(client, ann["token"], "seated")
        b = news_until(client, bob["token"], "seated")
        assert a["code"] == b["code"] and {a["seat"], b["seat"]} == {0, 1}
        code = a["code"]
        table = client.get(f"/api/tables/{code}").json()
        assert table["preset"] == "openspiel" and table["host_seat"] == -1
        assert sorted(s["name"] for s in table["seats"]) == ["Ann", "Ann (2)"]
        assert client.get("/api/lobby").json()["open"] == []  # not a table to join: every seat is taken
        with connect(client, code, ann["token"]) as sa, connect(client, code, bob["token"]) as sb:
            # Each seeker's token is its seat's: both are players, and nobody is the host.
            welcome_a = next(m for m in sa.seen if m["type"] == "welcome")
            assert welcome_a["role"] == "player" and welcome_a["host"] is False
            # The game started by itself once both were at the table.
            states = [sa.state(), sb.state()]
            lobby = client.get("/api/lobby").json()
            assert [g["code"] for g in lobby["playing"]] == [code]
            assert lobby["playing"][0]["watch"] == f"/t/{code}?watch" and lobby["online"] >= 2
            _play_both([sa, sb], states)
            first = client.get(f"/api/tables/{code}").json()["game_id"]
            # Rematch: the first asks (everyone sees who), the new game waits for the second.
            sa.send(type="rematch")
            asked = sb.until(lambda m: m["type"] == "table" and m["table"]["rematch_asked"] != [])
            assert asked["table"]["rematch_asked"] == [a["seat"]] and asked["table"]["status"] == "finished"
            sb.send(type="rematch")
            again = sa.state(lambda s: s["game_id"] != first)
            assert again["game_id"] > first


def _play_both(socks: list[Socket], states: list[dict[str, Any]]) -> None:
    """Play a one-die duel to the end from both seats: whoever's turn it is moves, and the
    other reads the state that move brought."""
    rng = random.Random(5)
    ref = 0
    while states[0]["result"] is None:
        for i, sock in enumerate(socks):
            move = random_move(states[i], rng)
            if move is None:
                continue
            ref += 1
            sock.send(type="act", action=move, ref=ref)
            reply = sock.until(lambda m, r=ref: m["type"] in ("state", "error") and m.get("ref") == r)
            assert reply["type"] == "state", reply
            states[i] = reply["state"]
            states[1 - i] = socks[1 - i].state(lambda st, n=states[i]["version"]: st["version"] == n)
            break
    assert states[1]["result"] is not None


def test_a_seeker_alone_gets_bots_of_its_level_after_its_wait_and_can_cancel(tmp_path: Path) -> None:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}") as client:
        gone = seek(client, preset="perudo", seats=3, wait=15, name="Cy")
        assert client.post("/api/lobby/seek/cancel", json={"token": gone["token"]}).json() == {"status": "cancelled"}
        assert news_until(client, gone["token"], "cancelled")["code"] is None
        assert client.post("/api/lobby/seek/cancel", json={"token": "nobody"}).status_code == 404
        lone = seek(client, preset="perudo", seats=3, wait=15, level="casual", name="Di")
        assert client.get("/api/lobby").json()["seeking"] == 1
        seated = news_until(client, lone["token"], "seated", limit=30)
        assert seated["waited"] >= 15
        table = client.get(f"/api/tables/{seated['code']}").json()
        assert [(s["name"], s["kind"], s["bot_level"]) for s in table["seats"]] == [
            ("Di", "human", None),
            ("Bot 1", "bot", "casual"),
            ("Bot 2", "bot", "casual"),
        ]
        with connect(client, seated["code"], lone["token"]) as sock:
            assert sock.state()["game_id"] is not None


def test_bad_seeks_are_refused_saying_what_is_allowed(tmp_path: Path) -> None:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}") as client:
        cases = [
            ({"preset": "nope", "name": "A"}, "unknown preset"),
            ({"seats": 9, "name": "A"}, "2 to 6"),
            ({"wait": 7, "name": "A"}, "15, 30, 60, 120, 300"),
            ({"level": "godlike", "name": "A"}, "beginner, casual, skilled, expert, master"),
            ({"rated": True, "name": "A"}, "signed-in players"),
            ({"name": ""}, "a name has 1 to"),
            ({"name": "x" * 60_000}, "not 60,000 characters"),
            ({"name": 12}, "name is a number (12), not text"),
            ({"seats": "two", "name": "A"}, "seats"),
            ({}, "a name has 1 to"),
        ]
        for body, said in cases:
            r = client.post("/api/lobby/seek", json={"preset": "perudo", **body})
            assert r.status_code == 422 and said in r.text, (body, r.text)
        assert client.post("/api/lobby/seek/news", json={"token": "x" * 500}).status_code == 422


def test_a_seeker_is_claimed_once_whoever_claims_first(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    try:
        fields = {"person_id": None, "seats": 2, "wait_seconds": 30, "level": "duel", "rated": False, "rating": 1500}
        ids = [
            store.call_sync(lambda s, i=i: add_seeker(s, token_hash=f"{i:064d}", name=f"P{i}", preset=None, **fields))
            for i in range(3)
        ]

        async def both() -> list[Any]:
            return await asyncio.gather(
                store.call(lambda s: claim_seekers(s, ids[:2], "one")),
                store.call(lambda s: claim_seekers(s, ids[1:], "two")),
                return_exceptions=True,
            )

        first, second = asyncio.run(both())
        assert first is None and isinstance(second, Taken)
        # The failed claim took nothing: the third still waits, the first two do not.
        assert [s.id for s, _, _ in store.call_sync(waiting_seekers)] == [ids[2]]
    finally:
        store.close()


def test_an_account_plays_under_its_name_may_seek_rated_and_its_seat_is_kept(tmp_path: Path) -> None:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}") as client:
        assert sign_up(client, "Ana").status_code == 303
        rated = seek(client, preset="perudo", seats=2, wait=60, rated=True, name="Zed")
        assert rated["name"] == "Ana" and rated["rated"] is True  # an account plays as itself
        client.post("/api/lobby/seek/cancel", json={"token": rated["token"]})
        ana = seek(client, preset="perudo", seats=2, wait=60)
        cookies = dict(client.cookies)
        client.cookies.clear()  # a guest, in another browser
        guest = seek(client, preset="perudo", seats=2, wait=60, name="Gus")
        at = news_until(client, guest["token"], "seated")
        client.cookies.update(cookies)
        mine = news_until(client, ana["token"], "seated")
        assert mine["code"] == at["code"] and mine["name"] == "Ana"
        # The account's page, on any device, lists the seat with "Take my seat here".
        account = client.get("/account").text
        assert mine["code"] in account and "Take my seat here" in account


def test_a_claim_whose_process_died_lets_its_seekers_wait_again(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    try:
        fields = {"person_id": None, "seats": 2, "wait_seconds": 30, "level": "duel", "rated": False, "rating": 1500}
        ids = [
            store.call_sync(lambda s, i=i: add_seeker(s, token_hash=f"{i:064d}", name=f"P{i}", preset=None, **fields))
            for i in range(2)
        ]
        store.call_sync(lambda s: claim_seekers(s, ids, "a process that dies now"))
        assert store.call_sync(waiting_seekers) == []  # claimed: nobody else pairs them
        long_ago = utcnow() - timedelta(seconds=60)
        store.call_sync(lambda s: s.execute(update(SeekerRow).values(seen_at=long_ago)))
        assert [s.id for s, _, _ in store.call_sync(waiting_seekers)] == ids
    finally:
        store.close()


def test_seekers_done_with_are_forgotten_after_an_hour_and_waiting_ones_never(tmp_path: Path) -> None:
    store = Store(f"sqlite:///{tmp_path / 'db.sqlite3'}")
    try:
        fields = {"person_id": None, "seats": 2, "wait_seconds": 30, "level": "duel", "rated": False, "rating": 1500}
        ids = [
            store.call_sync(lambda s, i=i: add_seeker(s, token_hash=f"{i:064d}", name=f"P{i}", preset=None, **fields))
            for i in range(5)
        ]
        old = utcnow() - KEPT_FOR - timedelta(minutes=1)
        lately = utcnow() - KEPT_FOR + timedelta(minutes=5)
        # seated long ago, cancelled long ago, gone long ago, cancelled lately, still waiting (its page asks)
        for seeker, status, seen in zip(
            ids, ["seated", "cancelled", "gone", "cancelled", "waiting"], [old, old, old, lately, old], strict=True
        ):
            store.call_sync(
                lambda s, i=seeker, st=status, at=seen: s.execute(
                    update(SeekerRow).where(SeekerRow.id == i).values(status=st, seen_at=at)
                )
            )
        assert store.call_sync(forget_old_seekers) == 3
        left = store.call_sync(lambda s: list(s.scalars(select(SeekerRow.id).order_by(SeekerRow.id))))
        assert left == ids[3:]
        assert store.call_sync(forget_old_seekers) == 0
    finally:
        store.close()
