"""The README's screenshot: a Perudo table in the browser, with cups and bids on show.

    python benchmarks/screenshot.py [--out docs/images/table.png] [--moves 1] [--colours 128]
    python benchmarks/screenshot.py --odds          # docs/images/odds.png: the odds panel open
    python benchmarks/screenshot.py --analysis      # docs/images/analysis.png: a game's analysis
    python benchmarks/screenshot.py --lesson [core] [--step N]   # docs/images/lesson.png

Starts `liarsdice serve` on a free port with a temporary data directory (nothing of yours is
read or written), creates a table for four on the home page as a person would, fills the empty
seats with bots, starts, and plays Ann's moves (the lowest bid the picker offers) until the bids
of a round are on the table, then saves the page as a laptop shows it (1366x768) and shrinks the
PNG to a palette of colours, so that it stays small in the repository. With `--odds` it opens
the odds panel (the Odds toggle, as a person would) and saves the game's card whole, the panel
in it. With `--analysis` it plays a whole game of three (Ann's moves: the lowest bid, or a
challenge now and then), opens its replay from the history, waits for the best bot's analysis,
goes to the biggest turning point in the summary and saves the whole page. With `--lesson` it
takes a lesson at /learn/LESSON as a newcomer would, the right move at each step up to step N
(by default the first where another player answers the move and the cups are lifted), and
saves that step's card with its verdict and reveal. Needs Playwright and
Debian's chromium at /usr/bin/chromium, as the browser tests do. The dice are the server's
luck, so a new screenshot differs from the last in its dice and bids.
"""

from __future__ import annotations

import argparse
import io
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]
READY = re.compile(r"liarsdice serving on (http://\S+)")
LAPTOP = {"width": 1366, "height": 768}

# What the action panel offers right now (null: not Ann's turn), as tests/test_browser.py reads it.
PANEL = """() => {
  const a = document.querySelector('#actions');
  if (!a || a.hidden || a.getAttribute('aria-busy') === 'true') return null;
  const moves = [...a.querySelectorAll('button[data-move]:not(:disabled)')].map(b => b.dataset.move);
  return moves.length ? moves : null;
}"""
SETTLED = """() => {
  const a = document.querySelector('#actions');
  return a.hidden || a.getAttribute('aria-busy') !== 'true';
}"""


def start_server(data: Path) -> tuple[subprocess.Popen[str], str]:
    """`liarsdice serve` on a free port, its data in `data`; returns the process and its address."""
    exe = Path(sys.executable).with_name("liarsdice")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "liarsdice.cli"]
    cmd += ["serve", "--host", "127.0.0.1", "--port", "0", "--bot-delay", "0.4", "--reveal-pause", "0"]
    env = {**os.environ, "LIARSDICE_DATA": str(data)}
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    found: list[str] = []
    ready = threading.Event()

    def drain() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            m = READY.search(line)
            if m and not found:
                found.append(m.group(1))
                ready.set()
        ready.set()

    threading.Thread(target=drain, daemon=True).start()
    ready.wait(60)
    if not found:
        proc.kill()
        raise SystemExit("liarsdice serve did not say where it serves")
    return proc, found[0]


def start_a_perudo_table(page: Any, url: str, players: int) -> None:
    """Create a Perudo table on the home page as Ann, fill the other seats with bots and start."""
    page.goto(url + "/")
    page.wait_for_selector('#preset option[value="perudo"]', state="attached")
    page.select_option("#preset", "perudo")
    page.fill("#players", str(players))
    page.fill("#turn-seconds", "0")
    page.fill("#create-name", "Ann")
    page.click("#create-btn")
    page.wait_for_url(re.compile(r"/t/[A-Z0-9]+$"))
    page.wait_for_selector("#host-controls:not([hidden])")
    page.click("#fill-bots")
    page.wait_for_selector("#start:not([disabled])")
    page.click("#start")
    page.wait_for_selector("#cup .die")


def play_to_a_busy_table(page: Any, url: str, moves: int) -> None:
    """Create a Perudo table for four on the home page, seat bots, start, and make Ann's moves."""
    start_a_perudo_table(page, url, 4)
    made = 0
    deadline = time.monotonic() + 120
    while made < moves:
        if time.monotonic() > deadline:
            raise SystemExit(f"Ann made {made} of {moves} moves in 120 s")
        offered = page.evaluate(PANEL)
        if offered is None or "bid" not in offered:
            if page.locator("#reveal-card").is_visible():  # a round ended: on to the next one
                page.click("#reveal-continue")
            time.sleep(0.1)
            continue
        page.locator('#actions button[data-move="bid"]').first.click()
        page.wait_for_function(SETTLED, timeout=10_000)
        made += 1
    # Ann's turn again, with the round's bids on the table.
    page.wait_for_function(f"() => ({PANEL})() !== null", timeout=30_000)


