"""End to end in a real browser: two people play a whole game of Perudo against a bot.

A real `liarsdice serve` runs as a subprocess (a temporary SQLite database, fast bots), and
Debian's chromium is driven by Playwright. The host creates the table on the home page, the guest
joins with the code on a phone-sized screen, the host seats a bot and starts, and both play
through the UI until the final ranking: only moves the action panel offers are ever made. In the
middle of the game the guest reloads the page and must get the same seat and the same cup back.
Screenshots go to $LIARSDICE_ARTIFACTS (default: artifacts/ at the repository root).
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ROOT = Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
READY = re.compile(r"liarsdice serving on (http://\S+)")
GAME_TIME_LIMIT = 100.0  # seconds for the whole game; it takes far less

NEEDS_CHROMIUM = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="the browser test needs Debian's chromium at /usr/bin/chromium (apt-get install chromium)",
)
pytestmark = NEEDS_CHROMIUM
# The two screens the pages are checked on: a common laptop's, and a phone's.
LAPTOP = {"viewport": {"width": 1366, "height": 768}}
PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "has_touch": True}


def _artifacts() -> Path:
    path = Path(os.environ.get("LIARSDICE_ARTIFACTS") or ROOT / "artifacts")
    path.mkdir(parents=True, exist_ok=True)
    return path


@dataclass
class Server:
    url: str
    proc: subprocess.Popen[str]
    output: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    db = tmp_path_factory.mktemp("browser") / "tables.sqlite"
    exe = Path(sys.executable).with_name("liarsdice")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "liarsdice.cli"]
    cmd += ["serve", "--host", "127.0.0.1", "--port", "0", "--database-url", f"sqlite:///{db}", "--bot-delay", "0.05"]
    cmd += ["--bot", f"Mini={sys.executable} examples/bots/minimal.py"]  # an operator's bot program
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1)
    output: list[str] = []
    ready = threading.Event()
    url: list[str] = []

    def drain() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            output.append(line)
            m = READY.search(line)
            if m and not url:
                url.append(m.group(1))
                ready.set()
        ready.set()

    threading.Thread(target=drain, daemon=True).start()
    ready.wait(30)
    if not url:
        proc.kill()
        proc.wait(10)
        pytest.fail("liarsdice serve did not say it was serving:\n" + "".join(output[-40:]))
    yield Server(url[0], proc, output)
    proc.terminate()
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_api = pytest.importorskip("playwright.sync_api", reason="the browser test needs the playwright package")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


def _watch_errors(page: Any, who: str, errors: list[str]) -> None:
    page.on("pageerror", lambda e: errors.append(f"{who}: page error: {e}"))
    page.on("console", lambda m: errors.append(f"{who}: console {m.type}: {m.text}") if m.type == "error" else None)


# What the action panel offers right now, read from the page (None: not this page's turn).
PANEL = """() => {
  const a = document.querySelector('#actions');
  if (!a || a.hidden || a.getAttribute('aria-busy') === 'true') return null;
  const moves = [...a.querySelectorAll('button[data-move]:not(:disabled)')].map(b => b.dataset.move);
  if (!moves.length) return null;
  const cup = [...document.querySelectorAll('#cup .die')].map(d => Number(d.dataset.face));
  const me = document.querySelector('.seat.me');
  const round = document.querySelector('#round-info .badge');
  return {moves, cup, seat: me ? Number(me.dataset.seat) : null,
          name: me ? me.querySelector('.seat-name').textContent : null,
          round: round ? Number(round.textContent.replace(/\\D+/g, '')) : 0};
}"""

RANKING = "items => items.map(li => [li.dataset.place, li.querySelector('.names').textContent])"

SETTLED = """() => {
  const a = document.querySelector('#actions');
  return a.hidden || a.getAttribute('aria-busy') !== 'true';
}"""

# Whether an element is on the screen from its top to its bottom, with no scrolling.
IN_VIEW = """node => {
  const r = node.getBoundingClientRect();
  return r.top >= 0 && r.bottom <= window.innerHeight && r.height > 0;
}"""


def _act(page: Any, rng: random.Random) -> str | None:
    """Make one move if it is this page's turn: challenge sometimes, else the picker's lowest bid."""
    panel = page.evaluate(PANEL)
    if panel is None:
        return None
    moves = panel["moves"]
    if "believe" in moves:
        move = rng.choice(["believe", "doubt"])
    elif "challenge" in moves and ("bid" not in moves or rng.random() < 0.35):
        move = "challenge"
    elif "bid" in moves:
        move = "bid"
    else:
        move = moves[0]
    page.locator(f'#actions button[data-move="{move}"]').first.click()
    page.wait_for_function(SETTLED, timeout=10_000)
    return move


def _reload_on_turn(page: Any, screenshot: Path) -> bool:
    """On this page's turn from round 2: reload, and check the same seat and cup come back."""
    before = page.evaluate(PANEL)
    if before is None or before["round"] < 2:
        return False
    page.locator("#play-card").scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot))
    page.reload()
    page.wait_for_selector("#cup .die")
    page.wait_for_function(f"() => ({PANEL})() !== null")
    after = page.evaluate(PANEL)
    assert (after["seat"], after["name"], after["round"]) == (before["seat"], "Bo", before["round"]), (before, after)
    assert after["cup"] == before["cup"], f"the cup changed on reload: {before['cup']} -> {after['cup']}"
    return True


