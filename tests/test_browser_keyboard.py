"""A whole game played with the keyboard only, in Debian's chromium (a laptop's screen).

The host fills the seats with fast bots and starts with Tab and Enter; at each turn they move with
the keys alone: the bid picker's faces with the arrow keys, the quantity with Up and Down, a bid
sent with Enter, a challenge with Space or Enter, each reveal closed by tabbing to Continue. Every
control they reach shows where the focus is. The mouse is never used.
Uses the `liarsdice serve` and the browser of tests/test_browser.py.
"""

from __future__ import annotations

import json
import random
import re
import time
from typing import Any

from test_browser import (
    GAME_TIME_LIMIT,
    LAPTOP,
    NEEDS_CHROMIUM,
    PANEL,
    SETTLED,
    Server,
    _host,
    _sent_moves,
    _watch_errors,
    browser,
    server,
)

__all__ = ["browser", "server"]  # the fixtures, shared with tests/test_browser.py

pytestmark = NEEDS_CHROMIUM

OPTIONS = {"num_players": 3, "dice_per_player": 3, "first_starter": 0}
TAB_LIMIT = 80  # presses of Tab that may reach any control of the table page

# Whether the focused element shows it: an outline or a ring of box-shadow.
FOCUS_SHOWN = """() => {
  const n = document.activeElement;
  if (!n || n === document.body) return false;
  const s = getComputedStyle(n);
  return (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== 'none';
}"""

FOCUS_KEPT = """() => !!document.activeElement.closest('#reveal-card, #actions')"""

# Whether the element `selector` names comes before the focused one (then Shift+Tab reaches it sooner).
BEFORE = """selector => {
  const target = document.querySelector(selector), at = document.activeElement;
  if (!target || !at || at === document.body) return false;
  return !!(at.compareDocumentPosition(target) & Node.DOCUMENT_POSITION_PRECEDING);
}"""


def _focus(page: Any, selector: str) -> None:
    """Tab (or Shift+Tab) until the control `selector` names has the focus, and check it shows."""
    page.wait_for_selector(selector)
    key = "Shift+Tab" if page.evaluate(BEFORE, selector) else "Tab"
    for _ in range(TAB_LIMIT):
        if page.evaluate("s => document.activeElement && document.activeElement.matches(s)", selector):
            break
        page.keyboard.press(key)
    else:
        where = page.evaluate("() => document.activeElement && document.activeElement.outerHTML.slice(0, 120)")
        raise AssertionError(f"{TAB_LIMIT} presses of {key} never reach {selector} (the focus is on {where})")
    assert page.evaluate(FOCUS_SHOWN), f"{selector} has the focus but does not show it"


def _bid_with_the_arrows(page: Any, sent: list[Any]) -> None:
    before = len(sent)
    """Pick a face with the arrow keys, raise the quantity with Up, send it with Enter."""
    _focus(page, '#actions [role="radio"][aria-checked="true"]')
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowUp")
    face = int(page.evaluate("() => document.activeElement.dataset.face"))
    assert page.evaluate("() => document.activeElement.getAttribute('aria-checked')") == "true"
    qty = int(page.locator("#bid-qty").input_value())
    assert page.locator("#actions .bid-submit").is_enabled(), "the picked bid cannot be sent"
    page.keyboard.press("Enter")
    page.wait_for_function(SETTLED)
    deadline = time.monotonic() + 10
    while len(sent) == before and time.monotonic() < deadline:
        page.wait_for_timeout(20)
    assert sent[-1][:3] == ["bid", qty, face], sent[-1]


