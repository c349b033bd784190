"""Bots on the server: bot accounts (token, invitation, seat), `liarsdice bot connect`, and the
operator's programs (`serve --bot NAME=COMMAND`)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from conftest import free_port
from liarsdice.record import replay
from liarsdice.server import limits
from liarsdice.server.botaccounts import create_account, revoke_account
from liarsdice.server.rooms import Connection, RoomManager, Settings
from liarsdice.server.storage import Store
from liarsdice.server.wsplayer import random_move
from test_server import Message, Socket, connect, create, play_to_end, serving
from test_server_leaks import Watcher

ROOT = Path(__file__).resolve().parents[1]
MINIMAL = ROOT / "examples" / "bots" / "minimal.py"
CLI = [sys.executable, "-m", "liarsdice.cli"]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}") as c:
        yield c


def account(client: TestClient, name: str) -> str:
    store: Store = client.app.state.store  # type: ignore[attr-defined]
    return store.call_sync(lambda s: create_account(s, name))


def bot_socket(client: TestClient, token: str | None, header: bool = True) -> Any:
    headers = {"Authorization": f"Bearer {token}"} if header and token is not None else {}
    return client.websocket_connect("/ws/bot", headers=headers)


# ----- tokens -----


def test_a_bot_connects_with_its_token_by_header_or_hello(client: TestClient) -> None:
    token = account(client, "Robo")
    with bot_socket(client, token) as ws:
        assert json.loads(ws.receive_text())["type"] == "welcome"
        assert client.get("/api/bots/online").json() == [{"name": "Robo", "kind": "account"}]
    with bot_socket(client, None) as ws:
        ws.send_text(json.dumps({"type": "hello", "token": token}))
        welcome = json.loads(ws.receive_text())
        assert welcome["type"] == "welcome" and welcome["bot"] == "Robo"
    assert client.get("/api/bots/online").json() == []


def test_a_wrong_or_revoked_token_is_refused(client: TestClient) -> None:
    token = account(client, "Robo")
    for wrong in (token[:-1] + ("A" if token[-1] != "A" else "B"), "", "x" * 50):
        with bot_socket(client, wrong, header=bool(wrong)) as ws:
            if not wrong:
                ws.send_text(json.dumps({"type": "hello", "token": wrong}))
            refused = json.loads(ws.receive_text())
            assert refused["type"] == "error" and refused["code"] == "bad_token", refused
            assert "wrong or revoked" in refused["message"]
            with pytest.raises(WebSocketDisconnect):
                ws.receive_text()
    store: Store = client.app.state.store  # type: ignore[attr-defined]
    store.call_sync(lambda s: revoke_account(s, "Robo"))
    with bot_socket(client, token) as ws:
        refused = json.loads(ws.receive_text())
        assert refused["code"] == "bad_token", refused
    assert client.get("/api/bots/online").json() == []


def test_an_account_is_made_listed_and_revoked_from_the_command_line(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'cli.sqlite3'}"
    env = {**os.environ, "LIARSDICE_DATA": str(tmp_path)}
    made = subprocess.run(
        [*CLI, "bot", "create", "Robo", "--database-url", url], capture_output=True, text=True, env=env
    )
    assert made.returncode == 0, made.stderr
    token = made.stdout.strip().splitlines()[-1]
    assert len(token) >= 40
    again = subprocess.run(
        [*CLI, "bot", "create", "Robo", "--database-url", url], capture_output=True, text=True, env=env
    )
    assert again.returncode != 0 and "exists already" in again.stderr
    listed = subprocess.run([*CLI, "bot", "list", "--database-url", url], capture_output=True, text=True, env=env)
    assert "Robo" in listed.stdout and "live" in listed.stdout and token not in listed.stdout
    gone = subprocess.run(
        [*CLI, "bot", "revoke", "Robo", "--database-url", url], capture_output=True, text=True, env=env
    )
    assert gone.returncode == 0, gone.stderr
    listed = subprocess.run([*CLI, "bot", "list", "--database-url", url], capture_output=True, text=True, env=env)
    assert "revoked" in listed.stdout
    store = Store(url)
    try:
        from liarsdice.server.botaccounts import account_for_token

        assert store.call_sync(lambda s: account_for_token(s, token)) is None  # stored hashed, and revoked
    finally:
        store.close()


# ----- invitations and a whole game -----


def _play_bot_seat(client: TestClient, code: str, token: str, seen: list[Message], done: threading.Event) -> None:
    """A bot account's seat played through the table protocol: moves from `bot_view` only."""
    rng = random.Random(3)
    with connect(client, code, token) as sock:
        ref = 0
        while not done.is_set():
            message = sock.recv()
            seen.append(message)
            state = message.get("state") if message["type"] == "state" else None
            if state is None:
                continue
            if state["result"] is not None:
                return
            legal = state["bot_view"]["legal"]
            if state["to_act"] == state["seat"] and legal:
                ref += 1
                sock.send(type="act", action=rng.choice(legal), ref=ref)


