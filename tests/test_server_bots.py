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
from liarsdice.server.connection import Connection
from liarsdice.server.manager import RoomManager
from liarsdice.server.settings import Settings
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
        # The state as the seat sat down came before the chat history `connect` waits for: a game
        # already under way (a ladder's starts once its seats are taken) may wait for a move in it.
        pending = [m for m in sock.seen if m["type"] == "state"][-1:]
        ref = 0
        while not done.is_set():
            message = pending.pop() if pending else sock.recv()
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
            await store.call(lambda s: create_account(s, "Robo"))  # a seat token works for a live account only
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


HOSTILE = Path(__file__).with_name("hostile_bot.py")
SCHEMA = json.loads((ROOT / "src" / "liarsdice" / "botproto" / "schema.json").read_text())


def to_bot_validator() -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator({"$ref": "#/$defs/to_bot", "$defs": SCHEMA["$defs"]})


def recorded(folder: Path, wait_for: str = "quit", timeout: float = 10.0) -> dict[int, list[dict[str, Any]]]:
    """What each recording program was sent (by pid), once every one has been sent `wait_for`."""
    deadline = time.monotonic() + timeout
    while True:
        sent = {int(f.stem): [json.loads(line) for line in f.read_text().splitlines()] for f in folder.glob("*.jsonl")}
        if (sent and all(any(m["type"] == wait_for for m in ms) for ms in sent.values())) or (
            time.monotonic() > deadline
        ):
            return sent
        time.sleep(0.05)


def test_an_operators_program_is_told_the_game_as_play_tells_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `play` tells a program of every step (the events of each act request) and of the game's
    # end (game_over), then says quit: a program seated by `serve --bot` is told the same.
    record = tmp_path / "record"
    record.mkdir()
    monkeypatch.setenv("HOSTILE_RECORD", str(record))
    monkeypatch.setenv("LIARSDICE_DATA", str(tmp_path))
    command = f"{sys.executable} {HOSTILE} plain"
    with serving(f"sqlite:///{tmp_path / 'op.sqlite3'}", operator_bots={"Rec": command}) as client:
        table = create(client, "perudo", options={"num_players": 3, "dice_per_player": 2})
        with connect(client, table["code"], table["token"]) as host:
            host.send(type="invite_bot", bot="Rec", seat=1)
            host.until(lambda m: m["type"] == "table" and m["table"]["seats"][1]["kind"] == "bot")
            host.send(type="fill_bots", level="random")
            host.until(lambda m: m["type"] == "table" and m["table"]["seats"][2]["kind"] == "bot")
            host.send(type="start")
            final = play_to_end(host, seed=2)
        sent = recorded(record)
    assert len(sent) == 1, sent.keys()
    ((_, messages),) = sent.items()
    check = to_bot_validator()
    for message in messages:
        check.validate(message)
    kinds = [message["type"] for message in messages]
    assert kinds[:2] == ["hello", "new_game"] and kinds[-2:] == ["game_over", "quit"], kinds
    acts = [message for message in messages if message["type"] == "act"]
    assert acts and all(a["events"] for a in acts), "an act request without the events since the last one"
    told = [e["event"] for message in messages for e in message.get("events", [])]
    assert {"rolled", "round_started", "turn", "round_over", "game_over"} <= set(told), told
    over = messages[-2]
    assert over["events"][-1]["event"] == "game_over"
    assert over["result"]["places"] == [final["result"]["places"][name] for name in final["seats"]]


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


# ----- accounts made on the /bots page, and revocation that lets the bot go -----


def make_on_page(client: TestClient, name: str) -> Any:
    return client.post("/api/bot-accounts", json={"name": name})


def test_the_page_makes_an_account_whose_token_connects_and_the_list_never_shows_a_token(
    client: TestClient,
) -> None:
    made = make_on_page(client, "  Robo  ")
    assert made.status_code == 200, made.text
    body = made.json()
    assert set(body) == {"name", "token"} and body["name"] == "Robo" and len(body["token"]) >= 40
    with bot_socket(client, body["token"]) as ws:
        assert json.loads(ws.receive_text()) | {"server_time": 0} == {
            "type": "welcome",
            "bot": "Robo",
            "server_time": 0,
        }
        listed = client.get("/api/bot-accounts")
        assert listed.status_code == 200
        assert [(a["name"], a["online"]) for a in listed.json()["accounts"]] == [("Robo", True)]
        assert listed.json()["signup"] is True
        assert body["token"] not in listed.text and limits.hash_token(body["token"]) not in listed.text
    assert client.get("/api/bot-accounts").json()["accounts"][0]["online"] is False
    assert client.get("/api/bot-accounts").json()["accounts"][0]["created"]


