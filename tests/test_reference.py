"""The strength goals' harness (benchmarks/heads_up.py): its statistics and its argument errors
without the reference, then two games against the reference itself (commit 245049c, built in
.reference/ by benchmarks/reference.sh, some 20 s the first time) over the bot protocol."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "heads_up.py"
HOSTILE_ILLEGAL = f"{sys.executable} {Path(__file__).with_name('hostile_bot.py')} illegal 1"
ARGS = [sys.executable, str(SCRIPT)]


def load_heads_up() -> ModuleType:
    spec = importlib.util.spec_from_file_location("heads_up", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


heads_up = load_heads_up()


@pytest.mark.parametrize(
    ("wins", "n", "low", "high"),
    [
        # Newcombe (1998), "Two-sided confidence intervals for the single proportion", table I
        (81, 263, 0.2553, 0.3662),
        (15, 148, 0.0624, 0.1605),
        (0, 20, 0.0, 0.1611),
        (1, 29, 0.0061, 0.1718),
        # the goals' sizes, 0.55 of 1,000 games and 0.22 of 600, worked by hand from the closed form
        (550, 1000, 0.5190, 0.5806),
        (132, 600, 0.1887, 0.2549),
    ],
)
def test_wilson_interval_matches_published_values(wins: int, n: int, low: float, high: float) -> None:
    got = heads_up.wilson(wins, n)
    assert got == pytest.approx((low, high), abs=6e-5)


def test_wilson_interval_of_shared_wins_and_extremes() -> None:
    assert heads_up.wilson(10, 10) == pytest.approx((0.7225, 1.0), abs=6e-5)
    low, high = heads_up.wilson(2.5, 5)  # a first place shared by two seats counts half a win
    assert low < 0.5 < high and high - 0.5 == pytest.approx(0.5 - low)


def test_percentiles_are_nearest_ranks() -> None:
    values = [i / 1000 for i in range(1, 101)]  # 1 to 100 ms, shuffled order must not matter
    assert heads_up.percentile(values[::-1], 50) == pytest.approx(0.050, abs=1e-3)
    assert heads_up.percentile(values, 99) == 0.099
    assert heads_up.percentile(values, 100) == 0.100
    assert heads_up.percentile([], 50) != heads_up.percentile([], 50)  # NaN


def test_report_line_gives_rate_interval_goal_and_times() -> None:
    played = {"games": 200, "wins": 120.0, "times": [0.001] * 98 + [0.02, 0.03], "games_per_second": 1.5}
    line = heads_up.report_line("perudo", 2, played)
    assert re.search(
        r"perudo\s+200\s+120\.0\s+0\.600 \[0\.531, 0\.665\]\s+0\.550\s+0\.500\s+100\s+1\.00\s+20\.00", line
    )
    six = heads_up.report_line("perudo", 6, {**played, "times": []})
    assert "0.220" in six and "0.167" in six and "-" in six  # no decision times with several workers


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--games", "0"], "--games must be 1 or more, not 0"),
        (["--seats", "1"], "--seats must be 2 (heads-up) or more, not 1"),
        (["--candidate", "grandmaster"], "--candidate 'grandmaster' is not a bot level: the levels are random"),
        (["--presets", "perudo,nope"], "--presets nope: unknown preset 'nope': the presets are jokers"),
        (["--presets", "openspiel", "--seats", "6"], "--presets openspiel: openspiel is played by 2 players, not 6"),
        (["--presets", " , "], "--presets names at least one preset"),
        (["--workers", "0"], "--workers must be 1 or more, not 0"),
        (["--first-decisions", "-1"], "--first-decisions must be 0 (none) or more, not -1"),
        (
            ["--reference", "/no/such/python -m x"],
            "no reference program at /no/such/python: build it with `make reference`",
        ),
    ],
)
def test_argument_errors_say_what_is_wrong(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        heads_up.parse_args([*argv, "--reference", sys.executable] if "--reference" not in argv else argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_defaults_follow_the_goals() -> None:
    args = heads_up.parse_args(["--reference", sys.executable])
    assert (args.candidate, args.seats, args.games) == ("duel", 2, 1000)
    assert args.presets == ["perudo", "soar", "jokers", "red-dead", "tavern"]
    six = heads_up.parse_args(["--seats", "6", "--reference", sys.executable])
    assert (six.games, six.presets) == (600, ["perudo"])


def test_a_failing_opponent_spoils_the_run_and_says_so() -> None:
    # The opponent's first move is illegal: it forfeits the game, which must not pass as a win.
    done = subprocess.run(
        [*ARGS, "--games", "1", "--presets", "perudo", "--first-decisions", "0", "--reference", HOSTILE_ILLEGAL],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "forfeited 1 games: these figures do not count" in done.stdout


def test_two_games_against_the_reference_over_the_protocol() -> None:
    built = subprocess.run(
        [str(ROOT / "benchmarks" / "reference.sh")],
        env={**os.environ, "PYTHON": sys.executable},  # a Python new enough, whatever python3 is here
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    done = subprocess.run(
        [*ARGS, "--games", "2", "--presets", "tavern", "--first-decisions", "1"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    row = re.search(r"^tavern\s+(\d+)\s+([\d.]+)\s+([\d.]+) \[([\d.]+), ([\d.]+)\]", done.stdout, re.M)
    assert row is not None, done.stdout
    games, wins, rate, low, high = (float(x) for x in row.groups())
    assert games == 2 and 0 <= wins <= 2 and rate == wins / 2 and low <= rate <= high
    assert re.search(r"^tavern\s+[\d.]+ s, worst [\d.]+ s", done.stdout, re.M), done.stdout
