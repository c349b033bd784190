"""Every page passes axe-core in Debian's chromium, in the light and the dark theme.

axe-core (vendored in tests/vendor/axe-core, never served) is injected into each page in the
state a player sees it: the home page, the rules, bots, ladder, history, /learn and a lesson, an
error page; a table before the start, during play with the odds panel and the hint open, with a
reveal open, and over; the replay of that game with its analysis. No violation of impact
"serious" or "critical" may be found; a failure lists each one's rule, impact and nodes.
Uses the `liarsdice serve` and the browser of tests/test_browser.py.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path
from typing import Any

import pytest

from test_browser import (
    GAME_TIME_LIMIT,
    LAPTOP,
    NEEDS_CHROMIUM,
    PANEL,
    PHONE,
    Server,
    _act,
    _host,
    _my_turn,
    _start_with_bots,
    _watch_errors,
    browser,
    server,
)

__all__ = ["browser", "server"]  # the fixtures, shared with tests/test_browser.py

pytestmark = NEEDS_CHROMIUM

AXE = Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js"
AXE_VERSION = "4.14.1"
OPTIONS = {"num_players": 3, "dice_per_player": 2, "first_starter": 0}
ANALYSIS_WAIT = 240_000  # ms the replay may wait for its analysis on a loaded machine
SEVERE = ("serious", "critical")

# The violations of the page as it is now, each with the nodes it names.
RUN = """async () => {
  const r = await axe.run(document, {resultTypes: ['violations']});
  return r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => `${n.target.join(' ')}: ${n.failureSummary.replace(/\\s+/g, ' ')}`)}));
}"""


def _severe(page: Any, where: str) -> list[str]:
    """The serious and critical violations axe finds on the page now, one line each, named `where`."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE))
        assert page.evaluate("() => axe.version") == AXE_VERSION
    found = page.evaluate(RUN)
    return [
        f"{where}: {v['id']} ({v['impact']}) {v['help']}\n    " + "\n    ".join(v["nodes"][:6])
        for v in found
        if v["impact"] in SEVERE
    ]


def _screen(theme: str, size: str = "laptop") -> dict[str, Any]:
    return {**(LAPTOP if size == "laptop" else PHONE), "color_scheme": theme}


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_the_site_pages_pass_axe(server: Server, browser: Any, theme: str) -> None:
    context = browser.new_context(**_screen(theme))
    page = context.new_page()
    errors: list[str] = []
    _watch_errors(page, theme, errors)
    found: list[str] = []
    pages = {
        "/": "#tables, #create-form",
        "/rules": "main h1",
        "/rules/perudo": "main h1",
        "/bots": "main h1",
        "/ladder": "main h1",
        "/history": "main h1",
        "/leaderboard": "main h1",
        "/leaderboard?family=openspiel": "main h1",
        "/players/nobody": "main h1",
        "/lobby": "#seek-form, #open-title",
        "/learn": "main h1",
        "/learn/core": "main h1",
        "/no-such-page": "main h1",
    }
    for path, ready in pages.items():
        page.goto(server.url + path)
        page.wait_for_selector(ready, state="attached")
        page.wait_for_load_state("networkidle")
        found += _severe(page, f"{path} ({theme})")
    context.close()
    assert not found, "axe finds serious or critical violations:\n" + "\n".join(found)
    assert not [e for e in errors if "404" not in e], errors


def _play_to_the_end(page: Any, found: list[str], theme: str) -> None:
    """Play with the fixtures' rule; check the first reveal that opens, then the page once over."""
    rng = random.Random(5)
    started = time.monotonic()
    reveal_checked = False
    while not page.locator("#result-card").is_visible():
        assert time.monotonic() - started < 3 * GAME_TIME_LIMIT, "the game does not end"
        if page.locator("#reveal-card").is_visible():
            if not reveal_checked:
                found += _severe(page, f"the table's reveal ({theme})")
                reveal_checked = True
            page.click("#reveal-continue")
            continue
        if page.evaluate(PANEL) is None:
            page.wait_for_timeout(50)
            continue
        _act(page, rng)
    assert reveal_checked, "no reveal opened in the game"
    found += _severe(page, f"the table, game over ({theme})")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_a_table_and_its_replay_pass_axe(server: Server, browser: Any, theme: str) -> None:
    errors: list[str] = []
    found: list[str] = []
    size = "laptop" if theme == "light" else "phone"
    page, _ = _host(browser, server, "perudo", dict(OPTIONS), **_screen(theme, size))
    _watch_errors(page, theme, errors)
    page.evaluate("() => localStorage.removeItem('liarsdice:odds')")
    found += _severe(page, f"a table before the start ({theme})")
    _start_with_bots(page)
    _my_turn(page)
    page.click("#odds-toggle")
    page.wait_for_selector("#odds-panel .odds-cell")
    page.click("#hint-ask")
    page.wait_for_selector("#hint-moves tbody tr", timeout=60_000)
    found += _severe(page, f"a table in play, odds and hint open ({theme})")
    _play_to_the_end(page, found, theme)

    game_id = page.request.get(f"{server.url}/api/games").json()[0]["id"]
    page.goto(f"{server.url}/replay/{game_id}")
    page.wait_for_selector("#replay:not([hidden])")
    page.wait_for_selector("#analysis-summary tbody tr", timeout=ANALYSIS_WAIT)
    found += _severe(page, f"the replay with its analysis ({theme})")
    page.locator("#analysis-chart rect.target").first.click()
    page.wait_for_selector("#move-analysis:not([hidden])")
    found += _severe(page, f"the replay at an analysed move ({theme})")
    page.goto(f"{server.url}/history")
    page.wait_for_selector("main h1")
    page.wait_for_load_state("networkidle")
    found += _severe(page, f"the history with a game ({theme})")
    assert not found, "axe finds serious or critical violations:\n" + "\n".join(found)
    assert not errors, errors