def test_two_players_play_perudo_to_the_end(server: Server, browser: Any) -> None:
    started = time.monotonic()
    out = _artifacts()
    errors: list[str] = []
    rng = random.Random(20240501)
    host_ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    guest_ctx = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2, has_touch=True)
    host = host_ctx.new_page()
    guest = guest_ctx.new_page()
    _watch_errors(host, "host", errors)
    _watch_errors(guest, "guest", errors)
    for page in (host, guest):
        page.set_default_timeout(15_000)

    # The host creates a Perudo table for three on the home page.
    host.goto(server.url + "/")
    host.wait_for_selector('#preset option[value="perudo"]', state="attached")
    host.select_option("#preset", "perudo")
    assert "calza" in host.locator("#preset-desc").inner_text().lower()
    host.fill("#players", "3")
    host.fill("#turn-seconds", "0")
    host.fill("#create-name", "Ann")
    host.screenshot(path=str(out / "home.png"), full_page=True)
    host.click("#create-btn")
    host.wait_for_url(re.compile(r"/t/[A-Z0-9]+$"))
    code = host.url.rsplit("/", 1)[1]
    host.wait_for_selector("#host-controls:not([hidden])")
    assert host.locator("#code").inner_text() == code

    # The guest joins with the code, on a phone.
    guest.goto(server.url + "/")
    lobby_row = guest.locator(f'#lobby li[data-code="{code}"]')
    lobby_row.wait_for()
    guest.fill("#join-code", code.lower())
    guest.fill("#join-name", "Bo")
    guest.click("#join-btn")
    guest.wait_for_url(re.compile(rf"/t/{code}$"))
    guest.wait_for_selector(".seat.me")
    assert guest.locator(".seat.me .seat-name").inner_text() == "Bo"
    assert guest.locator("#host-controls").is_hidden()

    # Chat is text, never markup.
    guest.fill("#chat-input", "<b>hello</b> Ann")
    guest.press("#chat-input", "Enter")
    host.locator("#chat-log li", has_text="<b>hello</b> Ann").wait_for()
    assert host.locator("#chat-log b").count() == 0

    # The host seats one bot and starts.
    host.wait_for_function(
        "() => document.querySelectorAll('#seats .seat').length === 3 && "
        "[...document.querySelectorAll('#seats .seat-name')].some(n => n.textContent === 'Bo')"
    )
    host.select_option("#bot-level", "skilled")
    host.click("#fill-bots")
    host.wait_for_selector("#start:not([disabled])")
    host.click("#start")
    for page in (host, guest):
        page.wait_for_selector("#game-view:not([hidden])")
        page.wait_for_selector("#cup .die")

    # A spectator follows the invitation link and watches: no cup, no action panel.
    watcher_ctx = browser.new_context(viewport={"width": 1024, "height": 768})
    watcher = watcher_ctx.new_page()
    watcher.set_default_timeout(15_000)
    _watch_errors(watcher, "spectator", errors)
    invitation = host.request.get(f"{server.url}/api/tables/{code}").json()["url"]
    watcher.goto(invitation)
    watcher.click("#gate-watch")
    watcher.wait_for_selector("#game-view:not([hidden])")
    watcher.wait_for_selector("#watching:not([hidden])")
    assert watcher.locator("#cup-wrap").is_hidden() and watcher.locator("#actions").is_hidden()
    assert watcher.locator("#seats .seat").count() == 3 and watcher.locator(".seat.me").count() == 0

    # Both play to the end; in the middle the guest reloads the page on its turn.
    pages = {"host": host, "guest": guest}
    moves = {"host": 0, "guest": 0}
    shots: set[str] = set()
    reloaded = False
    deadline = time.monotonic() + GAME_TIME_LIMIT
    reveals = 0
    while not all(p.locator("#result-card").is_visible() for p in pages.values()):
        assert time.monotonic() < deadline, f"the game did not end in {GAME_TIME_LIMIT} s ({moves} moves)"
        acted = False
        for who, page in pages.items():
            card = page.locator("#reveal-card")
            if card.is_visible() and not page.locator("#result-card").is_visible():
                # A round ended: the reveal is where the eye is (on the phone too, with no
                # scrolling), with every cup and the round's moves, until the person goes on.
                assert card.evaluate(IN_VIEW), f"{who}: the reveal is not on the screen"
                assert card.locator(".hands li").count() >= 2 and card.locator(".reveal-moves li").count() >= 1
                if who == "guest" and "reveal-phone" not in shots:
                    page.screenshot(path=str(out / "reveal-phone.png"))
                    shots.add("reveal-phone")
                if who == "host" and "reveal" not in shots:
                    card.screenshot(path=str(out / "reveal.png"))
                    shots.add("reveal")
                page.click("#reveal-continue")
                assert card.is_hidden()
                reveals += 1
            if who == "guest" and not reloaded and moves["guest"] >= 1:
                reloaded = _reload_on_turn(page, out / "table-phone.png")
            if who == "host" and "table" not in shots and page.evaluate(PANEL) is not None and moves["host"] >= 2:
                page.screenshot(path=str(out / "table.png"), full_page=True)
                shots.add("table")
            move = _act(page, rng)
            if move is not None:
                moves[who] += 1
                acted = True
                error = page.locator("#action-error")
                assert error.is_hidden(), f"{who}'s {move} was refused: {error.inner_text()}"
        if not acted:
            time.sleep(0.03)
    assert reloaded, "the game ended before the guest could reload mid-game"
    assert moves["host"] > 0 and moves["guest"] > 0
    assert reveals >= 2, "no round's reveal was ever shown"

    # Both see the same final ranking of the three seats; the host is offered a rematch.
    watcher.wait_for_selector("#result-card:not([hidden])")
    rankings = [p.locator("#ranking li").evaluate_all(RANKING) for p in (host, guest, watcher)]
    assert rankings[0] == rankings[1] == rankings[2], rankings
    assert watcher.locator("#rematch").count() == 0
    assert sorted(name for _, name in rankings[0]) == ["Ann", "Bo", "Bot 1"], rankings[0]
    assert [place for place, _ in rankings[0]] == ["1", "2", "3"], rankings[0]
    # The moment of the game: each person reads where they finished, above the ranking.
    places = {name: place for place, name in rankings[0]}
    for name, page in (("Ann", host), ("Bo", guest)):
        headline = page.locator("#result-headline").inner_text()
        expected = "You won!" if places[name] == "1" else f"You finished {places[name]}"
        assert headline.startswith(expected), (name, headline)
    winner = next(name for name, place in places.items() if place == "1")
    assert watcher.locator("#result-headline").inner_text() == f"{winner} won."
    assert guest.locator("#result-card").evaluate("n => n.getBoundingClientRect().top >= 0")
    assert host.locator("#rematch").is_visible()
    assert guest.locator("#rematch").count() == 0
    host.locator("#result-card").scroll_into_view_if_needed()
    host.screenshot(path=str(out / "ranking.png"), full_page=True)
    guest.locator("#result-card").scroll_into_view_if_needed()
    guest.screenshot(path=str(out / "ranking-phone.png"))
    guest.screenshot(path=str(out / "table-phone-full.png"), full_page=True)

    # The host's rematch deals a new game to the same seats.
    host.click("#rematch")
    for page in (host, guest):
        page.wait_for_selector("#result-card", state="hidden")
        page.wait_for_selector("#cup .die")
    assert guest.locator(".seat.me .seat-name").inner_text() == "Bo"

    # The game is in the history, and its replay steps through every round to the same ranking.
    host.goto(server.url + "/history")
    host.locator("#games li").first.wait_for()
    host.locator("#games li").first.get_by_role("link", name=re.compile("Replay")).click()
    host.wait_for_selector("#replay:not([hidden])")
    host.click("#next-step")
    host.click("#next-step")
    assert host.locator("#round-seats .die").count() > 0
    host.screenshot(path=str(out / "replay.png"), full_page=True)
    host.keyboard.press("End")
    host.wait_for_selector("#final:not([hidden])")
    assert host.locator("#ranking li").evaluate_all(RANKING) == rankings[0]
    record = host.request.get(server.url + host.locator("#download").get_attribute("href"))
    assert record.ok and "attachment" in record.headers.get("content-disposition", "")
    assert record.json()["result"] is not None

    for ctx in (host_ctx, guest_ctx, watcher_ctx):
        ctx.close()
    assert not errors, "\n".join(errors)
    assert server.proc.poll() is None, "the server stopped:\n" + "".join(server.output[-40:])
    print(f"browser game: {moves} moves by the people, {time.monotonic() - started:.1f} s")


