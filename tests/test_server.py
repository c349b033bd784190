"""The web server through its HTTP API and websocket: every message type and every refusal."""

from __future__ import annotations

import json
import random
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from liarsdice.record import replay
from liarsdice.rules import Bid, BidAction, Game, Options
from liarsdice.server.app import create_app
from liarsdice.server.settings import Settings
from liarsdice.server.views import odds_json
from liarsdice.server.wsplayer import random_move

Message = dict[str, Any]


@contextmanager
def serving(url: str, **settings: Any) -> Iterator[TestClient]:
    # Tests talk faster than people: the rate limit has a test of its own.
    app = create_app(url, Settings(**{"grace": 30.0, "bot_delay": 0.0, "rate": 1e6, "burst": 1e6, **settings}))
    with TestClient(app) as client:
        yield client


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}") as c:
        yield c


class Socket:
    """A websocket session that reads messages until the one a test waits for."""

    def __init__(self, session: Any) -> None:
        self.session = session
        self.seen: list[Message] = []

    def send(self, **message: Any) -> None:
        self.session.send_text(json.dumps(message))

    def send_raw(self, text: str) -> None:
        self.session.send_text(text)

    def recv(self) -> Message:
        message: Message = json.loads(self.session.receive_text())
        self.seen.append(message)
        return message

    def until(self, pred: Callable[[Message], bool], limit: int = 2000) -> Message:
        for _ in range(limit):
            message = self.recv()
            if pred(message):
                return message
        raise AssertionError(f"no such message among the last {limit}")

    def of(self, kind: str) -> Message:
        return self.until(lambda m: m["type"] == kind)

    def error(self, code: str) -> Message:
        message = self.of("error")
        assert message["code"] == code, message
        assert message["message"].strip()
        return message

    def state(self, pred: Callable[[Message], bool] = lambda s: True) -> Message:
        message = self.until(lambda m: m["type"] == "state" and m["state"] is not None and pred(m["state"]))
        return message["state"]  # type: ignore[no-any-return]

    def sync(self) -> None:
        """Wait until the server has handled everything sent before (a ping is answered in order)."""
        token = random.random()
        self.send(type="ping", t=token)
        self.until(lambda m: m["type"] == "pong" and m["t"] == token)


@contextmanager
def connect(client: TestClient, code: str, token: str | None) -> Iterator[Socket]:
    with client.websocket_connect(f"/ws/{code}") as session:
        sock = Socket(session)
        sock.send(type="hello", token=token)
        sock.of("chat_history")
        yield sock


def create(client: TestClient, preset: str = "perudo", name: str = "Ann", **body: Any) -> Message:
    r = client.post("/api/tables", json={"preset": preset, "name": name, **body})
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def join(client: TestClient, code: str, name: str) -> Message:
    r = client.post(f"/api/tables/{code}/join", json={"name": name})
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def play_to_end(sock: Socket, seed: int = 0) -> Message:
    """Play this socket's seat with random legal moves until the game ends; the last view."""
    rng = random.Random(seed)
    ref = 0
    state = sock.state()
    while state["result"] is None:
        move = random_move(state, rng)
        if move is None:
            state = sock.state()
            continue
        ref += 1
        sock.send(type="act", action=move, ref=ref)
        reply = sock.until(lambda m, r=ref: m["type"] in ("state", "error") and m.get("ref") == r)
        assert reply["type"] == "state", reply
        state = reply["state"]  # after my move it may be my turn again (I lost and open)
    return state


# ----- HTTP -----


def test_presets_api(client: TestClient) -> None:
    presets = client.get("/api/presets").json()
    names = {p["name"] for p in presets}
    assert {"jokers", "soar", "red-dead", "tavern", "perudo", "openspiel", "classic"} <= names
    perudo = next(p for p in presets if p["name"] == "perudo")
    assert perudo["options"]["wild_bid_rule"] == "perudo_half" and perudo["max_players"] == 6


def test_bots_api_lists_the_ladder_strongest_first(client: TestClient) -> None:
    from liarsdice.bots import BOT_LEVELS

    levels = client.get("/api/bots").json()
    assert [b["name"] for b in levels] == ["Master", "Expert", "Skilled", "Casual", "Beginner"]
    assert [b["order"] for b in levels] == [5, 4, 3, 2, 1]
    assert [b["level"] for b in levels if b["default"]] == ["master"]
    assert levels[0]["aliases"] == ["duel"] and levels[2]["aliases"] == ["probability"]
    assert all(b["bot"] in BOT_LEVELS and b["description"].endswith(".") for b in levels)


