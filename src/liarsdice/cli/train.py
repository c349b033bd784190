"""`liarsdice train`: the duel bot's strategy for two cup sizes, trained and cached; with --all,
every duel of the plan the package ships."""

from __future__ import annotations

import json
import os
import signal
import threading
from pathlib import Path
from typing import Annotated, Any

import typer

from ..rules import OptionsError, find_preset
from .options import build_options, exit_with_error, parse_option_assignments

commands = typer.Typer()


@commands.command(short_help="Train and keep the duel bot's strategy for two cup sizes.")
def train(
    preset: Annotated[
        str, typer.Option("--preset", "-p", help="bidding and counting rules of this preset")
    ] = "openspiel",
    dice: Annotated[tuple[int, int], typer.Option("--dice", "-d", help="dice of player 0 (who opens) and player 1")] = (
        5,
        5,
    ),
    faces: Annotated[int | None, typer.Option("--faces", "-f", help="faces per die")] = None,
    wild: Annotated[
        str | None, typer.Option("--wild", help="the wild face: 1, top or none (the preset's if not given)")
    ] = None,
    option: Annotated[list[str] | None, typer.Option("--option", "-o", help="a rule option as name=value")] = None,
    k: Annotated[int | None, typer.Option("--k", help="bids remembered (default: by the size of the game)")] = None,
    iterations: Annotated[
        int | None,
        typer.Option("--iterations", help="DCFR iterations (default: 300, or as many as --seconds allows)"),
    ] = None,
    seconds: Annotated[float | None, typer.Option("--seconds", help="stop after this many seconds")] = None,
    sample: Annotated[
        int | None, typer.Option("--sample", help="hands drawn per half-iteration instead of all (big games)")
    ] = None,
    out: Annotated[Path | None, typer.Option("--out", help="also save the strategy here (.npz)")] = None,
    exact: Annotated[
        bool, typer.Option("--exact", help="measure the exact exploitability on the full tree (small games)")
    ] = False,
    fresh: Annotated[
        bool,
        typer.Option(
            "--fresh", help="start from nothing, not from this duel's checkpoint (which the run then replaces)"
        ),
    ] = False,
    seed: Annotated[int | None, typer.Option("--seed", help="seed of the hands sampled (default 0; --all: 22)")] = None,
    every: Annotated[
        bool,
        typer.Option(
            "--all", help="train every duel of the plan the package ships (liarsdice/duel/plan.py) not shipped yet"
        ),
    ] = False,
    only: Annotated[str | None, typer.Option("--only", help="--all: only these sizes, e.g. 2v2,3v2")] = None,
    variant: Annotated[
        str | None,
        typer.Option(
            "--variant",
            help="--all: only these variants: ones, top, none, perudo, jokers, calza, spot-on, soar (the plan's); "
            "soar-opener, soar-other, soar-spent; soar-pushed (the rounds after a push)",
        ),
    ] = None,
    jobs: Annotated[int, typer.Option("--jobs", help="--all: duels trained at once, one process each")] = 1,
    threads: Annotated[
        int | None,
        typer.Option(
            "--threads",
            help="hands trained at once, a thread each (default: the CPU count; --all: shared by the jobs); "
            "the strategy is the same whatever the count",
        ),
    ] = None,
    into: Annotated[
        Path | None, typer.Option("--into", help="--all: the folder of the manifest (default: the package's)")
    ] = None,
    exact_left: Annotated[
        str | None,
        typer.Option(
            "--exact-left",
            help="where exact may be called once a game (Soar): who still may, both (default), opener, other or none",
        ),
    ] = None,
) -> None:
    """Train the two-player strategy of the `duel` bot for one round size and cache it.

    Training goes on where the last run of the same duel stopped (its checkpoint is kept beside
    the cached strategy, and saved every 10 minutes): --iterations and --seconds are this run's,
    --seconds counted from the start (building the graph included). Ctrl-C (or SIGTERM) stops it
    after the iteration under way, or cuts one still going a second later short between two
    hands, and saves both, as at the end; a second Ctrl-C quits at once, losing what the
    checkpoint does not hold. A size that does not fit in the memory available is refused before
    anything is allocated, with the estimate and the limit.

    --all trains the strategies the package ships instead (docs/solving.md, "Shipped strategies"): each
    entry of the plan with its iterations from --seed, written with its manifest entry as soon as
    it is done; one already shipped is skipped, so a run stopped goes on."""
    if every or only is not None or variant is not None or jobs != 1 or into is not None:
        single = {"wild": wild, "faces": faces, "option": option, "k": k, "seconds": seconds, "sample": sample}
        train_all(
            every, only, variant, jobs, threads, into, seed, iterations, **single, out=out, exact=exact, fresh=fresh
        )
        return
    threads = each_job_s_threads(threads, 1)
    try:
        from ..bots.trained import strategies_dir, strategy_key
        from ..duel import Stopped, TooBig, default_k, game_for
        from ..duel import train as run_train
        from ..duel.footprint import measure, refuse_if_too_big, too_big_message
        from ..solver.memory import human
        from ..solver.scope import refusal, unmodelled
    except ImportError as e:
        exit_with_error(
            f"training needs the solver's dependencies ({e.name} is missing): pip install 'liarsdice[solver]'"
        )
    if min(dice) < 1:
        exit_with_error("each player needs at least one die (--dice D0 D1)")
    if iterations is None and seconds is None:
        iterations = 300
    if (
        (iterations is not None and iterations < 1)
        or (seconds is not None and seconds <= 0)
        or (sample is not None and sample < 1)
    ):
        exit_with_error("--iterations and --sample must be at least 1, --seconds above 0")
    if k is not None and k < 1:
        exit_with_error(f"--k is how many bids the players remember: at least 1, not {k}")
    if wild is not None and wild not in ("1", "top", "none"):
        exit_with_error(f"--wild is 1, top or none, not {wild!r}")
    lefts = {"both": (True, True), "opener": (True, False), "other": (False, True), "none": (False, False)}
    if exact_left is not None and exact_left not in lefts:
        exit_with_error(f"--exact-left is both, opener, other or none, not {exact_left!r}")
    import time

    started = time.perf_counter()
    try:
        overrides = parse_option_assignments(option or [])
        if faces is not None:
            overrides["faces"] = faces
        if wild is not None:
            overrides["wild_face"] = 1 if wild == "1" else wild
        options = build_options(preset, 2, None, None, [f"{key}={json.dumps(v)}" for key, v in overrides.items()])
        problems = unmodelled(options, overrides, trainer=True)
        if problems:
            exit_with_error(refusal(find_preset(preset).name, problems, trainer=True))
        once = options.exact != "none" and options.exact_limit != "unlimited"
        if exact_left is not None and not once:
            exit_with_error(
                f"--exact-left is for rules where exact may be called once a game; {find_preset(preset).name}'s "
                f"exact is {'never' if options.exact == 'none' else 'any time'}"
            )
        left = lefts[exact_left or "both"] if once else None
        memory = default_k(options, dice) if k is None else k
        refuse_if_too_big(options, dice, memory)  # before the graph and the tables are allocated
    except (OptionsError, ValueError, TooBig) as e:
        exit_with_error(str(e))

    def show(p: Any) -> None:
        if p.iteration % 10 == 0:
            typer.echo(f"iteration {p.iteration}  {p.seconds:.1f} s  value for player 0 {p.value:+.4f}")

    def resumed(iteration: int, spent: float) -> None:
        typer.echo(f"going on from iteration {iteration} ({spent:.0f} s of training so far): {checkpoint}")

    key = strategy_key(options, dice, memory, left)
    checkpoint = strategies_dir() / f"{key}.train.npz"
    if fresh:
        checkpoint.unlink(missing_ok=True)
    stopping = threading.Event()

    def ask_to_stop(signum: int, frame: Any) -> None:
        if stopping.is_set():
            raise KeyboardInterrupt
        stopping.set()
        typer.echo(
            "stopping after this iteration (one still going in a second is cut short), then saving "
            "(Ctrl-C again quits at once, unsaved)",
            err=True,
        )

    def time_up() -> bool:
        return stopping.is_set() or (seconds is not None and time.perf_counter() - started > seconds)

    # --seconds and the signals hold from here: a big graph takes a while to build.
    previous = {s: signal.signal(s, ask_to_stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        game = game_for(options, dice, memory, stop=time_up, exact_left=left)
        footprint = measure(game)
        fit = footprint.fit()
        if not fit.ok:
            exit_with_error(too_big_message(footprint, fit, options, dice, memory))
        typer.echo(
            f"{find_preset(preset).name}: {dice[0]} vs {dice[1]} dice, {options.faces} faces, "
            f"wild {options.wild_face}, {game.num_bids} bids; last {memory} bids remembered: {game.num_nodes:,} "
            f"nodes, {game.num_edges:,} edges, {game.infosets:,} information sets; about "
            f"{human(footprint.bytes)} of memory"
        )
        if fit.warning is not None:
            typer.echo(f"warning: {fit.warning}", err=True)
        strategy = run_train(
            options,
            dice,
            k=memory,
            seed=0 if seed is None else seed,
            iterations=iterations,
            seconds=None if seconds is None else seconds - (time.perf_counter() - started),
            sample=sample,
            on_progress=show,
            checkpoint=checkpoint,
            on_resume=resumed,
            stop=stopping.is_set,
            game=game,
            exact_left=left,
            threads=threads,
        )
    except Stopped as e:
        why = "Ctrl-C or SIGTERM" if stopping.is_set() else f"--seconds {seconds:g}"
        exit_with_error(f"{e} ({why}, after {time.perf_counter() - started:.1f} s); nothing saved", 1)
    except ValueError as e:
        exit_with_error(f"{e} (--fresh starts over)")
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    if "cut_short" in strategy.meta:
        typer.echo(f"{strategy.meta['cut_short']} (the time was up, or a stop was asked, within it)")
    if stopping.is_set():
        typer.echo(f"stopped at iteration {strategy.meta['iterations']}; the checkpoint and the strategy are saved")
    typer.echo(
        f"{strategy.meta['iterations']} iterations in {strategy.meta['seconds']:.1f} s ({strategy.meta['method']})"
    )
    if exact:
        typer.echo(f"exact exploitability on the full tree: {strategy.exact_exploitability():.6f}")
    saved = [strategy.save(strategies_dir() / f"{key}.npz")]
    if out is not None:
        saved.append(strategy.save(out))
    for path in saved:
        typer.echo(f"strategy: {path} ({path.stat().st_size / 1e6:.1f} MB)")


def each_job_s_threads(threads: int | None, jobs: int) -> int:
    """--threads as given (checked), or the CPUs this process may use shared among the jobs."""
    if threads is None:
        return max(1, len(os.sched_getaffinity(0)) // jobs)
    if not 1 <= threads <= 256:
        exit_with_error(f"--threads is how many hands train at once: 1 to 256, not {threads}")
    return threads


def train_all(
    every: bool,
    only: str | None,
    variant: str | None,
    jobs: int,
    threads: int | None,
    into: Path | None,
    seed: int | None,
    iterations: int | None,
    **single: Any,
) -> None:
    """`train --all`: the plan's duels, trained and shipped (liarsdice.duel.rebuild)."""
    if not every:
        exit_with_error("--only, --variant, --jobs and --into go with --all")
    given = [f"--{name}" for name, value in single.items() if value not in (None, False, [])]
    if given:
        exit_with_error(f"--all trains the plan's own rules, sizes and memory: {', '.join(given)} do not go with it")
    if not 1 <= jobs <= 64:
        exit_with_error(f"--jobs is how many duels train at once: 1 to 64, not {jobs}")
    if iterations is not None and iterations < 1:
        exit_with_error("--iterations must be at least 1")
    threads = each_job_s_threads(threads, jobs)
    try:
        from ..duel import plan, rebuild, shipped
    except ImportError as e:
        exit_with_error(
            f"training needs the solver's dependencies ({e.name} is missing): pip install 'liarsdice[solver]'"
        )
    try:
        every_variant = tuple(plan.VARIANTS) if variant else plan.PLANNED  # --variant may name jokers
        entries = plan.entries(plan.SEED if seed is None else seed, iterations, every_variant)
        entries = plan.select(entries, only=only, variants=variant)
    except ValueError as e:
        exit_with_error(str(e))
    directory = shipped.SHIPPED_DIR if into is None else into
    typer.echo(f"{len(entries)} duels of the plan into {directory}")
    stopping = threading.Event()

    def ask_to_stop(signum: int, frame: Any) -> None:
        if stopping.is_set():
            raise KeyboardInterrupt
        stopping.set()
        typer.echo("stopping after the iterations under way, then saving (Ctrl-C again quits at once)", err=True)

    previous = {s: signal.signal(s, ask_to_stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        rebuild.run(entries, directory, jobs=jobs, threads=threads, echo=typer.echo, stop=stopping)
        shipped_now = shipped.read_manifest(directory)
    except (shipped.ManifestError, ValueError) as e:
        exit_with_error(f"{e} (delete the manifest to train everything again)")
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    typer.echo(f"{directory}: {rebuild.describe(shipped_now)}")
    if stopping.is_set():
        raise typer.Exit(1)