def test_an_invited_bot_account_plays_a_whole_game_with_a_person_and_a_builtin_bot(client: TestClient) -> None:
    token = account(client, "Robo")
    table = create(client, "perudo", options={"num_players": 3, "dice_per_player": 2})
    with bot_socket(client, token) as bot, connect(client, table["code"], table["token"]) as host:
        assert json.loads(bot.receive_text())["type"] == "welcome"
        host.send(type="invite_bot", bot="Nobody", seat=1, ref=1)
        assert "no bot named 'Nobody' is online" in host.error("no_bot")["message"]
        host.send(type="invite_bot", bot="Robo", seat=1, ref=2)
        invite = json.loads(bot.receive_text())
        assert invite["type"] == "invite" and invite["table"] == table["code"] and invite["seat"] == 1
        assert invite["preset"] == "perudo" and invite["options"]["num_players"] == 3
        bot.send_text(json.dumps({"type": "accept", "id": invite["id"]}))
        seated = json.loads(bot.receive_text())
        assert seated["type"] == "seated" and seated["seat"] == 1 and seated["table"] == table["code"]
        bot.send_text(json.dumps({"type": "accept", "id": invite["id"]}))  # an invitation is taken once
        assert json.loads(bot.receive_text())["code"] == "no_invite"
        seat = host.until(lambda m: m["type"] == "table" and m["table"]["seats"][1]["kind"] != "empty")["table"]
        assert seat["seats"][1]["bot_account"] == "Robo" and seat["seats"][1]["name"] == "Robo"
        host.send(type="fill_bots", level="probability")
        host.until(lambda m: m["type"] == "table" and m["table"]["seats"][2]["kind"] == "bot")
        seen: list[Message] = []
        done = threading.Event()
        player = threading.Thread(target=_play_bot_seat, args=(client, table["code"], seated["token"], seen, done))
        player.start()
        try:
            host.until(lambda m: m["type"] == "table" and m["table"]["seats"][1]["connected"])
            host.send(type="start")
            final = play_to_end(host, seed=5)
        finally:
            done.set()
            player.join(30)
        assert not player.is_alive()
        assert final["result"] is not None
        views = [m["state"] for m in seen if m["type"] == "state" and m["state"] is not None]
        assert any(v["bot_view"]["legal"] for v in views)
        assert all(v["seat"] == 1 and v["bot_view"]["view"]["seat"] == 1 for v in views)
        assert "bot_view" not in host.seen[-1].get("state", {})  # a person's seat is not sent it
    record = client.get(f"/api/games/{final['game_id']}").json()
    assert [p["kind"] for p in record["players"]] == ["person", "bot", "bot"]
    assert record["players"][1]["level"] == "account:Robo"
    assert list(replay(record))  # the game is a valid record


def test_a_bot_that_declines_is_not_seated_and_the_host_hears_why(client: TestClient) -> None:
    token = account(client, "Robo")
    table = create(client, "perudo", options={"num_players": 2})
    with bot_socket(client, token) as bot, connect(client, table["code"], table["token"]) as host:
        bot.receive_text()
        host.send(type="invite_bot", bot="Robo")
        invite = json.loads(bot.receive_text())
        assert invite["seat"] == 1  # the first empty seat
        bot.send_text(json.dumps({"type": "decline", "id": invite["id"], "reason": "busy"}))
        assert host.error("declined")["message"] == "Robo declined: busy"
    assert client.get(f"/api/tables/{table['code']}").json()["seats"][1]["kind"] == "empty"


