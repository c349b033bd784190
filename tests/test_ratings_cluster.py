"""A rated game on two server processes with PostgreSQL and Redis (docs/ratings.md, docs/scaling.md):
the host makes the rated table on one process, the other player signs in and sits through the
other (his seat asked of the process running the table), they play it out, and the game is
rated once, as either process answers."""

from __future__ import annotations

import asyncio
import re

import httpx

from test_server_cluster import cluster, players, start_and_play, urls

__all__ = ["urls"]  # the fixture, shared with tests/test_server_cluster.py


def _signed_up(port: int, name: str) -> httpx.Client:
    client = httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30)
    page = client.get("/signup")
    token = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert token is not None, page.text[:500]
    made = client.post("/signup", data={"csrf": token.group(1), "name": name, "password": "two processes 123"})
    assert made.status_code == 303, made.text[:500]
    return client


def test_a_rated_game_on_two_processes_is_rated_once(urls: tuple[str, str]) -> None:
    database_url, redis_url = urls
    with cluster(database_url, redis_url) as (a, b):
        ann, bo = _signed_up(a.port, "Ann"), _signed_up(b.port, "Bo")
        try:
            made = ann.post("/api/tables", json={"preset": "openspiel", "name": "x", "rated": True}).json()
            code = made["code"]
            refused = httpx.post(f"http://127.0.0.1:{b.port}/api/tables/{code}/join", json={"name": "Gus"})
            assert refused.status_code == 403 and "sign in to sit at a rated table" in refused.json()["detail"]
            joined = bo.post(f"/api/tables/{code}/join", json={"name": "Bobby"}).json()
            assert joined["name"] == "Bo"  # through B, to A, which runs the table
            seats = [{"seat": 0, "token": made["token"], "name": "Ann"}, {**joined}]
            people = players(code, seats, [[a.port], [b.port]], seed=4)
            last = asyncio.run(start_and_play(people))
            game_id = last["game_id"]
            answers = [httpx.get(f"http://127.0.0.1:{n.port}/api/games/{game_id}/ratings").json() for n in (a, b)]
            assert answers[0] == answers[1] and answers[0]["rated"] and not answers[0]["pending"]
            changes = answers[0]["changes"]
            assert [c["name"] for c in changes] == ["Ann", "Bo"] and sorted(c["delta"] > 0 for c in changes) == [
                False,
                True,
            ]
            board = httpx.get(f"http://127.0.0.1:{b.port}/api/leaderboard?family=openspiel").json()
            assert [p["games"] for p in board["players"]] == [1, 1]  # rated once
            assert a.log_problems() == [] and b.log_problems() == []
        finally:
            ann.close()
            bo.close()
