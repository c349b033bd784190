"""The bot ladder (`liarsdice serve --ladder PRESETS`): bot-only tables among the operator's
programs and built-in anchors, OpenSkill ratings per preset, the leaderboard and its games."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from liarsdice.record import replay
from liarsdice.server.ladder import LadderError, parse_ladder
from test_server import Message, connect, serving
from test_server_bots import _play_bot_seat, account, bot_socket

pytest.importorskip("openskill")

ROOT = Path(__file__).resolve().parents[1]
MINIMAL = ROOT / "examples" / "bots" / "minimal.py"
CLI = [sys.executable, "-m", "liarsdice.cli"]
WAIT = 90.0  # seconds a test waits for the ladder at most (it usually takes well under one)


def until(client: TestClient, path: str, done: Callable[[Any], bool]) -> Any:
    """GET `path` until `done` holds for its JSON (a bounded wait, not a timing check)."""
    deadline = time.monotonic() + WAIT
    while True:
        body = client.get(path).json()
        if done(body):
            return body
        if time.monotonic() > deadline:
            raise AssertionError(f"{path} never got there; last: {body}")
        time.sleep(0.05)


def bots_of(body: dict[str, Any], preset: str = "perudo") -> dict[str, dict[str, Any]]:
    boards = [b for b in body["boards"] if b["preset"] == preset]
    return {bot["entrant"]: bot for bot in boards[0]["bots"]} if boards else {}


def every_one_has(games: int, entrants: set[str]) -> Callable[[Any], bool]:
    def done(body: Any) -> bool:
        bots = bots_of(body)
        return set(bots) == entrants and all(b["games"] >= games for b in bots.values())

    return done


def test_the_ladder_plays_and_rates_two_anchors_and_an_operator_program(tmp_path: Path) -> None:
    operator = {"Mini": f"{sys.executable} {MINIMAL}"}
    config = parse_ladder("perudo", "random,probability", tables=2, seats=2, dice=1, operator_bots=operator, every=0.05)
    entrants = {"random", "probability", "operator:Mini"}
    with serving(f"sqlite:///{tmp_path / 'ladder.sqlite3'}", operator_bots=operator, ladder=config) as client:
        first = until(client, "/api/ladder", every_one_has(2, entrants))
        assert first["running"] and first["presets"] == ["perudo"] and first["seats"] == 2
        before = bots_of(first)
        later = bots_of(until(client, "/api/ladder", every_one_has(4, entrants)))

        for entrant, bot in later.items():
            # Every rated game moves a rating: sigma only shrinks, mu follows the result.
            old = before[entrant]
            assert bot["games"] > old["games"]
            assert bot["sigma"] < old["sigma"] < 25 / 3
            assert bot["ordinal"] == pytest.approx(bot["mu"] - 3 * bot["sigma"])
            assert 0 <= bot["wins"] <= bot["games"]
        # Two seats a table: one winner a game.
        assert sum(b["wins"] for b in later.values()) * 2 == sum(b["games"] for b in later.values())
        ordinals = [b["ordinal"] for b in bots_of(client.get("/api/ladder?preset=perudo").json()).values()]
        assert ordinals == sorted(ordinals, reverse=True)
        assert {(b["name"], b["kind"]) for b in later.values()} == {
            ("random", "anchor"),
            ("probability", "anchor"),
            ("Mini", "operator"),
        }

        # Each bot's games are stored, listed under History and replayable.
        history = {g["id"] for g in client.get("/api/games").json()}
        for entrant, bot in later.items():
            assert bot["recent"], entrant
            for game in bot["recent"]:
                assert game["id"] in history
                record = client.get(f"/api/games/{game['id']}").json()
                steps = list(replay(record))  # refuses a record that breaks the rules
                assert steps and record["preset"] == "perudo" and len(record["seats"]) == 2
                levels = {p["level"] for p in record["players"]}
                assert entrant in levels and all(p["kind"] == "bot" for p in record["players"])
                assert game["place"] == record["result"]["places"][bot["name"]]
        mini_games = [g["id"] for g in later["operator:Mini"]["recent"]]
        record = client.get(f"/api/games/{mini_games[0]}").json()
        assert any(s.get("seat") == "Mini" for s in record["steps"]), "the program made no move"

        assert client.get("/api/ladder?preset=soar").json()["boards"] == []
        missing = client.get("/api/ladder?preset=nosuch")
        assert missing.status_code == 404 and "unknown preset 'nosuch'" in missing.json()["detail"]
        page = client.get("/ladder")
        assert page.status_code == 200 and "/static/js/ladder.js" in page.text
        assert client.get("/static/js/ladder.js").status_code == 200

    # The ratings are the database's: a server without the ladder still shows them.
    with serving(f"sqlite:///{tmp_path / 'ladder.sqlite3'}") as client:
        body = client.get("/api/ladder").json()
        assert not body["running"]
        kept = bots_of(body)
        assert set(kept) == entrants and all(kept[e]["games"] >= later[e]["games"] for e in entrants)


def test_two_builtin_anchors_on_two_presets_each_have_a_board(database_url: str) -> None:
    # On SQLite and on PostgreSQL: the migration, the rating job and the leaderboard's queries.
    config = parse_ladder("perudo,soar", "random,probability", tables=1, seats=2, dice=1, every=0.05)
    with serving(database_url, ladder=config) as client:
        body = until(client, "/api/ladder", lambda b: len(b["boards"]) == 2)
        assert [b["preset"] for b in body["boards"]] == ["perudo", "soar"]
        for board in body["boards"]:
            assert {b["entrant"] for b in board["bots"]} == {"random", "probability"}


def test_an_account_that_sits_and_never_moves_does_not_hold_the_ladder(tmp_path: Path) -> None:
    # Connected, so never away: only the ladder's turn clock moves for it (the grace is 1,000 s).
    config = parse_ladder(
        "perudo", "random,probability", tables=1, seats=2, dice=1, accounts=True, every=0.05, turn_seconds=1
    )
    with serving(f"sqlite:///{tmp_path / 'silent.sqlite3'}", ladder=config, grace=1000.0) as client:
        token = account(client, "Mute")
        with bot_socket(client, token) as bot:
            assert json.loads(bot.receive_text())["type"] == "welcome"
            invite = json.loads(bot.receive_text())
            assert invite["type"] == "invite"
            bot.send_text(json.dumps({"type": "accept", "id": invite["id"]}))
            seated = json.loads(bot.receive_text())
            assert seated["type"] == "seated"
            with connect(client, seated["table"], seated["token"]):
                table = until(client, f"/api/tables/{seated['table']}", lambda t: t["status"] == "finished")
        assert table["turn_seconds"] == 1
        board = until(client, "/api/ladder", lambda b: bots_of(b).get("account:Mute", {}).get("games") == 1)
        game = bots_of(board)["account:Mute"]["recent"][0]
        record = client.get(f"/api/games/{game['id']}").json()
        assert list(replay(record))
        assert any(step.get("seat") == "Mute" and "action" in step for step in record["steps"])


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"presets": "nosuch", "anchors": "random,probability"}, "--ladder: unknown preset 'nosuch'"),
        ({"presets": "", "anchors": "random,probability"}, "--ladder is a comma list of presets"),
        ({"presets": "perudo", "anchors": "random,clever"}, "unknown bot level 'clever': the levels are"),
        ({"presets": "perudo", "anchors": "random"}, "needs at least 2 entrants for 2 seats, and has 1"),
        ({"presets": "perudo", "anchors": "random,probability", "seats": 3}, "at least 3 entrants"),
        ({"presets": "perudo", "anchors": "random,probability", "tables": 0}, "--ladder-tables is 1 to 64, not 0"),
        (
            {"presets": "perudo", "anchors": "random,probability", "turn_seconds": -1},
            "--ladder-turn-seconds is 0 (no clock) to 3600, not -1",
        ),
        ({"presets": "perudo", "anchors": "random,probability", "dice": 0}, "--ladder perudo with 2 seats:"),
    ],
)
def test_a_ladder_that_cannot_run_is_refused_with_the_reason(args: dict[str, Any], message: str) -> None:
    presets, anchors = args.pop("presets"), args.pop("anchors")
    with pytest.raises(LadderError) as refused:
        parse_ladder(presets, anchors, **args)
    assert message in str(refused.value)


def test_serve_refuses_a_bad_ladder_before_it_starts(tmp_path: Path) -> None:
    env = {**os.environ, "LIARSDICE_DATA": str(tmp_path)}
    port = ["--port", "0", "--database-url", f"sqlite:///{tmp_path / 'cli.sqlite3'}"]
    bad = subprocess.run(
        [*CLI, "serve", *port, "--ladder", "perudo,nosuch", "--ladder-anchors", "random,probability"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert bad.returncode != 0
    assert "unknown preset 'nosuch': the presets are" in bad.stderr and "perudo" in bad.stderr
    lonely = subprocess.run(
        [*CLI, "serve", *port, "--ladder-anchors", "random"], capture_output=True, text=True, env=env, timeout=60
    )
    assert lonely.returncode != 0 and "turn it on with --ladder PRESETS" in lonely.stderr


def test_a_bot_account_online_is_invited_plays_and_is_rated_and_one_that_declines_is_replaced(
    tmp_path: Path,
) -> None:
    config = parse_ladder("perudo", "random,probability", tables=1, seats=2, dice=1, accounts=True, every=0.05)
    with serving(f"sqlite:///{tmp_path / 'accounts.sqlite3'}", ladder=config) as client:
        token = account(client, "Robo")
        seen: list[Message] = []
        done = threading.Event()
        players: list[threading.Thread] = []
        declined = None
        try:
            with bot_socket(client, token) as bot:
                assert json.loads(bot.receive_text())["type"] == "welcome"
                while declined is None:
                    message = json.loads(bot.receive_text())
                    if message["type"] == "invite":
                        assert message["preset"] == "perudo" and message["options"]["dice_per_player"] == 1
                        code = message["table"]
                        # A ladder table is for bots: not in the lobby, and no person may join it.
                        assert code not in {t["code"] for t in client.get("/api/tables").json()}
                        joined = client.post(f"/api/tables/{code}/join", json={"name": "Ann"})
                        assert joined.status_code == 409 and "bot ladder table" in joined.json()["detail"]
                        if len(players) < 2:
                            bot.send_text(json.dumps({"type": "accept", "id": message["id"]}))
                        else:
                            bot.send_text(json.dumps({"type": "decline", "id": message["id"], "reason": "enough"}))
                            declined = code
                    elif message["type"] == "seated":
                        player = threading.Thread(
                            target=_play_bot_seat, args=(client, message["table"], message["token"], seen, done)
                        )
                        player.start()
                        players.append(player)
                # The declined seat went to an anchor at once: that table plays without Robo.
                table = until(client, f"/api/tables/{declined}", lambda t: t["status"] == "finished")
                assert {s["bot_level"] for s in table["seats"]} == {"random", "probability"}
                board = until(client, "/api/ladder", lambda b: bots_of(b).get("account:Robo", {}).get("games") == 2)
                robo = bots_of(board)["account:Robo"]
        finally:
            done.set()
            for player in players:
                player.join(30)
        assert robo["name"] == "Robo" and robo["kind"] == "account" and robo["sigma"] < 25 / 3
        for game in robo["recent"]:
            record = client.get(f"/api/games/{game['id']}").json()
            assert list(replay(record))
            assert "account:Robo" in {p["level"] for p in record["players"]}
        assert any(m["type"] == "state" and m["state"] and m["state"]["bot_view"]["legal"] for m in seen)
