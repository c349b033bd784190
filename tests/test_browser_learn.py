"""A newcomer learns the game in Debian's chromium, on a laptop (1366x768, light) and a phone
(390x844, dark): from the home page's "Learn in 5 minutes" into the first lesson, one wrong move
and every right one, each explained (with the reveal where the cups are lifted); the progress
outlives a reload and shows on /learn; then "Play a short game" makes a real table with an easy
bot, where the newcomer opens the odds and plays the whole game. And a table's Rules box links to
the lesson of its preset.
Uses the `liarsdice serve` and the browser of tests/test_browser.py.
"""

from __future__ import annotations

import random
import re
import time
from typing import Any

import pytest

from liarsdice.learn import LESSONS
from test_browser import (
    GAME_TIME_LIMIT,
    LAPTOP,
    NEEDS_CHROMIUM,
    PHONE,
    Server,
    _act,
    _artifacts,
    _host,
    _my_turn,
    _watch_errors,
    browser,
    server,
)

__all__ = ["browser", "server"]  # the fixtures, shared with tests/test_browser.py

pytestmark = NEEDS_CHROMIUM

# No part of the page is wider than the screen (a phone must not scroll sideways).
FITS = "() => document.documentElement.scrollWidth <= window.innerWidth + 1"


def _feedback(page: Any, kind: str) -> str:
    page.wait_for_selector(f"#step-feedback.{kind}:not([hidden])")
    return " ".join(page.locator("#step-feedback").inner_text().split())


def _button(page: Any, label: str) -> Any:
    return page.locator("#step-moves button", has_text=re.compile(f"^{re.escape(label)}$"))


@pytest.mark.parametrize(("size", "scheme"), [(LAPTOP, "light"), (PHONE, "dark")], ids=["laptop", "phone"])
def test_a_newcomer_takes_the_first_lesson_then_plays_a_game_with_the_odds(
    server: Server, browser: Any, size: dict[str, Any], scheme: str
) -> None:
    errors: list[str] = []
    ctx = browser.new_context(**size, color_scheme=scheme)
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    _watch_errors(page, "newcomer", errors)
    shots = _artifacts()
    tag = "laptop" if size is LAPTOP else "phone"

    page.goto(server.url + "/")
    page.get_by_role("link", name="Learn in 5 minutes").click()
    page.wait_for_url(re.compile(r"/learn/core$"))
    lesson = LESSONS["core"]
    page.wait_for_selector("#step-moves button")
    assert page.evaluate(FITS)
    for index, step in enumerate(lesson.steps):
        assert page.locator("#step-title").inner_text() == step.title
        assert page.locator("#step-count").inner_text() == f"Step {index + 1} of {len(lesson.steps)}"
        assert " ".join(page.locator("#step-instruction").inner_text().split()) == step.instruction
        # the player's cup is shown, the others' dice are hidden
        cup = sorted(int(d.get_attribute("data-face")) for d in page.locator(".lesson-seat.me .die").all())
        assert cup == sorted(step.dice["You"])
        ana = page.locator('.lesson-seat[data-seat="Ana"]')
        assert ana.locator(".hidden-die").count() == len(step.dice["Ana"]) and ana.locator("[data-face]").count() == 0
        if index == 0:
            # one wrong move first: it is explained, and the step waits for another
            _button(page, "Bid ten 6s").click()
            said = _feedback(page, "wrong")
            assert "Not quite." in said and step.wrong["10x6"] in said and "Try another move." in said
            page.screenshot(path=str(shots / f"learn-{tag}-wrong.png"))
        right = next(c for c in step.choices if c.move in step.accept)
        _button(page, right.label).click()
        said = _feedback(page, "right")
        assert "Right!" in said and " ".join(step.right.split()) in said
        if step.accept[0][0] == "challenge" or step.then:
            assert page.locator("#step-feedback .lesson-reveal").is_visible()  # the cups lifted
            assert page.locator("#step-feedback .die.counted").count() > 0
        assert page.evaluate(FITS)
        if index + 1 < len(lesson.steps):
            page.click("#step-next")
    page.wait_for_selector("#done-card:not([hidden])")
    page.screenshot(path=str(shots / f"learn-{tag}-done.png"), full_page=True)

    # the progress outlives a reload, and the list shows the lesson done
    page.reload()
    page.wait_for_selector("#done-card:not([hidden])")
    assert "You finished this lesson." in page.locator("#step-feedback").inner_text()
    page.goto(server.url + "/learn")
    core = page.locator('.lesson-item[data-lesson="core"]')
    assert "done" in (core.get_attribute("class") or "") and "Done" in core.inner_text()
    assert "done" not in (page.locator('.lesson-item[data-lesson="wilds"]').get_attribute("class") or "")
    page.screenshot(path=str(shots / f"learn-{tag}-list.png"), full_page=True)

    # the short game: a real table with an easy bot, and the odds at the newcomer's turn
    page.goto(server.url + "/learn/core")
    page.fill("#game-name", "Newcomer")
    page.click("#play-game")
    page.wait_for_url(re.compile(r"/t/[A-Z0-9]{6}$"))
    page.wait_for_selector("#layout:not([hidden])")
    seats = page.locator("#seats").inner_text()
    assert "Newcomer" in seats and "Beginner bot" in seats
    _my_turn(page)
    toggle = page.locator("#odds-toggle")
    assert toggle.is_visible()
    toggle.click()
    page.wait_for_selector("#odds-panel:not([hidden]) #odds-how")
    page.screenshot(path=str(shots / f"learn-{tag}-game.png"))
    rng = random.Random(11)
    started = time.monotonic()
    while not page.locator("#result-card").is_visible():
        assert time.monotonic() - started < GAME_TIME_LIMIT, "the short game did not end"
        if page.locator("#reveal-continue").is_visible():
            page.click("#reveal-continue")
        if _act(page, rng) is None:
            page.wait_for_timeout(100)
        elif page.locator("#odds-toggle").is_visible():
            assert page.locator("#odds-panel").is_visible()  # the panel stays open turn after turn
    assert page.locator("#ranking li").count() == 2
    assert not errors, errors
    ctx.close()


