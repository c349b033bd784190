"""The arena: seats rotated evenly, runs reproducible, files complete, statistics right, CLI errors clear."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

import liarsdice.bots
from liarsdice.arena import (
    ArenaConfig,
    ArenaError,
    ArenaInputError,
    ArenaResult,
    GameRow,
    entry_labels,
    game_seed,
    parse_lineup,
    run_arena,
    seating,
)
from liarsdice.arena.stats import mean_interval, ratings, wilson, win_shares
from liarsdice.botproto.driver import ExecSettings
from liarsdice.bots import Limit, RandomBot
from liarsdice.cli.options import build_options
from liarsdice.record import load_record, replay
from liarsdice.rules import Action, PlayerView

LIARSDICE = Path(sys.executable).parent / "liarsdice"


def config(
    bots: str, preset: str, games: int, *, seed: int = 11, workers: int = 1, out: Path | None = None, **kw: bool
) -> ArenaConfig:
    lineup = parse_lineup(bots)
    return ArenaConfig(preset, build_options(preset, len(lineup)), lineup, games, seed, workers, out, **kw)


@pytest.fixture(scope="module")
def small_run(tmp_path_factory: pytest.TempPathFactory) -> ArenaResult:
    out = tmp_path_factory.mktemp("arena") / "run"
    return run_arena(config("random,probability", "classic", 40, workers=2, out=out))


def test_a_small_run_writes_every_file(small_run: ArenaResult) -> None:
    out = small_run.out
    assert out is not None
    data = json.loads((out / "results.json").read_text())
    assert data["games"] == 40 and data["seed"] == 11 and data["preset"] == "classic"
    assert data["versions"]["openskill"] and data["timing"]["games_per_second"] > 0
    assert data["bots"]["probability"]["class"] == "liarsdice.bots.probability.ProbabilityBot"
    assert len(data["bots"]["random"]["source_sha256"]) == 16
    assert [g["name"] for g in data["names"]] == ["random", "probability"]
    assert len(data["game_rows"]) == 40
    with (out / "results.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert [int(r["game"]) for r in rows] == list(range(1, 41))
    assert {r["seat0"] for r in rows} == {"random", "probability"}
    assert (out / "results.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    records = sorted((out / "records").iterdir())
    assert [p.name for p in records] == [f"game-{g:05d}.json" for g in range(1, 41)]


def test_wins_add_up_and_seats_rotate_evenly(small_run: ArenaResult) -> None:
    names = small_run.summary["names"]
    assert sum(g["wins"] for g in names) == pytest.approx(40)
    assert all(g["seat_games"] == 40 and g["games"] == 40 for g in names)
    # each entry sat in each seat for half the games
    sat = Counter((row.seating[s], s) for row in small_run.rows for s in range(2))
    assert sat == {(0, 0): 20, (0, 1): 20, (1, 0): 20, (1, 1): 20}
    assert [row.seating for row in small_run.rows[:3]] == [(0, 1), (1, 0), (0, 1)]
    assert len({row.seed for row in small_run.rows}) == 40


def test_records_replay_to_the_reported_places(small_run: ArenaResult) -> None:
    assert small_run.out is not None
    for row in small_run.rows[::7]:
        data = load_record(small_run.out / "records" / f"game-{row.game:05d}.json")
        assert data["seed"] == row.seed
        assert [p["seed"] for p in data["players"]] == list(row.bot_seeds)
        steps = list(replay(data))
        result = steps[-1].after.result
        assert result is not None and tuple(result.places) == row.places


def test_the_same_seed_reproduces_the_run(small_run: ArenaResult, tmp_path: Path) -> None:
    # in process this time: which worker plays a game must not matter
    again = run_arena(config("random,probability", "classic", 40, workers=1, out=tmp_path / "again"))
    assert small_run.out is not None
    assert (tmp_path / "again" / "results.csv").read_bytes() == (small_run.out / "results.csv").read_bytes()
    assert again.summary == small_run.summary
    other = run_arena(config("random,probability", "classic", 40, seed=12), write=False)
    assert [r.seed for r in other.rows] != [r.seed for r in small_run.rows]


def test_ratings_put_the_stronger_bot_first(small_run: ArenaResult) -> None:
    rated = small_run.summary["ratings"]["names"]
    assert rated["probability"]["mu"] > rated["random"]["mu"]
    assert rated["probability"]["ordinal"] > rated["random"]["ordinal"]
    # and on made-up results where "b" finishes first in 3 games of 4, whatever its seat
    rows = []
    for g in range(1, 41):
        seats = seating(g, 2)
        by_entry = (1, 2) if g % 4 == 0 else (2, 1)
        rows.append(GameRow(g, g, 0, seats, (0, 0), tuple(by_entry[e] for e in seats), None, 1, 1, 0.0, 0.0))
    a, b = ratings(rows, ["a", "b"])["entries"]
    assert b["mu"] > a["mu"] and b["ordinal"] > a["ordinal"]


def test_wilson_and_mean_intervals_match_known_values() -> None:
    assert wilson(8, 10) == pytest.approx((0.4902, 0.9433), abs=1e-4)
    assert wilson(0, 10) == pytest.approx((0.0, 0.2775), abs=1e-4)
    assert wilson(50, 100) == pytest.approx((0.4038, 0.5962), abs=1e-4)
    assert wilson(10, 10) == pytest.approx((0.7225, 1.0), abs=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)
    mean, lo, hi = mean_interval([1.0, -1.0] * 50)
    assert mean == 0 and hi == pytest.approx(1.959964 * (100 / 99) ** 0.5 / 10)
    assert lo == pytest.approx(-hi)
    assert mean_interval([3.0])[1:] == (None, None)


def test_shared_first_places_share_the_win() -> None:
    assert win_shares([1, 1, 3]) == [0.5, 0.5, 0.0]
    assert win_shares([2, 1, 3, 4]) == [0.0, 1.0, 0.0, 0.0]


def test_a_four_seat_table_pools_a_repeated_name() -> None:
    result = run_arena(config("probability,random,random,random", "classic", 8), write=False)
    s = result.summary
    random_ = next(g for g in s["names"] if g["name"] == "random")
    assert [g["name"] for g in s["names"]] == ["probability", "random"]
    assert random_["seats"] == 3 and random_["seat_games"] == 24 and random_["games"] == 8
    assert sum(g["wins"] for g in s["names"]) == pytest.approx(8)
    assert [e["entry"] for e in s["entries"]] == ["probability", "random-1", "random-2", "random-3"]
    assert all(e["seat_games"] == 8 for e in s["entries"])
    sat = Counter((row.seating[s], s) for row in result.rows for s in range(4))
    assert set(sat.values()) == {2} and len(sat) == 16
    (h2h,) = s["head_to_head"]
    assert (h2h["a"], h2h["b"], h2h["comparisons"]) == ("probability", "random", 24)
    assert h2h["a_ahead"] + h2h["b_ahead"] + h2h["ties"] == 24
    assert [r["name"] for r in s["ratings"]["entries"]] == ["probability", "random", "random", "random"]


def test_single_round_games_report_the_mean_return() -> None:
    result = run_arena(config("random,probability", "openspiel", 30), write=False)
    assert {row.rounds for row in result.rows} == {1}
    for g in result.summary["names"]:
        assert -1 <= g["return_low"] <= g["mean_return"] <= g["return_high"] <= 1
    assert sum(g["mean_return"] for g in result.summary["names"]) == pytest.approx(0)


def test_lineups_cycle_and_bad_ones_are_refused() -> None:
    assert parse_lineup("random,probability", 5) == ("random", "probability", "random", "probability", "random")
    assert parse_lineup(" Random , probability ") == ("random", "probability")
    with pytest.raises(ArenaInputError, match="unknown bot level 'genius': the levels are Beginner, Casual"):
        parse_lineup("random,genius")
    with pytest.raises(ArenaInputError, match="at least 2 players"):
        parse_lineup("random")
    with pytest.raises(ArenaInputError, match="3 bots listed for 2 seats"):
        parse_lineup("random,random,probability", 2)


# ----- the command line -----


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(LIARSDICE), *args], capture_output=True, text=True, timeout=120, check=False)


def test_cli_runs_an_arena_end_to_end(tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = _cli(
        "arena", "--bots", "random,probability", "--preset", "perudo", "--games", "12", "--workers", "2",
        "--seed", "5", "--out", str(out), "-o", "dice_per_player=3",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "games/s" in done.stdout and "Head to head" in done.stdout and "probability" in done.stdout
    data = json.loads((out / "results.json").read_text())
    assert data["options"]["dice_per_player"] == 3 and data["arguments"]["seed"] == 5
    assert _cli("replay", "--check", str(out / "records" / "game-00012.json")).returncode == 0
    again = _cli("arena", "--bots", "random,probability", "--games", "2", "--out", str(out))
    assert again.returncode == 2 and "already holds an arena run" in again.stderr
    bare = _cli("arena", "--bots", "random,random", "--preset", "classic", "--games", "3", "--workers", "1",
                "--no-records", "--out", str(tmp_path / "bare"))  # fmt: skip
    assert bare.returncode == 0, bare.stderr
    assert not (tmp_path / "bare" / "records").exists() and (tmp_path / "bare" / "results.csv").exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bots", "random,genius"], "unknown bot level 'genius': the levels are Beginner, Casual, Skilled"),
        (["--bots", "random"], "at least 2 players, not 1"),
        (["--bots", "random,random", "--players", "1"], "at least 2 players, not 1"),
        (["--bots", "random", "--players", "9"], "perudo is played by 2 to 6 players, not 9"),
        (["--bots", "random,random", "--games", "0"], "'--games' / '-g': must be at least 1, not 0"),
        (["--bots", "random,random", "--preset", "nope"], "unknown preset 'nope'"),
    ],
)
def test_cli_refuses_bad_arguments(args: list[str], message: str, tmp_path: Path) -> None:
    result = _cli("arena", *args, "--out", str(tmp_path / "run"))
    assert result.returncode == 2
    assert message in result.stderr
    assert not (tmp_path / "run").exists()


class BrokenBot(RandomBot):
    def act(self, view: PlayerView, limit: Limit | None = None) -> Action:
        raise RuntimeError("lost its dice")


def test_a_failing_bot_names_the_game_to_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(liarsdice.bots.BOT_LEVELS, "probability", BrokenBot)
    with pytest.raises(ArenaError, match=rf"game 1 \(seed {game_seed(11, 1)}, .*RuntimeError: lost its dice"):
        run_arena(config("random,probability", "classic", 4), write=False)


# ----- bot programs (exec:COMMAND) -----

EXAMPLES = Path(__file__).resolve().parents[1] / "examples" / "bots"
HOSTILE = Path(__file__).with_name("hostile_bot.py")


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (FileNotFoundError, IndexError):
        return False


def test_lineups_take_programs() -> None:
    assert parse_lineup(f"exec:{EXAMPLES / 'minimal.py'},Random", 3) == (
        f"exec:{EXAMPLES / 'minimal.py'}",
        "random",
        f"exec:{EXAMPLES / 'minimal.py'}",
    )
    assert entry_labels(parse_lineup(f"exec:{EXAMPLES / 'minimal.py'},random", 3)) == (
        "minimal.py-1",
        "random",
        "minimal.py-2",
    )
    with pytest.raises(ArenaInputError, match=r"there is no program \./no-such-bot"):
        parse_lineup("random,exec:./no-such-bot")


def test_program_failures_are_counted_per_bot_and_no_process_is_left(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pids = tmp_path / "pids"
    pids.mkdir()
    monkeypatch.setenv("HOSTILE_PIDS", str(pids))
    crash = f"exec:{sys.executable} {HOSTILE} crash 2"
    garbage = f"exec:{sys.executable} {HOSTILE} garbage 1"
    lineup = parse_lineup(f"{crash},{garbage},probability")
    settings = ExecSettings(move_time=1.0, quit_time=0.5)
    out = tmp_path / "run"
    cfg = ArenaConfig("perudo", build_options("perudo", 3, 2), lineup, 6, 3, workers=2, out=out, exec_settings=settings)
    result = run_arena(cfg)
    assert len(result.rows) == 6
    failures = result.summary["failures"]
    # every game starts a fresh crashing program (it crashed in the last one) and it crashes again
    assert failures[crash] == {"crash": 6}
    assert failures[garbage] == {"garbage": 6}  # one program per chunk, garbage once per game
    assert "probability" not in failures
    data = json.loads((out / "results.json").read_text())
    assert data["failures"][crash]["crash"] == 6
    # two programs of one file name: the seats are named by their commands
    assert cfg.labels[0] == crash
    assert all(row["failures"][crash] == {"crash": 1} for row in data["game_rows"])
    assert data["bots"][crash]["name"] == "hostile-crash" and data["bots"][crash]["command"][-2:] == ["crash", "2"]
    assert "crashing on purpose" in (out / "bot-logs" / "hostile_bot.py.log").read_text()
    deadline = time.monotonic() + 3
    while any(_alive(int(p.name)) for p in pids.iterdir()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert [p.name for p in pids.iterdir() if _alive(int(p.name))] == []
    assert len(list(pids.iterdir())) >= 6 + 2  # a crashing program per game, a garbage one per chunk


def test_a_forfeited_game_places_the_program_last(tmp_path: Path) -> None:
    forfeit = f"exec:{sys.executable} {HOSTILE} forfeit_me 1"
    lineup = parse_lineup(f"{forfeit},random")
    settings = ExecSettings(fallback="forfeit", log_dir=tmp_path / "logs")
    cfg = ArenaConfig("classic", build_options("classic", 2, 2), lineup, 4, 3, exec_settings=settings)
    result = run_arena(cfg, write=False)
    assert [row.forfeit for row in result.rows] == [0, 1, 0, 1]  # the program's seat, rotated
    assert all(row.places[row.forfeit] == 2 for row in result.rows if row.forfeit is not None)
    assert result.summary["failures"][forfeit] == {"illegal": 4, "forfeits": 4}
    assert result.summary["names"][0]["wins"] == 0


@pytest.mark.parametrize(
    "preset", ["jokers", "soar", "red-dead", "tavern", "perudo", "perudo_basic", "openspiel", "classic"]
)
def test_the_example_programs_play_every_preset_in_the_arena(preset: str, tmp_path: Path) -> None:
    import shutil

    from jsonschema import Draft202012Validator

    schema = json.loads((Path(liarsdice.__file__).parent / "botproto" / "schema.json").read_text())
    check = {
        d: Draft202012Validator({"$ref": f"#/$defs/{d}", "$defs": schema["$defs"]}) for d in ("to_bot", "from_bot")
    }
    bots = [f"exec:{EXAMPLES / 'minimal.py'}"]
    if shutil.which("node"):
        bots.append(f"exec:node {EXAMPLES / 'minimal.js'}")
    else:
        bots.append("probability")
    lineup = parse_lineup(bots)
    settings = ExecSettings(log_dir=tmp_path / "logs", transcript=True)
    cfg = ArenaConfig(preset, build_options(preset, 2, 2), lineup, 2, 9, exec_settings=settings)
    result = run_arena(cfg, write=False)
    assert len(result.rows) == 2 and not result.summary["failures"]
    lines = 0
    for path in (tmp_path / "logs").glob("*.jsonl"):
        for line in path.read_text().splitlines():
            ((direction, text),) = json.loads(line).items()
            check[direction].validate(json.loads(text))
            lines += 1
    assert lines > 10


def test_records_kept_for_the_driver_are_the_ones_written(tmp_path: Path) -> None:
    # what a Ray task hands back must be what a local worker writes, byte for byte but the clock
    from liarsdice.arena import make_spec, play_games, play_games_keeping_records, record_name

    cfg = config("random,probability", "classic", 5, out=tmp_path)
    written = play_games(make_spec(cfg, tmp_path), range(1, 6))
    rows, kept = play_games_keeping_records(make_spec(cfg, None), range(1, 6))
    assert [(r.game, r.seed, r.places, r.steps) for r in rows] == [(r.game, r.seed, r.places, r.steps) for r in written]
    assert [g for g, _ in kept] == [1, 2, 3, 4, 5]
    for g, text in kept:
        on_disk = json.loads((tmp_path / record_name(g, 5)).read_text())
        here = json.loads(text)
        for record in (on_disk, here):
            del record["meta"]["started"], record["meta"]["finished"]
        assert here == on_disk and here["meta"]["arena"]["game"] == g
    # and keeping them wrote nothing: the folder holds the five written ones alone
    assert sorted(tmp_path.iterdir()) == [tmp_path / record_name(g, 5) for g in range(1, 6)]
