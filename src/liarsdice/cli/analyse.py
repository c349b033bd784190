"""`liarsdice analyse RECORD`: every decision of a game record judged by the best bot, with marks
and a summary per seat (docs/analysis.md); `--json` prints the analysis as the replay page reads it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from .options import exit_with_error

if TYPE_CHECKING:
    from ..review import Analysis

commands = typer.Typer()


@commands.command(short_help="Judge every move of a game record by the best bot (Master).")
def analyse(
    file: Annotated[Path, typer.Argument(help="a game record (JSON) written by liarsdice")],
    as_json: Annotated[bool, typer.Option("--json", help="print the analysis as JSON (docs/analysis.md)")] = False,
) -> None:
    """Judge every decision of every seat in a game record by the best bot (the Master level), from
    that seat's own view: the worth of the move made against the best, in expected dice, marked
    ?! inaccuracy, ? mistake or ?? blunder, with each seat's accuracy and biggest turning point.
    A game that was stopped early is analysed as far as it was played."""
    from ..record import RecordError, load_record
    from ..review import analyse as analyse_record

    try:
        data = load_record(file)
        analysis = analyse_record(data)
    except RecordError as e:
        exit_with_error(f"{file}: invalid record: {e}", 1)
    if as_json:
        typer.echo(json.dumps(analysis.to_json(), indent=1))
        return
    for line in analysis_text(analysis):
        typer.echo(line)


def signed(value: float) -> str:
    return f"{value:+.2f}"


def analysis_text(analysis: Analysis) -> list[str]:
    """The analysis for a person: per round each decision, its mark and the best move, then each
    seat's summary."""
    from ..review import SYMBOLS
    from ..text import plural

    t = analysis.thresholds
    lines = [
        f"Analysis of a game of {analysis.preset or 'custom rules'} with {', '.join(analysis.seats)}: every move "
        f"valued in expected {analysis.unit} by the best bot from the mover's own view.",
        f"Marks by the value lost against the best move: ?! inaccuracy from {t['inaccuracy']}, "
        f"? mistake from {t['mistake']}, ?? blunder from {t['blunder']}.",
    ]
    if not analysis.finished:
        lines.append("The record ends before the game is over: analysed as far as it was played.")
    width = max(len(s) for s in analysis.seats)
    current = None
    for d in analysis.decisions:
        if d.round != current:
            current = d.round
            lines += ["", f"Round {d.round}"]
        head = f"  step {d.step:>3}  {d.seat:<{width}}  {d.move:<14}"
        if not d.judged:
            lines.append(f"{head}  not judged: {d.reason}")
            continue
        assert d.value is not None and d.best_value is not None and d.loss is not None
        symbol = SYMBOLS.get(d.mark or "", "")
        line = f"{head} {symbol:<2} {signed(d.value)}"
        if d.loss >= 0.005:  # what shows as 0.00 is the best move, or a tie with it
            line += f"   best {d.best} {signed(d.best_value)}, lost {d.loss:.2f}"
            if d.mark is not None:
                line += f" ({d.mark})"
        else:
            line += "   best move"
        if d.holds is not None:
            line += f"   holds {percent(d.holds)}"
        line += f"   [{d.source}]"
        lines.append(line)
    lines += ["", "Summary"]
    for s in analysis.summary:
        acc = "no judged move" if s.accuracy is None else f"accuracy {s.accuracy:.1f}"
        turn = ""
        if s.turning_point is not None and s.turning_point[1] >= 0.005:
            turn = f"; biggest turning point: step {s.turning_point[0]} (lost {s.turning_point[1]:.2f})"
        lines.append(
            f"  {s.seat}: {plural(s.decisions, 'decision')}, {s.judged} judged, {acc}, "
            f"{plural(s.inaccuracies, 'inaccuracy', 'inaccuracies')} ?!, {plural(s.mistakes, 'mistake')} ?, "
            f"{plural(s.blunders, 'blunder')} ??{turn}"
        )
    return lines


def percent(p: float) -> str:
    """A chance as the odds panel shows it: a percentage to one decimal."""
    from fractions import Fraction

    from ..odds import shown

    return shown(Fraction(p).limit_denominator(10**6))
