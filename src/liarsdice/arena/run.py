"""A whole run: the games (here or on Ray), the statistics, the files."""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Callable
from pathlib import Path

from .config import RECORDS, ArenaConfig
from .play import exec_settings, play_all
from .results import ArenaResult, bot_sources, check_out_dir, write_csv


def run_arena(
    config: ArenaConfig,
    *,
    on_queued: Callable[[], None] | None = None,
    on_done: Callable[[int], None] | None = None,
    write: bool = True,
) -> ArenaResult:
    """Play the run and, if `write` (and config.out is set), write its files under config.out."""
    if config.ray is not None:
        from .ray import connected

        # Ray first: a cluster that cannot be reached leaves no half-made folder behind.
        with connected(config) as cpus:
            return _run_arena(config, on_queued, on_done, write, cpus)
    return _run_arena(config, on_queued, on_done, write, None)


def _run_arena(
    config: ArenaConfig,
    on_queued: Callable[[], None] | None,
    on_done: Callable[[int], None] | None,
    write: bool,
    ray_cpus: int | None,
) -> ArenaResult:
    out = config.out if write else None
    records = None
    if out is not None:
        check_out_dir(out)
        out.mkdir(parents=True, exist_ok=True)
        if config.records:
            records = out / RECORDS
            records.mkdir()
    bots = bot_sources(config.lineup, exec_settings(config))
    started = time.perf_counter()
    if ray_cpus is not None:
        from .ray import play_on_ray

        rows, workers = play_on_ray(config, ray_cpus, records, on_queued, on_done)
        config = dataclasses.replace(config, workers=workers)  # what the timing is shared over
    else:
        rows = play_all(config, records, on_queued, on_done)
    played = time.perf_counter() - started
    from .report import write_chart  # matplotlib, only when a run is written
    from .stats import summarize

    single_round = any(r.returns is not None for r in rows)
    result = ArenaResult(config, rows, summarize(rows, config.lineup, single_round), played, out, bots=bots)
    if out is not None:
        result.files["csv"] = str(write_csv(out / "results.csv", rows, config.labels))
        result.files["chart"] = str(write_chart(out / "results.png", result))
        if records is not None:
            result.files["records"] = str(records)
        result.files["json"] = str(out / "results.json")
        data = result.to_json()
        data["files"] = {k: Path(v).name for k, v in result.files.items()}
        (out / "results.json").write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return result


def default_workers() -> int:
    return os.cpu_count() or 1
