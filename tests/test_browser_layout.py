"""The table and home pages as a newcomer sees them on a laptop (1366x768) and a phone (390x844).

Every control of a turn is on the screen with no scrolling (the bid picker, pass, challenge,
exact, the economy's raise, accuse, all in and fold), with the reveal of the round before open
beside it; refusals are said where the click was, when it happens; the words are a player's
("1 die", "1 chip"); a turn timer never shows more than its limit. Each check plays a short game
against fast bots on the `liarsdice serve` of tests/test_browser.py, in Debian's chromium.
Screenshots go to $LIARSDICE_ARTIFACTS (default: artifacts/ at the repository root).
"""

from __future__ import annotations

import re
import time
from typing import Any

from test_browser import (
    GAME_TIME_LIMIT,
    IN_VIEW,
    LAPTOP,
    NEEDS_CHROMIUM,
    PANEL,
    PHONE,
    SETTLED,
    Server,
    _artifacts,
    _host,
    _join,
    _my_turn,
    _start_with_bots,
    _watch_errors,
    browser,
    server,
)

__all__ = ["browser", "server"]  # the fixtures, shared with tests/test_browser.py

pytestmark = NEEDS_CHROMIUM

# Every control a person may use on this turn (the move panel and the dice to push), where it is
# with the page scrolled to the top, and the window's size.
CONTROLS = """() => {
  window.scrollTo(0, 0);
  const nodes = [...document.querySelectorAll(
    '#actions button, #actions input, #actions select, #cup button, #reveal-card:not([hidden]) button')];
  const shown = nodes.filter(n => n.getClientRects().length > 0);
  return {
    scrollY: window.scrollY, width: window.innerWidth, height: window.innerHeight,
    pageWidth: document.documentElement.scrollWidth,
    controls: shown.map(n => {
      const r = n.getBoundingClientRect();
      const name = n.dataset.move || n.id || n.dataset.face || n.getAttribute('aria-label') || n.textContent.trim();
      return {name: name.slice(0, 40), top: r.top, bottom: r.bottom, left: r.left, right: r.right};
    }),
  };
}"""


def _off_screen(layout: dict[str, Any]) -> list[dict[str, Any]]:
    """The controls not wholly inside the window (the page at the top)."""
    w, h = layout["width"], layout["height"]
    return [c for c in layout["controls"] if c["top"] < 0 or c["left"] < 0 or c["bottom"] > h or c["right"] > w]


def _assert_all_in_view(page: Any, shot: str, moves: set[str]) -> dict[str, Any]:
    """Every control of this turn (among them each of `moves`) lies in the window at scroll 0."""
    layout: dict[str, Any] = page.evaluate(CONTROLS)
    page.screenshot(path=str(_artifacts() / shot))
    assert layout["scrollY"] == 0
    names = {c["name"] for c in layout["controls"]}
    assert moves <= names, f"{moves - names} not offered: {sorted(names)}"
    assert not _off_screen(layout), (
        f"{shot}: off the screen at {layout['width']}x{layout['height']}: {_off_screen(layout)}"
    )
    return layout


def _panel(page: Any) -> dict[str, Any] | None:
    return page.evaluate(PANEL)  # type: ignore[no-any-return]


def _continue(page: Any) -> None:
    if page.locator("#reveal-card").is_visible():
        page.click("#reveal-continue")


# ----- 1: a refusal of the host's controls is said under them, and goes with the lobby -----


def test_host_refusals_show_under_the_host_controls_and_go_when_the_game_starts(server: Server, browser: Any) -> None:
    errors: list[str] = []
    page, _ = _host(browser, server, "classic", {"num_players": 2}, **LAPTOP)
    _watch_errors(page, "host", errors)
    host_error = page.locator("#host-error")
    # A turn timer the table cannot have: refused on the page, at once, next to the Apply button.
    page.fill("#cfg-turn", "99999")
    page.click("#cfg-apply")
    assert host_error.is_visible(), "the refused turn timer says nothing"
    assert "99999" in host_error.inner_text() and "0 to 3600" in host_error.inner_text()
    assert host_error.evaluate("n => n.getBoundingClientRect().bottom <= window.innerHeight")
    # No bot account is online: the server's refusal shows in the same place.
    page.click("#call-bots")
    said = "() => document.querySelector('#host-error').textContent === 'No bot account is online to call.'"
    page.wait_for_function(said)
    assert host_error.is_visible()
    page.screenshot(path=str(_artifacts() / "host-error.png"))
    # A timer the table can have: the refusal goes, and the table takes it.
    page.fill("#cfg-turn", "45")
    page.click("#cfg-apply")
    assert host_error.is_hidden()
    page.locator("#rules-list li", has_text="Turn timer: 45 s").wait_for()
    page.fill("#cfg-turn", "0")
    page.click("#cfg-apply")
    page.locator("#rules-list li", has_text="No turn timer").wait_for()
    # Nothing of it waits, hidden, for the game: the game starts with no refusal under the cup.
    _start_with_bots(page)
    _my_turn(page)
    assert page.locator("#action-error").is_hidden(), page.locator("#action-error").inner_text()
    assert host_error.is_hidden()
    page.context.close()
    assert not errors, "\n".join(errors)


