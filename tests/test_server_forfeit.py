"""A bot account's forfeit after the game: it outlives a restart of the server, the history
lists it, and nobody at the table is offered a move or a turn timer once the game is over."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from liarsdice.record import replay
from test_server import Message, connect, create, serving
from test_server_bots import account, bot_socket


def _seat_robo(client: TestClient, bot: Any, **table: Any) -> tuple[Message, str]:
    """A table with Ann (its host) at seat 0 and the bot account Robo, on the event socket
    `bot`, at seat 1: the table, and Robo's seat token."""
    made = create(client, "perudo", **table)
    bot.receive_text()  # welcome
    with connect(client, made["code"], made["token"]) as host:
        host.send(type="invite_bot", bot="Robo", seat=1)
        invite = json.loads(bot.receive_text())
        bot.send_text(json.dumps({"type": "accept", "id": invite["id"]}))
        seated = json.loads(bot.receive_text())
        assert seated["type"] == "seated" and seated["seat"] == 1, seated
    return made, seated["token"]


def _forfeit_at_anns_turn(client: TestClient) -> tuple[Message, Message, Message]:
    """Robo forfeits while it is Ann's turn (her turn timer running): the table, and the table
    and the state Ann is told once the game is over."""
    with bot_socket(client, account(client, "Robo")) as bot:
        made, robo = _seat_robo(client, bot, options={"num_players": 2, "first_starter": 0}, turn_seconds=60)
        with connect(client, made["code"], robo) as seat, connect(client, made["code"], made["token"]) as ann:
            ann.send(type="start")
            mine = ann.state(lambda s: s["to_act"] == 0)
            assert mine["legal"] is not None and mine["deadline"] is not None  # her turn, timed
            seat.send(type="forfeit", reason="timeout: no answer within 5 s", ref=1)
            info = ann.until(lambda m: m["type"] == "table" and m["table"]["status"] == "finished")["table"]
            after = ann.state()
    return made, info, after


def test_a_forfeit_outlives_a_restart_with_its_ranking(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    with serving(url) as client:
        made, info, _ = _forfeit_at_anns_turn(client)
    forfeit = info["forfeit"]
    assert forfeit["seat"] == 1 and forfeit["reason"] == "timeout: no answer within 5 s"
    assert forfeit["result"]["places"] == {"Ann": 1, "Robo": 2}
    assert forfeit["result"]["ranking"] == [["Ann"], ["Robo"]]
    # a new server on the same database: the table is loaded from it, and says what happened
    with serving(url) as client:
        again = client.get(f"/api/tables/{made['code']}").json()
        assert again["status"] == "finished" and again["game_id"] == info["game_id"]
        assert again["forfeit"] == forfeit
        with connect(client, made["code"], made["token"]) as ann:
            told = next(m for m in ann.seen if m["type"] == "table")["table"]
            assert told["forfeit"] == forfeit
            state = next(m for m in ann.seen if m["type"] == "state")["state"]
            assert state["game_id"] == info["game_id"] and state["result"] is None  # the engine's: none
            assert state["legal"] is None and state["deadline"] is None  # the game is over
            # a rematch starts a game with no forfeit
            ann.send(type="rematch")
            fresh = ann.until(lambda m: m["type"] == "table" and m["table"]["game_id"] != info["game_id"])["table"]
            assert fresh["status"] == "playing" and fresh["forfeit"] is None
        record = client.get(f"/api/games/{info['game_id']}").json()
        assert record["result"] is None and record["meta"]["forfeit"]["seat"] == "Robo"
        list(replay(record))


def test_after_a_forfeit_nobody_is_offered_a_move_or_a_timer(tmp_path: Path) -> None:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}") as client:
        _, info, after = _forfeit_at_anns_turn(client)
    assert after["game_id"] == info["game_id"] and after["to_act"] == 0  # the engine stopped at her turn
    assert after["legal"] is None, "Ann is still offered moves in a game that is over"
    assert after["deadline"] is None, "Ann's turn timer still runs in a game that is over"


def test_the_history_says_who_forfeited_and_why(tmp_path: Path) -> None:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}") as client:
        _, info, _ = _forfeit_at_anns_turn(client)
        games = {g["id"]: g for g in client.get("/api/games").json()}
    listed = games[info["game_id"]]
    assert listed["winners"] == ["Ann"]
    assert listed["forfeit"] == {"seat": "Robo", "reason": "timeout: no answer within 5 s"}
