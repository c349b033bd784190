"""The arena on Ray: a real two-node cluster (`ray start --head`, `ray start --address`) plays the
same games as the local workers, exec: programs included, and leaves no process behind."""

from __future__ import annotations

import contextlib
import csv
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

import pytest

from conftest import free_port
from liarsdice.arena import ArenaInputError
from liarsdice.arena.ray import check_address

LIARSDICE = Path(sys.executable).parent / "liarsdice"
RAY = Path(sys.executable).parent / "ray"
MINIMAL = Path(__file__).resolve().parents[1] / "examples" / "bots" / "minimal.py"

# A bot program that notes which node started it (the nodes' raylets pass their environment on to
# their workers, and the workers to the programs they start), then plays as examples/bots/minimal.py.
WHERE = """\
import os, runpy, sys
tag, folder = os.environ.get("ARENA_NODE"), os.environ.get("ARENA_NODE_DIR")
if tag and folder:
    open(os.path.join(folder, f"{tag}-{os.getpid()}"), "w").close()
runpy.run_path(os.path.join(os.path.dirname(os.path.abspath(__file__)), "minimal.py"), run_name="__main__")
"""


def test_ray_addresses_are_checked() -> None:
    assert check_address(" Local ") == "local" and check_address("auto") == "auto"
    assert check_address("10.0.0.5:6379") == "10.0.0.5:6379"
    assert check_address("ray://head.example:10001") == "ray://head.example:10001"
    for bad in ("", "head", "ray://head", "head:port", "head:0", "http://head:80"):
        with pytest.raises(
            ArenaInputError, match=r"--ray takes local .*, auto .*, HOST:PORT .* or ray://HOST:PORT .*; not "
        ):
            check_address(bad)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--ray", "somewhere"], "--ray takes local (a Ray started for this run), auto"),
        (["--ray-working-dir", "."], "--ray-working-dir goes with --ray"),
        (["--ray", "local", "--ray-working-dir", "no-such-folder"], "--ray-working-dir no-such-folder is not a folder"),
    ],
)
def test_cli_refuses_bad_ray_arguments(args: list[str], message: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [str(LIARSDICE), "arena", "--bots", "random,random", "--out", str(tmp_path / "run"), *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        check=False,
    )
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert not (tmp_path / "run").exists()


# ----- a real cluster -----


def _ours(folders: list[Path]) -> list[int]:
    """Live processes of our nodes: every Ray process names its node's temp folder on its command line."""
    marks = [str(f).encode() for f in folders]
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes()
            state = (proc / "stat").read_text().rsplit(") ", 1)[1][0]
        except (OSError, IndexError):
            continue
        if state != "Z" and any(m in cmdline for m in marks):
            pids.append(int(proc.name))
    return pids


def _stop(groups: list[int], folders: list[Path]) -> None:
    # Not `ray stop`: it stops every Ray on the machine. Our nodes are our process groups (each
    # `ray start` led one); anything that left them still names its node's folder.
    for sig, patience in ((signal.SIGTERM, 10.0), (signal.SIGKILL, 5.0)):
        for group in groups:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(group, sig)
        for pid in _ours(folders):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, sig)
        deadline = time.monotonic() + patience
        while _ours(folders) and time.monotonic() < deadline:
            time.sleep(0.2)
        if not _ours(folders):
            return