# ----- 2: every control on the screen at 1366x768 -----


def test_create_table_is_on_the_screen_on_a_laptop_and_a_phone(server: Server, browser: Any) -> None:
    for name, context in (("home-laptop.png", LAPTOP), ("home-phone.png", PHONE)):
        page = browser.new_context(**context).new_page()
        page.goto(server.url + "/")
        page.wait_for_selector('#preset option[value="perudo"]', state="attached")
        page.screenshot(path=str(_artifacts() / name))
        box = page.locator("#create-btn").bounding_box()
        width, height = context["viewport"]["width"], context["viewport"]["height"]  # type: ignore[index]
        assert page.evaluate("window.scrollY") == 0
        if context is LAPTOP:  # on a phone the form is one column: the button is a scroll away
            assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height, (name, box)
        assert page.evaluate("document.documentElement.scrollWidth") <= width, (
            f"{name}: the page is wider than the screen"
        )
        page.context.close()


def test_a_soar_turn_fits_a_laptop_screen_with_the_reveal_open(server: Server, browser: Any) -> None:
    """Soar offers pass, challenge and exact, with dice to push: every turn's controls are on the
    screen; and so are they, with the reveal of the round before, on the first turn after it."""
    errors: list[str] = []
    page, _ = _host(browser, server, "soar", {"num_players": 4, "dice_per_player": 2, "first_starter": 0}, **LAPTOP)
    _watch_errors(page, "host", errors)
    _start_with_bots(page)
    _my_turn(page)
    # Two dice: one may be pushed, in words a player uses.
    hint = page.locator("#push-hint").inner_text()
    assert hint.startswith("You may push 1 die: click it"), hint
    card = page.locator("#reveal-card")
    every_move = False  # a turn offering pass, challenge and exact was checked
    deadline = time.monotonic() + GAME_TIME_LIMIT
    while True:
        assert time.monotonic() < deadline, f"no turn after a reveal (a turn with every move: {every_move})"
        if page.locator("#result-card").is_visible():
            page.click("#rematch")
            page.wait_for_selector("#result-card", state="hidden")
        panel = _panel(page)
        if panel is None:
            time.sleep(0.03)
            continue
        moves = set(panel["moves"])
        if card.is_visible() and every_move:
            break
        if "challenge" in moves:
            _assert_all_in_view(page, "soar-turn.png", {"bid", "challenge"})
            every_move = every_move or {"pass", "challenge", "exact"} <= moves
        move = "challenge" if "challenge" in moves and every_move else "bid"
        page.locator(f'#actions button[data-move="{move}"]').first.click()
        page.wait_for_function(SETTLED)
    # The reveal is open and it is Ann's turn: the reveal and every control of the turn are on
    # the screen together.
    layout = _assert_all_in_view(page, "soar-turn-after-reveal.png", {"bid", "reveal-continue"})
    assert layout["pageWidth"] <= layout["width"]
    page.click("#reveal-continue")
    page.context.close()
    assert not errors, "\n".join(errors)


