"""`liarsdice train --all`: train every entry of the plan (`plan`) and ship it (`shipped`).

An entry whose artifact the manifest already lists, made by an equal plan entry and intact, is
skipped, so a run cut short goes on where it stopped. Each artifact and its manifest entry are
written as soon as it is trained. A training keeps a checkpoint in the data directory (every
CHECKPOINT_EVERY seconds and when stopped) and goes on from it, so that even a long size is not
lost to a stop; it is deleted once the artifact is written. An iteration is never cut short here:
the artifact is exactly the one the entry's iterations make from its seed.
"""

from __future__ import annotations

import multiprocessing
import signal
import threading
import time
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .plan import Entry
from .shipped import Artifact, ManifestError, read_manifest, rules_key, sha256_of, verify_file, write_manifest

if TYPE_CHECKING:
    from multiprocessing.synchronize import Event

    from .dcfr import Progress

CHECKPOINT_EVERY = 600.0


@dataclass
class Built:
    """What a training of one entry gave: the packed file, or that it was stopped first."""

    entry: Entry
    data: bytes | None
    iterations: int
    seconds: float  # of training, over every run that went into it
    wall: float  # of this run, the graph included


def checkpoint_path(entry: Entry) -> Path:
    from ..paths import data_dir

    return data_dir() / "duel" / "rebuild" / f"{entry.name}-k{entry.k}-s{entry.seed}.train.npz"


def build(entry: Entry, stop: Callable[[], bool] | None = None, threads: int = 1) -> Built:
    """Train `entry` up to its iterations (from its checkpoint if there is one) on `threads`
    threads and pack it; data None if `stop()` said so first (the checkpoint then holds what was
    done). The threads change the time it takes, not the file."""
    from .dcfr import Trainer
    from .graph import game_for
    from .packed import pack, recut
    from .strategy import DuelStrategy

    started = time.perf_counter()
    options = entry.options()
    game = game_for(options, entry.dice, entry.k, exact_left=entry.exact_left, pushed=entry.pushed_round)
    trainer = Trainer(game, sample=entry.sample, seed=entry.seed, threads=threads)
    # what the training depends on: not how it is packed, which may change after a stop
    about = {"plan": {k: v for k, v in entry.to_json().items() if k not in ("bits", "threshold", "recut")}}
    checkpoint = checkpoint_path(entry)
    if checkpoint.exists():
        trainer.resume(checkpoint, about)
    saved = time.perf_counter()

    def progress(_: Progress) -> None:
        nonlocal saved
        if time.perf_counter() - saved >= CHECKPOINT_EVERY:
            trainer.checkpoint(checkpoint, about)
            saved = time.perf_counter()

    left = entry.iterations - trainer.iteration
    if left > 0 and not (stop is not None and stop()):
        trainer.run(iterations=left, on_progress=progress, stop=stop, cut_after=float("inf"))
    if trainer.iteration < entry.iterations:
        if trainer.iteration > 0:
            trainer.checkpoint(checkpoint, about)
        return Built(entry, None, trainer.iteration, trainer.seconds, time.perf_counter() - started)
    liar0, bid0, exact0 = trainer.average(0)
    liar1, bid1, exact1 = trainer.average(1)
    # No time here: the file is the same whatever the machine (the manifest says how long it took).
    meta = {
        "method": "DCFR" if trainer.sample is None else f"DCFR, {trainer.sample} hands sampled per half-iteration",
        "iterations": trainer.iteration,
        "value": float(trainer.value),
        "seed": entry.seed,
    }
    strategy = DuelStrategy(
        options,
        entry.dice,
        entry.k,
        [liar0, liar1],
        [bid0, bid1],
        meta,
        game,
        [exact0, exact1],
        entry.exact_left,
        entry.pushed_round,
    )
    data = pack(strategy, entry.bits, entry.threshold)
    if entry.recut is not None:
        data = recut(data, entry.recut)
    return Built(entry, data, trainer.iteration, trainer.seconds, time.perf_counter() - started)


def done_already(directory: Path, artifacts: list[Artifact], entry: Entry) -> bool:
    """Whether the manifest lists this entry's artifact, made by an equal entry, and it checks out."""
    plan = entry.to_json()
    for artifact in artifacts:
        if artifact.plan == plan:
            try:
                verify_file(directory, artifact)
            except ManifestError:
                return False
            return True
    return False


def cut_again(directory: Path, artifacts: list[Artifact], entry: Entry) -> Built | None:
    """Where the plan now recuts an entry whose artifact was made by the same training, packed
    without the cut: that artifact recut (no training; the same bytes a training would give, as
    `build` packs then recuts). None where there is no such artifact, or it does not check out."""
    if entry.recut is None:
        return None
    before = {k: v for k, v in entry.to_json().items() if k != "recut"}
    for artifact in artifacts:
        if artifact.plan == before:
            try:
                verify_file(directory, artifact)
            except ManifestError:
                return None
            from .packed import recut

            data = recut((directory / artifact.file).read_bytes(), entry.recut, artifact.file)
            return Built(entry, data, artifact.iterations, artifact.seconds, 0.0)
    return None