@pytest.mark.parametrize("name", [name for name in LESSONS if name != "core"])
def test_every_other_lesson_can_be_taken_in_the_browser(server: Server, browser: Any, name: str) -> None:
    """Pushed dice, votes, chips and a step at other rules: each step's right move, its reveal."""
    errors: list[str] = []
    ctx = browser.new_context(**LAPTOP)
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    _watch_errors(page, name, errors)
    page.goto(f"{server.url}/learn/{name}")
    lesson = LESSONS[name]
    for index, step in enumerate(lesson.steps):
        page.wait_for_selector("#step-moves button:not([disabled])")
        assert page.locator("#step-title").inner_text() == step.title
        if step.state.get("chips"):
            assert f"{step.state['chips']['You']} chip" in page.locator('.lesson-seat[data-seat="You"]').inner_text()
        right = next(c for c in step.choices if c.move in step.accept)
        _button(page, right.label).click()
        assert " ".join(step.right.split()) in _feedback(page, "right")
        if step.reveal_count is not None:
            assert f": {step.reveal_count} against the bid" in page.locator("#step-feedback").inner_text()
        if index + 1 < len(lesson.steps):
            page.click("#step-next")
    page.wait_for_selector("#done-card:not([hidden])")
    page.goto(server.url + "/learn")
    assert "Done" in page.locator(f'.lesson-item[data-lesson="{name}"]').inner_text()
    assert not errors, errors
    ctx.close()


def test_a_table_links_to_the_lesson_of_its_rules(server: Server, browser: Any) -> None:
    for preset, lesson in (("soar", "soar"), ("perudo", "wilds"), ("tavern", "tavern")):
        page, _ = _host(browser, server, preset, {"num_players": 3}, **LAPTOP)
        link = page.locator("#rules-learn")
        page.wait_for_function("() => document.querySelector('#rules-learn').getAttribute('href') !== '/learn'")
        assert link.get_attribute("href") == f"/learn/{lesson}"
        assert link.inner_text() == f"Learn these rules: {LESSONS[lesson].title}"
        page.context.close()


def test_a_lesson_can_be_taken_again_and_a_wrong_move_shows_the_reveal(server: Server, browser: Any) -> None:
    errors: list[str] = []
    ctx = browser.new_context(**PHONE)
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    _watch_errors(page, "learner", errors)
    page.goto(server.url + "/learn/exact")
    page.wait_for_selector("#step-moves button")
    _button(page, "Call bluff").click()
    said = _feedback(page, "wrong")
    assert "Counted 5s: 4 against the bid 4 × 5s." in said and "You lose 1 die." in said
    _button(page, "Spot-on!").click()
    assert "Ana loses 1 die; Ben loses 1 die." in _feedback(page, "right")
    page.click("#step-next")
    page.reload()  # the step reached is remembered
    page.wait_for_selector("#step-moves button")
    assert page.locator("#step-title").inner_text() == LESSONS["exact"].steps[1].title
    page.goto(server.url + "/learn")
    assert "Step 2 of 3" in page.locator('.lesson-item[data-lesson="exact"]').inner_text()
    assert not errors, errors
    ctx.close()