def test_a_table_that_wants_bots_calls_every_bot_online_and_the_first_to_accept_sits(client: TestClient) -> None:
    tokens = [account(client, "Robo"), account(client, "Otto")]
    table = create(client, "perudo", options={"num_players": 2})
    with connect(client, table["code"], table["token"]) as host:
        host.send(type="call_bots", ref=1)
        assert host.error("no_bot")["message"] == "no bot account is online to call"
        with bot_socket(client, tokens[0]) as robo, bot_socket(client, tokens[1]) as otto:
            robo.receive_text(), otto.receive_text()
            host.send(type="call_bots", ref=2)
            assert host.until(lambda m: m["type"] == "called") == {"type": "called", "bots": 2, "ref": 2}
            invites = [json.loads(robo.receive_text()), json.loads(otto.receive_text())]
            assert [(i["type"], i["table"], i["seat"]) for i in invites] == [("invite", table["code"], None)] * 2
            otto.send_text(json.dumps({"type": "accept", "id": invites[1]["id"]}))
            seated = json.loads(otto.receive_text())
            assert (seated["type"], seated["seat"]) == ("seated", 1)
            robo.send_text(json.dumps({"type": "accept", "id": invites[0]["id"]}))
            late = json.loads(robo.receive_text())
            assert late["code"] == "not_ready" and "no empty seat" in late["message"], late
    info = client.get(f"/api/tables/{table['code']}").json()
    assert info["seats"][1]["bot_account"] == "Otto"


def test_only_the_host_invites_and_only_to_an_empty_seat(client: TestClient) -> None:
    token = account(client, "Robo")
    table = create(client, "perudo", options={"num_players": 2})
    guest = client.post(f"/api/tables/{table['code']}/join", json={"name": "Bo"}).json()
    with bot_socket(client, token) as bot, connect(client, table["code"], guest["token"]) as sock:
        bot.receive_text()
        sock.send(type="invite_bot", bot="Robo")
        sock.error("not_host")
    with connect(client, table["code"], table["token"]) as host:
        host.send(type="invite_bot", bot="Robo", seat=1)
        assert "seat 1 is not empty" in host.error("not_ready")["message"]


class BotWatcher(Watcher):
    """A Watcher for a bot account's seat. Its `bot_view` lists every legal bid (`legal`, and
    `moves.bids`): every face, public by definition (which bids raise the standing one depends
    on no cup), so those two lists are left out of the check and kept for playing."""

    def send(self, message: dict[str, Any] | str) -> None:
        data = json.loads(message) if isinstance(message, str) else message
        bot_view = (data.get("state") or {}).get("bot_view") if data.get("type") == "state" else None
        if bot_view is None:
            super().send(data)
            return
        legal = bot_view.pop("legal")
        bids = bot_view["moves"].pop("bids") if bot_view["moves"] else None
        super().send(data)
        bot_view["legal"] = legal
        if bids is not None:
            bot_view["moves"]["bids"] = bids


def test_a_bot_accounts_messages_never_hold_another_seats_cup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # As in test_server_leaks: faces in the hundreds make every die a number no message has a
    # reason to hold, and each message to the bot's seat (with its bot_view) is checked.
    monkeypatch.setattr(limits, "MAX_FACES", 1000)

    async def main() -> int:
        store = await asyncio.to_thread(Store, f"sqlite:///{tmp_path / 'leak.sqlite3'}")
        manager = RoomManager(store, Settings(grace=1000.0, bot_delay=0.0, rate=1e9, burst=1e9))
        try:
            room, host_token = await manager.create("perudo", "P0", {"num_players": 3, "faces": 1000}, 0)

            async def nothing(*_: Any) -> None:
                return None

            host = Watcher([room], set())
            await room.attach(host, host_token)
            events = Connection(nothing, nothing)
            sent: list[dict[str, Any]] = []
            events.send = lambda message: sent.append(message)  # type: ignore[assignment, method-assign, return-value]
            manager.lobby.connect("Robo", events)
            await room.invite_bot(host, "Robo", 1)
            invite = manager.lobby.take("Robo", sent[-1]["id"])
            _, token = await invite.room.seat_account("Robo", invite.seat)
            bot = BotWatcher([room], host.named)
            await room.attach(bot, token)
            await room.fill_bots(host, "random")
            await room.start(host)
            rng = random.Random(1)
            while room.status == "playing":
                state = room.state
                assert state is not None
                if state.to_act == 0 and host.view is not None and host.view["to_act"] == 0:
                    await room.act(host, random_move(host.view, rng) or ["challenge"], None)
                elif state.to_act == 1 and bot.view is not None and bot.view["bot_view"]["legal"]:
                    await room.act(bot, rng.choice(bot.view["bot_view"]["legal"]), None)
                else:
                    await asyncio.sleep(0)
            assert bot.view is not None and "bot_view" in bot.view
            return bot.checked
        finally:
            manager.close()
            await asyncio.to_thread(store.close)

    assert asyncio.run(main()) > 10


# ----- operator bots -----


