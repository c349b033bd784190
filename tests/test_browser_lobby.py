"""The site lobby in a real Chromium (docs/lobby.md): two people Play now the same rules and are
seated at one table, play it to the end, read the summary and both ask for a rematch; a third
finds the game in the lobby's "Games to watch" and watches; a person alone gets bots after the
wait; the rating line of a rated game (its endpoint mocked) is drawn."""

from __future__ import annotations

import random
import time
from typing import Any

from test_browser import LAPTOP, NEEDS_CHROMIUM, PHONE, Server, _act, _watch_errors, browser, server

__all__ = ["browser", "server"]  # the fixtures, shared with tests/test_browser.py

pytestmark = NEEDS_CHROMIUM

GAME_LIMIT = 60.0  # seconds for a one-die duel; it takes a few
ERRORS: list[str] = []  # what the pages said went wrong (none may)
MISSING: list[str] = []  # the addresses they found nothing at (none)


def _seek(browser: Any, server: Server, name: str, preset: str, wait: str = "60", **context: Any) -> Any:
    page = browser.new_context(**{**LAPTOP, **context}).new_page()
    page.set_default_timeout(20_000)
    _watch_errors(page, name, ERRORS)
    page.on("response", lambda r: MISSING.append(r.url) if r.status == 404 else None)
    page.goto(server.url + "/lobby")
    page.select_option("#seek-preset", preset)
    page.select_option("#seek-seats", "2")
    page.select_option("#seek-wait", wait)
    page.fill("#seek-name", name)
    page.click("#seek-go")
    page.wait_for_selector("#seeking:not([hidden])")
    return page


def _play_to_the_end(pages: list[Any]) -> None:
    rng = random.Random(3)
    end = time.monotonic() + GAME_LIMIT
    while not all(p.locator("#result-card").is_visible() for p in pages):
        assert time.monotonic() < end, "the game did not end"
        acted = False
        for page in pages:
            if page.locator("#reveal-card").is_visible() and not page.locator("#result-card").is_visible():
                page.click("#reveal-continue")
            acted = _act(page, rng) is not None or acted
        if not acted:
            time.sleep(0.05)


def test_two_people_play_now_play_to_the_end_rematch_and_are_watched(server: Server, browser: Any) -> None:
    # The rating line of a rated game, as h-ratings' endpoint answers it (mocked: no ratings here).
    rated = {
        "game": 0,
        "rated": True,
        "family": "openspiel",
        "pending": False,
        "changes": [
            {"seat": 0, "name": "Ann", "before": 1500, "after": 1562, "delta": 62, "provisional": True},
            {"seat": 1, "name": "Bob", "before": 1500, "after": 1438, "delta": -62, "provisional": True},
        ],
    }
    ann = _seek(browser, server, "Ann", "openspiel")
    ann.route("**/api/games/*/ratings", lambda route: route.fulfill(status=200, json=rated))
    assert "Looking for players" in ann.locator("#seek-status").inner_text()
    bob = _seek(browser, server, "Bob", "any", **PHONE)
    for page in (ann, bob):  # both taken to the one table, seated, and the game starts by itself
        page.wait_for_url("**/t/*")
        page.wait_for_selector("#cup .die")
    # Ann's page as a server that rates games serves it (where h-ratings' endpoint exists).
    ann.evaluate("() => { document.querySelector('#summary').dataset.ratings = '1'; }")
    assert ann.url.split("/t/")[1] == bob.url.split("/t/")[1]
    code = ann.url.split("/t/")[1]
    assert ann.locator(".seat.me .seat-name").inner_text() == "Ann"
    assert bob.locator(".seat.me .seat-name").inner_text() == "Bob"

    # A third person finds the game in the lobby and watches it.
    carl = browser.new_context(**LAPTOP).new_page()
    carl.set_default_timeout(20_000)
    carl.goto(server.url + "/lobby")
    carl.locator(f'#watching li[data-code="{code}"]').wait_for()
    assert "Ann" in carl.locator(f'#watching li[data-code="{code}"]').inner_text()
    carl.wait_for_function("() => /\\d+ players? online/.test(document.querySelector('#online').textContent)")
    carl.locator(f'#watching li[data-code="{code}"] a').click()
    carl.wait_for_url(f"**/t/{code}?watch")
    carl.wait_for_selector("#layout:not([hidden])")
    assert carl.locator(".seat.me").count() == 0

    _play_to_the_end([ann, bob])
    assert not MISSING and not ERRORS, (MISSING, ERRORS)
    for page in (ann, bob, carl):
        page.wait_for_selector("#summary-rounds li")
        # One die each: the loser of the one round loses the game (RULES.md "rounds": "single").
        line = page.locator("#summary-rounds").inner_text()
        assert line.startswith("Round 1: ") and " lost the round " in line and "challeng" in line, line
    ann.wait_for_selector("#summary-ratings li")
    assert ann.locator("#summary-ratings").inner_text().splitlines() == [
        "Ann: 1500? → 1562 (+62)",
        "Bob: 1500? → 1438 (−62)",
    ]
    assert bob.locator("#summary-ratings").count() == 0  # no ratings here: no line
    # The accuracy, once the analysis is made, or word that it is being made.
    ann.wait_for_function(
        "() => document.querySelector('#summary-accuracy li') || document.querySelector('#summary-analysis-note')"
    )
    assert carl.locator("#rematch").count() == 0  # spectators do not ask

    first = ann.locator("#summary a").get_attribute("href")
    ann.click("#rematch")
    bob.wait_for_function("() => document.querySelector('#rematch-who').textContent.startsWith('Asked: Ann.')")
    # Ann's own page learns it from the same broadcast, which may reach Bob's first.
    ann.wait_for_selector("#rematch:disabled")
    assert ann.locator("#rematch").inner_text() == "Rematch asked"
    bob.click("#rematch")
    for page in (ann, bob):
        page.wait_for_selector("#result-card", state="hidden")
        page.wait_for_selector("#cup .die")
    carl.wait_for_selector("#result-card", state="hidden")
    assert first is not None and first.startswith("/replay/"), first
    carl.goto(server.url + first)  # the summary's link opens the game's replay
    carl.wait_for_selector("#replay:not([hidden])")


def test_alone_after_the_wait_bots_fill_the_table(server: Server, browser: Any) -> None:
    dee = _seek(browser, server, "Dee", "perudo", wait="15")
    assert dee.locator("#seek-cancel").is_visible()
    dee.wait_for_url("**/t/*", timeout=40_000)
    dee.wait_for_selector("#cup .die")
    names = dee.locator("#seats .seat .seat-name").all_inner_texts()
    assert names == ["Dee", "Bot 1"], names
    # A seeker who cancels goes back to the form.
    eve = _seek(browser, server, "Eve", "classic")
    eve.click("#seek-cancel")
    eve.wait_for_selector("#seek-form:not([hidden])")
    assert eve.locator("#seeking").is_hidden()
