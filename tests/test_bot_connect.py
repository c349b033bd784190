"""`liarsdice bot connect` against a real server (uvicorn in a thread): a program per game, told
how each game ended and closed; a program that cannot play is never seated; invitations the
program's hello excludes are declined; a forfeit ends the seat's game as in `play`."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from conftest import free_port
from liarsdice.botproto.connect import AcceptRules, Bridge, ConnectError
from liarsdice.botproto.driver import ExecSettings
from liarsdice.record import replay
from liarsdice.server.app import create_app
from liarsdice.server.botaccounts import create_account
from liarsdice.server.ladder import LadderConfig, parse_ladder
from liarsdice.server.settings import Settings
from test_botproto import alive
from test_server import Socket, play_to_end
from test_server_bots import _SyncSession, to_bot_validator

HOSTILE = Path(__file__).with_name("hostile_bot.py")
CLI = [sys.executable, "-m", "liarsdice.cli"]


@contextmanager
def live_server(tmp_path: Path, **settings: Any) -> Iterator[tuple[str, Any]]:
    """A real server on a free port (the bridge speaks real websockets): its address and app."""
    import uvicorn

    base = {"grace": 30.0, "bot_delay": 0.0, "rate": 1e6, "burst": 1e6}
    app = create_app(f"sqlite:///{tmp_path / 'db.sqlite3'}", Settings(**(base | settings)))
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}", app
    finally:
        server.should_exit = True
        thread.join(30)


def make_account(app: Any, name: str) -> str:
    return app.state.store.call_sync(lambda s: create_account(s, name))  # type: ignore[no-any-return]


class Running:
    """A bridge running on an event loop of its own, in a thread, until `stop()`."""

    def __init__(self, bridge: Bridge) -> None:
        self.bridge = bridge
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.future = asyncio.run_coroutine_threadsafe(bridge.run(), self.loop)

    def stop(self) -> None:
        async def shutdown() -> None:
            await self.bridge.stop("the test is over")
            # A seat the server gives while the bridge goes offline starts all the same, after a
            # list taken at once (a CI run found a program still alive 10 s after the stop). So
            # the seats are ended once the bridge is offline, every one, as `asyncio.run` ends
            # the tasks left in `run_bridge`.
            while not self.future.done():
                await asyncio.sleep(0.01)
            while seats := [task for task in self.bridge.seats.values() if not task.done()]:
                for task in seats:
                    task.cancel()
                await asyncio.gather(*seats, return_exceptions=True)

        try:
            asyncio.run_coroutine_threadsafe(shutdown(), self.loop).result(30)
            with pytest.raises(ConnectError, match="the test is over"):
                self.future.result(30)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)
            self.loop.close()


def bridge_for(base: str, token: str, command: list[str], tmp_path: Path, said: list[str], **kw: Any) -> Bridge:
    settings = ExecSettings(move_time=5.0, quit_time=1.0, log_dir=tmp_path / "logs", **kw)
    return Bridge(base, token, command, AcceptRules(), settings, say=said.append)


def wait_until(what: str, test: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not test():
        assert time.monotonic() < deadline, f"no {what} in time"
        time.sleep(0.05)


@pytest.fixture
def programs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """Folders where the hostile bot writes its pids and every line it is sent."""
    pids, record = tmp_path / "pids", tmp_path / "record"
    pids.mkdir()
    record.mkdir()
    monkeypatch.setenv("HOSTILE_PIDS", str(pids))
    monkeypatch.setenv("HOSTILE_RECORD", str(record))
    return pids, record


def two_seat_ladder() -> LadderConfig:
    """A ladder of quick games (classic, 2 seats, 1 die each) that bot accounts online enter."""
    return parse_ladder("classic", "random,probability", seats=2, dice=1, accounts=True, every=0.05)


def played(record: Path) -> dict[int, list[dict[str, Any]]]:
    """The programs that were told of a game (not the one started to take the hello)."""
    return {
        int(f.stem): [json.loads(line) for line in f.read_text().splitlines()]
        for f in record.glob("*.jsonl")
        if '"new_game"' in f.read_text()
    }


# ----- a program per game, told its end and closed -----


def test_every_game_gets_game_over_and_its_program_is_closed(tmp_path: Path, programs: tuple[Path, Path]) -> None:
    pids, record = programs
    with live_server(tmp_path, ladder=two_seat_ladder()) as (base, app):
        token = make_account(app, "Mini")
        said: list[str] = []
        running = Running(bridge_for(base, token, [sys.executable, str(HOSTILE), "plain"], tmp_path, said))
        try:
            wait_until("5 games of the bot", lambda: len(played(record)) >= 5)
            started = [int(p.name) for p in pids.iterdir()]
            # One game at a time on this ladder: at most the current game's program is running.
            assert len([p for p in started if alive(p)]) <= 1, said
            # and a ladder's table, where nobody can start another game, is left as its game ends
            wait_until("the finished tables left", lambda: sum("left the table" in s for s in said) >= 4)
        finally:
            running.stop()
    started = [int(p.name) for p in pids.iterdir()]
    wait_until("every program to exit", lambda: not any(alive(p) for p in started), 10)
    games = played(record)
    check = to_bot_validator()
    ended = 0
    for messages in games.values():
        for message in messages:
            check.validate(message)
        kinds = [message["type"] for message in messages]
        assert kinds[:2] == ["hello", "new_game"] and kinds[-1] == "quit", kinds
        if "game_over" in kinds:
            ended += 1
            assert kinds[-2] == "game_over" and kinds.count("new_game") == 1, kinds
            assert messages[-2]["result"] is not None and messages[-2]["events"][-1]["event"] == "game_over"
    assert ended >= len(games) - 1  # all but the game in play when the bridge stopped


def test_a_hosts_rematch_is_played_by_a_new_program_and_none_outlives_its_game(
    tmp_path: Path, programs: tuple[Path, Path]
) -> None:
    import httpx

    pids, record = programs
    with live_server(tmp_path) as (base, app):
        token = make_account(app, "Mini")
        said: list[str] = []
        running = Running(bridge_for(base, token, [sys.executable, str(HOSTILE), "plain"], tmp_path, said))
        try:
            wait_until("the bot online", lambda: httpx.get(f"{base}/api/bots/online").json() != [])
            options = {"num_players": 2, "dice_per_player": 1}
            table = httpx.post(f"{base}/api/tables", json={"preset": "classic", "name": "Ann", "options": options})
            with host_socket(base, table.json()) as host:
                host.send(type="invite_bot", bot="Mini", seat=1)
                host.until(lambda m: m["type"] == "table" and m["table"]["seats"][1]["connected"])
                for game in range(3):
                    host.send(type="start" if game == 0 else "rematch")
                    play_to_end(host, seed=game)
                    # the game's program is told its end and closed: none is left running
                    wait_until(
                        "the game's program to exit", lambda: not any(alive(int(p.name)) for p in pids.iterdir()), 10
                    )
                    assert len(played(record)) == game + 1
        finally:
            running.stop()
    for messages in played(record).values():
        kinds = [message["type"] for message in messages]
        assert kinds.count("new_game") == 1 and kinds[-2:] == ["game_over", "quit"], kinds


# ----- a program that cannot play is not seated -----


@pytest.mark.parametrize(
    ("command", "why"),
    [
        (["{tmp}/missing-bot"], "cannot start"),
        (
            [sys.executable, "-c", "import sys; sys.exit(2)"],
            "ended before saying hello: the program exited with code 2",
        ),
        ([sys.executable, str(HOSTILE), "protocol2"], "protocol version 2, which is not supported"),
    ],
)
def test_a_program_that_cannot_play_stops_the_bridge_before_it_goes_online(
    command: list[str], why: str, tmp_path: Path
) -> None:
    command = [word.replace("{tmp}", str(tmp_path)) for word in command]
    with live_server(tmp_path) as (base, app):
        token = make_account(app, "Mini")
        said: list[str] = []
        bridge = bridge_for(base, token, command, tmp_path, said)
        with pytest.raises(ConnectError, match=f"the program cannot play: .*{why}"):
            asyncio.run(asyncio.wait_for(bridge.run(), 30))
        assert not any("online as" in line for line in said), said


def test_bot_connect_stops_with_the_reason_when_the_program_cannot_start(tmp_path: Path) -> None:
    env = {**os.environ, "LIARSDICE_DATA": str(tmp_path)}
    done = subprocess.run(
        [*CLI, "bot", "connect", "http://127.0.0.1:9", "--token", "x" * 40, "--", str(tmp_path / "missing-bot")],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "the program cannot play" in done.stderr and "cannot start" in done.stderr, done.stderr


@contextmanager
def host_socket(base: str, table: dict[str, Any]) -> Iterator[Socket]:
    from websockets.sync.client import connect

    with connect(base.replace("http://", "ws://") + f"/ws/{table['code']}") as ws:
        sock = Socket(_SyncSession(ws))
        sock.send(type="hello", token=table["token"])
        sock.of("chat_history")
        yield sock


def test_invitations_the_programs_hello_excludes_are_declined(tmp_path: Path, programs: tuple[Path, Path]) -> None:
    import httpx

    with live_server(tmp_path) as (base, app):
        token = make_account(app, "Mini")
        said: list[str] = []
        running = Running(bridge_for(base, token, [sys.executable, str(HOSTILE), "perudo_only"], tmp_path, said))
        try:
            wait_until("the bot online", lambda: httpx.get(f"{base}/api/bots/online").json() != [])
            for preset, seated in (("classic", False), ("perudo", True)):
                table = httpx.post(
                    f"{base}/api/tables", json={"preset": preset, "name": "Ann", "options": {"num_players": 2}}
                ).json()
                with host_socket(base, table) as host:
                    host.send(type="invite_bot", bot="Mini", seat=1)
                    if seated:
                        host.until(lambda m: m["type"] == "table" and m["table"]["seats"][1]["bot_account"] == "Mini")
                    else:
                        refused = host.error("declined")["message"]
                        assert refused == "Mini declined: it plays perudo, not the preset classic", refused
            assert running.future.done() is False, said
        finally:
            running.stop()


# ----- a forfeit ends the seat's game as in `play` -----


def test_a_forfeit_ends_the_game_with_the_seat_last_and_the_ladder_rates_the_loss(
    tmp_path: Path, programs: tuple[Path, Path]
) -> None:
    import httpx

    _, record = programs
    command = [sys.executable, str(HOSTILE), "forfeit_me", "1"]  # an illegal answer at its first move
    with live_server(tmp_path, grace=0.2, ladder=two_seat_ladder()) as (base, app):
        token = make_account(app, "Mini")
        said: list[str] = []
        running = Running(bridge_for(base, token, command, tmp_path, said, fallback="forfeit"))

        def mini() -> dict[str, Any] | None:
            boards = httpx.get(f"{base}/api/ladder").json()["boards"]
            bots = [b for board in boards for b in board["bots"] if b["name"] == "Mini"]
            return bots[0] if bots else None

        try:
            wait_until("3 rated games of the bot", lambda: (mini() or {}).get("games", 0) >= 3)
        finally:
            running.stop()
        rated = mini()
        assert rated is not None and rated["wins"] == 0, rated
        for game in rated["recent"]:
            assert game["place"] == 2 and "Mini" not in game["winners"], game
            data = httpx.get(f"{base}/api/games/{game['id']}").json()
            assert data["meta"]["forfeit"]["seat"] == "Mini"
            assert data["meta"]["forfeit"]["reason"].startswith("illegal")
            assert data["result"] is None
            list(replay(data))  # the record stays a valid one: its steps, no made-up result
    # each program was told of the forfeit, then of the game's end, as `play` tells it
    finished = [ms for ms in played(record).values() if any(m["type"] == "game_over" for m in ms)]
    assert len(finished) >= 3
    for messages in finished:
        over = next(m for m in messages if m["type"] == "game_over")
        assert [e["event"] for e in over["events"]] == ["forfeit", "game_over"]
        assert over["result"]["places"][over["events"][0]["seat"]] == 2
        refused = next(m for m in messages if m["type"] == "refused")
        assert refused["forfeit"] is True and refused["played"] is None