def test_a_tavern_turn_fits_a_laptop_screen_and_an_invalid_raise_is_said_before_the_click(
    server: Server, browser: Any
) -> None:
    errors: list[str] = []
    page, _ = _host(browser, server, "tavern", {"num_players": 3, "first_starter": 1}, **LAPTOP)
    _watch_errors(page, "host", errors)
    _start_with_bots(page)
    # A bot opens with a claim: Ann can meet it, raise, claim higher, accuse, go all in or fold.
    deadline = time.monotonic() + GAME_TIME_LIMIT
    while True:
        assert time.monotonic() < deadline, "no turn offered fold"
        panel = _my_turn(page)
        if "fold" in panel["moves"] and page.locator("#raise-on").count():
            break
        _continue(page)
        page.locator('#actions button[data-move="bid"]').first.click()
        page.wait_for_function(SETTLED)
    _assert_all_in_view(page, "tavern-turn.png", {"bid", "accuse", "fold", "raise-on"})
    # A raise out of range: both moves that would send it say so, with what is allowed, and wait.
    raise_to = page.locator("#raise-to")
    low, high = int(raise_to.get_attribute("min") or 0), int(raise_to.get_attribute("max") or 0)
    page.check("#raise-on")
    raise_to.fill(str(high + 8))
    claim = page.locator('#actions button[data-move="bid"]')
    accuse = page.locator('#actions button[data-move="accuse"]')
    allowed = f"{low} to {high}" if low != high else f"only {low}"
    for button in (claim, accuse):
        text = button.inner_text()
        assert button.is_disabled(), f"{text!r} can be clicked with the raise {high + 8}"
        assert f"no raise to {high + 8}: {allowed} allowed" in text, text
        assert "see below" not in text
    _assert_all_in_view(page, "tavern-raise-refused.png", {"bid", "accuse", "fold"})
    # A raise in range: both say it and can be clicked.
    raise_to.fill(str(low))
    for button in (claim, accuse):
        assert button.is_enabled() and "no raise" not in button.inner_text(), button.inner_text()
    assert f"raise to {low}" in claim.inner_text() and f"raising to {low}" in accuse.inner_text()
    page.context.close()
    assert not errors, "\n".join(errors)


# The reveal card whole (its note under Continue too) and its last hand, brought into view the way
# a browser does, with the page at the top.
REVEAL_BOX = """() => {
  window.scrollTo(0, 0);
  const card = document.querySelector('#reveal-card').getBoundingClientRect();
  const hands = document.querySelectorAll('#reveal-card .hands li');
  const last = hands[hands.length - 1];
  last.scrollIntoView({block: 'nearest'});
  const r = last.getBoundingClientRect();
  const out = {hands: hands.length, cardTop: card.top, cardBottom: card.bottom,
               lastTop: r.top, lastBottom: r.bottom, scrollY: window.scrollY, height: window.innerHeight};
  for (let n = last.parentElement; n; n = n.parentElement) n.scrollTop = 0;
  window.scrollTo(0, 0);
  return out;
}"""


def test_a_twelve_seat_reveal_and_the_turn_after_it_fit_a_laptop_and_a_phone(server: Server, browser: Any) -> None:
    """Twelve seats of 5 dice: the reveal's twelve hands, its Continue and note, and every
    control of Ann's turn are on a laptop's screen together; every hand is a scroll of the reveal
    away, not of the page. On a phone nothing scrolls sideways and Continue is reachable."""
    errors: list[str] = []
    options = {"num_players": 12, "dice_per_player": 5, "first_starter": 1}
    page, _ = _host(browser, server, "classic", options, **LAPTOP)
    _watch_errors(page, "host", errors)
    _start_with_bots(page)
    card = page.locator("#reveal-card")
    deadline = time.monotonic() + GAME_TIME_LIMIT
    while True:
        assert time.monotonic() < deadline, "no turn of Ann's with the reveal open"
        panel = _panel(page)
        if panel is None:
            time.sleep(0.03)
            continue
        if card.is_visible():
            break
        move = "challenge" if "challenge" in panel["moves"] else "bid"
        page.locator(f'#actions button[data-move="{move}"]').first.click()
        page.wait_for_function(SETTLED)
    layout = _assert_all_in_view(page, "twelve-seats-reveal.png", {"bid", "reveal-continue"})
    assert layout["pageWidth"] <= layout["width"]
    box = page.evaluate(REVEAL_BOX)
    assert box["hands"] == 12
    assert box["cardTop"] >= 0 and box["cardBottom"] <= box["height"], f"the reveal card runs off the screen: {box}"
    assert box["scrollY"] == 0 and box["lastTop"] >= 0 and box["lastBottom"] <= box["height"], (
        f"the last hand is not a scroll of the reveal away: {box}"
    )
    # The same table on a phone: one column, nothing wider than the screen, Continue reachable.
    page.set_viewport_size(PHONE["viewport"])  # type: ignore[arg-type]
    layout = page.evaluate(CONTROLS)
    page.screenshot(path=str(_artifacts() / "twelve-seats-reveal-phone.png"))
    assert layout["pageWidth"] <= layout["width"], "the phone's page scrolls sideways"
    wide = [c for c in layout["controls"] if c["left"] < 0 or c["right"] > layout["width"]]
    assert not wide, f"controls past the phone's edge: {wide}"
    page.locator("#reveal-continue").scroll_into_view_if_needed()
    assert page.locator("#reveal-continue").evaluate(IN_VIEW)
    page.click("#reveal-continue")
    assert card.is_hidden()
    page.context.close()
    assert not errors, "\n".join(errors)


