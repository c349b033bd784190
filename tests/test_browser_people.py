"""Issue 25's goal in a real Chromium, in one flow per kind of server (docs/accounts.md,
docs/ratings.md, docs/lobby.md): Ann signs up on a laptop, Bo on a phone, Ann signs in on a
second device and finds her account; both Play now, rated, the same rules and two seats, and are
seated at one rated table; a guest finds the game under "Games to watch" and watches its moves;
they play it to the end; the summary shows the rating changes and both profiles show them, one
up and one down; both ask for a rematch and a new game starts; Bo deletes his account, and the
finished game's replay then names his seat "deleted player", as his profile says.

Once on one server process with SQLite, once on two processes sharing PostgreSQL and Redis with
Ann's and Bo's browsers on different processes (the guest and Ann's second device on Bo's).
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from test_browser import LAPTOP, NEEDS_CHROMIUM, PHONE, Server, _act, _watch_errors, browser, server
from test_server_cluster import Node, cluster, urls

__all__ = ["browser", "server", "urls"]  # the fixtures, shared with the tests they come from

pytestmark = NEEDS_CHROMIUM

PRESET = "openspiel"  # two seats of one die and one round: the shortest rated game there is
GAME_LIMIT = 120.0  # seconds for that game under load (an outcome's wait, not a time checked)
WAIT = 60_000  # milliseconds any page may take to show an outcome on a loaded machine
PASSWORDS = {"Ann": "dice and lies on a laptop", "Bo": "dice and lies on a phone"}


@dataclass
class Site:
    """Where one browser goes: the process it talks to."""

    url: str


@dataclass
class Sites:
    """The process each browser of the flow talks to."""

    ann: Site  # context 1, a laptop
    bo: Site  # context 2, a phone
    guest: Site  # context 3, a laptop
    ann_again: Site  # context 4: Ann's second device, a phone


def _page(context: Any, who: str, errors: list[str]) -> Any:
    page = context.pages[0] if context.pages else context.new_page()
    page.set_default_timeout(WAIT)
    _watch_errors(page, who, errors)
    return page


def _sign_up(browser: Any, site: Site, name: str, **size: Any) -> tuple[Any, Any]:
    """A new browser makes an account from the lobby's "Sign in to play rated", then "Make one"."""
    context = browser.new_context(**size)
    page = context.new_page()
    page.set_default_timeout(WAIT)
    page.goto(site.url + "/lobby")
    page.locator("#seek-name-hint").get_by_role("link", name="Sign in").click()
    page.get_by_role("link", name="Make one").click()
    page.fill("#signup-name", name)
    page.fill("#signup-password", PASSWORDS[name])
    page.get_by_role("button", name="Make the account").click()
    page.wait_for_url("**/account")
    assert page.locator(".account-link").inner_text() == name
    return context, page


def _sign_in(browser: Any, site: Site, name: str, **size: Any) -> tuple[Any, Any]:
    context = browser.new_context(**size)
    page = context.new_page()
    page.set_default_timeout(WAIT)
    page.goto(site.url + "/signin")
    page.fill("#signin-name", name.lower())  # any case finds the account
    page.fill("#signin-password", PASSWORDS[name])
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/account")
    return context, page


def _play_now_rated(page: Any, site: Site) -> None:
    page.goto(site.url + "/lobby")
    page.select_option("#seek-preset", PRESET)
    page.select_option("#seek-seats", "2")
    page.select_option("#seek-wait", "300")  # long: people pair them, never bots
    page.check("#seek-rated")
    page.click("#seek-go")
    page.wait_for_selector("#seeking:not([hidden])")


def _play_to_the_end(pages: list[Any], watcher: Any, seen: list[str], limit: float = GAME_LIMIT) -> None:
    """The players move through their pages until all show the final ranking; the moves the
    watcher's page shows in its round log are collected in `seen`."""
    rng = random.Random(25)
    end = time.monotonic() + limit
    while not all(p.locator("#result-card").is_visible() for p in pages):
        assert time.monotonic() < end, "the rated game did not end"
        acted = False
        for page in pages:
            if page.locator("#reveal-card").is_visible() and not page.locator("#result-card").is_visible():
                page.click("#reveal-continue")
            acted = _act(page, rng) is not None or acted
        for line in watcher.locator("#log li").all_inner_texts():
            if line not in seen:
                seen.append(line)
        if not acted:
            time.sleep(0.05)