def test_create_lobby_join_and_their_refusals(client: TestClient) -> None:
    table = create(client, "tavern", options={"num_players": 3}, turn_seconds=45)
    code = table["code"]
    assert len(code) == 6 and table["url"].endswith(f"/t/{code}") and table["seat"] == 0
    assert len(table["token"]) >= 32
    lobby = client.get("/api/tables").json()
    assert any(t["code"] == code and t["empty"] == 2 and t["humans"] == 1 for t in lobby)
    info = client.get(f"/api/tables/{code}").json()
    assert info["turn_seconds"] == 45 and info["options"]["faces"] == 8 and info["status"] == "open"
    assert [s["kind"] for s in info["seats"]] == ["human", "empty", "empty"]
    assert "token" not in json.dumps(info) and table["token"] not in json.dumps(info)

    bo = join(client, code, "  Bo  ")
    assert bo["seat"] == 1 and bo["token"] != table["token"]
    ann2 = join(client, code.lower(), "ann")
    assert ann2["seat"] == 2
    names = [s["name"] for s in client.get(f"/api/tables/{code}").json()["seats"]]
    assert names == ["Ann", "Bo", "ann (2)"]
    full = client.post(f"/api/tables/{code}/join", json={"name": "Cy"})
    assert full.status_code == 409 and "taken" in full.json()["detail"]

    assert client.post("/api/tables/NOSUCH/join", json={"name": "Cy"}).status_code == 404
    assert client.get("/api/tables/NOSUCH").status_code == 404
    bad = [
        ({"preset": "nonesuch", "name": "A"}, "unknown preset"),
        ({"preset": "perudo", "name": "A", "options": {"num_players": 9}}, "2 to 6 players"),
        ({"preset": "classic", "name": "A", "options": {"wild_bid_rule": "joker_double"}}, "wild face"),
        ({"preset": "classic", "name": "A", "options": {"no_such": 1}}, "unknown option"),
        ({"preset": "classic", "name": ""}, "1 to 24"),
        ({"preset": "classic", "name": "x" * 25}, "1 to 24"),
        ({"preset": "classic", "name": "A", "turn_seconds": -1}, "turn timer"),
    ]
    for body, words in bad:
        r = client.post("/api/tables", json=body)
        assert r.status_code == 422, (body, r.text)
        assert words in json.dumps(r.json()), (body, r.json())
    assert client.post("/api/tables", json={"preset": "classic"}).status_code == 422  # no name
    assert client.get("/api/games/999").status_code == 404


def test_pages_are_served(client: TestClient) -> None:
    # (a replay's page needs a finished game: tests/test_server_pages.py)
    for path in ("/", "/t/ABCDEF", "/history", "/rules", "/rules/perudo"):
        r = client.get(path)
        assert r.status_code == 200 and "text/html" in r.headers["content-type"], path


# ----- hello, roles, bad messages -----


def test_hello_roles_and_refusals(client: TestClient) -> None:
    table = create(client, "classic", options={"num_players": 2})
    code = table["code"]
    with client.websocket_connect(f"/ws/{code}") as session:
        sock = Socket(session)
        sock.send(type="hello", token=table["token"])
        welcome = sock.of("welcome")
        assert welcome == {**welcome, "role": "player", "seat": 0, "host": True}
        assert sock.of("table")["table"]["code"] == code
        assert sock.of("state")["state"] is None
        assert sock.of("chat_history")["messages"] == []
    with client.websocket_connect(f"/ws/{code}") as session:
        sock = Socket(session)
        sock.send(type="hello", token=None)
        assert sock.of("welcome")["role"] == "spectator"
    with client.websocket_connect(f"/ws/{code}") as session:
        sock = Socket(session)
        sock.send(type="hello", token="guessed-token")
        sock.error("not_seated")
    with client.websocket_connect(f"/ws/{code}") as session:
        sock = Socket(session)
        sock.send(type="start")
        assert "first message must be hello" in sock.error("bad_message")["message"]
    with client.websocket_connect("/ws/NOSUCH") as session:
        Socket(session).error("no_table")