def _serve(db: Path, port: int) -> subprocess.Popen[str]:
    exe = Path(sys.executable).with_name("liarsdice")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "liarsdice.cli"]
    cmd += [
        "serve",
        "--port",
        str(port),
        "--database-url",
        f"sqlite:///{db}",
        "--bot-delay",
        "0.3",
        "--log-level",
        "warning",
    ]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert READY.search(line), line
    return proc


def test_the_page_reconnects_by_itself_when_the_server_comes_back(browser: Any, tmp_path: Path) -> None:
    """SIGKILL the server under an open page; started again, the page finds its seat by itself."""
    import signal

    from conftest import free_port

    port = free_port()
    db = tmp_path / "tables.sqlite"
    errors: list[str] = []
    proc = _serve(db, port)
    ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    page = ctx.new_page()
    page.set_default_timeout(20_000)
    _watch_errors(page, "player", errors)
    try:
        page.goto(f"http://127.0.0.1:{port}/")
        page.wait_for_selector('#preset option[value="classic"]', state="attached")
        page.select_option("#preset", "classic")
        page.fill("#players", "3")
        page.fill("#create-name", "Ann")
        page.click("#create-btn")
        page.wait_for_selector("#host-controls:not([hidden])")
        page.click("#fill-bots")
        page.wait_for_selector("#start:not([disabled])")
        page.click("#start")
        page.wait_for_selector("#cup .die")
        page.wait_for_function(f"() => ({PANEL})() !== null")  # our turn: the action panel is live
        cup_before = page.evaluate("() => [...document.querySelectorAll('#cup .die')].map(d => d.dataset.face)")
        round_before = page.locator("#round-info .badge").first.inner_text()

        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        page.wait_for_selector("#banner:not([hidden])")  # the page noticed
        # While nothing can reach the table, nothing looks as if it could.
        assert page.evaluate(PANEL) is None, "the moves are still offered with no connection"
        enabled = page.locator("#actions button:not(:disabled), #chat-send:not(:disabled)")
        assert enabled.count() == 0, enabled.evaluate_all("els => els.map(e => e.outerHTML)")
        assert page.locator("#offline-note").is_visible()
        page.screenshot(path=str(_artifacts() / "disconnected.png"), full_page=True)
        proc = _serve(db, port)
        page.wait_for_selector("#banner", state="hidden", timeout=30_000)  # and came back by itself
        page.wait_for_selector("#cup .die")
        assert page.locator("#offline-note").is_hidden() and page.locator("#chat-send").is_enabled()
        if page.locator("#round-info .badge").first.inner_text() == round_before:
            cup_after = page.evaluate("() => [...document.querySelectorAll('#cup .die')].map(d => d.dataset.face)")
            assert cup_after == cup_before
        page.screenshot(path=str(_artifacts() / "reconnected.png"), full_page=True)
        # the game goes on: wait for our turn (the bots play theirs), then move
        page.wait_for_function(f"() => ({PANEL})() !== null", timeout=30_000)
        assert _act(page, random.Random(1)) is not None
        assert page.locator("#action-error").is_hidden()
    finally:
        ctx.close()
        proc.kill()
        proc.wait(10)
    # the connection drop shows as console errors of the websocket; anything else is a bug
    real = [e for e in errors if "WebSocket" not in e and "ERR_CONNECTION_REFUSED" not in e]
    assert not real, "\n".join(real)


