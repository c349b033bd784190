"""Whole games against the reference (commit 245049c's strong, over the bot protocol): the strength goals.

    make reference                       # once: builds .reference/ (benchmarks/reference.sh)
    python benchmarks/heads_up.py [--candidate duel] [--presets perudo,soar,jokers,red-dead,tavern]
        [--games 1000] [--seats 2] [--seed 1] [--workers 1] [--data DIR] [--first-decisions 3] [--no-ponder]
    python benchmarks/heads_up.py --seats 6 --candidate strong --games 600     # six-seat perudo

The candidate, a level of this checkout played in this process, meets the reference's `strong`
(`exec:.reference/venv/bin/python -I -m liarsdice.botproto.helper strong`, or --reference) at
a table of --seats seats: heads-up by default, or the candidate alone against --seats - 1
reference programs. The games are the arena's (`liarsdice.arena`): game g's seats are rotated by
g - 1, so over any --seats consecutive games the candidate sits in every seat once, and the
dealer, who draws the first round's opener by luck, is seeded from (--seed, g). A program that
fails a move forfeits the game (`--bot-fallback forfeit`); any such failure is printed and makes
the exit status 1, since it spoils the figures.

Nothing trained locally is used: the candidate's data directory (duel strategies, solutions) is
a new empty one unless --data names one, and the reference gets an empty one of its own, so that
neither reads what the other trained. Printed per preset: the candidate's win rate (a first place
shared by k seats counts 1/k) with a Wilson 95% interval, the goal (0.55 heads-up; at six seats
0.22 against the fair share 1/6), the candidate's time per decision (`act` alone, p50, p99 and
the maximum, in this process; --workers 1 only), games per second; then the first decision after
start: a fresh process (empty data directory) imports the package, seats the candidate and
times its first decision, from the moment it was spawned (--first-decisions runs per preset,
median and worst).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
REFERENCE_COMMIT = "245049c"
REFERENCE_PYTHON = ROOT / ".reference" / "venv" / "bin" / "python"
REFERENCE = f"{REFERENCE_PYTHON} -I -m liarsdice.botproto.helper strong"
HEADS_UP_PRESETS = ("perudo", "soar", "jokers", "red-dead", "tavern")
GOALS = {2: 0.55, 6: 0.22}  # the candidate's win rate to reach, by table size
DEFAULT_GAMES = {2: 1000, 6: 600}


def wilson(successes: float, n: float) -> tuple[float, float]:
    """The Wilson 95% interval of a win rate (the arena's own)."""
    from liarsdice.arena.stats import wilson as arena_wilson

    return arena_wilson(successes, n)


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile by the nearest rank of the sorted values (NaN for none)."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The settings, checked: a bad one exits (status 2) saying what was wrong and what is allowed."""
    from liarsdice.bots import BOT_LEVELS
    from liarsdice.rules import OptionsError, find_preset

    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--candidate", default="duel", help="the level measured (default: duel, the best)")
    parser.add_argument("--presets", help=f"comma-separated (default: {','.join(HEADS_UP_PRESETS)}; perudo at 6 seats)")
    parser.add_argument("--games", type=int, help="games per preset (default: 1000 heads-up, 600 at 6 seats)")
    parser.add_argument("--seats", type=int, default=2, help="2: heads-up; N: the candidate and N - 1 reference bots")
    parser.add_argument("--dice", type=int, help="dice per player (default: the preset's)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--workers", type=int, default=1, help="processes; decisions are timed with 1 only")
    parser.add_argument("--data", type=Path, help="the candidate's data directory (default: a new empty one)")
    parser.add_argument("--reference", default=REFERENCE, help="the reference program's command")
    parser.add_argument("--first-decisions", type=int, default=3, help="fresh processes per preset (0: none)")
    parser.add_argument(
        "--no-ponder",
        action="store_true",
        help="the reader does not think on the others' time (bots/pondering.py): what that saves, side by side",
    )
    parser.add_argument("--cold-start", help=argparse.SUPPRESS)  # the child that times a first decision
    parser.add_argument("--spawned-at", type=float, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.candidate not in BOT_LEVELS:
        parser.error(
            f"--candidate {args.candidate!r} is not a bot level: the levels are {', '.join(BOT_LEVELS)} "
            "(it plays in this process, so that its decisions can be timed)"
        )
    if args.seats < 2:
        parser.error(f"--seats must be 2 (heads-up) or more, not {args.seats}")
    if args.games is None:
        args.games = DEFAULT_GAMES.get(args.seats, 600)
    if args.games < 1:
        parser.error(f"--games must be 1 or more, not {args.games}")
    if args.workers < 1:
        parser.error(f"--workers must be 1 or more, not {args.workers}")
    if args.first_decisions < 0:
        parser.error(f"--first-decisions must be 0 (none) or more, not {args.first_decisions}")
    if args.cold_start is not None:
        args.presets = args.cold_start
    if args.presets is None:
        args.presets = ",".join(HEADS_UP_PRESETS) if args.seats == 2 else "perudo"
    args.presets = [p.strip() for p in args.presets.split(",") if p.strip()]
    if not args.presets:
        parser.error("--presets names at least one preset, e.g. --presets perudo,soar")
    for name in args.presets:
        try:
            find_preset(name).check_table_size(args.seats)
        except (OptionsError, KeyError, ValueError) as e:
            parser.error(f"--presets {name}: {e}")
    if args.cold_start is None:
        program = shlex.split(args.reference)[0]
        if not Path(program).is_file():
            parser.error(f"no reference program at {program}: build it with `make reference` (benchmarks/reference.sh)")
    return args


def timed_class(base: type[Any], record: Callable[[float], None]) -> type[Any]:
    """`base` with every `act` timed (the call alone) into `record`; shown as `base` everywhere."""

    class Timed(base):  # type: ignore[valid-type,misc]
        def act(self, view: Any, limit: Any = None) -> Any:
            started = time.perf_counter()
            action = super().act(view, limit)
            record(time.perf_counter() - started)
            return action

    Timed.__module__, Timed.__qualname__, Timed.__name__ = base.__module__, base.__qualname__, base.__name__
    return Timed


@contextlib.contextmanager
def timing(level: str, record: Callable[[float], None]) -> Iterator[None]:
    """While inside, the bots of `level` that the arena makes (here, not in workers) time their moves."""
    from liarsdice.bots import BOT_LEVELS

    base = BOT_LEVELS[level]
    BOT_LEVELS[level] = timed_class(base, record)
    try:
        yield
    finally:
        BOT_LEVELS[level] = base


class _Decided(Exception):
    pass


def cold_start(args: argparse.Namespace) -> None:
    """The child: from being spawned to the candidate's first decision, printed as one JSON line."""
    started = time.time()
    from liarsdice.bots import BOT_LEVELS
    from liarsdice.match import play_game
    from liarsdice.players import make_bot
    from liarsdice.rules import Game, preset_options

    imported = time.time()
    preset = args.presets[0]
    act: list[float] = []

    def first(seconds: float) -> None:
        act.append(seconds)
        raise _Decided

    game = Game(preset_options(preset, table(args)))
    with timing(args.candidate, first):
        agents = [BOT_LEVELS[args.candidate](args.seed)] + [make_bot("random", s) for s in range(1, args.seats)]
        with contextlib.suppress(_Decided):
            play_game(game, agents, seed=args.seed, preset=preset)
    decided = time.time()
    spawned = args.spawned_at if args.spawned_at is not None else started
    print(json.dumps({"from_start": decided - spawned, "imports": imported - started, "act": act[0]}))


def first_decisions(args: argparse.Namespace, preset: str, scratch: Path) -> list[dict[str, float]]:
    runs = []
    for i in range(args.first_decisions):
        data = Path(tempfile.mkdtemp(prefix="cold-", dir=scratch))
        command = [sys.executable, __file__, "--cold-start", preset, "--candidate", args.candidate]
        command += ["--seats", str(args.seats), "--seed", str(args.seed + i), "--spawned-at", repr(time.time())]
        done = subprocess.run(
            command, env={**os.environ, "LIARSDICE_DATA": str(data)}, capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise SystemExit(f"the first-decision run of {preset} failed:\n{done.stderr}")
        runs.append(json.loads(done.stdout.strip().splitlines()[-1]))
    return runs


def play(args: argparse.Namespace, preset: str, scratch: Path) -> dict[str, Any]:
    """The games of one preset: the candidate's wins, its decision times, what the programs failed."""
    from liarsdice.arena import ArenaConfig, run_arena
    from liarsdice.botproto.driver import ExecSettings
    from liarsdice.rules import preset_options

    reference_data = scratch / "reference"
    reference_data.mkdir(exist_ok=True)
    program = f"exec:env LIARSDICE_DATA={shlex.quote(str(reference_data))} {args.reference}"
    config = ArenaConfig(
        preset=preset,
        options=preset_options(preset, table(args)),
        lineup=(args.candidate,) + (program,) * (args.seats - 1),
        games=args.games,
        seed=args.seed,
        workers=args.workers,
        records=False,
        exec_settings=ExecSettings(fallback="forfeit", log_dir=scratch / "bot-logs"),
    )
    times: list[float] = []
    with timing(args.candidate, times.append):
        result = run_arena(config, write=False)
    wins = 0.0
    failures: dict[str, int] = {}
    for row in result.rows:
        seat = row.seating.index(0)  # entry 0, the candidate
        if row.places[seat] == 1:
            wins += 1 / row.places.count(1)
        for per_seat in row.failures.values():
            for kind, count in per_seat.items():
                failures[kind] = failures.get(kind, 0) + count
    forfeits = sum(1 for row in result.rows if row.forfeit is not None)
    return {
        "games": len(result.rows),
        "wins": wins,
        "times": times if args.workers == 1 else [],
        "games_per_second": result.games_per_second,
        "failures": failures,
        "forfeits": forfeits,
    }


def report_line(preset: str, seats: int, played: dict[str, Any]) -> str:
    n, wins, t = played["games"], played["wins"], played["times"]
    low, high = wilson(wins, n)
    goal = GOALS.get(seats)
    ms = [f"{1000 * percentile(t, q):>8.2f}" for q in (50, 99)] + [f"{1000 * max(t):>8.1f}"] if t else ["       -"] * 3
    return (
        f"{preset:<13}{n:>6}{wins:>8.1f}   {wins / n:.3f} [{low:.3f}, {high:.3f}]"
        f"{(f'{goal:.3f}' if goal is not None else '-'):>7}{1 / seats:>7.3f}{len(t):>10}{''.join(ms)}"
        f"{played['games_per_second']:>8.2f}"
    )


def table(args: argparse.Namespace) -> dict[str, object]:
    """The preset's options this run changes: the seats, and the dice if given."""
    out: dict[str, object] = {"num_players": args.seats}
    if args.dice is not None:
        out["dice_per_player"] = args.dice
    return out


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    if args.cold_start is not None:
        cold_start(args)
        return 0
    if args.no_ponder:
        from liarsdice.bots import reader

        reader.PONDER = False  # in this process: the one whose decisions are timed
    shown = argv if argv is not None else sys.argv[1:]
    print("$ python benchmarks/heads_up.py " + " ".join(shlex.quote(a) for a in shown))
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, python {platform.python_version()}, {os.cpu_count()} cores, "
        f"load {load}; {args.candidate} (this checkout) against {args.seats - 1} x reference strong "
        f"(commit {REFERENCE_COMMIT}) at {args.seats} seats, seed {args.seed}"
    )
    status = 0
    with tempfile.TemporaryDirectory(prefix="heads-up-") as tmp:
        scratch = Path(tmp)
        candidate_data = args.data if args.data is not None else scratch / "candidate"
        candidate_data.mkdir(parents=True, exist_ok=True)
        os.environ["LIARSDICE_DATA"] = str(candidate_data)  # read at each use: set before any game
        print(f"candidate's data directory: {candidate_data}{'' if args.data else ' (empty)'}")
        print(
            f"\n{'preset':<13}{'games':>6}{'wins':>8}   {'win rate [95%]':<22}{'goal':>5}{'fair':>7}"
            f"{'decisions':>10}{'p50 ms':>8}{'p99 ms':>8}{'max ms':>8}{'games/s':>8}"
        )
        cold: dict[str, list[dict[str, float]]] = {}
        for preset in args.presets:
            played = play(args, preset, scratch)
            print(report_line(preset, args.seats, played), flush=True)
            if played["failures"] or played["forfeits"]:
                status = 1
                print(
                    f"  the programs failed moves ({played['failures']}) and forfeited {played['forfeits']} games: "
                    f"these figures do not count; see {scratch / 'bot-logs'} (kept only while this runs)"
                )
            if args.first_decisions:
                cold[preset] = first_decisions(args, preset, scratch)
        if cold:
            print(
                f"\nfirst decision after start ({args.first_decisions} fresh processes per preset, empty data dir): "
                "seconds from spawn to the decision, median and worst; the imports and the act alone, worst"
            )
            for preset, runs in cold.items():
                start = [r["from_start"] for r in runs]
                imports, act = max(r["imports"] for r in runs), max(r["act"] for r in runs)
                print(
                    f"{preset:<13} {statistics.median(start):.3f} s, worst {max(start):.3f} s "
                    f"(imports {imports:.3f} s, act {1000 * act:.1f} ms)"
                )
    return status


if __name__ == "__main__":
    sys.exit(main())
