"""People's ratings (docs/ratings.md): families, the migration, the rating of a finished rated
game (up for the winner, down for the loser, surer for both; once; bots and casual games not
rated), rated tables' refusals, and the ratings API."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from liarsdice.server.gamepeople import hidden_names, renamed
from liarsdice.server.limits import RoomError
from liarsdice.server.peoplerows import create_person, delete_person
from liarsdice.server.ratingfamily import family_of, provisional, shown, shown_text
from liarsdice.server.ratingrows import game_ratings, rate_game, shown_rating
from liarsdice.server.storage import (
    GamePersonRow,
    GameRow,
    PersonRatingRow,
    RatingChangeRow,
    SeatRow,
    Store,
    TableRow,
    migrate,
    utcnow,
)
from liarsdice.server.tableplay import check_rated_seats
from liarsdice.server.tablerows import Seat
from test_people import sign_up
from test_server import connect, create, join, play_to_end, serving


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    # grace 0: a person who is not connected is played by a bot at once (the tests play one seat)
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}", grace=0.0) as c:
        yield c


def test_families_and_the_shown_rating() -> None:
    assert family_of("perudo") == family_of("perudo_basic") == "perudo"
    assert family_of("classic") == "classic" and family_of("openspiel") == "openspiel"
    assert shown(25.0) == 1500 and shown(25 + 1 / 60) == 1501
    assert provisional(25 / 3) and not provisional(5.0)
    assert shown_text(25.0, 25 / 3) == "1500?" and shown_text(26.0, 4.0) == "1560"


def test_the_migration_keeps_every_table_casual(database_url: str) -> None:
    """A database at 0006 with a table and its seat: after 0007 the table is casual, its seat kept."""
    from alembic import command
    from alembic.config import Config

    from liarsdice.server.storage import make_engine

    engine = make_engine(database_url)
    cfg = Config()
    cfg.set_main_option("script_location", str(Path(migrate.__code__.co_filename).parent / "migrations"))
    with engine.begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, "0006")
        conn.exec_driver_sql(
            "INSERT INTO tables (code, preset, options, turn_seconds, status, host_seat, games_played, created_at)"
            " VALUES ('OLDONE', 'perudo', '{}', 0, 'open', 0, 0, CURRENT_TIMESTAMP)"
        )
        conn.exec_driver_sql(
            "INSERT INTO seats (table_id, seat_no, name, kind) SELECT id, 0, 'Ann', 'human' FROM tables"
        )
    engine.dispose()
    store = Store(database_url)  # migrates to the head
    try:
        table = store.call_sync(lambda s: s.scalar(select(TableRow).where(TableRow.code == "OLDONE")))
        assert table is not None and table.rated is False and table.bots_rated is False
        assert store.call_sync(lambda s: s.scalar(select(SeatRow.name).where(SeatRow.table_id == table.id))) == "Ann"
        with store.engine.begin() as conn:  # and back: the tables and their seats stay
            cfg.attributes["connection"] = conn
            command.downgrade(cfg, "0006")
            assert conn.exec_driver_sql("SELECT count(*) FROM seats").scalar() == 1
    finally:
        store.close()


def _rated_game(
    store: Store,
    seats: list[str],
    places: list[int],
    people: dict[int, int],
    rated: bool = True,
    record: dict[str, Any] | None = None,
) -> int:
    """A finished game stored as a table's game ends (its record's places by seat name)."""

    def job(s: Any) -> int:
        table = TableRow(code=f"T{utcnow().timestamp():.6f}"[-16:], preset="perudo", options={}, status="finished")
        s.add(table)
        s.flush()
        game = GameRow(
            table_id=table.id,
            preset="perudo_basic",
            options={},
            seats=seats,
            players=[],
            seed=1,
            status="finished",
            record=record or {"result": {"places": dict(zip(seats, places, strict=True))}},
            rating_family="perudo" if rated else None,
        )
        s.add(game)
        s.flush()
        for seat, person in people.items():
            s.add(GamePersonRow(game_id=game.id, seat_no=seat, person_id=person))
        return int(game.id)

    return store.call_sync(job)


def test_a_rated_game_moves_the_winner_up_and_the_loser_down_once_bots_and_casual_apart(database_url: str) -> None:
    store = Store(database_url)
    try:
        ann = store.call_sync(lambda s: create_person(s, "Ann", "h")).id
        bo = store.call_sync(lambda s: create_person(s, "Bo", "h")).id
        # Ann wins; Bo is second; a bot at seat 1 (no account) is third and not rated.
        game = _rated_game(store, ["Ann", "Bot 1", "Bo"], [1, 3, 2], {0: ann, 2: bo})
        assert store.call_sync(lambda s: rate_game(s, game)) == 2
        assert store.call_sync(lambda s: rate_game(s, game)) == 0  # once: the claim is taken
        rows = {r.person_id: r for r in store.call_sync(lambda s: list(s.scalars(select(PersonRatingRow))))}
        assert set(rows) == {ann, bo}
        assert rows[ann].mu > 25 > rows[bo].mu and rows[ann].sigma < 25 / 3 and rows[bo].sigma < 25 / 3
        assert (rows[ann].games, rows[ann].wins, rows[bo].games, rows[bo].wins) == (1, 1, 1, 0)
        assert rows[ann].family == "perudo"  # perudo_basic rates the perudo family
        assert store.call_sync(lambda s: shown_rating(s, ann, "perudo")) == shown(rows[ann].mu) > 1500
        assert store.call_sync(lambda s: shown_rating(s, ann, "classic")) == 1500
        summary = store.call_sync(lambda s: game_ratings(s, game))
        assert summary is not None and summary["rated"] and not summary["pending"] and summary["family"] == "perudo"
        ann_change, bo_change = summary["changes"]
        assert (ann_change["seat"], ann_change["name"], ann_change["before"]) == (0, "Ann", 1500)
        assert ann_change["delta"] > 0 > bo_change["delta"] and ann_change["provisional"]
        assert ann_change["after"] - ann_change["before"] == ann_change["delta"]

        casual = _rated_game(store, ["Ann", "Bo"], [2, 1], {0: ann, 1: bo}, rated=False)
        assert store.call_sync(lambda s: rate_game(s, casual)) == 0
        assert store.call_sync(lambda s: game_ratings(s, casual)) == {
            "game": casual,
            "rated": False,
            "family": "perudo",
            "pending": False,
            "changes": [],
        }
        alone = _rated_game(store, ["Ann", "Bot 1"], [2, 1], {0: ann})  # one account: nothing to rate
        assert store.call_sync(lambda s: rate_game(s, alone)) == 0
        assert store.call_sync(lambda s: len(list(s.scalars(select(RatingChangeRow))))) == 2

        # A forfeit's places rate too (the record has no result: its meta says who forfeited).
        forfeit = _rated_game(
            store, ["Ann", "Bo"], [1, 1], {0: ann, 1: bo}, record={"meta": {"forfeit": {"seat": "Ann"}}}
        )
        ann_mu, bo_mu = rows[ann].mu, rows[bo].mu
        assert store.call_sync(lambda s: rate_game(s, forfeit)) == 2
        after = {r.person_id: r for r in store.call_sync(lambda s: list(s.scalars(select(PersonRatingRow))))}
        assert after[ann].mu < ann_mu and after[bo].mu > bo_mu and after[bo].wins == 1
    finally:
        store.close()


def test_a_rated_game_starts_only_with_an_account_at_every_person_s_seat() -> None:
    seats = [Seat("Ann", "human", None, "h0"), Seat("Bot 1", "bot", "probability"), Seat("Bo", "human", None, "h2")]
    check_rated_seats(seats, {0: 1, 2: 2})  # the bot needs no account
    with pytest.raises(RoomError, match=r"seat 3 \(Bo\) is not held by a signed-in account"):
        check_rated_seats(seats, {0: 1})


def test_a_deleted_account_s_seat_is_renamed_in_a_record() -> None:
    renames = hidden_names(["Ann", "seat", "Bo"], [1])
    assert renames == {"seat": "deleted player"}
    record = {
        "seats": ["Ann", "seat", "Bo"],
        "players": [{"name": "seat", "kind": "person"}],
        "steps": [
            {"chance": "roll", "hands": {"seat": [1]}},
            {"seat": "seat", "action": ["challenge", {"target": "seat"}]},
        ],
        "result": {"places": {"seat": 1, "Ann": 2}, "ranking": [["seat"], ["Ann"]]},
    }
    out = renamed(record, renames)
    assert out["seats"] == ["Ann", "deleted player", "Bo"] and out["players"][0]["name"] == "deleted player"
    assert out["steps"][0] == {"chance": "roll", "hands": {"deleted player": [1]}}
    assert out["steps"][1] == {"seat": "deleted player", "action": ["challenge", {"target": "deleted player"}]}
    assert out["result"] == {"places": {"deleted player": 1, "Ann": 2}, "ranking": [["deleted player"], ["Ann"]]}
    assert hidden_names(["deleted player", "X"], [1]) == {"X": "deleted player (2)"}


# ----- rated tables over the API -----


def _account(app: Any, name: str) -> TestClient:
    browser = TestClient(app)
    assert sign_up(browser, name).status_code == 303
    return browser


def test_a_rated_table_end_to_end_over_the_api(client: TestClient) -> None:
    ann = _account(client.app, "Ann")
    bo = _account(client.app, "Bo")
    guest = TestClient(client.app)
    refused = guest.post("/api/tables", json={"preset": "openspiel", "name": "G", "rated": True})
    assert refused.status_code == 403 and "sign in to make a rated table" in refused.json()["detail"]
    changed = ann.post("/api/tables", json={"preset": "openspiel", "name": "x", "rated": True, "options": {"faces": 4}})
    assert changed.status_code == 422 and "preset's own rules" in changed.json()["detail"]

    made = create(ann, preset="openspiel", name="whatever", rated=True)
    code = made["code"]
    table = ann.get(f"/api/tables/{code}").json()
    assert table["rated"] is True and table["bots_rated"] is False and table["seats"][0]["name"] == "Ann"
    no_guest = guest.post(f"/api/tables/{code}/join", json={"name": "Gus"})
    assert no_guest.status_code == 403 and "sign in to sit at a rated table" in no_guest.json()["detail"]
    bo_seat = join(bo, code, "Bobby")
    assert bo_seat["name"] == "Bo"  # the account's name, not the one typed
    with connect(bo, code, bo_seat["token"]):
        pass  # Bo comes and goes: away, his seat is played by a bot (and he is still rated)
    with connect(ann, code, made["token"]) as sock:
        sock.send(type="fill_bots", level="probability")
        assert "bots may not sit at this rated table" in sock.error("not_ready")["message"]
        sock.send(type="configure", options={"num_players": 2, "faces": 4})
        assert "preset's own rules" in sock.error("bad_options")["message"]
        sock.send(type="rename", name="Annie")
        assert "keeps its account's name" in sock.error("not_ready")["message"]
        sock.send(type="start")
        end = play_to_end(sock)
        game_id = end["game_id"]
    summary = client.get(f"/api/games/{game_id}/ratings").json()
    assert summary["rated"] is True and summary["family"] == "openspiel" and not summary["pending"]
    by_name = {c["name"]: c for c in summary["changes"]}
    assert set(by_name) == {"Ann", "Bo"} and all(c["before"] == 1500 for c in by_name.values())
    winner = next(c for c in by_name.values() if c["delta"] > 0)
    loser = next(c for c in by_name.values() if c["delta"] < 0)
    assert winner["name"] != loser["name"]
    profile = client.get(f"/api/players/{winner['name']}").json()
    family = next(f for f in profile["ratings"] if f["family"] == "openspiel")
    assert family["rating"] == winner["after"] and family["provisional"] and family["games"] == 1
    assert profile["games"][0]["id"] == game_id and profile["games"][0]["delta"] == winner["delta"]
    board = client.get("/api/leaderboard?family=openspiel").json()
    assert [p["name"] for p in board["players"]] == [winner["name"], loser["name"]]

    # Bo deletes his account: his seat of that game is "deleted player" in its JSON and the history.
    bo_id = client.app.state.store.call_sync(
        lambda s: s.scalar(select(GamePersonRow.person_id).where(GamePersonRow.seat_no == 1))
    )
    client.app.state.store.call_sync(lambda s: delete_person(s, bo_id))
    record = client.get(f"/api/games/{game_id}").json()
    assert record["seats"] == ["Ann", "deleted player"] and "Bo" not in str(record)
    listed = next(g for g in client.get("/api/games").json() if g["id"] == game_id)
    assert listed["seats"] == ["Ann", "deleted player"] and "Bo" not in listed["winners"]
    assert [c["name"] for c in client.get(f"/api/games/{game_id}/ratings").json()["changes"]] == [
        "Ann",
        "deleted player",
    ]
    assert [p["name"] for p in client.get("/api/leaderboard?family=openspiel").json()["players"]] == ["Ann"]
    gone = client.get("/players/deleted player")
    assert gone.status_code == 410 and "deleted their account" in gone.text

    casual = create(ann, preset="openspiel", name="Ann")
    assert client.get(f"/api/tables/{casual['code']}").json()["rated"] is False
    assert join(guest, casual["code"], "Gus")["name"] == "Gus"  # casual tables as before


def test_a_rated_table_may_let_bots_sit_and_rates_only_people(client: TestClient) -> None:
    ann = _account(client.app, "Ann")
    made = create(ann, preset="openspiel", name="Ann", rated=True, bots_rated=True)
    with connect(ann, made["code"], made["token"]) as sock:
        sock.send(type="fill_bots", level="probability")
        sock.until(lambda m: m["type"] == "table" and m["table"]["seats"][1]["kind"] == "bot")
        sock.send(type="start")
        game_id = play_to_end(sock)["game_id"]
    summary = client.get(f"/api/games/{game_id}/ratings").json()
    assert summary == {"game": game_id, "rated": False, "family": "openspiel", "pending": False, "changes": []}


def test_ratings_api_refusals(client: TestClient) -> None:
    assert client.get("/api/games/999/ratings").status_code == 404
    assert client.get("/api/games/0/ratings").status_code == 404
    assert client.get("/api/players/nobody").status_code == 404
    bad = client.get("/api/leaderboard?family=nonesuch")
    assert bad.status_code == 422 and "openspiel" in bad.json()["detail"]
    nobody = client.get("/players/nobody")
    assert nobody.status_code == 404 and "no such player" in nobody.text.lower()
