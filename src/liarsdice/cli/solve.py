"""`liarsdice solve`: a two-player, one-round game solved exactly (CFR+ or DCFR)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from ..rules import OptionsError, find_preset
from .options import build_options, exit_with_error, parse_option_assignments

commands = typer.Typer()


@commands.command(short_help="Solve a two-player, one-round game exactly with CFR+ or DCFR.")
def solve(
    preset: Annotated[
        str, typer.Option("--preset", "-p", help="bidding and counting rules of this preset")
    ] = "openspiel",
    dice: Annotated[tuple[int, int], typer.Option("--dice", "-d", help="dice of player 0 (who opens) and player 1")] = (
        1,
        1,
    ),
    faces: Annotated[int | None, typer.Option("--faces", "-f", help="faces per die")] = None,
    option: Annotated[list[str] | None, typer.Option("--option", "-o", help="a rule option as name=value")] = None,
    algorithm: Annotated[str, typer.Option("--algorithm", "-a", help="cfr+ or dcfr")] = "dcfr",
    target: Annotated[float, typer.Option("--target", help="stop at this exploitability")] = 1e-3,
    iterations: Annotated[int | None, typer.Option("--iterations", help="stop after this many iterations")] = None,
    seconds: Annotated[float | None, typer.Option("--seconds", help="stop after this many seconds")] = None,
    out: Annotated[Path | None, typer.Option("--out", help="save the strategy here (.npz)")] = None,
    plots: Annotated[Path | None, typer.Option("--plots", help="write convergence.png and opening.png here")] = None,
    cache: Annotated[bool, typer.Option("--cache", help="also save it where the cfr bot looks")] = False,
    ship: Annotated[
        bool, typer.Option("--ship", help="also save it among the package's shipped solutions (a checkout's)")
    ] = False,
) -> None:
    """Solve a two-player, single-round game (bids and liar calls) with CFR+ or DCFR."""
    try:
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

        from ..solver import solve as run_solve
    except ImportError as e:
        exit_with_error(
            f"solving needs the solver's dependencies ({e.name} is missing): pip install 'liarsdice[solver]'"
        )
    if algorithm not in ("cfr+", "dcfr"):
        exit_with_error(f"--algorithm must be cfr+ or dcfr, not {algorithm!r}")
    if target <= 0 or (iterations is not None and iterations < 1) or (seconds is not None and seconds <= 0):
        exit_with_error("--target and --seconds must be above 0, --iterations at least 1")
    if min(dice) < 1:
        exit_with_error("each player needs at least one die (--dice D0 D1)")
    try:
        overrides = parse_option_assignments(option or [])
        if faces is not None:
            overrides["faces"] = faces
        options = build_options(preset, 2, None, None, [f"{k}={json.dumps(v)}" for k, v in overrides.items()])
        from ..solver.memory import check, hand_count, human, solver_bytes
        from ..solver.scope import refusal, same_game_notes, unmodelled
        from ..solver.tree import GameSpec, Tree

        problems = unmodelled(options, overrides)
        if problems:
            exit_with_error(refusal(find_preset(preset).name, problems))
        spec = GameSpec.from_options(options, dice)
        # The tree has 2^bids nodes: one die more can need terabytes; refuse before building it.
        hands = (hand_count(dice[0], spec.faces), hand_count(dice[1], spec.faces))
        fit = check(solver_bytes(len(spec.bids), spec.openings, hands))
        if not fit.ok:
            exit_with_error(
                fit.refusal(f"the exact tree of {dice[0]} vs {dice[1]} dice ({len(spec.bids)} bids)")
                + "; `liarsdice train` solves bigger duels on an abstraction"
            )
        tree = Tree(spec)
    except (OptionsError, ValueError) as e:
        exit_with_error(str(e))
    typer.echo(
        f"{find_preset(preset).name}: {dice[0]} vs {dice[1]} dice, {options.faces} faces, {tree.num_bids} bids, "
        f"{tree.num_nodes:,} nodes, {tree.infosets():,} information sets, about {human(fit.estimate)} of memory; "
        f"{algorithm.upper()} to {target:g}"
    )
    for note in same_game_notes(options):
        typer.echo(f"note: {note}")
    if fit.warning is not None:
        typer.echo(f"warning: {fit.warning}", err=True)
    del tree
    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("iteration {task.fields[iteration]}  exploitability {task.fields[exploitability]}"),
        TimeElapsedColumn(),
    ) as bar:
        task = bar.add_task("solving", total=1.0, iteration=0, exploitability="-")
        import math

        start = None

        def show(p: Any) -> None:
            nonlocal start
            if start is None:
                start = math.log(max(p.exploitability, target * 1.0001))
            done = (start - math.log(max(p.exploitability, target))) / max(start - math.log(target), 1e-9)
            bar.update(
                task,
                completed=min(1.0, max(0.0, done)),
                iteration=p.iteration,
                exploitability=f"{p.exploitability:.6f}",
            )

        solution = run_solve(
            options,
            dice,
            algorithm=algorithm,
            target=target,
            max_iterations=iterations,
            max_seconds=seconds,  # type: ignore[arg-type]
            on_progress=show,
        )
    typer.echo(
        f"{solution.iterations} iterations in {solution.seconds:.2f} s: exploitability {solution.exploitability:.6f}, "
        f"value for player 0 {solution.game_value:+.6f}"
    )
    if solution.exploitability > target:
        typer.echo(f"stopped by the budget before the target {target:g}")
    saved = []
    if out is not None:
        saved.append(solution.save(out))
    if cache or ship:
        from ..bots.cfr import SHIPPED_SOLUTIONS, solution_key, solutions_dir

        name = f"{solution_key(options, dice)}.npz"
        if cache:
            saved.append(solution.save(solutions_dir() / name))
        if ship and solution.exploitability <= target:
            saved.append(solution.save(SHIPPED_SOLUTIONS / name))
        elif ship:
            typer.echo("not shipped: the target was not reached", err=True)
    for path in saved:
        typer.echo(f"strategy: {path}")
    if plots is not None:
        from ..solver.plots import convergence_png, opening_png

        typer.echo(f"plot: {convergence_png(solution, plots / 'convergence.png', target)}")
        typer.echo(f"plot: {opening_png(solution, plots / 'opening.png')}")