# ----- focused checks, each on a table of its own (issue 7, items 9 to 12) -----


def _seat_page(browser: Any, server: Server, code: str, seat: dict[str, Any], name: str, **context: Any) -> Any:
    """A page holding `seat` (a token from the API) at table `code`, as if it had joined there."""
    ctx = browser.new_context(**{"viewport": {"width": 1280, "height": 900}, **context})
    page = ctx.new_page()
    page.set_default_timeout(15_000)
    page.goto(server.url + "/history")
    saved = {"token": seat["token"], "seat": seat["seat"], "name": name}
    page.evaluate("([key, value]) => localStorage.setItem(key, value)", [f"liarsdice:seat:{code}", json.dumps(saved)])
    page.goto(f"{server.url}/t/{code}")
    page.wait_for_selector("#layout:not([hidden])")
    return page


def _host(browser: Any, server: Server, preset: str, options: dict[str, Any], **context: Any) -> tuple[Any, str]:
    """A new table made through the API, and its host's page."""
    turn_seconds = options.pop("turn_seconds", 0)
    api = browser.new_context().request
    table = api.post(
        f"{server.url}/api/tables",
        data={"preset": preset, "name": "Ann", "options": options, "turn_seconds": turn_seconds},
    ).json()
    page = _seat_page(browser, server, table["code"], table, "Ann", **context)
    page.wait_for_selector("#host-controls:not([hidden])")
    return page, table["code"]