def test_bad_messages_are_refused_and_change_nothing(client: TestClient) -> None:
    table = create(client, "classic", options={"num_players": 2})
    with connect(client, table["code"], table["token"]) as sock:
        sock.send_raw("not json")
        assert "not JSON" in sock.error("bad_message")["message"]
        sock.send_raw("[1, 2]")
        sock.error("bad_message")
        sock.send(type="dance")
        assert "unknown message type 'dance'" in sock.error("bad_message")["message"]
        sock.send(type="act")
        assert "action" in sock.error("bad_message")["message"]
        sock.send(type="ping", t=1, extra=2)
        assert "extra" in sock.error("bad_message")["message"]
        sock.send(type="act", action="bid 3 5")
        sock.error("bad_message")
        sock.send(type="hello", token=None)
        assert "once" in sock.error("bad_message")["message"]
        sock.send(type="chat", text="x" * 5000)
        sock.error("too_large")
        sock.send(type="act", action=["bid", 1, 2], ref=7)
        assert sock.error("no_game")["ref"] == 7
        sock.sync()
    assert client.get(f"/api/tables/{table['code']}").json()["status"] == "open"


def test_flooding_is_rate_limited(tmp_path: Path) -> None:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}", rate=20.0, burst=40.0) as client:
        flood(client)


def flood(client: TestClient) -> None:
    table = create(client, "classic", options={"num_players": 2})
    with connect(client, table["code"], table["token"]) as sock:
        for i in range(80):
            sock.send(type="ping", t=i)
        answers = [sock.until(lambda m: m["type"] in ("pong", "error")) for _ in range(80)]
        limited = [m for m in answers if m["type"] == "error"]
        assert limited and all(m["code"] == "rate_limited" for m in limited)
        assert sum(1 for m in answers if m["type"] == "pong") >= 40
        time.sleep(1.0)
        sock.sync()  # the bucket refills


def test_ping_pong(client: TestClient) -> None:
    table = create(client, "classic", options={"num_players": 2})
    with connect(client, table["code"], None) as sock:
        sock.send(type="ping", t={"any": "thing"})
        assert sock.of("pong")["t"] == {"any": "thing"}


# ----- the host's controls -----


def test_host_controls_and_refusals(client: TestClient) -> None:
    table = create(client, "perudo", options={"num_players": 3})
    code = table["code"]
    bo = join(client, code, "Bo")
    with connect(client, code, table["token"]) as host, connect(client, code, bo["token"]) as guest:
        for kind in ("fill_bots", "clear_bots", "start", "rematch", "configure"):
            guest.send(type=kind)
            guest.error("not_host")
        host.send(type="start")
        assert "every seat" in host.error("not_ready")["message"]
        host.send(type="fill_bots", level="genius")
        assert "Beginner, Casual, Skilled, Expert or Master" in host.error("bad_message")["message"]
        host.send(type="configure", options={"num_players": 4, "dice_per_player": 3}, turn_seconds=20)
        info = host.until(lambda m: m["type"] == "table" and m["table"]["options"]["dice_per_player"] == 3)["table"]
        assert len(info["seats"]) == 4 and info["turn_seconds"] == 20
        host.send(type="configure", options={"num_players": 1})
        host.error("bad_options")
        host.send(type="configure", preset="tavern", options={"num_players": 3})
        info = host.until(lambda m: m["type"] == "table" and m["table"]["preset"] == "tavern")["table"]
        assert info["options"]["faces"] == 8 and len(info["seats"]) == 3
        host.send(type="configure", turn_seconds=99999)
        host.error("bad_options")
        host.send(type="fill_bots", level="random")
        info = host.until(lambda m: m["type"] == "table" and all(s["kind"] != "empty" for s in m["table"]["seats"]))
        assert [s["kind"] for s in info["table"]["seats"]] == ["human", "human", "bot"]
        host.send(type="fill_bots")
        host.error("not_ready")
        host.send(type="clear_bots")
        host.until(lambda m: m["type"] == "table" and m["table"]["seats"][2]["kind"] == "empty")
        host.send(type="fill_bots", level="probability")
        host.send(type="rematch")
        host.error("not_ready")
        host.send(type="start")
        view = host.state()
        assert view["phase"] == "turn" and len(view["cup"]) == 3 and view["chips"] == [10, 10, 10]
        host.send(type="start")
        host.error("not_ready")
        host.send(type="configure", turn_seconds=5)
        host.error("not_ready")
        host.send(type="fill_bots")
        host.error("not_ready")
    assert client.post(f"/api/tables/{code}/join", json={"name": "Late"}).status_code == 409