def play_a_whole_game(page: Any, url: str) -> None:
    """A Perudo game of three (three dice each) against bots, played to its end as Ann."""
    start_a_perudo_table(page, url, 3)
    turns = 0
    deadline = time.monotonic() + 600
    while not page.locator("#result-card").is_visible():
        if time.monotonic() > deadline:
            raise SystemExit("the game did not end in 600 s")
        offered = page.evaluate(PANEL)
        if offered is None:
            if page.locator("#reveal-card").is_visible():
                page.click("#reveal-continue")
            time.sleep(0.1)
            continue
        turns += 1
        if "bid" in offered and turns % 3:
            move = "bid"
        else:
            move = "challenge" if "challenge" in offered else offered[0]
        page.locator(f'#actions button[data-move="{move}"]').first.click()
        page.wait_for_function(SETTLED, timeout=10_000)


def analysed_replay(page: Any, url: str) -> bytes:
    """The replay of the game just played, its analysis in, at its biggest turning point."""
    game = page.request.get(url + "/api/games").json()[0]["id"]
    page.goto(f"{url}/replay/{game}")
    page.wait_for_selector("#analysis-summary tbody tr", timeout=300_000)
    points = page.locator("#analysis-summary a.turning-point")
    if points.count():
        points.first.click()
    page.wait_for_selector("#move-analysis:not([hidden])")
    return page.screenshot(full_page=True)  # type: ignore[no-any-return]


def take_a_lesson(page: Any, url: str, name: str, step: int | None) -> None:
    """Open the lesson, make the right move of each step up to `step` (from 1), and leave its
    verdict on show."""
    from liarsdice.learn import find_lesson

    lesson = find_lesson(name)
    if step is None:
        step = next((i + 1 for i, s in enumerate(lesson.steps) if s.then), len(lesson.steps))
    if not 1 <= step <= len(lesson.steps):
        raise SystemExit(f"--step is 1 to {len(lesson.steps)} for the lesson {lesson.name}, not {step}")
    page.goto(f"{url}/learn/{lesson.name}")
    page.wait_for_selector("#step-moves button")
    for index in range(step):
        s = lesson.steps[index]
        label = next(c.label for c in s.choices if c.move in s.accept)
        page.locator("#step-moves button", has_text=label).first.click()
        page.wait_for_selector("#step-feedback.right:not([hidden])")
        if index + 1 < step:
            page.click("#step-next")


def small_png(png: bytes, colours: int) -> bytes:
    """The same picture with a palette of `colours`: a page's flat colours lose nothing to see."""
    from PIL import Image

    image = Image.open(io.BytesIO(png)).convert("RGB")
    out = io.BytesIO()
    image.quantize(colors=colours, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
        out, format="PNG", optimize=True
    )
    return out.getvalue()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=Path, help="docs/images/table.png, odds.png with --odds, lesson.png with --lesson"
    )
    parser.add_argument("--moves", type=int, default=1, help="Ann's bids before the screenshot (1)")
    parser.add_argument("--colours", type=int, default=128, help="the PNG's palette (128)")
    parser.add_argument("--odds", action="store_true", help="open the odds panel and save the game's card")
    parser.add_argument("--analysis", action="store_true", help="play a game and save its analysed replay")
    parser.add_argument("--lesson", nargs="?", const="core", help="take this lesson (core) and save a step's card")
    parser.add_argument("--step", type=int, help="with --lesson: the step shown (the first the others answer)")
    args = parser.parse_args()
    if args.step is not None and args.lesson is None:
        parser.error("--step goes with --lesson")
    if args.lesson is not None:
        from liarsdice.learn import UnknownLesson, find_lesson

        try:
            find_lesson(args.lesson)
        except UnknownLesson as e:
            parser.error(str(e))
    image = (
        "lesson.png"
        if args.lesson is not None
        else "analysis.png"
        if args.analysis
        else "odds.png"
        if args.odds
        else "table.png"
    )
    out: Path = args.out or ROOT / "docs" / "images" / image

    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="liarsdice-screenshot-") as data:
        proc, url = start_server(Path(data))
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
                page = browser.new_context(viewport=LAPTOP).new_page()
                page.set_default_timeout(30_000)
                if args.analysis:
                    play_a_whole_game(page, url)
                    png = analysed_replay(page, url)
                elif args.lesson is not None:
                    take_a_lesson(page, url, args.lesson, args.step)
                    png = page.locator("#step-card").screenshot()
                elif args.odds:
                    play_to_a_busy_table(page, url, args.moves)
                    page.evaluate("() => window.scrollTo(0, 0)")
                    page.click("#odds-toggle")
                    page.wait_for_selector("#odds-panel:not([hidden]) #odds-how")
                    png = page.locator("#play-card").screenshot()
                else:
                    play_to_a_busy_table(page, url, args.moves)
                    page.locator("#play-card").scroll_into_view_if_needed()
                    png = page.screenshot()
                browser.close()
        finally:
            proc.terminate()
            proc.wait(10)
    data_out = small_png(png, args.colours)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_bytes(data_out)
    print(f"{out}: {len(data_out):,} bytes (the browser's PNG: {len(png):,})")


if __name__ == "__main__":
    main()