def test_a_tavern_all_in_is_on_a_laptop_screen(server: Server, browser: Any) -> None:
    """All in is open only to a seat that cannot meet the bet when a claim stands (RULES.md 1.5,
    D8). One chip each and a stake paid on every turn: Ann's opening claim spends her chip, and
    when the bot claims back she can only go all in or fold."""
    errors: list[str] = []
    economy = {"starting_chips": 1, "min_bet": 1, "stake": "per_turn"}
    page, _ = _host(browser, server, "tavern", {"num_players": 2, "first_starter": 0, "economy": economy}, **LAPTOP)
    _watch_errors(page, "host", errors)
    _start_with_bots(page)
    deadline = time.monotonic() + GAME_TIME_LIMIT
    while True:
        assert time.monotonic() < deadline, "no turn offered all in"
        if page.locator("#result-card").is_visible():
            page.click("#rematch")
            page.wait_for_selector("#result-card", state="hidden")
        panel = _panel(page)
        if panel is None:
            time.sleep(0.03)
            continue
        if "all_in" in panel["moves"]:
            break
        _continue(page)
        move = "bid" if "bid" in panel["moves"] else "fold"
        page.locator(f'#actions button[data-move="{move}"]').first.click()
        page.wait_for_function(SETTLED)
    _assert_all_in_view(page, "tavern-all-in.png", {"all_in", "fold"})
    assert "All in (0 chips) and accuse" in page.locator('#actions button[data-move="all_in"]').inner_text()
    # why there is no claim to make is said once, on the bet's line
    panel_text = page.locator("#actions").inner_text()
    assert panel_text.count("cannot meet") == 1, panel_text
    assert "You cannot meet it (1 owed)." in panel_text, panel_text
    page.context.close()
    assert not errors, "\n".join(errors)


# ----- 3: the reveal's words and order -----


def _count_in(cup: list[int], face: int) -> int:
    return sum(1 for f in cup if f == face)


def _check_reveal(card: Any, seen: set[str]) -> bool | None:
    """The reveal on the screen, if it is of a challenge not checked yet: the challenger is
    "called it" only if the bid was false, and every hand is in the cup's order; whether the call
    was right."""
    if card.is_hidden() or card.locator("#reveal-count").count() == 0:
        return None
    title = card.locator("#reveal-title").inner_text()
    if title in seen:
        return None
    seen.add(title)
    count = int(card.locator("#reveal-count").inner_text())
    bid = re.match(r"(\d+) × ", card.locator(".reveal-head .big-bid").first.get_attribute("aria-label") or "")
    assert bid is not None
    right = count < int(bid.group(1))
    roles = card.locator(".hands .badge.role").all_inner_texts()
    assert ("called it" in roles) == right and ("wrong call" in roles) == (not right), (count, bid.group(0), roles)
    for li in card.locator(".hands li").all():
        shown = [int(x) for x in li.locator(".die").evaluate_all("ds => ds.map(d => d.dataset.face)")]
        assert shown == sorted(shown), f"a hand in the reveal is not in the cup's order: {shown}"
    card.screenshot(path=str(_artifacts() / f"reveal-{'right' if right else 'wrong'}-call.png"))
    return right