def test_the_page_refuses_a_taken_or_bad_name_with_the_reason(client: TestClient) -> None:
    account(client, "Robo")
    taken = make_on_page(client, "Robo")
    assert taken.status_code == 409 and "exists already" in taken.json()["detail"], taken.text
    for bad in ("", "   ", "Ro\u200bbo", "x" * 100):
        refused = make_on_page(client, bad)
        assert refused.status_code == 422, (bad, refused.text)
        assert isinstance(refused.json()["detail"], str) and refused.json()["detail"], refused.text
    assert [a["name"] for a in client.get("/api/bot-accounts").json()["accounts"]] == ["Robo"]


def test_making_accounts_on_the_page_is_rate_limited_per_address(tmp_path: Path) -> None:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}", bot_signups_per_hour=3) as client:
        assert make_on_page(client, "Taken").status_code == 200
        assert make_on_page(client, "Taken").status_code == 409  # a refusal makes nothing and costs nothing
        for name in ("B2", "B3"):
            assert make_on_page(client, name).status_code == 200
        limited = make_on_page(client, "B4")
        assert limited.status_code == 429, limited.text
        assert "at most 3 bot accounts an hour" in limited.json()["detail"]
        assert "try again in 60 minutes" in limited.json()["detail"]
        assert 3500 <= int(limited.headers["Retry-After"]) <= 3600
        assert len(client.get("/api/bot-accounts").json()["accounts"]) == 3


def test_no_bot_signup_refuses_making_accounts_on_the_page(tmp_path: Path) -> None:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}", bot_signup=False) as client:
        assert client.get("/api/bot-accounts").json() == {"signup": False, "accounts": []}
        refused = make_on_page(client, "Robo")
        assert refused.status_code == 403 and "liarsdice bot create NAME" in refused.json()["detail"]
        assert client.get("/api/bot-accounts").json()["accounts"] == []
        assert client.get("/bots").status_code == 200  # the page still lists accounts and revokes


def test_revoking_by_token_works_and_a_wrong_token_is_refused(client: TestClient) -> None:
    token = make_on_page(client, "Robo").json()["token"]
    wrong = client.post("/api/bot-accounts/revoke", json={"token": token[:-2] + "zz"})
    assert wrong.status_code == 403 and "wrong, or revoked already" in wrong.json()["detail"]
    done = client.post("/api/bot-accounts/revoke", json={"token": token})
    assert done.status_code == 200 and done.json() == {"name": "Robo", "revoked": True}
    assert client.get("/api/bot-accounts").json()["accounts"] == []
    assert client.post("/api/bot-accounts/revoke", json={"token": token}).status_code == 403
    with bot_socket(client, token) as ws:
        assert json.loads(ws.receive_text())["code"] == "bad_token"
    assert make_on_page(client, "Robo").status_code == 409  # the name stays taken, for the records


def _seat_bot(client: TestClient, bot: Any) -> tuple[Message, str]:
    """A table with its host at seat 0 and the bot account on the event socket `bot` invited to
    seat 1: the table, and the bot's seat token."""
    table = create(client, "perudo", options={"num_players": 2})
    bot.receive_text()
    with connect(client, table["code"], table["token"]) as host:
        host.send(type="invite_bot", bot="Robo")
        invite = json.loads(bot.receive_text())
        bot.send_text(json.dumps({"type": "accept", "id": invite["id"]}))
        seated = json.loads(bot.receive_text())
        assert seated["type"] == "seated" and seated["seat"] == 1, seated
    return table, seated["token"]