# ----- playing -----


def test_moves_their_refusals_and_what_each_seat_sees(client: TestClient) -> None:
    table = create(client, "classic", options={"num_players": 2, "first_starter": 0})
    code = table["code"]
    bo = join(client, code, "Bo")
    with (
        connect(client, code, table["token"]) as ann,
        connect(client, code, bo["token"]) as bob,
        connect(client, code, None) as watcher,
    ):
        ann.send(type="start")
        a, b, w = ann.state(), bob.state(), watcher.state()
        assert a["to_act"] == 0 and a["seat"] == 0 and len(a["cup"]) == 5 and a["legal"] is not None
        assert b["legal"] is None and len(b["cup"]) == 5 and w["cup"] == [] and w["legal"] is None
        assert a["dice"] == b["dice"] == w["dice"] == [5, 5]
        bob.send(type="act", action=["bid", 1, 2], ref=1)
        assert "Ann's turn" in bob.error("not_your_turn")["message"]
        watcher.send(type="act", action=["bid", 1, 2])
        watcher.error("not_seated")
        ann.send(type="act", action=["challenge"], ref=2)
        err = ann.error("illegal")
        assert err["ref"] == 2 and "nothing to challenge" in err["message"]
        ann.send(type="act", action=["bid", 11, 2])
        assert "more dice than are in play" in ann.error("illegal")["message"]
        ann.send(type="act", action=["bid", 2])
        assert "quantity, face" in ann.error("illegal")["message"]
        ann.send(type="act", action=["push"])
        assert "push only with a bid or pass" in ann.error("illegal")["message"]
        ann.send(type="act", action=["bid", 2, 3], ref=3)
        mine = ann.until(lambda m: m["type"] == "state" and m["ref"] == 3)["state"]
        assert mine["history"][-1] == {"seat": 0, "action": ["bid", 2, 3], "text": "Ann bids 2x3"}
        theirs = bob.state(lambda s: s["to_act"] == 1)
        assert theirs["standing"] == {"bid": [2, 3], "seat": 0, "text": "2x3"}
        assert theirs["legal"]["challenge"] == [{"seat": 0, "what": "bid 2x3"}]
        assert theirs["legal"]["bids"] == [[1, 3, 10], [2, 3, 10], [3, 3, 10], [4, 2, 10], [5, 2, 10], [6, 2, 10]]
        bob.send(type="act", action=["bid", 2, 2])
        assert "does not raise 2x3" in bob.error("illegal")["message"]
        bob.send(type="act", action=["challenge", {"target": "Bo"}])
        bob.error("illegal")
        bob.send(type="act", action=["challenge"], ref=9)
        after = bob.until(lambda m: m["type"] == "state" and m["ref"] == 9)["state"]
        reveal = after["last_round"]
        assert sorted(reveal["hands"]["Ann"]) == a["cup"]
        assert sorted(reveal["hands"]["Bo"]) == b["cup"] and reveal["lines"]
        assert after["round"] == 2
        assert sum(after["dice"]) == 9


def test_chat(client: TestClient) -> None:
    table = create(client, "classic", options={"num_players": 2})
    code = table["code"]
    with connect(client, code, table["token"]) as ann, connect(client, code, None) as watcher:
        ann.send(type="chat", text="  hello <b>there</b>\x07  ")
        line = watcher.of("chat")
        assert line["from"] == "Ann" and line["seat"] == 0 and line["text"] == "hello <b>there</b>"
        watcher.send(type="chat", text="hi")
        assert ann.until(lambda m: m["type"] == "chat" and m["text"] == "hi")["from"] == "Spectator 1"
        ann.send(type="chat", text="   ")
        ann.error("bad_message")
        ann.send(type="chat", text="x" * 301)
        assert "at most 300" in ann.error("bad_message")["message"]
    with connect(client, code, None) as late:
        history = next(m for m in late.seen if m["type"] == "chat_history")["messages"]
        assert [m["text"] for m in history] == ["hello <b>there</b>", "hi"]


