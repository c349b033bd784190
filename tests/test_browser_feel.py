"""The table's sounds and motion, in Debian's chromium (a laptop's screen).

Sound is off until the person turns it on: with it off a game makes no sound at all; turned on,
bids, challenges, reveals and rolls are played (WebAudio's nodes are started: no audio file is
fetched), and the choice outlives a reload and is given back when turned off. A new round's cup
rolls in and a reveal's hands turn over, but only where motion is welcome: with reduced motion
asked for (the browser's setting, emulated), no animation starts at all.
Uses the `liarsdice serve` and the browser of tests/test_browser.py.
"""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from test_browser import (
    GAME_TIME_LIMIT,
    LAPTOP,
    NEEDS_CHROMIUM,
    PANEL,
    Server,
    _act,
    _host,
    _start_with_bots,
    _watch_errors,
    browser,
    server,
)

__all__ = ["browser", "server"]  # the fixtures, shared with tests/test_browser.py

pytestmark = NEEDS_CHROMIUM

OPTIONS = {"num_players": 3, "dice_per_player": 2, "first_starter": 0}

# Before the page's scripts: every WebAudio source started, and every CSS animation that starts.
LISTEN = """() => {
  window.__sounds = [];
  window.__animations = [];
  for (const Node of [window.OscillatorNode, window.AudioBufferSourceNode]) {
    const start = Node.prototype.start;
    Node.prototype.start = function (...args) {
      window.__sounds.push(Node.name);
      return start.apply(this, args);
    };
  }
  document.addEventListener('animationstart', e => window.__animations.push(e.animationName), true);
}"""


def _play_rounds(page: Any, rounds: int) -> None:
    """Play until `rounds` reveals have been closed, or the game is over."""
    rng = random.Random(9)
    seen = 0
    started = time.monotonic()
    while seen < rounds and not page.locator("#result-card").is_visible():
        assert time.monotonic() - started < 3 * GAME_TIME_LIMIT, "the game does not end"
        if page.locator("#reveal-card").is_visible():
            page.wait_for_timeout(400)  # a reveal's animation has time to start
            page.click("#reveal-continue")
            seen += 1
        elif page.evaluate(PANEL) is None:
            page.wait_for_timeout(50)
        else:
            _act(page, rng)
    assert seen >= 1, "no reveal was seen"


def _table(browser: Any, server: Server, **context: Any) -> Any:
    page, _ = _host(browser, server, "perudo", dict(OPTIONS), **LAPTOP, **context)
    page.add_init_script(f"({LISTEN})()")
    page.evaluate("() => localStorage.removeItem('liarsdice:sound')")
    page.reload()
    page.wait_for_selector("#host-controls:not([hidden])")
    return page


def test_sound_is_off_until_turned_on_and_the_choice_is_remembered(server: Server, browser: Any) -> None:
    errors: list[str] = []
    page = _table(browser, server)
    _watch_errors(page, "host", errors)
    toggle = page.locator("#sound-toggle")
    assert toggle.get_attribute("aria-pressed") == "false" and toggle.inner_text() == "Sound off"
    _start_with_bots(page)
    _play_rounds(page, 1)
    assert page.evaluate("() => window.__sounds") == [], "a sound played with sound off"

    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "true" and toggle.inner_text() == "Sound on"
    assert page.evaluate("() => localStorage.getItem('liarsdice:sound')") == "on"
    page.reload()  # remembered
    page.wait_for_selector("#cup .die, #result-card:not([hidden])")
    assert toggle.get_attribute("aria-pressed") == "true" and toggle.inner_text() == "Sound on"
    if not page.locator("#result-card").is_visible():
        _play_rounds(page, 1)
        sounds = page.evaluate("() => window.__sounds")
        assert "OscillatorNode" in sounds and "AudioBufferSourceNode" in sounds, sounds  # tones and the dice
    toggle.click()
    assert toggle.get_attribute("aria-pressed") == "false"
    assert page.evaluate("() => localStorage.getItem('liarsdice:sound')") is None
    assert not errors, errors


@pytest.mark.parametrize("motion", ["no-preference", "reduce"])
def test_the_roll_and_the_reveal_move_only_where_motion_is_welcome(server: Server, browser: Any, motion: str) -> None:
    errors: list[str] = []
    page = _table(browser, server, reduced_motion=motion)
    _watch_errors(page, motion, errors)
    _start_with_bots(page)
    _play_rounds(page, 2)
    started = page.evaluate("() => window.__animations")
    if motion == "reduce":
        assert started == [], f"with reduced motion asked for, animations ran: {started}"
    else:
        assert {"die-roll", "die-show", "flash"} <= set(started), started
    assert not errors, errors
