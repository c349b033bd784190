"""The arena's report: the tables and the progress bar on the terminal, and the chart (results.png)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from .config import BOT_LOGS, RECORDS
from .results import ArenaResult

if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress, Task


def write_chart(path: Path, result: ArenaResult) -> Path:
    # Figure and the Agg canvas directly: no pyplot, so no global backend switch for a library.
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    summary = result.summary
    names = summary["names"]
    entries = summary["ratings"]["entries"]
    fig = Figure(figsize=(11, 4.8), dpi=120)
    FigureCanvasAgg(fig)
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1, 1.2]})
    xs = range(len(names))
    rates = [g["win_rate"] for g in names]
    err = [[g["win_rate"] - g["win_low"] for g in names], [g["win_high"] - g["win_rate"] for g in names]]
    colours = ["#1f6f5c", "#b03a2e", "#2e5eaa", "#c27c0e", "#6c3483", "#566573"]
    left.bar(xs, rates, yerr=err, capsize=6, color=[colours[i % len(colours)] for i in xs], alpha=0.85)
    left.axhline(summary["fair_win_rate"], color="#444", ls="--", lw=1, label=f"fair share 1/{result.config.players}")
    for x, g in zip(xs, names, strict=True):
        left.annotate(
            f"{g['win_rate']:.3f}",
            (x, g["win_high"]),
            textcoords="offset points",
            xytext=(0, 4),
            ha="center",
            fontsize=9,
        )
    left.set_xticks(list(xs), [f"{g['name']}\n×{g['seats']}" if g["seats"] > 1 else g["name"] for g in names])
    left.set_ylabel("win rate per seat-game (Wilson 95%)")
    left.set_ylim(0, min(1.12, max(g["win_high"] for g in names) * 1.2 + 0.02))
    left.legend(loc="upper right", fontsize=8)
    left.grid(True, axis="y", alpha=0.3)
    ys = range(len(entries))
    name_index = {g["name"]: i for i, g in enumerate(names)}
    for y, r in zip(ys, entries, strict=True):
        colour = colours[name_index[r["name"]] % len(colours)]
        right.errorbar(r["mu"], y, xerr=3 * r["sigma"], fmt="o", color=colour, capsize=5)
        right.annotate(
            f"μ {r['mu']:.1f}, σ {r['sigma']:.2f}, ordinal {r['ordinal']:.1f}",
            (r["mu"], y),
            textcoords="offset points",
            xytext=(0, 7),
            ha="center",
            fontsize=8,
        )
    right.set_yticks(list(ys), [r["entry"] for r in entries])
    right.set_ylim(-0.7, len(entries) - 0.3)
    right.invert_yaxis()
    right.set_xlabel("OpenSkill Plackett-Luce rating: μ ± 3σ (left end: ordinal)")
    right.grid(True, axis="x", alpha=0.3)
    c = result.config
    fig.suptitle(f"{c.preset or 'custom'}, {c.players} players, {len(result.rows)} games, seed {c.seed}")
    fig.tight_layout()
    fig.savefig(path)
    return path


def _ci(lo: float | None, hi: float | None, digits: int = 3) -> str:
    return f"[{lo:.{digits}f}, {hi:.{digits}f}]" if lo is not None and hi is not None else ""


def make_progress(console: Console) -> Progress:
    """A progress bar for the games: done of total, games per second, elapsed and remaining."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    class Rate(ProgressColumn):
        def render(self, task: Task) -> Text:
            speed = task.finished_speed or task.speed
            return Text(f"{speed:6.1f} games/s" if speed else "  ---- games/s", style="progress.data.speed")

    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        Rate(),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
        console=console,
    )