def test_a_whole_game_with_the_keyboard_only(server: Server, browser: Any) -> None:
    errors: list[str] = []
    page, _ = _host(browser, server, "perudo", dict(OPTIONS), **LAPTOP)
    _watch_errors(page, "host", errors)
    page.set_default_timeout(15_000)
    sent = _sent_moves(page)
    page.reload()  # the websocket opens again, watched
    page.wait_for_selector("#host-controls:not([hidden])")
    _focus(page, "#fill-bots")
    page.keyboard.press("Enter")
    page.wait_for_selector("#start:not([disabled])")
    _focus(page, "#start")
    page.keyboard.press("Enter")
    page.wait_for_selector("#cup .die")

    rng = random.Random(7)
    done = {"arrow bids": 0, "space bids": 0, "challenges": 0, "reveals": 0}
    started = time.monotonic()
    while not page.locator("#result-card").is_visible():
        assert time.monotonic() - started < 3 * GAME_TIME_LIMIT, "the game does not end"
        if page.locator("#reveal-card").is_visible():
            _focus(page, "#reveal-continue")
            page.keyboard.press(rng.choice(["Enter", "Space"]))
            page.wait_for_selector("#reveal-card", state="hidden")
            done["reveals"] += 1
            continue
        panel = page.evaluate(PANEL)
        if panel is None:
            page.wait_for_timeout(50)
            continue
        before = len(sent)
        # each kind of move at least once before the player is out: the one made least, of those
        # it may make (a challenge first on a tie, as it ends a round)
        kinds = (["challenges"] if "challenge" in panel["moves"] else []) + (
            ["arrow bids", "space bids"] if "bid" in panel["moves"] else []
        )
        least = min(kinds, key=lambda kind: done[kind])
        if least == "challenges":
            _focus(page, '#actions button[data-move="challenge"]')
            page.keyboard.press(rng.choice(["Enter", "Space"]))
            page.wait_for_function(SETTLED)
            done["challenges"] += 1
            # The round is over: the focus is not dropped on the page but taken to the reveal
            # (or to the moves, if the next turn is already this player's).
            page.wait_for_selector("#reveal-card:not([hidden])")
            assert page.evaluate(FOCUS_KEPT), "after the challenge the focus fell to the page"
        elif least == "arrow bids":
            _bid_with_the_arrows(page, sent)
            done["arrow bids"] += 1
        else:
            _focus(page, "#actions .bid-submit")
            page.keyboard.press("Space")
            page.wait_for_function(SETTLED)
            done["space bids"] += 1
        deadline = time.monotonic() + 10
        while len(sent) == before and time.monotonic() < deadline:
            page.wait_for_timeout(20)
        assert len(sent) == before + 1, f"the keys sent {len(sent) - before} moves, not one"
    assert all(done.values()), f"some move was never made with the keys: {done}"
    assert page.locator("#ranking li").count() == OPTIONS["num_players"]
    assert not errors, errors


def test_a_state_arriving_mid_choice_keeps_the_focus_on_the_face_picked(server: Server, browser: Any) -> None:
    """The table redraws the moves at every state it is sent; a keyboard player choosing a face
    with the arrows keeps the focus on that face (not thrown to the Bid button) when one arrives."""
    page, _ = _host(browser, server, "perudo", dict(OPTIONS), **LAPTOP)
    page.set_default_timeout(15_000)
    states: list[str] = []
    routes: list[Any] = []

    def through(ws: Any) -> None:
        to_server = ws.connect_to_server()

        def from_server(message: str | bytes) -> None:
            text = message if isinstance(message, str) else message.decode()
            if json.loads(text).get("type") == "state":
                states.append(text)
            ws.send(message)

        to_server.on_message(from_server)
        routes.append(ws)

    page.route_web_socket(re.compile(r"/ws/"), through)
    page.reload()  # the table's socket now passes through `through`
    page.wait_for_selector("#host-controls:not([hidden])")
    page.click("#fill-bots")
    page.wait_for_selector("#start:not([disabled])")
    page.click("#start")
    page.wait_for_function(f"() => {{ const p = ({PANEL})(); return p !== null && p.moves.includes('bid'); }}")
    page.wait_for_function(SETTLED)
    _focus(page, '#actions [role="radio"][aria-checked="true"]')
    page.keyboard.press("ArrowRight")
    face = page.evaluate("() => document.activeElement.dataset.face")
    routes[-1].send(states[-1])  # the same state again: the moves are drawn anew
    page.wait_for_function(f"() => document.querySelector('#actions [data-face=\"{face}\"]') !== null")
    focused = page.evaluate(
        "() => [document.activeElement.dataset.face, document.activeElement.getAttribute('aria-checked')]"
    )
    assert focused == [face, "true"], focused
