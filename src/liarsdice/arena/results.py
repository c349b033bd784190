"""A run's files and its result: the CSV of games, the sources of the bots, `ArenaResult`."""

from __future__ import annotations

import csv
import hashlib
import math
import platform
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .config import RECORDS, SEEDING, ArenaConfig, ArenaError, ArenaInputError
from .play import GameRow

if TYPE_CHECKING:
    from ..botproto.driver import ExecSettings


def default_out_dir(base: Path | None = None) -> Path:
    root = base or Path("arena")
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    path = root / stamp
    k = 2
    while path.exists():  # two runs in one second
        path = root / f"{stamp}-{k}"
        k += 1
    return path


def check_out_dir(path: Path) -> None:
    """Refuse a folder that already holds a run: its files would mix with this one's."""
    if path.exists() and not path.is_dir():
        raise ArenaInputError(f"--out {path} is a file, not a folder")
    if (path / "results.json").exists() or (path / RECORDS).exists():
        raise ArenaInputError(f"--out {path} already holds an arena run: choose another folder")


def _versions() -> dict[str, str | None]:
    from importlib import metadata

    out: dict[str, str | None] = {"python": platform.python_version(), "platform": platform.platform()}
    for dist in ("liarsdice", "openskill", "matplotlib", "numpy", "rich"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    return out


def bot_sources(lineup: Sequence[str], settings: ExecSettings | None = None) -> dict[str, dict[str, Any]]:
    # Bots change between runs: the hash of each bot's source file ties the figures to the code.
    import inspect

    from ..botproto.spec import exec_command, is_exec
    from ..bots import BOT_LEVELS

    out: dict[str, dict[str, Any]] = {}
    for level in dict.fromkeys(lineup):
        if is_exec(level):
            out[level] = _program_source(exec_command(level), settings)
            continue
        cls = BOT_LEVELS[level]
        try:
            source = inspect.getsourcefile(cls)
            digest = hashlib.sha256(Path(source).read_bytes()).hexdigest()[:16] if source else None
        except (OSError, TypeError):
            digest = None
        out[level] = {"class": f"{cls.__module__}.{cls.__qualname__}", "source_sha256": digest}
    return out


def _program_source(argv: list[str], settings: ExecSettings | None) -> dict[str, Any]:
    """A program's hello (it is started once here, so a broken one stops the run before it begins)
    and the hash of its file: the first word of its command that names a file."""
    import shutil

    from ..botproto.driver import BotStartError, probe

    try:
        hello = probe(argv, settings)
    except BotStartError as e:
        raise ArenaError(f"a bot program cannot play: {e}") from None
    scripts = [Path(w) for w in argv[1:] if not w.startswith("-") and Path(w).is_file()]
    program = scripts[0] if scripts else Path(shutil.which(argv[0]) or argv[0])
    digest = hashlib.sha256(program.read_bytes()).hexdigest()[:16] if program.is_file() else None
    return {
        "command": argv,
        "name": hello.get("name"),
        "author": hello.get("author"),
        "protocol": hello.get("protocol"),
        "source_sha256": digest,
    }


def write_csv(path: Path, rows: Sequence[GameRow], labels: Sequence[str]) -> Path:
    n = len(labels)
    has_returns = any(row.returns is not None for row in rows)
    header = ["game", "seed", "rotation", "rounds", "steps", "winners"]
    for s in range(n):
        header += [f"seat{s}", f"place{s}"] + ([f"return{s}"] if has_returns else []) + [f"bot_seed{s}"]
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(header)
        for row in rows:
            line: list[Any] = [
                row.game,
                row.seed,
                row.rotation,
                row.rounds,
                row.steps,
                ";".join(labels[row.seating[s]] for s, p in enumerate(row.places) if p == 1),
            ]
            for s in range(n):
                line += [labels[row.seating[s]], row.places[s]]
                if has_returns:
                    line.append(row.returns[s] if row.returns is not None else "")
                line.append(row.bot_seeds[s])
            w.writerow(line)
    return path


@dataclass
class ArenaResult:
    config: ArenaConfig
    rows: list[GameRow]
    summary: dict[str, Any]
    play_seconds: float  # wall time of the games, start of the pool to the last result
    out: Path | None = None
    files: dict[str, str] = field(default_factory=dict)
    bots: dict[str, dict[str, Any]] = field(default_factory=dict)  # the bots' code, when the run began

    @property
    def games_per_second(self) -> float:
        return len(self.rows) / self.play_seconds if self.play_seconds > 0 else math.inf

    def timing(self) -> dict[str, Any]:
        n = max(1, len(self.rows))
        busy = sum(r.play_seconds + r.write_seconds for r in self.rows)
        return {
            "wall_seconds": self.play_seconds,
            "games_per_second": self.games_per_second,
            "workers": self.config.workers,
            "ray": self.config.ray,
            "play_ms_per_game": 1000 * sum(r.play_seconds for r in self.rows) / n,
            "record_ms_per_game": 1000 * sum(r.write_seconds for r in self.rows) / n,
            # the share of the workers' wall time spent inside games and records; the rest is the
            # arena's own overhead (process start, hand-over) plus whatever else the machine ran
            "busy_fraction": busy / (self.play_seconds * self.config.workers) if self.play_seconds > 0 else None,
        }

    def to_json(self) -> dict[str, Any]:
        c = self.config
        return {
            "format": "liarsdice-arena",
            "version": 1,
            "arguments": c.arguments,
            "preset": c.preset,
            "options": c.options.to_dict(),
            "players": c.players,
            "lineup": [{"entry": label, "name": name} for label, name in zip(c.labels, c.lineup, strict=True)],
            "games": len(self.rows),
            "seed": c.seed,
            "seeding": SEEDING,
            "records": RECORDS if c.records else None,
            "versions": _versions(),
            "bots": self.bots or bot_sources(c.lineup),
            "finished": datetime.now(UTC).isoformat(timespec="seconds"),
            "timing": self.timing(),
            **self.summary,
            "game_rows": [
                {
                    "game": r.game,
                    "seed": r.seed,
                    "rotation": r.rotation,
                    "seats": [c.labels[e] for e in r.seating],
                    "bot_seeds": list(r.bot_seeds),
                    "places": list(r.places),
                    "returns": list(r.returns) if r.returns is not None else None,
                    "rounds": r.rounds,
                    "steps": r.steps,
                    "failures": {c.labels[r.seating[s]]: f for s, f in r.failures.items()},
                    "forfeit": c.labels[r.seating[r.forfeit]] if r.forfeit is not None else None,
                }
                for r in self.rows
            ],
        }