# Recent Ray asks every process of a cluster, drivers too, for the cluster's token; one of its own
# keeps the test's nodes from taking up (or being taken up by) ~/.ray/auth_token.
AUTH = {"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}


class Cluster(NamedTuple):
    address: str  # the head's, HOST:PORT
    client: str  # its Ray client server, ray://HOST:PORT
    notes: Path  # where the programs note the node that started them


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """A head and a second node on this machine, one CPU each."""
    if not RAY.exists():
        pytest.skip("Ray is not installed (pip install 'liarsdice[ray]'): the arena on Ray is not tested")
    # Short folders: Ray's socket paths live under them and a Unix socket path has ~107 bytes.
    folders = [Path(tempfile.mkdtemp(prefix="ray", dir="/tmp")) for _ in range(2)]
    notes = Path(tempfile.mkdtemp(prefix="raynotes", dir="/tmp"))
    port = free_port()
    address = f"127.0.0.1:{port}"
    client = free_port()
    groups: list[int] = []

    def start(tag: str, *args: str) -> None:
        env = {**os.environ, **AUTH, "RAY_USAGE_STATS_ENABLED": "0", "ARENA_NODE": tag, "ARENA_NODE_DIR": str(notes)}
        env.pop("RAY_ADDRESS", None)
        proc = subprocess.Popen(
            [str(RAY), "start", *args, "--num-cpus=1", "--node-ip-address=127.0.0.1", "--disable-usage-stats"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,  # its daemons stay in this group: they are stopped by it
        )
        groups.append(proc.pid)
        output, _ = proc.communicate(timeout=120)
        assert proc.returncode == 0, output

    try:
        start("head", "--head", f"--port={port}", f"--temp-dir={folders[0]}", "--include-dashboard=false",
              f"--ray-client-server-port={client}")  # fmt: skip
        start("second", f"--address={address}", f"--temp-dir={folders[1]}")
        yield Cluster(address, f"ray://127.0.0.1:{client}", notes)
    finally:
        _stop(groups, folders)
        left = _ours(folders)
        shutil.rmtree(notes, ignore_errors=True)
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)
        assert left == [], f"Ray processes left running: {left}"


def _arena(cwd: Path, out: Path, *args: str, bots: str = f"exec:{sys.executable} where.py,probability,random",
           games: int = 24) -> subprocess.CompletedProcess[str]:  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k not in ("RAY_ADDRESS", "ARENA_NODE", "ARENA_NODE_DIR")}
    env.update(AUTH)
    command = [
        str(LIARSDICE), "arena", "--bots", bots, "--preset", "classic",
        "--games", str(games), "--seed", "7", "--out", str(out), *args,
    ]  # fmt: skip
    return subprocess.run(command, capture_output=True, text=True, timeout=180, cwd=cwd, env=env, check=False)


def _without_time(data: dict[str, object]) -> dict[str, object]:
    return {k: v for k, v in data.items() if k not in ("timing", "finished", "arguments")}


def test_a_two_node_cluster_plays_the_local_games(cluster: Cluster, tmp_path: Path) -> None:
    address, notes = cluster.address, cluster.notes
    bots = tmp_path / "bots"  # shipped to the workers by --ray-working-dir; the driver runs in it too
    bots.mkdir()
    shutil.copy(MINIMAL, bots / "minimal.py")
    (bots / "where.py").write_text(WHERE)
    local = _arena(bots, tmp_path / "local", "--workers", "2")
    assert local.returncode == 0, local.stderr
    on_ray = _arena(bots, tmp_path / "ray", "--ray", address, "--ray-working-dir", ".")
    assert on_ray.returncode == 0, on_ray.stderr
    assert "24 games in" in on_ray.stdout and "on 2 Ray CPUs" in on_ray.stdout

    # both nodes played: the program was started by workers of each
    started = sorted(p.name.split("-")[0] for p in notes.iterdir())
    assert {"head", "second"} <= set(started), started

    a = json.loads((tmp_path / "local" / "results.json").read_text())
    b = json.loads((tmp_path / "ray" / "results.json").read_text())
    assert b["arguments"]["ray"] == address and b["timing"]["ray"] == address and b["timing"]["workers"] == 2
    assert _without_time(b) == _without_time(a)
    assert not a["failures"] and len(a["game_rows"]) == 24
    assert (tmp_path / "ray" / "results.csv").read_bytes() == (tmp_path / "local" / "results.csv").read_bytes()
    with (tmp_path / "ray" / "results.csv").open() as f:
        assert [int(row["game"]) for row in csv.DictReader(f)] == list(range(1, 25))
    # the records came back to the driver: the same games, only the clock differs
    names = sorted(p.name for p in (tmp_path / "local" / "records").iterdir())
    assert names == sorted(p.name for p in (tmp_path / "ray" / "records").iterdir()) and len(names) == 24
    for name in names:
        here, there = (json.loads((tmp_path / run / "records" / name).read_text()) for run in ("local", "ray"))
        for record in (here, there):
            del record["meta"]["started"], record["meta"]["finished"]
        assert here == there
    # the programs' stderr went to the run's folder (the nodes share this machine's disk here)
    assert (tmp_path / "ray" / "bot-logs").is_dir()


