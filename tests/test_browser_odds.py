"""The odds panel on the table page, in Debian's chromium, on a laptop (1366x768) and a phone (390x844).

A newcomer plays a whole Perudo game against fast bots with the panel open: at every turn of
theirs the numbers the page shows are those `liarsdice.odds` counts for that seat's view (the
view rebuilt from the state the page was sent: its cup, the dice each seat holds, the round's
moves), the toggle is on the screen with no scrolling (on a phone, below a reveal that is open),
and the choice outlives a reload.
Uses the `liarsdice serve` and the browser of tests/test_browser.py.
"""

from __future__ import annotations

import json
import random
import time
from typing import Any

import pytest

from liarsdice.odds import odds, shown
from liarsdice.rules import Game, PlayerView, action_from_list, preset_options
from test_browser import (
    GAME_TIME_LIMIT,
    IN_VIEW,
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

OPTIONS = {"num_players": 3, "dice_per_player": 3, "first_starter": 0}

# The panel as the page shows it: the standing bid's row, the exact chance, each next bid's cell.
SHOWN = """() => {
  const panel = document.querySelector('#odds-panel');
  if (!panel || panel.hidden) return null;
  const cell = c => [c.dataset.bid, c.querySelector('.odds-p').textContent];
  const standing = panel.querySelector('#odds-standing .odds-cell');
  const exactly = panel.querySelector('#odds-exactly');
  return {
    standing: standing ? cell(standing) : null,
    exactly: exactly ? exactly.textContent : null,
    bids: [...panel.querySelectorAll('#odds-grid .odds-cell')].map(cell),
    how: panel.querySelector('#odds-how').textContent,
  };
}"""


def _received_states(page: Any) -> list[dict[str, Any]]:
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


def _view(state: dict[str, Any]) -> PlayerView:
    """The seat's view rebuilt from its state: its own cup, the others' dice (faces that do not
    matter: the odds read only how many there are), the round's opener and moves."""
    game = Game(preset_options("perudo", OPTIONS), state["seats"])
    me = state["seat"]
    hands = [state["cup"] if s == me else [2] * n for s, n in enumerate(state["dice"])]
    position = game.position(
        hands, starter=state["starter"], round_no=state["round"], special_round=state["one_die_round"]
    )
    for turn in state["history"]:
        action = action_from_list(turn["action"], state["seats"]).action
        assert action is not None
        position, _ = position.apply(action, turn["seat"])
    return position.view(me)


def _expected(view: PlayerView) -> dict[str, Any]:
    panel = odds(view)
    assert panel is not None
    s = panel.standing
    return {
        "standing": [str(s.bid), shown(s.at_least)] if s is not None else None,
        "exactly": shown(s.exactly) if s is not None and panel.exact else None,
        "bids": [[str(b.bid), shown(b.at_least)] for b in panel.bids],
        "how": panel.how(),
    }


@pytest.mark.parametrize("size", ["laptop", "phone"])
def test_a_newcomer_plays_a_whole_game_with_the_odds_open(server: Server, browser: Any, size: str) -> None:
    started = time.monotonic()
    errors: list[str] = []
    page, _ = _host(browser, server, "perudo", dict(OPTIONS), **(LAPTOP if size == "laptop" else PHONE))
    _watch_errors(page, size, errors)
    page.evaluate("() => localStorage.removeItem('liarsdice:odds')")
    states = _received_states(page)
    page.reload()  # the websocket opens again, listened to
    page.wait_for_selector("#host-controls:not([hidden])")
    _start_with_bots(page)
    _my_turn(page)
    toggle = page.locator("#odds-toggle")
    assert toggle.is_visible() and page.locator("#odds-panel").is_hidden(), "the odds panel is off by default"
    page.evaluate("() => window.scrollTo(0, 0)")
    assert toggle.evaluate(IN_VIEW), "the Odds toggle is off the screen"
    toggle.click()
    assert page.locator("#odds-panel").is_visible() and toggle.get_attribute("aria-expanded") == "true"
    page.screenshot(path=str(_artifacts() / f"odds-{size}.png"))

    rng = random.Random(7)
    checked = standing = 0
    reloaded = False
    while not page.locator("#result-card").is_visible():
        assert time.monotonic() - started < 3 * GAME_TIME_LIMIT, "the game does not end"
        if page.evaluate(PANEL) is None:
            if page.locator("#reveal-card").is_visible():
                page.click("#reveal-continue")
            page.wait_for_timeout(50)
            continue
        page.evaluate("() => window.scrollTo(0, 0)")
        # On a phone an open reveal comes first, above the game (and the toggle with it).
        if size == "laptop" or page.locator("#reveal-card").is_hidden():
            assert toggle.evaluate(IN_VIEW), "the Odds toggle is off the screen"
        state = states[-1]
        assert state["odds"] is not None and state["to_act"] == state["seat"]
        shown_now = page.evaluate(SHOWN)
        assert shown_now is not None, "the odds panel closed by itself"
        expected = _expected(_view(state))
        assert shown_now == expected, (state["history"], state["cup"])
        checked += 1
        standing += expected["standing"] is not None
        if not reloaded and checked == 2:  # the choice is kept in the browser
            page.reload()
            _my_turn(page)
            assert page.locator("#odds-panel").is_visible(), "the odds panel closed on reload"
            reloaded = True
            continue
        _act(page, rng)
    assert checked >= 3 and standing >= 1 and reloaded
    assert page.locator("#odds-panel").is_hidden() and page.locator("#odds-toggle").is_hidden()  # game over
    assert not errors, errors
    page.context.close()
