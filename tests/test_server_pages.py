"""Pages a person opens, the rules in words, names at a table and skipping to the end.

- An address that names nothing is an HTML page with the site's header and a way home; the API
  keeps its JSON. A replay of a game that is not there is such a page, with nothing to download.
- `/rules` and `/rules/{preset}` give each preset's rules whole; `POST /api/rules` gives a
  table's own (custom) options in words, or the reason a table may not have them.
- A joiner whose name was taken is told so; a seated player renames before the start, checked
  as at join, seen by everyone, kept across a reconnect and a restart.
- When only bots are still in, `finish` plays the game to its end at once.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from liarsdice.record import replay
from liarsdice.rulebook import rulebook
from liarsdice.rules import preset_options
from test_server import Socket, connect, create, join, serving


@pytest.fixture
def client(tmp_path: Path) -> Any:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}") as c:
        yield c


def _html(r: Any) -> str:
    assert r.headers["content-type"].startswith("text/html"), r.headers
    return str(r.text)


# ----- pages that name nothing -----


def test_an_address_that_names_nothing_is_a_page_with_the_sites_header(client: TestClient) -> None:
    r = client.get("/nonexistent")
    assert r.status_code == 404
    page = _html(r)
    assert '<nav aria-label="Site">' in page and 'href="/history"' in page
    assert "There is no page at /nonexistent." in page and 'href="/"' in page
    # The API keeps answering JSON.
    api = client.get("/api/nonexistent")
    assert api.status_code == 404 and api.json() == {"detail": "Not Found"}
    assert client.get("/api/games/999").json() == {"detail": "no finished game 999"}


def test_the_replay_of_a_missing_game_says_so_and_offers_no_download(client: TestClient) -> None:
    for path in ("/replay/999", "/replay/0", "/replay/abc"):
        r = client.get(path)
        assert r.status_code == 404, path
        page = _html(r)
        assert "Download the record" not in page and 'href="/"' in page
    assert "There is no finished game 999" in client.get("/replay/999").text


# ----- the rules in words -----


def test_every_preset_has_a_rules_page_listed_on_the_rules_index(client: TestClient) -> None:
    index = _html(client.get("/rules"))
    for name in ("jokers", "soar", "red-dead", "tavern", "perudo", "openspiel", "classic"):
        assert f'href="/rules/{name}"' in index
    soar = _html(client.get("/rules/soar"))
    assert "only once per game" in soar and "through one pass" in soar and "Push:" in soar
    red = _html(client.get("/rules/red-dead"))
    assert "counter-clockwise" in red and "Spot-on" in red and "everyone else loses a die" in red
    tavern = _html(client.get("/rules/tavern"))
    assert "by face first" in tavern and "half the round&#x27;s pot" in tavern and "running pot" in tavern
    missing = client.get("/rules/nosuch")
    assert missing.status_code == 404 and "Unknown preset" in _html(missing)


@pytest.mark.parametrize(
    ("preset", "words"),
    [
        (
            "soar",
            [
                "Each player may call exact only once per game",
                "through one pass",
                "Push:",
                "only players holding a single die",
            ],
        ),
        ("red-dead", ["The opening bid passes counter-clockwise", "Spot-on", "everyone else loses a die"]),
        ("tavern", ["by face first", "after 4 × 3s: 1 × 6s", "wins half the round's pot", "the running pot", "fold"]),
        ("perudo", ["A round may not open on 1s", "Calza", "No calza in it", "after calza, its caller does"]),
        (
            "jokers",
            ["a joker bid counts double", "believe the bid or doubt it", "Everyone who was right sheds one die"],
        ),
    ],
)
def test_each_presets_rules_are_whole(preset: str, words: list[str]) -> None:
    text = " ".join(line for s in rulebook(preset_options(preset), preset).sections for line in s.lines)
    for w in words:
        assert w in text, (preset, w)
    for jargon in ("siding vote", "one-die round", "gain die", "gain_die"):
        assert jargon not in text


def test_the_rules_of_a_custom_mix_follow_its_options(client: TestClient) -> None:
    r = client.post(
        "/api/rules",
        json={"preset": "classic", "options": {"exact": "gain_die", "exact_limit": "once_per_game", "wild_face": 1}},
    )
    assert r.status_code == 200, r.text
    book = r.json()
    text = " ".join(line for s in book["sections"] for line in s["lines"])
    assert "Each player may call calza only once per game" in text and "1s are wild" in text
    assert book["url"] == "/rules/classic" and book["title"] == "Classic"
    # The options as a table reports them read back to the same rules.
    table = create(client, "perudo", options={"num_players": 3})
    options = client.get(f"/api/tables/{table['code']}").json()["options"]
    again = client.post("/api/rules", json={"preset": "perudo", "options": options}).json()
    assert again["sections"] == rulebook(preset_options("perudo", {"num_players": 3}), "perudo").to_json()["sections"]
    refused = client.post("/api/rules", json={"preset": "perudo", "options": {"num_players": 8}})
    assert refused.status_code == 422 and refused.json()["detail"] == "perudo is played by 2 to 6 players, not 8"


def test_a_table_too_big_is_refused_in_players_dice_and_chips(client: TestClient) -> None:
    options = {"num_players": 12, "dice_per_player": 20, "faces": 20, "economy": {"starting_chips": 1000}}
    r = client.post("/api/tables", json={"preset": "tavern", "name": "Ann", "options": options})
    assert r.status_code == 422
    detail = r.json()["detail"]
    assert detail.startswith("too many dice and chips for one table: 12 players with 20 dice each (20 faces)")
    assert "1,000 chips each" in detail and "a table allows at most 50,000" in detail
    assert detail.endswith("lower the players, dice, faces or chips")
    assert "bids x" not in detail
    limits = client.get("/api/limits").json()
    assert limits["players"] == [2, 12] and limits["chips"] == [0, 1000] and limits["moves"] == 50_000


# ----- names at a table -----


def test_a_joiner_whose_name_is_taken_is_told_and_can_rename(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'db.sqlite3'}"
    with serving(url) as client:
        table = create(client, "classic", options={"num_players": 3})
        code = table["code"]
        alone = join(client, code, "Bo")
        assert alone["name"] == "Bo" and alone["notice"] is None
        second = join(client, code, "ann")
        assert second["name"] == "ann (2)"
        assert second["notice"] == (
            "the name ann is taken at this table, so you sit as ann (2): "
            "you can change your name at the table before the game starts"
        )
        with connect(client, code, table["token"]) as host, connect(client, code, second["token"]) as guest:
            guest.send(type="rename", name="  Cy   Dee ", ref=7)
            renamed = guest.of("renamed")
            assert renamed == {"type": "renamed", "seat": 2, "name": "Cy Dee", "ref": 7}
            seen = host.until(lambda m: m["type"] == "table" and m["table"]["seats"][2]["name"] == "Cy Dee")
            assert [s["name"] for s in seen["table"]["seats"]] == ["Ann", "Bo", "Cy Dee"]
            for taken in ("bo", "ANN", "Seat 1"):
                guest.send(type="rename", name=taken, ref=8)
                refused = guest.error("name_taken")
                assert refused["ref"] == 8 and "is taken at this table: choose another" in refused["message"]
            guest.send(type="rename", name="x" * 25, ref=9)
            assert "a name has 1 to 24" in guest.error("bad_message")["message"]
            guest.send(type="rename", name="Zed\u202e", ref=10)
            assert "invisible formatting character" in guest.error("bad_message")["message"]
        with connect(client, code, None) as watcher:
            watcher.send(type="rename", name="Eve")
            watcher.error("not_seated")
        with client.websocket_connect(f"/ws/{code}") as session:  # the seat keeps its name
            again = Socket(session)
            again.send(type="hello", token=second["token"])
            assert again.of("welcome")["name"] == "Cy Dee"
    with serving(url) as client:  # and after a restart
        info = client.get(f"/api/tables/{code}").json()
        assert [s["name"] for s in info["seats"]] == ["Ann", "Bo", "Cy Dee"]
        with connect(client, code, table["token"]) as host:
            host.send(type="fill_bots", level="random")
            host.send(type="start")
            host.state()
            host.send(type="rename", name="Annie", ref=3)
            assert "before the game starts" in host.error("not_ready")["message"]


# ----- skip to the end -----


def _out(state: dict[str, Any], seat: int) -> bool:
    return state["active"][seat] is False


def test_skipping_to_the_end_plays_the_bots_out_at_once(tmp_path: Path) -> None:
    # Ann has 1 die and opens with the highest bid: the next bot can only challenge, and Ann is
    # almost surely out. Her bots then play on at their pace, with a long reveal pause.
    settings = {"bot_delay": 0.3, "reveal_pause": 600.0}
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}", **settings) as client:
        table = create(client, "classic", options={"num_players": 3, "dice_per_player": [1, 3, 3], "first_starter": 0})
        with connect(client, table["code"], table["token"]) as host:
            host.send(type="fill_bots", level="probability")
            host.send(type="finish", ref=1)
            host.error("no_game")
            host.send(type="start")
            for _ in range(20):
                state = host.state(lambda s: s["to_act"] == 0 or s["result"] is not None)
                if state["result"] is not None:
                    host.send(type="rematch")
                    continue
                host.send(type="finish", ref=2)
                refused = host.error("not_ready")
                assert refused["message"].startswith("Ann is still playing")
                host.send(type="act", action=["bid", 7, 6])
                state = host.state(lambda s: s["round"] == 2 or s["result"] is not None)
                if _out(state, 0) and state["result"] is None:
                    break
                if state["result"] is None:  # 7 sixes were there: play the game out and try again
                    host.send(type="rematch")
            else:
                pytest.fail("Ann never went out in round 1")
            assert state["reveal_until"] is not None  # the bots wait for the reveal of round 1
            host.send(type="finish", ref=3)
            final = host.state(lambda s: s["result"] is not None)
            assert final["phase"] == "over" and final["reveal_until"] is None
            game = client.get(f"/api/games/{final['game_id']}").json()
            replay(game)  # the stored steps are a whole, legal game
            page = client.get(f"/replay/{final['game_id']}")  # and its replay's page is there
            assert page.status_code == 200 and "Download the record" in _html(page)
            assert sum(1 for step in game["steps"] if "action" in step and step["seat"] == "Ann") == 1


def test_the_table_page_lists_the_bot_levels_of_the_ladder_before_it_asks_the_server(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    import re

    from liarsdice import levels

    def options(page: str) -> list[tuple[str, str, bool]]:
        select = page[page.index('<select id="bot-level"') : page.index("</select>", page.index('id="bot-level"'))]
        return [
            (v, n, bool(s)) for v, s, n in re.findall(r'<option value="([^"]+)"( selected)?>([^<]+)</option>', select)
        ]

    shown = options(_html(client.get("/t/ABCDEF")))
    assert shown == [(lv.key, lv.name, lv.key == levels.DEFAULT) for lv in levels.STRONGEST_FIRST]
    # a rung added to the ladder shows without touching the page
    extra = levels.Level("Novice", "Novice is a test's level.", "random")
    monkeypatch.setattr("liarsdice.server.pages.STRONGEST_FIRST", (*levels.STRONGEST_FIRST, extra))
    assert options(_html(client.get("/t/ABCDEF")))[-1] == ("novice", "Novice", False)
