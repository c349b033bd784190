"""The lessons in the browser, through the API and the pages: the list and each lesson's page, a
lesson's steps as the page draws them (the player's cup only), a move judged right or wrong by the
same judge as the terminal's with the reveal, the refusals of a bad lesson, step or move, the short
game at a real table with the easiest bot, and the links to the lessons from the home page and
every table's page."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from liarsdice.learn import LESSONS, judge_list, preset_lessons, to_json
from liarsdice.rules import PRESETS
from test_server import connect, create, serving


@pytest.fixture
def client(tmp_path: Path) -> Any:
    with serving(f"sqlite:///{tmp_path / 'db.sqlite3'}") as c:
        yield c


def test_the_lessons_page_lists_every_lesson_and_is_in_the_navigation(client: TestClient) -> None:
    page = client.get("/learn")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    for lesson in LESSONS.values():
        assert f'href="/learn/{lesson.name}"' in page.text and html.escape(lesson.title) in page.text
    assert '<a href="/learn" aria-current="page">Learn</a>' in page.text
    assert 'href="/learn"' in client.get("/history").text  # the navigation of every page


def test_the_home_page_offers_the_first_lesson(client: TestClient) -> None:
    home = client.get("/").text
    assert "New to Liar's Dice?" in home
    assert 'href="/learn/core">Learn in 5 minutes</a>' in home


def test_every_table_page_links_each_preset_to_its_lesson(client: TestClient) -> None:
    made = create(client, "soar")
    page = client.get(f"/t/{made['code']}").text
    found = re.search(r'<a id="rules-learn" [^>]*data-lessons="([^"]*)"', page)
    assert found, "the Rules box links to a lesson"
    links = json.loads(html.unescape(found.group(1)))
    assert links == {preset: [lesson, LESSONS[lesson].title] for preset, lesson in preset_lessons().items()}
    assert set(preset_lessons()) == set(PRESETS)


def test_a_lesson_page_and_its_steps(client: TestClient) -> None:
    page = client.get("/learn/core")
    assert page.status_code == 200 and 'data-lesson="core"' in page.text
    data = client.get("/api/learn/core").json()
    assert data["name"] == "core" and len(data["steps"]) == len(LESSONS["core"].steps)
    first = data["steps"][0]
    assert first["cup"] == [2, 3, 3, 5]  # the player's own cup, sorted
    # the others' cups are never sent: only how many dice each seat holds
    shown = {"name", "dice", "active", "pushed", "chips", "folded", "to_act"}
    assert all(set(seat) == shown for seat in first["seats"])
    assert "6, 3, 1, 4" not in str(data)
    assert first["choices"][0] == {"move": ["bid", 2, 3], "label": "Bid two 3s"}
    second = data["steps"][1]
    assert second["history"] == ["Ana bids 2 × 4s", "Ben bids 3 × 2s"] and second["standing"] == [3, 2]
    index = client.get("/api/learn").json()
    assert [lesson["name"] for lesson in index["lessons"]] == list(LESSONS)
    assert index["presets"] == preset_lessons()


def test_a_right_move_and_a_wrong_one_are_judged_and_explained(client: TestClient) -> None:
    right = client.post("/api/learn/core/3", json={"move": ["challenge"]})
    assert right.status_code == 200
    verdict = right.json()
    assert verdict["right"] and verdict["legal"]
    assert verdict["explanation"] == LESSONS["core"].steps[2].right
    assert verdict["reveal"]["count"] == 2 and verdict["reveal"]["hands"]["Ana"] == [2, 6, 4, 4]
    assert "Ben loses 1 die." in verdict["reveal"]["lines"]
    assert any(line.startswith("Counted") and " × " in line for line in verdict["reveal"]["lines"])
    wrong = client.post("/api/learn/core/4", json={"move": ["challenge"]}).json()
    assert not wrong["right"] and wrong["legal"] and "You lose 1 die." in wrong["reveal"]["lines"]
    refused = client.post("/api/learn/core/2", json={"move": ["bid", 2, 6]}).json()
    assert not refused["right"] and not refused["legal"] and refused["reveal"] is None
    assert refused["explanation"].startswith("Not allowed: 2x6 does not raise 3x2")
    # the terminal's judge says the same
    lesson = LESSONS["core"]
    assert to_json(judge_list(lesson, 1, ["bid", 2, 6]), ("You", "Ana", "Ben")) == refused


def test_a_push_is_judged_with_its_scripted_reroll_and_the_hand_counted_once(client: TestClient) -> None:
    push = client.post("/api/learn/soar/3", json={"move": ["bid", 4, 5, {"push": [5, 1, 5]}]}).json()
    assert push["right"], push
    reveal = push["reveal"]
    assert sorted(reveal["hands"]["You"]) == [1, 3, 5, 5, 5] and reveal["pushed"] == {"You": [1, 5, 5]}
    assert reveal["count"] == LESSONS["soar"].steps[2].reveal_count == 5
    plain = client.post("/api/learn/soar/3", json={"move": ["bid", 4, 5]}).json()
    assert not plain["right"] and plain["legal"] and plain["explanation"].startswith("That bid is fine")
    tavern = client.get("/api/learn/tavern").json()["steps"][4]
    assert tavern["words"]["bid"] == "claim" and tavern["bet"] == 3
    assert tavern["seats"][0]["chips"] == 1


@pytest.mark.parametrize(
    ("path", "body", "status", "message"),
    [
        ("/api/learn/poker/1", {"move": ["challenge"]}, 404, "there is no lesson 'poker': the lessons are core"),
        ("/api/learn/core/9", {"move": ["challenge"]}, 404, "the lesson core has steps 1 to 5, not 9"),
        ("/api/learn/core/0", {"move": ["challenge"]}, 404, "the lesson core has steps 1 to 5, not 0"),
        ("/api/learn/core/1", {"move": ["dance"]}, 422, "unknown action 'dance'"),
        ("/api/learn/core/1", {"move": []}, 422, "is not an action"),
        ("/api/learn/core/1", {"move": ["bid", 3, 4, {"reroll": [1]}]}, 422, "cannot carry a reroll"),
        ("/api/learn/core/1", {"mov": ["challenge"]}, 422, "move"),
        ("/api/learn/core/x", {"move": ["challenge"]}, 404, "step is text ('x'), not a whole number: a step's number"),
    ],
)
def test_a_bad_lesson_step_or_move_is_refused_with_the_reason(
    client: TestClient, path: str, body: dict[str, Any], status: int, message: str
) -> None:
    r = client.post(path, json=body)
    assert r.status_code == status, r.text
    assert message in r.json()["detail"]


def test_a_lesson_that_does_not_exist_is_a_page_saying_so(client: TestClient) -> None:
    r = client.get("/learn/poker")
    assert r.status_code == 404 and r.headers["content-type"].startswith("text/html")
    assert "There is no lesson &#x27;poker&#x27;: the lessons are core, wilds" in r.text
    assert client.get("/api/learn/poker").status_code == 404


@pytest.mark.parametrize("name", list(LESSONS))
def test_the_short_game_is_a_real_table_with_the_easiest_bot(client: TestClient, name: str) -> None:
    lesson = LESSONS[name]
    made = client.post(f"/api/learn/{name}/game", json={"name": "Newcomer"})
    assert made.status_code == 200, made.text
    got = made.json()
    info = client.get(f"/api/tables/{got['code']}").json()
    assert info["preset"] == lesson.preset and info["status"] == "playing"
    seats = info["seats"]
    assert seats[0]["name"] == "Newcomer" and seats[0]["kind"] == "human"
    assert len(seats) == lesson.game["num_players"]
    assert all(s["kind"] == "bot" and s["bot_level"] == "beginner" for s in seats[1:]), seats
    with connect(client, got["code"], got["token"]) as sock:
        # the welcome and the game's state come before the chat, which `connect` waits for
        welcome = next(m for m in sock.seen if m["type"] == "welcome")
        assert welcome["role"] == "player" and welcome["seat"] == 0
        state = next(m["state"] for m in sock.seen if m["type"] == "state")
        assert state["seat"] == 0 and len(state["cup"]) == lesson.game["dice_per_player"]


def test_the_short_game_refuses_a_bad_name(client: TestClient) -> None:
    r = client.post("/api/learn/core/game", json={"name": ""})
    assert r.status_code == 422 and r.json()["detail"]
    assert client.post("/api/learn/poker/game", json={"name": "Ann"}).status_code == 404