def _rating(page: Any, site: Site, name: str) -> int:
    """`name`'s rating in the preset's family, read from the profile page (provisional: "1562?")."""
    page.goto(f"{site.url}/players/{name}")
    row = page.locator(f"#ratings tr[data-family='{PRESET}']")
    row.wait_for()
    text = row.locator(".rating strong").inner_text()
    assert text.endswith("?"), text  # one rated game: still provisional
    assert row.locator("td").nth(1).inner_text() == "1"  # one rated game
    page.wait_for_selector(f"#rating-charts figure[data-family='{PRESET}'] svg polyline")
    return int(text[:-1])


def _goal(browser: Any, sites: Sites) -> None:
    errors: list[str] = []
    ann_ctx, ann = _sign_up(browser, sites.ann, "Ann", **LAPTOP)
    bo_ctx, bo = _sign_up(browser, sites.bo, "Bo", **PHONE)
    again_ctx, again = _sign_in(browser, sites.ann_again, "Ann", **PHONE)
    guest_ctx = browser.new_context(**LAPTOP)
    try:
        ann, bo, again = _page(ann_ctx, "Ann", errors), _page(bo_ctx, "Bo", errors), _page(again_ctx, "Ann 2", [])
        # The second device is the same account: its name, in the page and the navigation.
        assert again.locator("#account-title").inner_text() == "Ann"
        assert again.locator(".account-link").inner_text() == "Ann"

        # Both Play now, rated: paired with each other, at one rated table, each in their seat.
        _play_now_rated(ann, sites.ann)
        assert "Looking for players" in ann.locator("#seek-status").inner_text()
        _play_now_rated(bo, sites.bo)
        for page in (ann, bo):
            page.wait_for_url("**/t/*")
            page.wait_for_selector("#cup .die")  # the game started by itself
        code = ann.url.split("/t/")[1]
        assert bo.url.split("/t/")[1] == code
        assert ann.locator(".seat.me .seat-name").inner_text() == "Ann"
        assert bo.locator(".seat.me .seat-name").inner_text() == "Bo"
        for page in (ann, bo):
            assert page.locator("#rated-badge").inner_text() == "Rated"
        # Ann's other device lists the seat Play now gave her.
        again.goto(sites.ann_again.url + "/account")
        again.locator("#my-tables li", has_text=f"table {code}").wait_for()

        # A guest finds the game in the lobby and watches it.
        guest = _page(guest_ctx, "guest", errors)
        guest.goto(sites.guest.url + "/lobby")
        listed = guest.locator(f'#watching li[data-code="{code}"]')
        listed.wait_for()
        assert "Ann" in listed.inner_text() and "Bo" in listed.inner_text(), listed.inner_text()
        listed.locator("a").click()
        guest.wait_for_url(f"**/t/{code}?watch")
        guest.wait_for_selector("#layout:not([hidden])")
        assert guest.locator(".seat.me").count() == 0

        seen: list[str] = []
        _play_to_the_end([ann, bo], guest, seen)
        guest.wait_for_selector("#result-card:not([hidden])")
        assert seen, "the guest saw no move of the game"
        assert any("Ann" in line or "Bo" in line for line in seen), seen

        # The summary: the rating changes, one up and one down, on every page (the guest's too).
        changes: dict[str, tuple[int, int]] = {}
        for page in (ann, bo, guest):
            page.locator("#summary-ratings li").nth(1).wait_for()
            lines = page.locator("#summary-ratings li").all_inner_texts()
            assert [line.split(":")[0] for line in lines] == ["Ann", "Bo"], lines
            for line in lines:  # "Ann: 1500? → 1562 (+62)"
                name, rest = line.split(": ")
                before, after = rest.split(" (")[0].split(" → ")
                assert before == "1500?", line
                changes[name] = (int(after), int(rest.split("(")[1].strip(")+").replace("−", "-")))
        assert sorted(delta > 0 for _, delta in changes.values()) == [False, True], changes
        replay = ann.locator("#summary a", has_text="Replay this game").get_attribute("href")
        assert replay is not None and replay.startswith("/replay/")

        # Both profiles show the moved ratings, as each player opens their own and the other's.
        for context, site in ((ann_ctx, sites.ann), (bo_ctx, sites.bo)):
            tab = context.new_page()  # a second tab: the table stays open in the first
            tab.set_default_timeout(WAIT)
            shown = {name: _rating(tab, site, name) for name in ("Ann", "Bo")}
            assert shown == {name: after for name, (after, _) in changes.items()}, (shown, changes)
            tab.close()

        # Rematch: both ask, and a new game starts at the same table.
        ann.wait_for_selector("#rematch")
        ann.click("#rematch")
        bo.wait_for_function("() => document.querySelector('#rematch-who')?.textContent.startsWith('Asked: Ann.')")
        bo.click("#rematch")
        for page in (ann, bo):
            page.wait_for_selector("#result-card", state="hidden")
            page.wait_for_selector("#cup .die")
        guest.wait_for_selector("#result-card", state="hidden")
        assert not errors, "\n".join(errors)

        # Bo deletes his account: the finished game's replay names his seat "deleted player".
        bo.goto(sites.bo.url + "/account")
        bo.fill("#delete-password", PASSWORDS["Bo"])
        bo.get_by_role("button", name="Delete the account").click()
        bo.wait_for_url(sites.bo.url + "/?deleted=1")
        assert bo.locator(".account-link").inner_text() == "Sign in"
        guest.goto(sites.guest.url + replay)
        guest.wait_for_selector("#replay:not([hidden])")
        guest.click("#last")
        guest.wait_for_selector("#final:not([hidden])")
        names = guest.locator("#ranking .names").all_inner_texts()
        assert sorted(names) == ["Ann", "deleted player"], names
        assert "Bo" not in guest.locator("#replay-meta").inner_text()
        # His name is free again (docs/accounts.md): no profile answers to it; his seat's
        # profile, "deleted player", says the account was deleted; Ann's lists the game so.
        gone = guest.goto(f"{sites.guest.url}/players/Bo")
        assert gone is not None and gone.status == 404, gone and gone.status
        assert "no account is named 'Bo'" in guest.locator("main").inner_text()
        profile = guest.goto(f"{sites.guest.url}/players/deleted%20player")
        assert profile is not None and profile.status == 410, profile and profile.status
        assert "deleted their account" in guest.locator("#player-deleted").inner_text()
        assert guest.locator("#ratings").count() == 0
        guest.goto(f"{sites.guest.url}/players/Ann")
        game = replay.rsplit("/", 1)[1]
        seats = guest.locator(f'#player-games li[data-game="{game}"] .game-meta > div.small').first.inner_text()
        assert seats == "Ann, deleted player", seats
        assert _rating(again, sites.ann_again, "Ann") == changes["Ann"][0]  # Ann's stays as it was
        # The rematch Bo left goes on: a bot plays his turns after the grace period (30 s), and
        # the game ends rated, his seat named "deleted player" in its rating changes.
        ann.bring_to_front()
        _play_to_the_end([ann], guest, [], limit=GAME_LIMIT + 60)
        ann.locator("#summary-ratings li").nth(1).wait_for()
        lines = ann.locator("#summary-ratings li").all_inner_texts()
        assert [line.split(":")[0] for line in lines] == ["Ann", "deleted player"], lines
        # The only errors the pages met after the game: the two answers above, 404 and 410.
        late = [e for e in errors if not ("status of 404" in e or "status of 410" in e)]
        assert not late and len(errors) <= 2, "\n".join(errors)
    finally:
        for context in (ann_ctx, bo_ctx, again_ctx, guest_ctx):
            context.close()


def test_the_goal_on_one_process_with_sqlite(server: Server, browser: Any) -> None:
    site = Site(server.url)
    _goal(browser, Sites(ann=site, bo=site, guest=site, ann_again=site))
    assert not [line for line in server.output if "Traceback" in line or "ERROR" in line], server.output[-20:]


@pytest.fixture
def two_processes(urls: tuple[str, str]) -> Iterator[list[Node]]:
    database_url, redis_url = urls
    with cluster(database_url, redis_url) as nodes:
        yield nodes
        assert not any(node.log_problems() for node in nodes), [node.lines[-20:] for node in nodes]


def test_the_goal_on_two_processes_with_postgresql_and_redis(two_processes: list[Node], browser: Any) -> None:
    a, b = (Site(f"http://127.0.0.1:{node.port}") for node in two_processes)
    _goal(browser, Sites(ann=a, bo=b, guest=b, ann_again=b))
