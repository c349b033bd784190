"""The best bot in the browser, in Debian's chromium, on a laptop (1366x768) and a phone (390x844,
dark): "What would the best bot do?" at the table, and the analysis on the replay page.

A person plays a short Perudo game against bots, asking for a hint at their first turn: the page
lists the moves the server's `hint` holds, best first, with their values and source. Then the
replay of the game: the analysis comes in by itself (the page polls while it is made), each
marked move shows its mark in the move list, the chart has a line a seat and picking one of its
points goes to that move, whose card says what the analysis says of it; the summary has a row a
seat, and its turning point links to the move. And the odds panel opened in another tab at the
same seat shows the odds at once, not "Counting…".
Uses the `liarsdice serve` and the browser of tests/test_browser.py.
"""

from __future__ import annotations

import json
import math
import random
import time
from typing import Any

import pytest

from liarsdice.review import SYMBOLS
from test_browser import (
    GAME_TIME_LIMIT,
    LAPTOP,
    NEEDS_CHROMIUM,
    PANEL,
    PHONE,
    Server,
    _act,
    _artifacts,
    _host,
    _my_turn,
    _start_with_bots,
    _watch_errors,
    browser,
    server,
)

__all__ = ["browser", "server"]  # the fixtures, shared with tests/test_browser.py

pytestmark = NEEDS_CHROMIUM

OPTIONS = {"num_players": 3, "dice_per_player": 2, "first_starter": 0}
ANALYSIS_WAIT = 240_000  # ms the replay may wait for its analysis on a loaded machine
# The elements that reach past the right edge of the screen, named (what makes a page scroll sideways).
WIDER_THAN_THE_SCREEN = """() => [...document.querySelectorAll('body *')]
  .filter(n => n.getBoundingClientRect().right > window.innerWidth + 1)
  .slice(0, 8).map(n => `${n.tagName}#${n.id}.${n.className} ${Math.round(n.getBoundingClientRect().right)}`)"""


def _hints(page: Any) -> list[dict[str, Any]]:
    """Every `hint` this page is sent from now on, as it comes."""
    hints: list[dict[str, Any]] = []

    def on_socket(ws: Any) -> None:
        def on_frame(payload: str | bytes) -> None:
            message = json.loads(payload)
            if message.get("type") == "hint":
                hints.append(message)

        ws.on("framereceived", on_frame)

    page.on("websocket", on_socket)
    return hints


def _value(v: float, unit: str) -> str:
    sign = "+" if v > 0.004 else "−" if v < -0.004 else "±"
    return f"{sign}{abs(v):.2f} {unit}"


def _ask_a_hint(page: Any, hints: list[dict[str, Any]], size: str) -> None:
    ask = page.locator("#hint-ask")
    assert ask.is_visible() and ask.inner_text() == "What would the best bot do?"
    ask.click()
    page.wait_for_selector("#hint-moves tbody tr", timeout=60_000)
    hint = hints[-1]["hint"]
    rows = page.locator("#hint-moves tbody tr").evaluate_all(
        "rows => rows.map(r => [...r.children].map(c => c.textContent))"
    )
    assert [r[0] for r in rows] == [m["move"] for m in hint["moves"]]
    assert [r[1] for r in rows] == [_value(m["value"], hint["unit"]) for m in hint["moves"]]
    assert page.locator("#hint-moves tbody tr.hint-best th").first.inner_text() == hint["best"]
    says = page.locator("#hint-says").inner_text()
    assert hint["best"] in says and ("exact" if hint["source"] == "exact" else "estimate") in says
    panel = page.locator("#hint-panel")
    assert panel.is_visible() and panel.evaluate("n => n.scrollWidth <= n.clientWidth + 1")
    page.locator("#play-card").screenshot(path=str(_artifacts() / f"hint-{size}.png"))


