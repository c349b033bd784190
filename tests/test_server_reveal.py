"""The server side of the reveal and of the table's people: the pause before the next round, the
`seen` message, the moves of the round that ended, `auto` given back, and spectators' names.

`red-dead` passes the opening counter-clockwise, so with seats Ann, Bo and a bot and Ann opening
round 1, the bot opens round 2 and Bo round 3 whoever loses: the tests know who acts next.
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from test_server import Message, Socket, connect, create, join, serving

RED_DEAD = {"num_players": 3, "first_starter": 0}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}") as c:
        yield c


def lowest_bid(state: Message) -> list[Any]:
    face, low, _ = min(state["legal"]["bids"], key=lambda b: (b[1], b[0]))
    return ["bid", low, face]


def act(sock: Socket, action: list[Any], ref: int) -> Message:
    sock.send(type="act", action=action, ref=ref)
    reply = sock.until(lambda m: m["type"] in ("state", "error") and m.get("ref") == ref)
    assert reply["type"] == "state", reply
    return reply["state"]  # type: ignore[no-any-return]


def view_at(sock: Socket, version: int) -> Message:
    """The last state of `version` this socket was sent (waiting for it if need be)."""
    for m in reversed(sock.seen):
        if m["type"] == "state" and m["state"] is not None and m["state"]["version"] == version:
            return m["state"]  # type: ignore[no-any-return]
    return sock.state(lambda s: s["version"] == version)


def quiet(sock: Socket, seconds: float) -> list[Message]:
    """Wait, then every message that came meanwhile (a ping is answered after them)."""
    time.sleep(seconds)
    start = len(sock.seen)
    sock.sync()
    return sock.seen[start:-1]


def test_the_next_round_waits_until_every_player_has_seen_the_reveal(tmp_path: Path) -> None:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}", reveal_pause=30.0) as client:
        table = create(client, "red-dead", options=RED_DEAD, turn_seconds=60)
        code = table["code"]
        bo_seat = join(client, code, "Bo")
        with connect(client, code, table["token"]) as ann, connect(client, code, bo_seat["token"]) as bo:
            ann.send(type="fill_bots")
            ann.send(type="start")
            first = ann.state()
            assert first["to_act"] == 0 and first["reveal_until"] is None and first["last_round"] is None
            opening = lowest_bid(first)
            act(ann, opening, 1)
            bo.state(lambda s: s["to_act"] == 1)
            revealed = act(bo, ["challenge"], 1)

            # Round 1 ended: its moves come with the reveal, and the pause runs.
            lr = revealed["last_round"]
            assert revealed["round"] == 2 and lr["round"] == 1 and revealed["to_act"] == 2
            assert [(m["seat"], m["action"]) for m in lr["moves"]] == [
                (0, opening),
                (1, ["challenge", {"target": "Ann"}]),
            ]
            assert lr["moves"][0]["text"].startswith("Ann bids") and "Bo" in lr["moves"][1]["text"]
            now = time.time() * 1000
            assert 25_000 < revealed["reveal_until"] - now <= 30_000
            assert ann.state(lambda s: s["version"] == revealed["version"])["reveal_until"] == revealed["reveal_until"]

            # The bot waits for the pause; one player's `seen` is not enough.
            assert not [m for m in quiet(ann, 0.5) if m["type"] == "state"]
            ann.send(type="seen", round=1)
            ann.send(type="seen", round=1)  # said twice: harmless
            bo.send(type="seen", round=7)  # another round's reveal: changes nothing
            bo.sync()
            assert not [m for m in quiet(ann, 0.3) if m["type"] == "state"]

            # Bo has seen it too: the pause ends at once, and the bot opens round 2.
            bo.send(type="seen", round=1)
            resumed = ann.state(lambda s: s["version"] == revealed["version"])
            assert resumed["reveal_until"] is None and resumed["last_round"]["moves"] == lr["moves"]
            bot_bid = ann.state(lambda s: s["version"] > revealed["version"])
            assert bot_bid["history"][0]["seat"] == 2

            # Round 2: whoever ends it, Bo opens round 3, and may move during the pause.
            state = bot_bid
            ref = 1
            while state["round"] == 2:
                if state["to_act"] == 2:
                    state = ann.state(lambda s, v=state["version"]: s["version"] > v)
                    continue
                sock = ann if state["to_act"] == 0 else bo
                mine = view_at(sock, state["version"])
                ref += 1
                state = act(sock, ["challenge"] if mine["legal"]["challenge"] else lowest_bid(mine), ref)
            assert state["to_act"] == 1 and state["reveal_until"] is not None
            # The turn timer of the next round starts when the pause ends.
            assert state["deadline"] >= state["reveal_until"] + 59_000
            mine = view_at(bo, state["version"])
            after = act(bo, lowest_bid(mine), ref + 1)
            assert after["reveal_until"] is None and after["history"][0]["seat"] == 1


def test_the_pause_runs_out_by_itself(tmp_path: Path) -> None:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}", reveal_pause=0.6) as client:
        table = create(client, "red-dead", options=RED_DEAD)
        with connect(client, table["code"], table["token"]) as ann:
            ann.send(type="fill_bots")
            ann.send(type="start")
            state = ann.state()
            ref = 0
            while state["round"] == 1:
                if state["to_act"] == 0:
                    ref += 1
                    state = act(ann, ["challenge"] if state["legal"]["challenge"] else lowest_bid(state), ref)
                else:
                    state = ann.state(lambda s, v=state["version"]: s["version"] > v)
            ended = time.monotonic()
            assert state["to_act"] == 2 and state["reveal_until"] is not None
            moved = ann.state(lambda s: s["version"] > state["version"])
            assert moved["history"][0]["seat"] == 2
            assert time.monotonic() - ended >= 0.5, "the bot opened the next round during the reveal"


def test_without_a_pause_the_moves_still_come_with_the_reveal(client: TestClient) -> None:
    table = create(client, "red-dead", options=RED_DEAD)
    with connect(client, table["code"], table["token"]) as ann:
        ann.send(type="fill_bots")
        ann.send(type="start")
        state = ann.state()
        ref = 0
        while state["last_round"] is None:
            assert state["reveal_until"] is None
            if state["to_act"] == 0:
                ref += 1
                state = act(ann, ["challenge"] if state["legal"]["challenge"] else lowest_bid(state), ref)
            else:
                state = ann.state(lambda s, v=state["version"]: s["version"] > v)
        assert state["reveal_until"] is None
        moves = state["last_round"]["moves"]
        assert moves[0]["seat"] == 0 and moves[-1]["action"][0] in ("challenge", "exact")


def test_seen_is_checked_like_any_message(client: TestClient) -> None:
    table = create(client, "classic", options={"num_players": 2})
    with connect(client, table["code"], table["token"]) as ann, connect(client, table["code"], None) as watcher:
        ann.send(type="seen")
        assert "round" in ann.error("bad_message")["message"]
        ann.send(type="seen", round="two")
        ann.error("bad_message")
        watcher.send(type="seen", round=1)  # no game, or a spectator: nothing to end, no error
        assert not [m for m in quiet(watcher, 0.1) if m["type"] == "error"]


def test_a_player_who_moves_again_is_no_longer_shown_as_auto(tmp_path: Path) -> None:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}") as client:
        table = create(client, "classic", options={"num_players": 2, "first_starter": 0}, turn_seconds=1)
        with connect(client, table["code"], table["token"]) as ann:
            ann.send(type="fill_bots")
            ann.send(type="start")
            # Ann lets her timer run out: a bot plays for her, and every page is told.
            ann.until(lambda m: m["type"] == "table" and m["table"]["seats"][0]["auto"])
            state = ann.state(lambda s: s["to_act"] == 0 and s["legal"] is not None)
            # Ann moves again herself: the seat is hers, and every page is told so.
            ann.send(type="act", action=["challenge"] if state["legal"]["challenge"] else lowest_bid(state), ref=9)
            told = quiet(ann, 0.0)
            reply = next(m for m in told if m.get("ref") == 9)
            assert reply["type"] == "state", reply
            tables = [m["table"] for m in told if m["type"] == "table"]
            assert tables and not tables[-1]["seats"][0]["auto"], "the pages still show a bot playing for Ann"


def test_spectators_chat_under_their_own_names(client: TestClient) -> None:
    table = create(client, "classic", options={"num_players": 2})
    code = table["code"]
    with (
        connect(client, code, table["token"]) as ann,
        connect(client, code, None) as first,
        connect(client, code, None) as second,
        client.websocket_connect(f"/ws/{code}") as session,
    ):
        named = Socket(session)
        named.send(type="hello", token=None, name="  Cy ")
        assert named.of("welcome")["name"] == "Cy"
        welcomes = [next(m for m in s.seen if m["type"] == "welcome") for s in (ann, first, second)]
        assert [w["name"] for w in welcomes] == ["Ann", "Spectator 1", "Spectator 2"]
        for sock, text in ((first, "one"), (second, "two"), (named, "three")):
            sock.send(type="chat", text=text)
            line = ann.until(lambda m, t=text: m["type"] == "chat" and m["text"] == t)
            assert line["seat"] is None
            assert line["from"] == {"one": "Spectator 1", "two": "Spectator 2", "three": "Cy"}[text]
    with client.websocket_connect(f"/ws/{code}") as session:  # a seat's name is not a spectator's
        sock = Socket(session)
        sock.send(type="hello", token=None, name="ann")
        assert sock.of("welcome")["name"] == "ann (2)"
    with client.websocket_connect(f"/ws/{code}") as session:
        sock = Socket(session)
        sock.send(type="hello", token=None, name="   ")
        assert "a name has 1 to 24" in sock.error("bad_message")["message"]


def test_a_player_who_leaves_watches_under_the_same_name(client: TestClient) -> None:
    table = create(client, "classic", options={"num_players": 3})
    code = table["code"]
    bo = join(client, code, "Bo")
    with connect(client, code, table["token"]) as ann, connect(client, code, bo["token"]) as bob:
        bob.send(type="leave")
        welcome = bob.until(lambda m: m["type"] == "welcome")
        assert welcome["role"] == "spectator" and welcome["name"] == "Bo"
        bob.send(type="chat", text="watching now")
        line = ann.until(lambda m: m["type"] == "chat")
        assert (line["from"], line["seat"]) == ("Bo", None)


def test_serve_refuses_a_bad_reveal_pause() -> None:
    exe = Path(sys.executable).with_name("liarsdice")
    run = subprocess.run([str(exe), "serve", "--reveal-pause", "-1"], capture_output=True, text=True, timeout=30)
    assert run.returncode == 2 and "--reveal-pause is 0 (no pause) to 600 seconds" in run.stderr
    usage = subprocess.run([str(exe), "serve", "--help"], capture_output=True, text=True, timeout=30)
    assert "--reveal-pause" in usage.stdout
