"""In a real browser: the host's bot levels, strongest first with the default chosen, each level's
whole sentence under the select, and a seated bot's badge naming its level.

Uses the `liarsdice serve` of tests/test_browser.py and Debian's chromium.
"""

from __future__ import annotations

from typing import Any

from liarsdice.levels import STRONGEST_FIRST
from test_browser import LAPTOP, NEEDS_CHROMIUM, Server, _artifacts, _host, _watch_errors, browser, server

__all__ = ["browser", "server"]  # the fixtures, shared with tests/test_browser.py

pytestmark = NEEDS_CHROMIUM


def test_the_bot_levels_are_listed_strongest_first_with_the_default_chosen_and_said_whole(
    server: Server, browser: Any
) -> None:
    errors: list[str] = []
    page, _ = _host(browser, server, "perudo", {"num_players": 3}, **LAPTOP)
    _watch_errors(page, "host", errors)
    note = page.locator("#bot-level-note")
    page.wait_for_function("() => document.querySelector('#bot-level-note').textContent.length > 0")
    options = page.locator("#bot-level option")
    assert options.all_inner_texts() == [level.name for level in STRONGEST_FIRST]
    assert page.input_value("#bot-level") == "master"
    assert note.inner_text() == STRONGEST_FIRST[0].sentence
    assert note.is_visible() and note.evaluate("n => n.scrollWidth <= n.clientWidth")  # wrapped, never cut
    page.locator("#host-controls").screenshot(path=str(_artifacts() / "bot-levels.png"))
    beginner = STRONGEST_FIRST[-1]
    page.select_option("#bot-level", beginner.key)
    assert note.inner_text() == beginner.sentence
    page.click("#fill-bots")
    seat = page.locator('#seats .seat[data-seat="1"]')
    seat.locator(".badge", has_text="bot · Beginner").wait_for()
    page.context.close()
    assert not errors, "\n".join(errors)