def _join(browser: Any, server: Server, code: str, name: str, **context: Any) -> Any:
    seat = browser.new_context().request.post(f"{server.url}/api/tables/{code}/join", data={"name": name}).json()
    return _seat_page(browser, server, code, seat, name, **context)


def _start_with_bots(page: Any) -> None:
    if page.locator("#fill-bots").is_enabled():
        page.click("#fill-bots")
    page.wait_for_selector("#start:not([disabled])")
    page.click("#start")
    page.wait_for_selector("#cup .die")


def _sent_moves(page: Any) -> list[Any]:
    """Every `act` this page sends from now on (its websocket frames), as they are sent."""
    sent: list[Any] = []

    def on_socket(ws: Any) -> None:
        def on_frame(payload: str | bytes) -> None:
            message = json.loads(payload)
            if message.get("type") == "act":
                sent.append(message["action"])

        ws.on("framesent", on_frame)

    page.on("websocket", on_socket)
    return sent


def _my_turn(page: Any, timeout: float = 15_000) -> dict[str, Any]:
    page.wait_for_function(f"() => ({PANEL})() !== null", timeout=timeout)
    return page.evaluate(PANEL)  # type: ignore[no-any-return]


def test_a_typed_quantity_out_of_range_is_refused_never_changed(server: Server, browser: Any) -> None:
    errors: list[str] = []
    page, _ = _host(browser, server, "perudo", {"num_players": 2, "first_starter": 0})
    _watch_errors(page, "host", errors)
    sent = _sent_moves(page)
    page.reload()  # the websocket opens again, watched
    page.wait_for_selector("#host-controls:not([hidden])")
    _start_with_bots(page)
    _my_turn(page)
    page.click('#actions .face-btn[data-face="6"]')
    qty = page.locator("#bid-qty")
    low, high = int(qty.get_attribute("min") or 0), int(qty.get_attribute("max") or 0)
    submit = page.locator("#actions .bid-submit")
    for typed in (str(high + 89), str(low - 1)):
        qty.fill(typed)
        qty.press("Enter")
        page.wait_for_timeout(400)
        assert sent == [], f"typing {typed} and Enter sent {sent}"
        error = page.locator("#bid-qty-error")
        assert error.is_visible(), f"typing {typed} says nothing"
        assert f"{low} to {high}" in error.inner_text() and typed in error.inner_text()
        assert submit.is_disabled() and submit.inner_text() == f"Bid: a quantity from {low} to {high}"
    page.screenshot(path=str(_artifacts() / "bid-refused.png"))
    # A quantity in range: the button says it while it is typed, and Enter sends exactly it.
    qty.fill(str(low + 2))
    assert submit.inner_text() == f"Bid {low + 2} × 6s" and submit.is_enabled()
    assert page.locator("#bid-qty-error").is_hidden()
    qty.press("Enter")
    page.wait_for_function(SETTLED)
    assert sent == [["bid", low + 2, 6]], sent
    page.context.close()
    assert not errors, "\n".join(errors)