def test_a_whole_game_history_record_and_rematch(tmp_path: Path, client: TestClient) -> None:
    table = create(client, "soar", options={"num_players": 3})
    code = table["code"]
    with connect(client, code, table["token"]) as ann:
        ann.send(type="fill_bots", level="probability")
        ann.send(type="start")
        final = play_to_end(ann, seed=3)
        assert final["phase"] == "over" and final["result"]["lines"]
        assert any(m["type"] == "table" and m["table"]["status"] == "finished" for m in ann.seen)
        games = client.get("/api/games").json()
        assert games[0]["table"] == code and games[0]["seats"] == ["Ann", "Bot 1", "Bot 2"]
        game_id = games[0]["id"]
        r = client.get(f"/api/games/{game_id}?download=1")
        assert "attachment" in r.headers["content-disposition"]
        record = r.json()
        steps = list(replay(record))
        assert steps[-1].after.is_terminal and record["result"]["places"] == final["result"]["places"]
        ann.send(type="rematch")
        again = ann.state(lambda s: s["game_id"] != game_id)
        assert again["round"] == 1 and again["dice"] == [5, 5, 5]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    import subprocess
    import sys

    exe = Path(sys.executable).with_name("liarsdice")
    run = subprocess.run([str(exe), "replay", str(path)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr


@pytest.mark.parametrize("level", ["strong", "cfr"])
def test_bots_of_each_level_play_a_table_to_the_end(client: TestClient, level: str) -> None:
    table = create(client, "perudo", options={"num_players": 3, "dice_per_player": 2})
    with connect(client, table["code"], table["token"]) as ann:
        ann.send(type="fill_bots", level=level)
        seats = ann.until(lambda m: m["type"] == "table" and m["table"]["seats"][-1]["kind"] == "bot")["table"]["seats"]
        assert [s.get("bot_level") for s in seats[1:]] == [level, level]
        ann.send(type="start")
        final = play_to_end(ann, seed=5)
        assert final["phase"] == "over" and sorted(final["result"]["places"].values()) == [1, 2, 3]


@pytest.mark.parametrize("preset", ["jokers", "soar", "red-dead", "tavern", "perudo", "openspiel", "classic"])
def test_every_preset_plays_to_the_end_in_the_browser_protocol(client: TestClient, preset: str) -> None:
    players = 2 if preset == "openspiel" else 3
    table = create(client, preset, options={"num_players": players})
    code = table["code"]
    bo = join(client, code, "Bo")
    with connect(client, code, table["token"]) as ann:
        if players > 2:
            ann.send(type="fill_bots", level="random")
        # Bo never connects: he is away, so after the grace period (30 s here) a bot would play
        # for him; instead he plays below from a second socket.
        with connect(client, code, bo["token"]) as bob:
            ann.send(type="start")
            rng = random.Random(preset)
            views = {0: ann.state(), 1: bob.state()}
            ref = 0
            while views[0]["result"] is None:
                for seat, sock in ((0, ann), (1, bob)):
                    move = random_move(views[seat], rng)
                    if move is None:
                        continue
                    ref += 1
                    sock.send(type="act", action=move, ref=ref)
                    reply = sock.until(lambda m, r=ref: m.get("ref") == r and m["type"] in ("state", "error"))
                    assert reply["type"] == "state", reply
                # both sockets catch up with the newest view
                for seat, sock in ((0, ann), (1, bob)):
                    sock.sync()
                    states = [m for m in sock.seen if m["type"] == "state" and m["state"]]
                    views[seat] = states[-1]["state"]
            assert views[0]["result"]["places"]


# ----- reconnecting, away players, turn timers -----


def test_reconnect_gives_back_the_seat_and_the_cup(client: TestClient) -> None:
    table = create(client, "perudo", options={"num_players": 3, "first_starter": 1})
    code = table["code"]
    with connect(client, code, table["token"]) as ann:
        ann.send(type="fill_bots")
        ann.send(type="start")
        before = ann.state()
    with connect(client, code, table["token"]) as ann:
        welcome = next(m for m in ann.seen if m["type"] == "welcome")
        assert welcome["seat"] == 0 and welcome["role"] == "player"
        after = next(m for m in ann.seen if m["type"] == "state")["state"]
        assert after["cup"] == before["cup"] and after["round"] == before["round"]
        assert after["history"][: len(before["history"])] == before["history"]


def test_an_away_player_is_played_by_a_bot_and_gets_the_seat_back(tmp_path: Path) -> None:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}", grace=0.3) as client:
        table = create(client, "classic", options={"num_players": 2, "first_starter": 1})
        code = table["code"]
        bo = join(client, code, "Bo")
        with connect(client, code, table["token"]) as ann:
            with connect(client, code, bo["token"]):
                pass  # Bo leaves at once
            ann.send(type="start")
            # Bo opens; he is away, so a bot bids for him after the grace period
            view = ann.state(lambda s: len(s["history"]) >= 1)
            assert view["history"][0]["seat"] == 1
            assert any(m["type"] == "table" and m["table"]["seats"][1]["auto"] for m in ann.seen)
            with connect(client, code, bo["token"]) as bob:
                seat_back = bob.until(lambda m: m["type"] == "table" and not m["table"]["seats"][1]["auto"])
                assert seat_back["table"]["seats"][1]["connected"]
                mine = next(m for m in bob.seen if m["type"] == "state")["state"]
                assert mine["seat"] == 1 and len(mine["cup"]) == 5


def test_idle_tables_leave_memory_and_come_back(tmp_path: Path) -> None:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}", unload_after=3600) as client:
        manager = client.app.state.rooms  # type: ignore[attr-defined]
        idle = create(client, "perudo", options={"num_players": 3})
        watched = create(client, "soar", options={"num_players": 2})
        playing = create(client, "classic", options={"num_players": 2})
        with connect(client, playing["code"], playing["token"]) as ann:
            ann.send(type="fill_bots", level="probability")
            ann.send(type="start")
            ann.state()
        with connect(client, watched["code"], None):
            # an hour later: only the open table that nobody watches is put away
            assert client.portal.call(manager.unload_idle, time.monotonic() + 7200) == 1  # type: ignore[union-attr]
            assert idle["code"] not in manager.rooms
            assert watched["code"] in manager.rooms and playing["code"] in manager.rooms
        # asked for again, it is loaded from the database as it was
        info = client.get(f"/api/tables/{idle['code']}").json()
        assert info["status"] == "open" and info["seats"][0]["name"] == "Ann"
        assert idle["code"] in manager.rooms
        bo = join(client, idle["code"], "Bo")
        with connect(client, idle["code"], idle["token"]) as ann:
            assert next(m for m in ann.seen if m["type"] == "welcome")["host"]
        with connect(client, idle["code"], bo["token"]) as bob:
            assert next(m for m in bob.seen if m["type"] == "welcome")["seat"] == 1