def test_the_ray_client_plays_the_local_games_too(cluster: Cluster, tmp_path: Path) -> None:
    # ray://: the driver outside the cluster (here on the same machine), --workers capping the tasks
    local = _arena(tmp_path, tmp_path / "local", "--workers", "1", "--no-records", bots="strong,probability", games=10)
    assert local.returncode == 0, local.stderr
    on_ray = _arena(tmp_path, tmp_path / "ray", "--ray", cluster.client, "--workers", "1", "--no-records",
                    bots="strong,probability", games=10)  # fmt: skip
    assert on_ray.returncode == 0, on_ray.stderr
    assert "on 1 Ray CPU " in on_ray.stdout and not (tmp_path / "ray" / "records").exists()
    a, b = (json.loads((tmp_path / run / "results.json").read_text()) for run in ("local", "ray"))
    assert b["timing"]["ray"] == cluster.client and _without_time(b) == _without_time(a)
    assert (tmp_path / "ray" / "results.csv").read_bytes() == (tmp_path / "local" / "results.csv").read_bytes()


class _FlakyRay:
    """ray.init as Ray's client proxier answers when it fails to start a driver's server."""

    def __init__(
        self, failures: int, message: str = "Initialization failure from server:\nStarting Ray client server failed."
    ) -> None:
        self.failures, self.calls, self.message = failures, 0, message

    def init(self, **options: object) -> None:
        self.calls += 1
        if self.calls <= self.failures:
            raise ConnectionError(self.message)


def test_a_client_server_that_fails_to_start_a_server_is_asked_again(monkeypatch: pytest.MonkeyPatch) -> None:
    from liarsdice.arena import ray as arena_ray

    monkeypatch.setattr(arena_ray.time, "sleep", lambda _: None)
    flaky = _FlakyRay(failures=arena_ray.CLIENT_SERVER_ATTEMPTS - 1)
    arena_ray._init(flaky, {}, "ray://head:10001")
    assert flaky.calls == arena_ray.CLIENT_SERVER_ATTEMPTS
    # a head address is not a client server: its failure is reported at once, and so is the last one
    for address, failures, calls in (("head:6379", 1, 1), ("ray://head:10001", 99, arena_ray.CLIENT_SERVER_ATTEMPTS)):
        flaky = _FlakyRay(failures)
        with pytest.raises(arena_ray.ArenaError, match=f"cannot reach Ray at --ray {address}: Initialization failure"):
            arena_ray._init(flaky, {}, address)
        assert flaky.calls == calls
    # the server process found dead at its start (ray-project/ray#63202): asked again too
    zombie = "Initialization failure from server:\npsutil.ZombieProcess: PID still exists but it's a zombie (pid=29599)"
    flaky = _FlakyRay(1, zombie)
    arena_ray._init(flaky, {}, "ray://head:10001")
    assert flaky.calls == 2
    # a cluster that is not there is not asked again
    flaky = _FlakyRay(1, "ray client connection timeout")
    with pytest.raises(arena_ray.ArenaError, match="connection timeout"):
        arena_ray._init(flaky, {}, "ray://head:10001")
    assert flaky.calls == 1