def test_the_auto_badge_goes_when_the_player_moves_again(server: Server, browser: Any) -> None:
    page, code = _host(browser, server, "classic", {"num_players": 2, "first_starter": 0, "turn_seconds": 1})
    watcher = browser.new_context(viewport={"width": 1024, "height": 768}).new_page()
    _start_with_bots(page)
    watcher.goto(f"{server.url}/t/{code}?watch")
    auto = '#seats .seat[data-seat="0"] .badge.gold'
    # Ann lets her timer run out: a bot plays for her, and both pages say so.
    for p in (page, watcher):
        p.wait_for_selector(auto, timeout=15_000)
    note = page.locator("#turn-line", has_text="A bot is playing for you")
    note.wait_for()
    # Her next move takes the seat back: both pages stop saying a bot plays for her at once
    # (before her timer could run out again).
    panel = _my_turn(page)
    page.locator(f'#actions button[data-move="{panel["moves"][0]}"]').first.click()
    for p in (page, watcher):
        p.wait_for_selector(auto, state="detached", timeout=900)
    assert note.count() == 0
    page.context.close()
    watcher.context.close()


def test_the_reveal_opens_on_a_phone_and_the_next_round_waits_for_it(server: Server, browser: Any) -> None:
    """red-dead passes the opening counter-clockwise: with Ann opening round 1, a bot opens round 2."""
    errors: list[str] = []
    phone = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "has_touch": True}
    page, _ = _host(browser, server, "red-dead", {"num_players": 3, "first_starter": 0}, **phone)
    _watch_errors(page, "host", errors)
    _start_with_bots(page)
    rng = random.Random(3)
    page.evaluate("() => window.scrollTo(0, 0)")
    while page.locator("#reveal-card").is_hidden():
        if _act(page, rng) is None:
            time.sleep(0.03)
    card = page.locator("#reveal-card")
    assert card.evaluate(IN_VIEW), "the reveal is not on the phone's screen"
    page.screenshot(path=str(_artifacts() / "reveal-wait-phone.png"))
    assert card.locator(".hands li").count() == 3
    moves = card.locator(".reveal-moves li").all_inner_texts()
    assert moves[0].startswith("Ann bids") and len(moves) >= 2, moves
    assert card.locator("#reveal-count").inner_text().isdigit()
    assert "Next round in" in card.locator("#reveal-countdown").inner_text()
    # The bot that opens round 2 waits while the reveal is on the screen...
    page.wait_for_timeout(1500)
    assert page.locator("#standing").inner_text().startswith("No bid yet"), "the next round went on"
    # ...until Ann has seen it.
    page.click("#reveal-continue")
    assert card.is_hidden()
    page.wait_for_function(
        "() => document.querySelector('#standing').textContent.startsWith('Standing bid')", timeout=3000
    )
    # The reveal stays one click away.
    page.click("#open-reveal")
    assert card.is_visible() and card.locator(".hands li").count() == 3
    page.context.close()
    assert not errors, "\n".join(errors)