# Every line added to the table's live region, as it is added (read before the page's own scripts run).
LISTEN = """() => {
  window.__said = [];
  new MutationObserver(records => {
    for (const r of records)
      if (r.target.id === 'announce') for (const n of r.addedNodes) window.__said.push(n.textContent);
  }).observe(document, {childList: true, subtree: true});
}"""


def _states(page: Any) -> list[dict[str, Any]]:
    """Every `state` this page is sent from now on, as it comes."""
    states: list[dict[str, Any]] = []

    def on_socket(ws: Any) -> None:
        def on_frame(payload: str | bytes) -> None:
            message = json.loads(payload)
            if message.get("type") == "state" and message.get("state"):
                states.append(message["state"])

        ws.on("framereceived", on_frame)

    page.on("websocket", on_socket)
    return states


def _said_in_order(said: str, expected: list[str]) -> None:
    at = 0
    for text in expected:
        found = said.find(text, at)
        assert found >= 0, f"the live region never says {text!r} after {said[max(0, at - 200) : at]!r}"
        at = found + len(text)


def test_a_screen_reader_hears_every_move_the_reveals_and_whose_turn(server: Server, browser: Any) -> None:
    errors: list[str] = []
    page, _ = _host(browser, server, "perudo", dict(OPTIONS), **LAPTOP)
    _watch_errors(page, "host", errors)
    region = page.locator("#announce")
    assert region.get_attribute("aria-live") == "polite" and region.get_attribute("role") == "log"
    states = _states(page)
    page.add_init_script(f"({LISTEN})()")
    page.reload()  # listened to from the page's first script on
    page.wait_for_selector("#host-controls:not([hidden])")
    _start_with_bots(page)
    rng = random.Random(3)
    started = time.monotonic()
    while not page.locator("#result-card").is_visible():
        assert time.monotonic() - started < 3 * GAME_TIME_LIMIT, "the game does not end"
        if page.locator("#reveal-card").is_visible():
            page.click("#reveal-continue")
        elif page.evaluate(PANEL) is None:
            page.wait_for_timeout(50)
        else:
            _act(page, rng)
    page.wait_for_function("() => window.__said.some(t => t.includes('The game is over.'))")
    said = " ".join(page.evaluate("() => window.__said"))

    # What the server sent: each round's moves (the round a reveal ended, with its last move), in
    # the words of the move log, and each reveal's sentences.
    moves: dict[int, list[str]] = {}
    reveals: dict[int, list[str]] = {}
    for s in states:
        moves[s["round"]] = max(moves.get(s["round"], []), [m["text"] for m in s["history"]], key=len)
        lr = s.get("last_round")
        if lr:
            moves[lr["round"]] = max(moves.get(lr["round"], []), [m["text"] for m in lr.get("moves", [])], key=len)
            reveals[lr["round"]] = [line.strip() for line in lr["lines"] if not line[:1].isspace()]
    assert len(reveals) >= 2, "the game had one round"
    expected: list[str] = []
    for r in sorted(moves):
        expected += moves[r]
        if r in reveals:
            expected.append(f"Round {r} revealed. {' '.join(reveals[r])}")
    assert sum(len(m) for m in moves.values()) >= 4
    _said_in_order(said, [*expected, "The game is over."])
    seats = states[-1]["seats"]
    assert "Your turn." in said
    for bot in seats[1:]:
        assert f"{bot} is to act." in said, f"the live region never says it is {bot}'s turn: {said}"
    assert not errors, errors