def test_the_reveal_calls_a_wrong_challenge_wrong_and_shows_the_cup_in_its_order(server: Server, browser: Any) -> None:
    """Classic has no wilds: a bid Ann's own cup makes true is one she challenges wrongly."""
    errors: list[str] = []
    page, _ = _host(browser, server, "classic", {"num_players": 2, "first_starter": 0}, **LAPTOP)
    _watch_errors(page, "host", errors)
    _start_with_bots(page)
    card = page.locator("#reveal-card")
    deadline = time.monotonic() + GAME_TIME_LIMIT
    calls: list[bool] = []
    seen: set[str] = set()
    while False not in calls:
        assert time.monotonic() < deadline, f"no wrong challenge in time ({calls})"
        right = _check_reveal(card, seen)
        if right is not None:
            calls.append(right)
            continue
        if page.locator("#result-card").is_visible():
            page.click("#rematch")
            page.wait_for_selector("#result-card", state="hidden")
            seen.clear()
        panel = _panel(page)
        if panel is None:
            time.sleep(0.03)
            continue
        _continue(page)
        standing = page.evaluate("() => document.querySelector('#standing .big-bid')?.getAttribute('aria-label')")
        m = re.match(r"(\d+) × (\d+)", standing or "")
        if m and "challenge" in panel["moves"] and _count_in(panel["cup"], int(m.group(2))) >= int(m.group(1)):
            page.locator('#actions button[data-move="challenge"]').click()  # true by Ann's own cup
            row = page.locator('#reveal-card:not([hidden]) .hands li[data-name="Ann"]')
            row.wait_for()
            faces = [int(x) for x in row.locator(".die").evaluate_all("ds => ds.map(d => d.dataset.face)")]
            assert faces == panel["cup"], f"the reveal shows Ann's cup {panel['cup']} as {faces}"
        else:
            page.locator('#actions button[data-move="bid"]').first.click()
        page.wait_for_function(SETTLED)
    page.context.close()
    assert not errors, "\n".join(errors)


def test_a_player_reads_1_die_and_1_chip(server: Server, browser: Any) -> None:
    page, _ = _host(browser, server, "classic", {"num_players": 2}, **LAPTOP)
    said = page.evaluate(
        """async () => {
      const c = await import('/static/js/common.js');
      return c.rulesSummary({num_players: 2, dice_per_player: 1, faces: 6, wild_face: 'none'})[0];
    }"""
    )
    assert said == "2 players, 1 die each, 6 faces", said
    page.context.close()


# ----- 6: a turn timer shows at most its limit -----


def test_the_turn_timer_never_shows_more_than_its_limit_during_the_reveal_pause(server: Server, browser: Any) -> None:
    """Two people, 2 dice each, a 60 s timer: right after round 1 ends, the seat that opens
    round 2 has its 60 s plus the reveal pause (the server's deadline); the pages show 60 at most.
    The guest plays on a phone: its panel fits the phone's width."""
    errors: list[str] = []
    page, code = _host(
        browser,
        server,
        "classic",
        {"num_players": 2, "dice_per_player": 2, "first_starter": 0, "turn_seconds": 60},
        **LAPTOP,
    )
    guest = _join(browser, server, code, "Bo", **PHONE)
    _watch_errors(page, "host", errors)
    _watch_errors(guest, "guest", errors)
    page.wait_for_function("() => !document.querySelector('#start').disabled")
    page.click("#start")
    deadline = time.monotonic() + GAME_TIME_LIMIT
    phone_checked = False
    while page.locator("#reveal-card").is_hidden():
        assert time.monotonic() < deadline, "round 1 did not end"
        for p in (page, guest):
            panel = _panel(p)
            if panel is None:
                continue
            if p is guest and not phone_checked:
                layout = p.evaluate(CONTROLS)
                p.screenshot(path=str(_artifacts() / "turn-phone.png"))
                assert layout["pageWidth"] <= layout["width"], "the phone's page scrolls sideways"
                wide = [c for c in layout["controls"] if c["left"] < 0 or c["right"] > layout["width"]]
                assert not wide, f"controls past the phone's edge: {wide}"
                phone_checked = True
            move = "challenge" if "challenge" in panel["moves"] else "bid"
            p.locator(f'#actions button[data-move="{move}"]').first.click()
            p.wait_for_function(SETTLED)
    # The reveal pause runs (5 s): the opener's timer has not started yet and reads 60 s.
    shown = page.locator("[data-countdown]").all_inner_texts()
    assert shown, "no turn timer is shown"
    for text in shown:
        m = re.fullmatch(r"(\d+) s left", text)
        assert m is not None and 50 <= int(m.group(1)) <= 60, f"a 60 s timer reads {text!r}"
    page.screenshot(path=str(_artifacts() / "timer-after-reveal.png"))
    for p in (page, guest):
        _continue(p)
    for p in (page, guest):
        p.context.close()
    assert not errors, "\n".join(errors)