def record(directory: Path, built: Built) -> Artifact:
    """Write the artifact of `built` and its manifest entry (replacing one of the same rules and dice)."""
    assert built.data is not None
    entry = built.entry
    path = directory / entry.file
    directory.mkdir(parents=True, exist_ok=True)
    partial = directory / f".{entry.file}.partial"
    partial.write_bytes(built.data)
    partial.replace(path)
    artifact = Artifact(
        file=entry.file,
        variant=entry.variant,
        rules=rules_key(entry.options(), entry.exact_left, entry.pushed),
        dice=entry.dice,
        k=entry.k,
        bits=entry.bits,
        iterations=built.iterations,
        sample=entry.sample,
        seed=entry.seed,
        seconds=round(built.seconds, 1),
        bytes=len(built.data),
        sha256=sha256_of(built.data),
        plan=entry.to_json(),
    )
    try:
        others = read_manifest(directory)
    except ManifestError:
        others = []  # a damaged manifest is rebuilt from what is trained again
    kept = [a for a in others if not (a.dice == artifact.dice and a.rules == artifact.rules)]
    write_manifest(directory, [*kept, artifact])
    checkpoint_path(entry).unlink(missing_ok=True)
    return artifact


_worker_stop: Event | None = None  # set in each worker process (`_start_worker`)


def _start_worker(stop: Event) -> None:
    global _worker_stop
    _worker_stop = stop
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent tells the worker to stop


def _build_in_worker(entry: Entry, threads: int) -> Built:
    assert _worker_stop is not None  # the pool starts every worker with _start_worker
    return build(entry, stop=_worker_stop.is_set, threads=threads)


def run(
    plan: list[Entry],
    directory: Path,
    *,
    jobs: int = 1,
    threads: int = 1,
    echo: Callable[[str], None] = print,
    stop: threading.Event | None = None,
) -> tuple[list[Artifact], list[Entry]]:
    """Train and ship every entry of `plan` not shipped yet, `jobs` at a time (processes) on
    `threads` threads each; the artifacts written, and the entries skipped as done. `stop`, once set, lets the trainings
    under way reach the end of their iteration and save their checkpoints, and starts no more.
    ManifestError if the manifest is damaged (delete it to start over)."""
    existing = read_manifest(directory)
    skipped = [e for e in plan if done_already(directory, existing, e)]
    todo = [e for e in plan if e not in skipped]
    for e in skipped:
        echo(f"{e.name}: shipped already ({e.file})")
    stop = stop if stop is not None else threading.Event()
    written: list[Artifact] = []
    for e in list(todo):
        again = cut_again(directory, existing, e)
        if again is not None and again.data is not None:
            artifact = record(directory, again)
            written.append(artifact)
            todo.remove(e)
            echo(f"{e.name}: recut under {e.recut} without training: {artifact.bytes / 1e3:,.0f} kB, {e.file}")

    def finished(built: Built) -> None:
        e = built.entry
        if built.data is None:
            echo(
                f"{e.name}: stopped at iteration {built.iterations} of {e.iterations}; the next run goes on from there"
            )
            return
        artifact = record(directory, built)
        written.append(artifact)
        how = "every hand" if e.sample is None else f"{e.sample} hands sampled"
        echo(
            f"{e.name}: {built.iterations:,} iterations in {built.seconds:,.0f} s of training "
            f"({built.wall:,.0f} s this run; k={e.k}, {how}): {artifact.bytes / 1e3:,.0f} kB, {e.file}"
        )

    if jobs <= 1 or len(todo) <= 1:
        for e in todo:
            if stop.is_set():
                break
            echo(f"{e.name}: training ({e.iterations:,} iterations, k={e.k})")
            finished(build(e, stop.is_set, threads))
        return written, skipped
    shared = multiprocessing.get_context("fork").Event()
    with ProcessPoolExecutor(jobs, multiprocessing.get_context("fork"), _start_worker, (shared,)) as pool:
        waiting = list(todo)
        running: dict[Future[Built], Entry] = {}
        while waiting or running:
            while waiting and len(running) < jobs and not stop.is_set():
                e = waiting.pop(0)
                echo(f"{e.name}: training ({e.iterations:,} iterations, k={e.k})")
                running[pool.submit(_build_in_worker, e, threads)] = e
            if stop.is_set():
                shared.set()
                waiting.clear()
            if not running:
                break
            done, _ = wait(running, timeout=1.0, return_when=FIRST_COMPLETED)
            for future in done:
                running.pop(future)
                finished(future.result())
    return written, skipped


def describe(artifacts: list[Artifact]) -> str:
    """One line: how many artifacts and their bytes together."""
    total = sum(a.bytes for a in artifacts)
    return f"{len(artifacts)} shipped strategies, {total / 1e6:.2f} MB together"