def test_serve_bot_seats_a_program_hosts_can_invite(tmp_path: Path) -> None:
    command = f"{sys.executable} {MINIMAL}"
    with serving(f"sqlite:///{tmp_path / 'op.sqlite3'}", operator_bots={"Mini": command}) as client:
        assert client.get("/api/bots/online").json() == [{"name": "Mini", "kind": "operator"}]
        table = create(client, "perudo", options={"num_players": 3, "dice_per_player": 2})
        with connect(client, table["code"], table["token"]) as host:
            host.send(type="invite_bot", bot="Mini", seat=2)
            seats = host.until(lambda m: m["type"] == "table" and m["table"]["seats"][2]["kind"] == "bot")["table"]
            assert seats["seats"][2]["bot_level"] == "operator:Mini" and seats["seats"][2]["name"] == "Mini"
            host.send(type="fill_bots", level="random")
            host.until(lambda m: m["type"] == "table" and m["table"]["seats"][1]["kind"] == "bot")
            host.send(type="start")
            final = play_to_end(host, seed=2)
        record = client.get(f"/api/games/{final['game_id']}").json()
        mini_moves = [s for s in record["steps"] if s.get("seat") == "Mini"]
        assert mini_moves, "the program made no move"


# ----- `liarsdice bot connect` against a real server -----


def _read_line(proc: subprocess.Popen[str], want: str, deadline: float) -> str:
    assert proc.stdout is not None
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            raise AssertionError(f"the process ended before saying {want!r}")
        if want in line:
            return line
    raise AssertionError(f"no {want!r} in time")


def _stop(proc: subprocess.Popen[str]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def test_bot_connect_bridges_the_example_bot_through_a_whole_game(tmp_path: Path) -> None:
    websockets = pytest.importorskip("websockets.sync.client")
    url = f"sqlite:///{tmp_path / 'e2e.sqlite3'}"
    env = {**os.environ, "LIARSDICE_DATA": str(tmp_path), "PYTHONUNBUFFERED": "1"}
    made = subprocess.run(
        [*CLI, "bot", "create", "Mini", "--database-url", url], capture_output=True, text=True, env=env
    )
    assert made.returncode == 0, made.stderr
    token = made.stdout.strip().splitlines()[-1]
    port = free_port()
    server = subprocess.Popen(
        [*CLI, "serve", "--port", str(port), "--database-url", url, "--bot-delay", "0", "--reveal-pause", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=env,
    )
    bridge: subprocess.Popen[str] | None = None
    try:
        _read_line(server, "liarsdice serving on", time.monotonic() + 60)
        base = f"http://127.0.0.1:{port}"
        bridge = subprocess.Popen(
            [*CLI, "bot", "connect", base, "--token", token, "--", sys.executable, str(MINIMAL)],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        _read_line(bridge, "online as Mini", time.monotonic() + 60)
        import httpx

        table = httpx.post(
            f"{base}/api/tables",
            json={"preset": "perudo", "name": "Ann", "options": {"num_players": 3, "dice_per_player": 2}},
        ).json()
        with websockets.connect(f"ws://127.0.0.1:{port}/ws/{table['code']}") as ws:
            sock = Socket(_SyncSession(ws))
            sock.send(type="hello", token=table["token"])
            sock.of("chat_history")
            sock.send(type="invite_bot", bot="Mini", seat=1)
            sock.until(
                lambda m: (
                    m["type"] == "table"
                    and m["table"]["seats"][1]["connected"]
                    and m["table"]["seats"][1]["bot_account"] == "Mini"
                )
            )
            sock.send(type="fill_bots", level="probability")
            sock.until(lambda m: m["type"] == "table" and m["table"]["seats"][2]["kind"] == "bot")
            sock.send(type="start")
            final = play_to_end(sock, seed=9)
        record = httpx.get(f"{base}/api/games/{final['game_id']}").json()
        assert [p["level"] for p in record["players"]][1] == "account:Mini"
        assert any(s.get("seat") == "Mini" for s in record["steps"])
        assert list(replay(record))
        # the program made its own moves: no move fell to the fallback bot
        files = list((tmp_path / "bot-logs").glob("*.log"))
        assert files, "the program's log was not written"
        logs = "".join(p.read_text() for p in files)
        assert not any(f"liarsdice: {kind}" in logs for kind in ("timeout", "illegal", "garbage", "crash")), logs
    finally:
        if bridge is not None:
            _stop(bridge)
        _stop(server)


class _SyncSession:
    """A websockets sync client with the two calls `Socket` uses."""

    def __init__(self, ws: Any) -> None:
        self.ws = ws

    def send_text(self, text: str) -> None:
        self.ws.send(text)

    def receive_text(self) -> str:
        return str(self.ws.recv(timeout=60))