def _play_with_a_hint(page: Any, size: str) -> None:
    hints = _hints(page)
    page.reload()  # the websocket opens again, listened to
    page.wait_for_selector("#host-controls:not([hidden])")
    _start_with_bots(page)
    _my_turn(page)
    _ask_a_hint(page, hints, size)
    rng = random.Random(11)
    started = time.monotonic()
    while not page.locator("#result-card").is_visible():
        assert time.monotonic() - started < 3 * GAME_TIME_LIMIT, "the game does not end"
        if page.evaluate(PANEL) is None:
            if page.locator("#reveal-card").is_visible():
                page.click("#reveal-continue")
            page.wait_for_timeout(50)
            continue
        _act(page, rng)
        # The hint was for its turn: once the game moves on, it is gone.
        assert page.locator("#hint-panel").is_hidden()


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_a_hint_at_the_table_then_the_analysed_replay(server: Server, browser: Any, size: str) -> None:
    errors: list[str] = []
    screen = LAPTOP if size == "laptop" else {**PHONE, "color_scheme": "dark"}
    page, _ = _host(browser, server, "perudo", dict(OPTIONS), **screen)
    _watch_errors(page, size, errors)
    _play_with_a_hint(page, size)
    game_id = page.request.get(f"{server.url}/api/games").json()[0]["id"]

    page.goto(f"{server.url}/replay/{game_id}")
    page.wait_for_selector("#replay:not([hidden])")
    page.wait_for_selector("#analysis-summary tbody tr", timeout=ANALYSIS_WAIT)
    analysis = page.request.get(f"{server.url}/api/games/{game_id}/analysis").json()
    seats = analysis["seats"]
    assert page.locator("#analysis-status").is_hidden()

    # The summary: a row a seat, with the analysis's counts.
    rows = page.locator("#analysis-summary tbody tr").evaluate_all(
        "rows => rows.map(r => [...r.children].map(c => c.textContent))"
    )
    assert [r[0] for r in rows] == [s["seat"] for s in analysis["summary"]]
    for row, s in zip(rows, analysis["summary"], strict=True):
        assert row[2:5] == [str(s["inaccuracies"]), str(s["mistakes"]), str(s["blunders"])]
        assert row[1] == (f"{math.floor(s['accuracy'] + 0.5)}%" if s["judged"] else "—")  # as Math.round

    # The chart: a line a seat, a target a point.
    assert page.locator("#analysis-chart polyline.seat-line").count() == len(seats)
    assert page.locator("#analysis-chart rect.target").count() == len(analysis["standing"])
    chart = page.locator("#analysis-chart svg")
    assert chart.is_visible() and chart.bounding_box()["width"] <= screen["viewport"]["width"]

    # Pick the point of a judged decision: the replay goes to that move, and its card says it.
    decisions = {d["step"]: d for d in analysis["decisions"]}
    judged = [p["step"] for p in analysis["standing"] if decisions.get(p["step"], {}).get("judged")]
    assert judged, "no point of the chart is a judged move"
    step = judged[len(judged) // 2]
    page.locator(f'#analysis-chart rect.target[data-step="{step}"]').click()
    current = page.locator("#moves li.current")
    assert current.get_attribute("data-step") == str(step)
    d = decisions[step]
    card = page.locator("#move-analysis")
    assert card.is_visible()
    assert page.locator("#fact-made dd").inner_text() == f"{d['move']} · {_value(d['value'], analysis['unit'])}"
    assert page.locator("#fact-best dd").inner_text() == f"{d['best']} · {_value(d['best_value'], analysis['unit'])}"
    assert page.locator("#fact-source dd").inner_text() == d["source"]
    if d["holds"] is not None:
        assert page.locator("#fact-holds dd").inner_text().endswith("%")
    weighed = page.locator("#move-analysis table.hint-moves tbody th").all_inner_texts()
    assert d["move"] in [w.removesuffix(" ★") for w in weighed] and len(weighed) <= 6  # the move made is listed

    # Every marked move of a round shows its mark, in its colour; an unmarked one shows none.
    marked = [x for x in analysis["decisions"] if x.get("mark")]
    for x in [*marked[:3], *[y for y in analysis["decisions"] if y["judged"] and not y["mark"]][:2]]:
        _go_to_step(page, x["step"])
        mark = page.locator("#moves li.current .mark")
        if x["mark"]:
            assert mark.inner_text() == SYMBOLS[x["mark"]], x
            colour = mark.evaluate("n => getComputedStyle(n).color")
            assert colour != page.locator("#moves li.current .move-link").evaluate("n => getComputedStyle(n).color")
        else:
            assert mark.count() == 0
    # A move the analysis could not judge says why, and has no mark.
    for x in [y for y in analysis["decisions"] if not y["judged"]][:1]:
        _go_to_step(page, x["step"])
        assert page.locator("#move-unjudged").inner_text() == f"Not judged: {x['reason']}."
        assert page.locator("#moves li.current .mark").count() == 0

    # The biggest turning point of a seat: its link goes to the move.
    with_point = [s for s in analysis["summary"] if s["turning_point"]]
    if with_point:
        page.locator("#analysis-summary a.turning-point").first.click()
        assert page.locator("#moves li.current").get_attribute("data-step") == str(
            with_point[0]["turning_point"]["step"]
        )

    wide = page.evaluate(WIDER_THAN_THE_SCREEN)
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth"), (
        f"the page scrolls sideways: {wide}"
    )
    page.screenshot(path=str(_artifacts() / f"analysis-{size}.png"), full_page=True)
    assert not errors, errors


def _go_to_step(page: Any, step: int) -> None:
    """Go to the move at record step `step` through the replay's own links (its round, then the move)."""
    record_round = page.evaluate(
        """async ([id, step]) => {
          const r = await (await fetch(`/api/games/${id}`)).json();
          let round = 0, k = 0;
          r.steps.forEach((s, i) => {
            if (i > step) return;
            if (s.chance === 'roll') { round = s.round; k = 0; }
            else if (s.chance === 'reroll' || Array.isArray(s.action)) k += 1;
          });
          return [round, k];
        }""",
        [page.url.split("/replay/")[1].split("#")[0], step],
    )
    page.evaluate("([r, k]) => { location.hash = `#r${r}-${k}`; }", record_round)
    page.reload()
    page.wait_for_selector(f'#moves li.current[data-step="{step}"]')
    page.wait_for_selector("#move-analysis:not([hidden])", timeout=ANALYSIS_WAIT)


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_the_odds_opened_in_another_tab_at_the_seat_show_at_once(server: Server, browser: Any, size: str) -> None:
    errors: list[str] = []
    page, code = _host(
        browser, server, "perudo", {"num_players": 2, "first_starter": 0}, **(LAPTOP if size == "laptop" else PHONE)
    )
    _watch_errors(page, "first tab", errors)
    page.evaluate("() => localStorage.removeItem('liarsdice:odds')")
    _start_with_bots(page)
    _my_turn(page)
    assert page.locator("#odds-panel").is_hidden()
    other = page.context.new_page()  # the same browser: the seat's token, the same choices
    _watch_errors(other, "second tab", errors)
    other.goto(f"{server.url}/t/{code}")
    _my_turn(other)
    other.click("#odds-toggle")
    other.wait_for_selector("#odds-panel:not([hidden]) #odds-how")
    # The first tab never asked on its socket: it asks now, and shows the odds without a toggle.
    page.wait_for_selector("#odds-panel:not([hidden]) #odds-how", timeout=10_000)
    assert "Counting" not in page.locator("#odds-panel").inner_text()
    assert page.locator("#odds-how").inner_text() == other.locator("#odds-how").inner_text()
    other.close()
    assert not errors, errors
