"""The arena's games as Ray tasks, on a local Ray or on an existing cluster (`arena --ray`).

The driver (the `liarsdice arena` process) cuts the run into chunks of games exactly as for its
own worker processes and sends each chunk as a task that calls the same function they call. A
game's seeds depend on nothing but the run's seed and the game's number, so the rows that come
back are the ones the local workers would have returned, and the summary, ratings, CSV and
records come out identical whichever node played which chunk. The records travel back with the
rows and the driver writes them into its own OUT folder: the nodes need no shared storage. A
chunk lost with its node is played again elsewhere by Ray (its retries), with the same result.

Every node needs this version of liarsdice installed (for `exec:` bots, the program too, at the
same path, or shipped with the run by `--ray-working-dir`): see docs/scaling.md.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from .config import ArenaConfig, ArenaError, ArenaInputError, record_name
from .play import GameRow, WorkerSpec, chunk_size, chunks_of, make_spec, play_games, play_games_keeping_records

if TYPE_CHECKING:
    from ray import ObjectRef

ADDRESSES = (
    "local (a Ray started for this run), auto (the cluster this machine belongs to), "
    "HOST:PORT (a cluster's head) or ray://HOST:PORT (a Ray client server)"
)


def check_address(text: str) -> str:
    """The --ray address, checked: local, auto, HOST:PORT or ray://HOST:PORT."""
    address = text.strip()
    if address.lower() in ("local", "auto"):
        return address.lower()
    host, colon, port = address.removeprefix("ray://").rpartition(":")
    if not colon or not host or "/" in host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ArenaInputError(f"--ray takes {ADDRESSES}; not {text!r}")
    return address


def check_working_dir(path: Path) -> Path:
    if not path.is_dir():
        raise ArenaInputError(f"--ray-working-dir {path} is not a folder: give the folder to ship to every Ray worker")
    return path


# A chunk's rows, and its records (game, JSON text) when kept.
ChunkResult = tuple[list[GameRow], list[tuple[int, str]]]


def _chunk(spec: WorkerSpec, numbers: Sequence[int], keep_records: bool) -> ChunkResult:
    # The task itself: the local workers' function, records handed back rather than written.
    if keep_records:
        return play_games_keeping_records(spec, numbers)
    return play_games(spec, numbers), []


def require_ray() -> None:
    """Refuse --ray early, before anything is written, where Ray is not installed."""
    import importlib.util

    if importlib.util.find_spec("ray") is None:
        raise ArenaInputError("--ray needs Ray installed: pip install 'liarsdice[ray]'")


@contextmanager
def connected(config: ArenaConfig) -> Iterator[int]:
    """Ray, initialised as config.ray says (unless this process already did); yields its CPUs."""
    require_ray()
    import ray

    assert config.ray is not None
    owned = not ray.is_initialized()
    if owned:
        options: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": False}
        if config.ray_working_dir is not None:
            options["runtime_env"] = {"working_dir": str(config.ray_working_dir)}
        if config.ray == "local":
            # A Ray of our own, so no telemetry; "local" rather than None: RAY_ADDRESS must not
            # turn it into a connection to some cluster.
            os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
            options.update(address="local", num_cpus=config.workers or None, include_dashboard=False)
        else:
            options["address"] = config.ray
        _init(ray, options, config.ray)
    try:
        # ray leaves cluster_resources unannotated
        cpus = int(ray.cluster_resources().get("CPU", 0))  # type: ignore[no-untyped-call]
        if cpus < 1:
            raise ArenaError(f"the Ray cluster at --ray {config.ray} has no CPUs to play on")
        yield cpus
    finally:
        if owned:
            ray.shutdown()


# Ray's client server starts one server process per driver; under load that start sometimes fails
# (the proxier forks while gRPC threads run: ray-project/ray#63202) and the next attempt, a new
# process, succeeds. The proxier says so as an "initialization failure from server": the start
# failed, or it found the new process dead (a zombie) when it first looked at it.
CLIENT_SERVER_ATTEMPTS = 3
CLIENT_SERVER_FAILURES = ("Initialization failure from server", "Starting Ray client server failed")


def _init(ray: ModuleType, options: dict[str, Any], address: str) -> None:
    attempts = CLIENT_SERVER_ATTEMPTS if address.startswith("ray://") else 1
    for attempt in range(1, attempts + 1):
        try:
            ray.init(**options)
            return
        except (ConnectionError, RuntimeError, ValueError) as e:
            if attempt < attempts and any(failure in str(e) for failure in CLIENT_SERVER_FAILURES):
                time.sleep(attempt)
                continue
            raise ArenaError(f"cannot reach Ray at --ray {address}: {e}") from None


def play_on_ray(
    config: ArenaConfig,
    cpus: int,
    records: Path | None,
    on_queued: Callable[[], None] | None = None,
    on_done: Callable[[int], None] | None = None,
) -> tuple[list[GameRow], int]:
    """Every game of the run as Ray tasks (Ray `connected`, with `cpus`), in game order, and the
    CPUs they were shared over.

    config.workers, when positive, caps the tasks running at once (and sets a local Ray's CPUs);
    0 uses every CPU of the cluster. Records (if `records` is set) are written there by this
    process as their chunks come back.
    """
    import ray
    from ray.exceptions import RayError, RayTaskError

    spec = make_spec(config, None)  # no folder: the tasks hand their records back
    workers = min(config.workers, cpus) if config.workers > 0 else cpus
    chunks = iter(chunks_of(config.games, chunk_size(config.games, workers)))
    # A bounded number of tasks in flight: the driver's memory stays flat for millions of
    # games, and --workers caps what this run takes of a shared cluster. Twice the CPUs
    # when uncapped, so no CPU waits on the driver between two chunks.
    window = config.workers if config.workers > 0 else 2 * cpus
    task = ray.remote(num_cpus=1)(_chunk)
    spec_ref = ray.put(spec)
    pending: dict[ObjectRef[ChunkResult], range] = {}

    def submit() -> None:
        chunk = next(chunks, None)
        if chunk is not None:
            pending[task.remote(spec_ref, chunk, records is not None)] = chunk

    for _ in range(window):
        submit()
    if on_queued:
        on_queued()
    rows: list[GameRow] = []
    try:
        while pending:
            ready, _ = ray.wait(list(pending), num_returns=1)
            for ref in ready:
                chunk = pending.pop(ref)
                try:
                    done, kept = ray.get(ref)
                except RayTaskError as e:
                    cause = e.cause if isinstance(e.cause, ArenaError) else None
                    raise ArenaError(str(cause) if cause else _task_failure(chunk, e)) from None
                except RayError as e:
                    raise ArenaError(_task_failure(chunk, e)) from None
                submit()
                if records is not None:
                    for g, text in kept:
                        (records / record_name(g, config.games)).write_text(text, encoding="utf-8")
                rows.extend(done)
                if on_done:
                    on_done(len(done))
    except BaseException:
        for ref in pending:
            ray.cancel(ref, force=True)
        raise
    rows.sort(key=lambda row: row.game)
    return rows, workers


def _task_failure(chunk: range, error: BaseException) -> str:
    first = str(error).strip().splitlines()
    return (
        f"the Ray task of games {chunk.start} to {chunk.stop - 1} failed ({type(error).__name__}: "
        f"{first[-1] if first else ''}); every node needs this version of liarsdice installed"
    )
