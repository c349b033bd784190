"""Ratings in a real Chromium (docs/ratings.md): two people sign up, one makes a rated table from
the home page's form, the other sits at it, they play it to the end, and their ratings move and
show on both profiles (with the chart) and on the leaderboard; axe checks the new pages."""

from __future__ import annotations

import random
import time
from typing import Any

from test_browser import LAPTOP, NEEDS_CHROMIUM, PHONE, Server, _act, browser, server
from test_browser_access import _severe
from test_browser_accounts import _sign_up

pytestmark = NEEDS_CHROMIUM
__all__ = ["browser", "server"]  # the fixtures, shared with tests/test_browser.py


def _play_both_to_the_end(pages: list[Any]) -> None:
    rng = random.Random(3)
    started = time.monotonic()
    while not all(p.locator("#result-card").is_visible() for p in pages):
        assert time.monotonic() - started < 120, "the rated game does not end"
        moved = False
        for page in pages:
            if page.locator("#reveal-card").is_visible():
                page.click("#reveal-continue")
                moved = True
            elif _act(page, rng) is not None:
                moved = True
        if not moved:
            pages[0].wait_for_timeout(50)


def _my_rating(page: Any, server: Server) -> int:
    """Open my profile from the navigation (my name) and read my Openspiel rating."""
    page.locator(".account-link").click()
    page.wait_for_selector("#ratings tr[data-family='openspiel']")
    assert page.locator("#account-settings").is_visible()  # my own profile: the way to my account
    text = page.locator("#ratings tr[data-family='openspiel'] .rating strong").inner_text()
    assert text.endswith("?"), text  # one game: provisional
    page.wait_for_selector("#rating-charts figure[data-family='openspiel'] svg polyline")
    return int(text[:-1])


def test_a_rated_game_moves_both_ratings_on_the_profiles_and_the_leaderboard(server: Server, browser: Any) -> None:
    rosa_ctx, rosa = _sign_up(browser, server, "Rosa", "rated and ready 1", **LAPTOP)
    tomas_ctx, tomas = _sign_up(browser, server, "Tomás", "rated and ready 2", **PHONE)
    found: list[str] = []
    try:
        rosa.goto(server.url + "/")
        rosa.wait_for_selector("#preset option[value='openspiel']", state="attached")
        rosa.select_option("#preset", "openspiel")  # two seats, one die each: a short game
        rosa.check("#rated")
        assert rosa.locator("#dice").is_disabled() and rosa.locator("#rated-note").is_visible()
        assert "only the number of players may change" in rosa.locator("#rated-note").inner_text()
        found += _severe(rosa, "the home page with Rated ticked")
        rosa.get_by_role("button", name="Create table").click()
        rosa.wait_for_url("**/t/*")
        code = rosa.url.rsplit("/", 1)[1]
        rosa.wait_for_selector("#host-controls:not([hidden])")
        assert rosa.locator("#rated-badge").inner_text() == "Rated"

        guest_ctx = browser.new_context(**LAPTOP)  # a guest may watch, not sit
        guest = guest_ctx.new_page()
        guest.goto(f"{server.url}/t/{code}")
        guest.fill("#gate-name", "Gus")
        guest.click("#gate-join")
        guest.wait_for_selector("#gate-error:not([hidden])")
        assert "sign in to sit at a rated table" in guest.locator("#gate-error").inner_text().lower()
        guest_ctx.close()

        tomas.goto(f"{server.url}/t/{code}")
        tomas.fill("#gate-name", "Tom")  # a rated table seats him under his account's name
        tomas.click("#gate-join")
        tomas.wait_for_selector("#layout:not([hidden])")
        rosa.wait_for_selector(".seat .seat-name:text('Tomás')")
        rosa.wait_for_selector("#start:not([disabled])")
        rosa.click("#start")
        _play_both_to_the_end([rosa, tomas])

        ratings = {name: _my_rating(page, server) for name, page in (("Rosa", rosa), ("Tomás", tomas))}
        assert sorted(ratings.values())[0] < 1500 < sorted(ratings.values())[1], ratings
        found += _severe(tomas, "a profile with a rating and its chart (phone)")
        rosa.get_by_role("link", name="Leaderboard", exact=True).click()
        rosa.select_option("#board-family", "openspiel")
        rosa.get_by_role("button", name="Show").click()
        rosa.wait_for_selector("#leaderboard tbody tr")
        rows = rosa.locator("#leaderboard tbody th a").all_inner_texts()
        best = max(ratings, key=lambda n: ratings[n])
        assert rows == [best, min(ratings, key=lambda n: ratings[n])]
        found += _severe(rosa, "the leaderboard")
        rosa.locator("#leaderboard").get_by_role("link", name=best).click()
        rosa.wait_for_selector("#player-title")
        assert rosa.locator("#player-title").inner_text() == best
        assert rosa.locator("#player-games li").count() == 1
    finally:
        rosa_ctx.close()
        tomas_ctx.close()
    assert not found, "axe finds serious or critical violations:\n" + "\n".join(found)