def print_report(result: ArenaResult, console: Console) -> None:
    from rich.table import Table

    c = result.config
    s = result.summary
    single_round = any("mean_return" in g for g in s["names"])
    console.print(
        f"[bold]{c.preset or 'custom rules'}[/], {c.players} players ({', '.join(c.labels)} in game 1), "
        f"{len(result.rows)} games, seed {c.seed}"
    )
    if len(result.rows) % c.players:
        console.print(
            f"[yellow]{len(result.rows)} games is not a multiple of {c.players}: "
            "the seats are rotated as evenly as that allows[/]"
        )

    bots = Table(title=f"Bots (win rate per seat-game, Wilson 95%; fair share {s['fair_win_rate']:.3f})")
    for col in ("bot", "seats", "seat-games", "wins", "win rate [95%]", "mean place [95%]"):
        bots.add_column(col, justify="left" if col == "bot" else "right")
    if single_round:
        bots.add_column("mean return [95%]", justify="right")
    for col in ("μ", "σ", "μ-3σ"):
        bots.add_column(col, justify="right")
    for g in s["names"]:
        r = g["rating"]
        cells = [
            g["name"],
            str(g["seats"]),
            str(g["seat_games"]),
            f"{g['wins']:g}",
            f"{g['win_rate']:.3f} {_ci(g['win_low'], g['win_high'])}",
            f"{g['mean_place']:.3f} {_ci(g['place_low'], g['place_high'])}",
        ]
        if single_round:
            cells.append(f"{g['mean_return']:+.3f} {_ci(g['return_low'], g['return_high'])}")
        cells += [f"{r['mu']:.2f}", f"{r['sigma']:.2f}", f"{r['ordinal']:.2f}"]
        bots.add_row(*cells)
    console.print(bots)

    if s["head_to_head"]:
        names = [g["name"] for g in s["names"]]
        h2h = Table(title="Head to head: how often the row's bot finished ahead of the column's (ties count half)")
        h2h.add_column("")
        for name in names:
            h2h.add_column(name, justify="right")
        cell: dict[tuple[str, str], str] = {}
        for h in s["head_to_head"]:
            n = h["comparisons"]
            if not n:
                continue
            b = (h["b_ahead"] + h["ties"] / 2) / n  # not 1 - a: rounding would split the two ways
            cell[h["a"], h["b"]] = f"{h['a_score']:.3f} {_ci(h['low'], h['high'])}"
            cell[h["b"], h["a"]] = f"{b:.3f} {_ci(1 - h['high'], 1 - h['low'])}"
        for a in names:
            h2h.add_row(a, *(cell.get((a, b), "-") for b in names))
        console.print(h2h)

    seats = Table(title="Win rate by seat")
    seats.add_column("seat", justify="right")
    names = [g["name"] for g in s["names"]]
    for name in names:
        seats.add_column(name, justify="right")
    seats.add_column("whoever sat there", justify="right")
    for seat in s["seats"]:
        row = [str(seat["seat"])]
        for name in names:
            cellv = seat["by_name"][name]
            row.append(
                f"{cellv['win_rate']:.3f} {_ci(cellv['win_low'], cellv['win_high'])}" if cellv["seat_games"] else "-"
            )
        row.append(f"{seat['win_rate']:.3f} {_ci(seat['win_low'], seat['win_high'])}")
        seats.add_row(*row)
    console.print(seats)

    if len(s["entries"]) > len(s["names"]):
        entries = Table(title="Each seat of the line-up (rated as its own player)")
        for col in ("entry", "win rate [95%]", "mean place [95%]", "μ", "σ", "μ-3σ"):
            entries.add_column(col, justify="left" if col == "entry" else "right")
        for e in s["entries"]:
            r = e["rating"]
            entries.add_row(
                e["entry"],
                f"{e['win_rate']:.3f} {_ci(e['win_low'], e['win_high'])}",
                f"{e['mean_place']:.3f} {_ci(e['place_low'], e['place_high'])}",
                f"{r['mu']:.2f}",
                f"{r['sigma']:.2f}",
                f"{r['ordinal']:.2f}",
            )
        console.print(entries)

    if s.get("failures"):
        kinds = sorted({k for counts in s["failures"].values() for k in counts})
        failed = Table(title="Bot failures (each failed move was made by the fallback, or forfeited the game)")
        failed.add_column("bot")
        for kind in kinds:
            failed.add_column(kind, justify="right")
        for name, counts in s["failures"].items():
            failed.add_row(name, *(str(counts.get(k, 0)) for k in kinds))
        console.print(failed)
        if c.exec_settings is not None and c.exec_settings.log_dir is not None:
            console.print(f"Their stderr and what went wrong: {c.exec_settings.log_dir}/")
        elif result.out is not None:
            console.print(f"Their stderr and what went wrong: {result.out / BOT_LOGS}/")

    t = result.timing()
    console.print(
        f"{s['win_rule']}; {s['shared_first_places']} games had a shared first place. "
        f"Mean rounds per game: {s['mean_rounds']:.1f}."
    )
    console.print(
        f"[bold]{len(result.rows)} games in {t['wall_seconds']:.1f} s: {t['games_per_second']:.1f} games/s[/] "
        f"on {c.workers} {'Ray CPU' if c.ray is not None else 'worker'}{'s' if c.workers != 1 else ''} "
        f"(per game {t['play_ms_per_game']:.2f} ms playing, "
        f"{t['record_ms_per_game']:.2f} ms writing its record)"
    )
    if result.out is not None:
        console.print(
            f"Written to {result.out}/: results.json, results.csv, results.png"
            + (f", {RECORDS}/ ({len(result.rows)} game records)" if c.records else "")
        )