def test_a_bot_accounts_forfeit_ends_the_game_with_its_seat_last_and_a_person_cannot_forfeit(
    client: TestClient,
) -> None:
    token = account(client, "Robo")
    with bot_socket(client, token) as bot:
        table, seat_token = _seat_bot(client, bot)
        with connect(client, table["code"], seat_token) as seat, connect(client, table["code"], table["token"]) as host:
            seat.send(type="forfeit", reason="too early", ref=1)
            assert seat.error("no_game")["ref"] == 1
            host.send(type="start")
            host.until(lambda m: m["type"] == "state" and m["state"] is not None)
            host.send(type="forfeit", reason="I give up", ref=2)
            assert "only a bot account's seat forfeits" in host.error("not_ready")["message"]
            seat.send(type="forfeit", reason="illegal:  999x1 is not\na legal action", ref=3)
            info = host.until(lambda m: m["type"] == "table" and m["table"]["status"] == "finished")["table"]
            assert info["forfeit"] == {
                "seat": 1,
                "reason": "illegal: 999x1 is not a legal action",
                "result": info["forfeit"]["result"],
            }
            assert info["forfeit"]["result"]["places"] == {"Ann": 1, "Robo": 2}
    record = client.get(f"/api/games/{info['game_id']}").json()
    assert record["meta"]["forfeit"] == {"seat": "Robo", "reason": "illegal: 999x1 is not a legal action"}
    assert record["result"] is None
    list(replay(record))
    games = client.get("/api/games").json()
    assert [g["winners"] for g in games if g["id"] == info["game_id"]] == [["Ann"]], games


def _until_let_go(bot: Any, seat: Socket, client: TestClient) -> None:
    """The bot's event socket and its seat's socket are told of the revocation and closed."""
    assert json.loads(bot.receive_text())["code"] == "revoked"
    with pytest.raises(WebSocketDisconnect) as closed:
        bot.receive_text()
    assert closed.value.code == 4001
    assert seat.error("revoked")["message"] == "the bot account 'Robo' was revoked"
    with pytest.raises(WebSocketDisconnect):
        seat.recv()
    assert client.get("/api/bots/online").json() == []


def _seat_token_refused(client: TestClient, code: str, token: str) -> None:
    with client.websocket_connect(f"/ws/{code}") as session:
        session.send_text(json.dumps({"type": "hello", "token": token}))
        refused = json.loads(session.receive_text())
    assert refused["code"] == "revoked", refused
    assert "its seat tokens no longer work" in refused["message"]


def test_revoking_on_the_page_disconnects_the_bot_and_its_seat_is_played_as_an_away_seat(tmp_path: Path) -> None:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}", grace=0.3) as client:
        token = make_on_page(client, "Robo").json()["token"]
        with bot_socket(client, token) as bot:
            table, seat_token = _seat_bot(client, bot)
            with (
                connect(client, table["code"], seat_token) as seat,
                connect(client, table["code"], table["token"]) as host,
            ):
                host.send(type="start", ref=1)
                message = host.until(lambda m: m["type"] == "state" and m["state"]["to_act"] is not None)
                assert client.post("/api/bot-accounts/revoke", json={"token": token}).status_code == 200
                _until_let_go(bot, seat, client)
                # seat 1 is away now: when its turn comes a bot plays it after the grace period
                rng = random.Random(1)
                for _ in range(2000):
                    if message["type"] == "table" and message["table"]["seats"][1]["auto"]:
                        break
                    state = message.get("state") if message["type"] == "state" else None
                    if state and state["result"] is None and state["to_act"] == 0:
                        move = random_move(state, rng)
                        if move is not None:
                            host.send(type="act", action=move)
                    message = host.recv()
                else:
                    pytest.fail("the revoked bot's seat was never played for it")
                assert message["table"]["seats"][1]["connected"] is False
        _seat_token_refused(client, table["code"], seat_token)


def test_revoking_from_the_command_line_disconnects_the_bot_within_the_check(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    with serving(url, revocation_check=0.2) as client:
        token = make_on_page(client, "Robo").json()["token"]
        with bot_socket(client, token) as bot:
            table, seat_token = _seat_bot(client, bot)
            with connect(client, table["code"], seat_token) as seat:
                env = {**os.environ, "LIARSDICE_DATA": str(tmp_path)}
                gone = subprocess.run(
                    [*CLI, "bot", "revoke", "Robo", "--database-url", url], capture_output=True, text=True, env=env
                )
                assert gone.returncode == 0, gone.stderr
                deadline = time.monotonic() + 10
                while client.get("/api/bots/online").json() and time.monotonic() < deadline:
                    time.sleep(0.05)
                assert client.get("/api/bots/online").json() == [], "the revoked bot is still online"
                _until_let_go(bot, seat, client)
        _seat_token_refused(client, table["code"], seat_token)