def test_the_server_sweeps_idle_tables_by_itself(tmp_path: Path) -> None:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}", unload_after=0.2) as client:
        manager = client.app.state.rooms  # type: ignore[attr-defined]
        code = create(client)["code"]
        deadline = time.monotonic() + 10
        while code in manager.rooms and time.monotonic() < deadline:
            time.sleep(0.1)
        assert code not in manager.rooms
        assert client.get(f"/api/tables/{code}").status_code == 200


def test_a_turn_timer_that_runs_out_has_a_bot_move(tmp_path: Path) -> None:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}") as client:
        table = create(client, "classic", options={"num_players": 2, "first_starter": 0}, turn_seconds=1)
        code = table["code"]
        with connect(client, code, table["token"]) as ann:
            ann.send(type="fill_bots")
            ann.send(type="start")
            first = ann.state()
            assert first["to_act"] == 0 and first["deadline"] > time.time() * 1000
            started = time.monotonic()
            moved = ann.state(lambda s: len(s["history"]) >= 1)
            assert moved["history"][0]["seat"] == 0
            assert 0.8 <= time.monotonic() - started < 10


def test_storage_roundtrip_on_each_database(database_url: str) -> None:
    """A whole game through the server, then a fresh server on the same database sees it all."""
    with serving(database_url) as client:
        table = create(client, "perudo", options={"num_players": 3})
        with connect(client, table["code"], table["token"]) as ann:
            ann.send(type="fill_bots")
            ann.send(type="start")
            ann.send(type="chat", text="good luck")
            final = play_to_end(ann, seed=11)
    with serving(database_url) as client:
        games = client.get("/api/games").json()
        places = final["result"]["places"]
        assert len(games) == 1
        assert games[0]["winners"] == [name for name in final["seats"] if places[name] == 1]
        record = client.get(f"/api/games/{games[0]['id']}").json()
        replayed = list(replay(record))[-1].after.result
        assert replayed is not None and replayed.places == tuple(places[name] for name in final["seats"])
        with connect(client, table["code"], None) as watcher:
            history = next(m for m in watcher.seen if m["type"] == "chat_history")["messages"]
            assert [m["text"] for m in history] == ["good luck"]
            info = next(m for m in watcher.seen if m["type"] == "table")["table"]
            assert info["status"] == "finished" and info["games_played"] == 1


