"""In a real browser: the Rules box, the home form's limits, why a face cannot be bid, renaming
at the table, skipping a game of bots to its end, and the pages for addresses that name nothing.

Each check uses the `liarsdice serve` of tests/test_browser.py (fast bots, a 5 s reveal pause)
and Debian's chromium. Screenshots go to $LIARSDICE_ARTIFACTS (default: artifacts/).
"""

from __future__ import annotations

from typing import Any

from test_browser import (
    LAPTOP,
    NEEDS_CHROMIUM,
    PHONE,
    Server,
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


def test_the_rules_box_gives_the_tables_whole_rules_and_links_the_full_rules(server: Server, browser: Any) -> None:
    errors: list[str] = []
    page, _ = _host(browser, server, "soar", {"num_players": 3, "exact_limit": "once_per_game"}, **LAPTOP)
    _watch_errors(page, "host", errors)
    box = page.locator("#rules-text")
    box.locator(".rules-section").first.wait_for()
    text = box.inner_text()
    for words in ("only once per game", "through one pass", "Push:", "drops to 1 die", "half the dice, rounded up"):
        assert words in text, words
    for jargon in ("siding vote", "one-die round", "gain die", "exact call"):
        assert jargon not in text, jargon
    link = page.locator("#rules-full")
    assert link.get_attribute("href") == "/rules/soar" and "Soar" in link.inner_text()
    page.screenshot(path=str(_artifacts() / "rules-box.png"), full_page=True)
    rules = page.context.new_page()
    rules.goto(server.url + "/rules/soar")
    assert rules.locator("h1").inner_text() == "Soar" and rules.locator("nav[aria-label=Site] a").count() >= 5
    assert "only once per game" in rules.locator("main").inner_text()
    # Pages that name nothing are pages too, and a missing game offers nothing to download.
    rules.goto(server.url + "/replay/999")
    assert "There is no finished game 999" in rules.locator("#error-text").inner_text()
    assert rules.get_by_text("Download the record").count() == 0
    rules.locator("a", has_text="Back to the tables").click()
    rules.wait_for_url(server.url + "/")
    page.context.close()
    assert not errors, "\n".join(errors)


def test_the_home_form_says_a_presets_limits_before_create(server: Server, browser: Any) -> None:
    page = browser.new_context(**PHONE).new_page()
    page.goto(server.url + "/")
    page.wait_for_selector('#preset option[value="perudo"]', state="attached")
    page.select_option("#preset", "perudo")
    players = page.locator("#players")
    assert (players.get_attribute("min"), players.get_attribute("max")) == ("2", "6")
    assert page.locator("#players-hint").inner_text() == "2 to 6"
    players.fill("8")
    check = page.locator("#create-check")
    check.wait_for()
    page.wait_for_timeout(800)  # a check of the form as it was before must not take it back
    assert check.is_visible() and check.inner_text() == "Perudo is played by 2 to 6 players."
    assert players.get_attribute("aria-invalid") == "true"
    page.screenshot(path=str(_artifacts() / "home-limits-phone.png"), full_page=True)
    players.fill("5")
    check.wait_for(state="hidden")
    # What only the server can tell (a table too big) is said before Create too.
    page.select_option("#preset", "classic")
    assert players.get_attribute("max") == "12"
    page.locator("#more-rules summary").click()
    page.select_option("#opt-push", "true")
    page.locator("#dice").fill("12")
    check.wait_for()
    assert check.inner_text().startswith("Too many dice to push for one table: 4 players with 12 dice each")
    assert page.url == server.url + "/"
    page.context.close()


def test_a_face_that_cannot_be_bid_says_why(server: Server, browser: Any) -> None:
    page, _ = _host(browser, server, "perudo", {"num_players": 2, "first_starter": 0}, **PHONE)
    _start_with_bots(page)
    _my_turn(page)
    ones = page.locator('#actions .face-btn[data-face="1"]')
    assert ones.is_disabled()
    why = "1s can't open a round in these rules: open on another face."
    assert ones.get_attribute("title") == why and why in (ones.get_attribute("aria-label") or "")
    note = page.locator("#faces-note")
    assert note.is_visible() and note.inner_text() == why
    page.locator("#faces-note").scroll_into_view_if_needed()
    page.screenshot(path=str(_artifacts() / "ones-cannot-open-phone.png"))
    page.context.close()


def test_a_taken_name_is_said_and_the_player_renames_at_the_table(server: Server, browser: Any) -> None:
    errors: list[str] = []
    host, code = _host(browser, server, "classic", {"num_players": 3}, **LAPTOP)
    guest = browser.new_context(**PHONE).new_page()
    _watch_errors(guest, "guest", errors)
    guest.goto(f"{server.url}/t/{code}")
    guest.fill("#gate-name", "ann")
    guest.click("#gate-join")
    notice = guest.locator("#rename-notice")
    notice.wait_for()
    assert notice.inner_text() == (
        "The name ann is taken at this table, so you sit as ann (2): "
        "you can change your name at the table before the game starts."
    )
    guest.click("#rename-open")
    guest.fill("#rename-input", "Ann")  # another seat's name: refused, with the reason
    guest.click("#rename-save")
    error = guest.locator("#rename-error")
    error.wait_for()
    assert error.inner_text() == "The name Ann is taken at this table: choose another."
    guest.fill("#rename-input", "Bea")
    guest.press("#rename-input", "Enter")
    guest.locator("#rename-notice", has_text="You are Bea at this table now.").wait_for()
    host.locator("#seats .seat-name", has_text="Bea").wait_for()
    guest.screenshot(path=str(_artifacts() / "renamed-phone.png"), full_page=True)
    guest.reload()
    guest.locator(".seat.me .seat-name", has_text="Bea").wait_for()
    assert "taken" not in guest.locator("#rename-box").inner_text()
    host.context.close()
    guest.context.close()
    assert not errors, "\n".join(errors)


def test_a_player_who_is_out_can_skip_the_bots_to_the_end(server: Server, browser: Any) -> None:
    # Ann holds 1 die and opens with the highest bid: the bot after her can only challenge.
    options = {"num_players": 3, "dice_per_player": [1, 3, 3], "first_starter": 0}
    page, _ = _host(browser, server, "classic", options, **LAPTOP)
    _start_with_bots(page)
    _my_turn(page)
    page.click('#actions .face-btn[data-face="6"]')
    page.fill("#bid-qty", "7")
    page.press("#bid-qty", "Enter")
    skip = page.locator("#skip-box")
    skip.wait_for(timeout=15_000)
    assert page.locator("#skip-text").inner_text().startswith("You are out: only bots are still playing.")
    page.screenshot(path=str(_artifacts() / "skip-to-the-end.png"))
    # The two bots have 3 dice each, so at least 3 more rounds, each with a 5 s reveal: 15 s or
    # more without the skip. With it, the bots' own thinking alone (seconds on a loaded machine:
    # a duel solved on first use).
    page.click("#skip-end")
    page.locator("#result-card").wait_for(timeout=10_000)
    assert skip.is_hidden() and page.locator("#ranking li").count() == 3
    assert page.locator("#turn-line").inner_text().startswith("Game over")
    page.context.close()
