"""The lobby on two processes (`liarsdice serve` on one PostgreSQL and one Redis): a seeker at
each process is paired with the other, both are seated at one table (each by its own process),
the game starts by itself, and each process's lobby lists it and counts both people online;
many seekers at once on both processes are each seated exactly once."""

from __future__ import annotations

import time
from contextlib import ExitStack
from typing import Any

from test_server_cluster import cluster, urls
from test_server_restart import get, hello, next_view, post

__all__ = ["urls"]


def seated(port: int, token: str, limit: float = 20.0) -> dict[str, Any]:
    end = time.monotonic() + limit
    while True:
        news = post(port, "/api/lobby/seek/news", {"token": token})
        if news["status"] == "seated":
            return news
        assert news["status"] == "waiting" and time.monotonic() < end, news
        time.sleep(0.1)


def test_a_seeker_on_each_process_is_paired_and_plays(urls: tuple[str, str]) -> None:
    database_url, redis_url = urls
    with cluster(database_url, redis_url) as (a, b):
        ann = post(a.port, "/api/lobby/seek", {"preset": "openspiel", "seats": 2, "wait": 60, "name": "Ann"})
        bob = post(b.port, "/api/lobby/seek", {"preset": "any", "seats": 2, "wait": 60, "name": "Bob"})
        at_a, at_b = seated(a.port, ann["token"]), seated(b.port, bob["token"])
        assert at_a["code"] == at_b["code"] and {at_a["seat"], at_b["seat"]} == {0, 1}
        code = at_a["code"]
        with hello(a.port, code, ann["token"]) as (ws_a, _), hello(b.port, code, bob["token"]) as (ws_b, _):
            view_a, view_b = next_view(ws_a), next_view(ws_b)  # started by itself, on whichever process runs it
            assert view_a["game_id"] == view_b["game_id"] and view_a["seats"] == view_b["seats"]
            assert sorted(view_a["seats"]) == ["Ann", "Bob"]
            end = time.monotonic() + 10
            while True:  # every process lists the game, and counts both sockets (one each)
                lobbies = [get(node.port, "/api/lobby") for node in (a, b)]
                if all(lb["online"] >= 2 and [g["code"] for g in lb["playing"]] == [code] for lb in lobbies):
                    break
                assert time.monotonic() < end, lobbies
                time.sleep(0.2)
        assert not a.log_problems() and not b.log_problems(), (a.lines[-20:], b.lines[-20:])


def test_many_seekers_on_both_processes_are_each_seated_once(urls: tuple[str, str]) -> None:
    database_url, redis_url = urls
    with cluster(database_url, redis_url) as (a, b):
        seeks = []
        for i in range(8):  # all at once: both processes pair, and claim, the same seekers
            node = (a, b)[i % 2]
            body = {"preset": "any", "seats": 2, "wait": 60, "name": f"P{i}"}
            seeks.append((node, post(node.port, "/api/lobby/seek", body)))
        places = [seated(node.port, s["token"]) for node, s in seeks]
        assert len({(p["code"], p["seat"]) for p in places}) == 8  # nobody shares a seat
        tables: dict[str, list[str]] = {}
        for p in places:
            tables.setdefault(p["code"], []).append(p["name"])
        assert sorted(len(names) for names in tables.values()) == [2, 2, 2, 2]
        with ExitStack() as stack:  # each seeker's token is its seat's, whichever process asks
            for (node, s), p in zip(seeks, places, strict=True):
                other = b if node is a else a
                stack.enter_context(hello(other.port, p["code"], s["token"]))
        assert not a.log_problems() and not b.log_problems(), (a.lines[-20:], b.lines[-20:])