def test_pushed_dice_are_part_of_the_hand_not_added_to_it(server: Server, browser: Any) -> None:
    page, code = _host(browser, server, "soar", {"num_players": 2, "first_starter": 0})
    guest = _join(browser, server, code, "Bo")
    page.wait_for_function("() => !document.querySelector('#start').disabled")
    page.click("#start")
    _my_turn(page)
    page.locator("#cup button.die").first.click()  # push one die with the bid
    page.locator('#actions button[data-move="bid"]').click()
    for p in (page, guest):
        seat = p.locator('#seats .seat[data-seat="0"]')
        seat.locator(".die.tiny:not(.hidden-die)").wait_for()  # the pushed die, face up
        assert seat.locator(".hidden-die").count() == 4, "a pushed die is drawn twice: hidden and pushed"
        assert seat.locator(".dice-count").inner_text() == "5 dice (1 pushed)"
    guest.screenshot(path=str(_artifacts() / "pushed.png"))
    page.context.close()
    guest.context.close()


def test_a_seated_guest_can_leave_and_watch(server: Server, browser: Any) -> None:
    page, code = _host(browser, server, "classic", {"num_players": 3})
    guest = _join(browser, server, code, "Bo")
    guest.wait_for_selector("#guest-controls:not([hidden])")
    assert page.locator("#guest-controls").is_hidden()  # the host keeps the table
    guest.click("#leave-seat")
    guest.wait_for_selector("#seat-offer:not([hidden])")
    assert guest.locator(".seat.me").count() == 0 and guest.locator("#action-error").is_hidden()
    assert "watching as Bo" in guest.locator("#seat-offer-text").inner_text()
    page.wait_for_function("() => document.querySelectorAll('#seats .seat.empty').length === 2")
    guest.reload()  # the seat is given up for good: the page offers to join or watch
    guest.wait_for_selector("#gate:not([hidden])")
    page.context.close()
    guest.context.close()


def test_code_copied_goes_away_by_itself(server: Server, browser: Any) -> None:
    page, _ = _host(browser, server, "classic", {"num_players": 2})
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    page.click("#copy-code")
    page.wait_for_function("() => document.querySelector('#copy-done').textContent === 'Code copied.'")
    page.wait_for_function("() => document.querySelector('#copy-done').textContent === ''", timeout=5000)
    page.context.close()


def test_the_jokers_rules_say_a_joker_bid_counts_double(server: Server, browser: Any) -> None:
    page, _ = _host(browser, server, "jokers", {"num_players": 2})
    assert "joker bid counts double" in page.locator("#rules-text").inner_text()
    page.context.close()


