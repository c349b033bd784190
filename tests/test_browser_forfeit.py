"""A game a bot account forfeits, as people see it in the browser: the player and a spectator
at the table are told that the game ended because the bot forfeited, why in a player's words,
and the final ranking (the bot last, everyone else first), as for any finished game, also after
reloading the page; the history lists the forfeit, and the replay ends on it.

The bot account is this test, on the bot socket and its seat's socket (as `liarsdice bot
connect` would be); the server is the `liarsdice serve` of tests/test_browser.py, the browser
Debian's chromium. Screenshots go to $LIARSDICE_ARTIFACTS (default: artifacts/).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from test_browser import (
    NEEDS_CHROMIUM,
    RANKING,
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

WHY = "Robo forfeited the game: its program did not answer in time (no answer within 5 s)."


def _until(ws: Any, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    for _ in range(2000):
        message: dict[str, Any] = json.loads(ws.recv(timeout=15))
        assert message["type"] != "error", message
        if wanted(message):
            return message
    raise AssertionError("no such message")


def _result(page: Any) -> dict[str, Any]:
    """The final ranking card as the page shows it."""
    page.wait_for_selector("#result-card:not([hidden])")
    return {
        "headline": page.locator("#result-headline").inner_text(),
        "why": page.locator("#result-why").inner_text() if page.locator("#result-why").count() else "",
        "ranking": page.locator("#ranking li").evaluate_all(RANKING),
        "turn": page.locator("#turn-line").inner_text(),
        "moves": page.locator("#actions").is_visible(),
        "countdowns": page.locator("[data-countdown]").count(),
    }


def _check_over(shown: dict[str, Any], headline: str) -> None:
    assert shown["why"] == WHY, shown
    assert shown["headline"].startswith(headline), shown
    (first, names), last = shown["ranking"]
    assert first == "1" and names.startswith("Ann, ") and names.endswith(" (shared)") and "Robo" not in names, shown
    assert last == ["3", "Robo"], shown
    assert shown["turn"].startswith("Game over"), shown  # not "Robo is to act"
    assert not shown["moves"] and shown["countdowns"] == 0, shown


def test_a_bot_accounts_forfeit_is_shown_at_the_table_in_the_history_and_the_replay(
    server: Server, browser: Any
) -> None:
    from websockets.sync.client import connect

    errors: list[str] = []
    ws_url = server.url.replace("http://", "ws://", 1)
    api = browser.new_context().request
    token = api.post(f"{server.url}/api/bot-accounts", data={"name": "Robo"}).json()["token"]
    with connect(f"{ws_url}/ws/bot", additional_headers={"Authorization": f"Bearer {token}"}) as bot:
        assert _until(bot, lambda m: True)["type"] == "welcome"
        options = {"num_players": 3, "first_starter": 0, "turn_seconds": 60}
        page, code = _host(browser, server, "perudo", options)
        _watch_errors(page, "host", errors)
        page.focus("#invite-bot")  # the list of the bots online is asked for again
        page.wait_for_function(
            "() => [...document.querySelectorAll('#invite-bot option')].some(o => o.value === 'Robo')"
        )
        page.select_option("#invite-bot", "Robo")
        page.click("#invite-send")
        invite = _until(bot, lambda m: m["type"] == "invite")
        bot.send(json.dumps({"type": "accept", "id": invite["id"]}))
        seated = _until(bot, lambda m: m["type"] == "seated")
        assert seated["seat"] == 1
        with connect(f"{ws_url}/ws/{code}") as seat:
            seat.send(json.dumps({"type": "hello", "token": seated["token"]}))
            _until(seat, lambda m: m["type"] == "chat_history")
            _start_with_bots(page)
            watcher = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            watcher.set_default_timeout(15_000)
            _watch_errors(watcher, "spectator", errors)
            watcher.goto(f"{server.url}/t/{code}?watch")
            watcher.wait_for_selector("#cup, #round-info .badge")
            _my_turn(page)
            assert _act(page, random.Random(3)) == "bid"
            # Robo's turn: its program "did not answer", and the bot forfeits the game
            _until(seat, lambda m: m["type"] == "state" and m["state"] and m["state"]["to_act"] == 1)
            watcher.wait_for_function("() => /Robo is to act/.test(document.querySelector('#turn-line').textContent)")
            seat.send(json.dumps({"type": "forfeit", "reason": "timeout: no answer within 5 s", "ref": 1}))

            _check_over(_result(page), "You won, sharing first place with ")
            page.screenshot(path=str(_artifacts() / "forfeit-player.png"))
            watched = _result(watcher)
            _check_over(watched, "Ann and ")
            assert "share the win" in watched["headline"], watched
            watcher.screenshot(path=str(_artifacts() / "forfeit-spectator.png"))
            assert page.locator("#status-badge").inner_text() == "Game over"
            assert page.locator("#rematch").is_visible()  # the host may start another game
            page.reload()  # the page learns it all again from the table and the state
            _check_over(_result(page), "You won, sharing first place with ")

    game_id = api.get(f"{server.url}/api/tables/{code}").json()["game_id"]
    history = watcher.context.new_page()
    _watch_errors(history, "history", errors)
    history.goto(f"{server.url}/history")
    item = history.locator(f'#games li[data-game="{game_id}"]')
    item.wait_for()
    assert WHY in item.inner_text(), item.inner_text()
    assert "Robo ★" not in item.inner_text()

    replay = watcher.context.new_page()
    _watch_errors(replay, "replay", errors)
    replay.goto(f"{server.url}/replay/{game_id}")
    replay.wait_for_selector("#replay:not([hidden])")
    replay.click("#last")
    replay.wait_for_selector("#final:not([hidden])")
    assert replay.locator("#where").inner_text() == "The end"
    assert replay.locator("#final-why").inner_text() == WHY
    (first, names), last = replay.locator("#ranking li").evaluate_all(RANKING)
    assert first == "1" and names.startswith("Ann, ") and "Robo" not in names and last == ["3", "Robo"]
    replay.screenshot(path=str(_artifacts() / "forfeit-replay.png"))
    page.context.close()
    watcher.context.close()
    assert not errors, "\n".join(errors)