def test_leaving_a_seat_before_the_start(client: TestClient) -> None:
    table = create(client, "classic", options={"num_players": 3})
    code = table["code"]
    bo = join(client, code, "Bo")
    with connect(client, code, table["token"]) as ann, connect(client, code, bo["token"]) as bob:
        ann.send(type="leave")
        ann.error("not_host")
        bob.send(type="leave")
        assert bob.until(lambda m: m["type"] == "welcome")["role"] == "spectator"
        info = ann.until(lambda m: m["type"] == "table" and m["table"]["seats"][1]["kind"] == "empty")["table"]
        assert info["seats"][1]["name"] == "Seat 2"
        bob.send(type="leave")
        bob.error("not_seated")
        bob.send(type="chat", text="still here, watching")
        assert ann.until(lambda m: m["type"] == "chat")["from"] == "Bo"
    with client.websocket_connect(f"/ws/{code}") as session:  # the old token holds no seat now
        sock = Socket(session)
        sock.send(type="hello", token=bo["token"])
        sock.error("not_seated")
    again = join(client, code, "Cy")
    assert again["seat"] == 1
    with connect(client, code, table["token"]) as ann:
        ann.send(type="fill_bots")
        ann.send(type="start")
        ann.state()
    with connect(client, code, again["token"]) as cy:
        cy.send(type="leave")
        cy.error("not_ready")


def test_a_seat_that_asks_is_sent_the_odds_of_its_own_view_on_its_turns_and_no_one_else(client: TestClient) -> None:
    table = create(client, "perudo", options={"num_players": 2, "first_starter": 0})
    code = table["code"]
    bo = join(client, code, "Bo")
    with (
        connect(client, code, table["token"]) as ann,
        connect(client, code, bo["token"]) as bob,
        connect(client, code, None) as watcher,
    ):
        ann.send(type="start")
        assert ann.state()["odds"] is None  # not asked for: not counted
        ann.send(type="odds", show=True, ref=7)
        bob.send(type="odds", show=True)
        watcher.send(type="odds", show=True)
        answer = ann.until(lambda m: m["type"] == "state" and m["ref"] == 7)
        bob.sync()
        watcher.sync()
        a, b, w = answer["state"], bob.seen[-2]["state"], watcher.seen[-2]["state"]
        assert w["odds"] is None and a["odds"]["standing"] is None and a["odds"]["bids"]
        assert b["odds"] is None  # not Bo's turn: the odds come with a seat's turn
        game = Game(_table_options(client, code), ["Ann", "Bo"])
        opening = game.position([a["cup"], b["cup"]], starter=0)
        assert a["odds"] == odds_json(opening.view(0))
        ann.send(type="act", action=["bid", 2, 3])
        a, b = ann.state(lambda s: s["standing"] is not None), bob.state(lambda s: s["standing"] is not None)
        # The same position rebuilt from the two cups: the seat to act has its own view's odds.
        state, _ = opening.apply(BidAction(Bid(2, 3)))
        assert b["odds"] == odds_json(state.view(1)) and a["odds"] is None
        assert b["odds"]["exact"] is True and b["odds"]["standing"]["bid"] == [2, 3]
        assert b["odds"]["how"].startswith("2x3: you see ")
        bob.send(type="odds", show=False)
        assert bob.state()["odds"] is None


def _table_options(client: TestClient, code: str) -> Options:
    return Options.from_dict(client.get(f"/api/tables/{code}").json()["options"])