def test_spectators_chat_under_their_own_names(server: Server, browser: Any) -> None:
    page, code = _host(browser, server, "classic", {"num_players": 2})
    named = browser.new_context().new_page()
    named.goto(f"{server.url}/t/{code}")
    named.fill("#gate-name", "Cy")
    named.click("#gate-watch")
    anonymous = browser.new_context().new_page()
    anonymous.goto(f"{server.url}/t/{code}?watch")
    for p, text in ((named, "hello from Cy"), (anonymous, "hello from nobody")):
        p.wait_for_selector("#chat-send:not([disabled])")  # connected
        p.fill("#chat-input", text)
        p.press("#chat-input", "Enter")
        page.locator("#chat-log li", has_text=text).wait_for()
    lines = page.locator("#chat-log li .from").all_inner_texts()
    assert "Cy (watching):" in lines and any(re.fullmatch(r"Spectator \d+:", x) for x in lines), lines
    for p in (page, named, anonymous):
        p.context.close()


def test_a_tavern_reveal_shows_a_claim(server: Server, browser: Any) -> None:
    page, _ = _host(browser, server, "tavern", {"num_players": 2, "first_starter": 0})
    _start_with_bots(page)
    # Accuse when possible, else claim: a round ends soon, with a claim to show.
    deadline = time.monotonic() + GAME_TIME_LIMIT
    while page.locator("#reveal-card").is_hidden() or page.locator("#reveal-body .big-bid").count() == 0:
        assert time.monotonic() < deadline, "no round ended on a claim"
        panel = page.evaluate(PANEL)
        if panel is None:
            time.sleep(0.03)
            continue
        move = "accuse" if "accuse" in panel["moves"] else "bid"
        page.locator(f'#actions button[data-move="{move}"]').first.click()
        page.wait_for_function(SETTLED)
    assert page.locator("#reveal-body .muted").first.inner_text() == "Claim"
    page.context.close()


def test_the_host_invites_a_bot_from_the_list_and_it_is_marked_as_a_bot(server: Server, browser: Any) -> None:
    page, _ = _host(browser, server, "perudo", {"num_players": 2})
    page.wait_for_function("() => [...document.querySelectorAll('#invite-bot option')].some(o => o.value === 'Mini')")
    assert "run by this server" in page.locator("#invite-bot option[value=Mini]").inner_text()
    page.click("#invite-send")
    seat = page.locator('#seats .seat[data-seat="1"]')
    seat.locator(".seat-name", has_text="Mini").wait_for()
    assert "bot" in seat.locator(".badge").all_inner_texts()[0]
    page.wait_for_selector("#start:not([disabled])")
    assert page.locator("#invite-send").is_disabled()  # no empty seat left
    page.context.close()


def test_a_bot_account_is_made_on_the_page_with_its_token_and_connect_line(server: Server, browser: Any) -> None:
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    _watch_errors(page, "bots", errors)
    page.goto(f"{server.url}/")
    page.click("nav a[href='/bots']")
    page.wait_for_url(f"{server.url}/bots")
    page.fill("#bot-name", "Pagebot")
    page.click("#make-btn")
    page.wait_for_selector("#made:not([hidden])")
    token = page.input_value("#made-token")
    assert len(token) >= 40
    assert page.input_value("#made-command") == f"liarsdice bot connect {server.url} --token {token} -- ./mybot"
    assert "not shown again" in page.locator("#made").inner_text()
    page.locator("#accounts-body tr[data-bot='Pagebot']").wait_for()
    assert token not in page.locator("#accounts").inner_text()
    page.fill("#bot-name", "Pagebot")  # taken: the reason is shown, the name kept to be corrected
    page.click("#make-btn")
    page.wait_for_selector("#make-error:not([hidden])")
    assert "exists already" in page.locator("#make-error").inner_text()
    assert page.input_value("#bot-name") == "Pagebot"
    page.fill("#revoke-token", token)
    page.click("#revoke-btn")
    page.wait_for_selector("#revoke-done:not([hidden])")
    assert "Pagebot is revoked" in page.locator("#revoke-done").inner_text()
    page.wait_for_selector("#accounts-body tr[data-bot='Pagebot']", state="detached")
    page.screenshot(path=str(_artifacts() / "bots-page.png"), full_page=True)
    assert [e for e in errors if "status of 409" not in e] == []  # the taken name's 409 is logged by chromium
    context.close()
