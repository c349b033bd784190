"""The duel strategies shipped inside the package: trained once (`liarsdice train --all`), read here.

`shipped/manifest.json` lists one packed strategy (`packed`) per two-player round of a bidding
variant: the file, the rules it was trained for, the dice, the memory k, the bits a probability,
how it was trained (iterations, hands sampled, seed, seconds), its size and sha256, and the plan
entry (`plan.Entry`) that made it. The duel bot plays a shipped strategy only in a round of
exactly those rules (RULE_FIELDS) and dice; a manifest or file that does not check out is logged
and left out, and the bot plays as if none were shipped.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..rules import Options
from .graph import exact_cap

if TYPE_CHECKING:
    from .strategy import DuelStrategy

log = logging.getLogger("liarsdice.duel")

SHIPPED_DIR = Path(__file__).parent / "shipped"
MANIFEST = "manifest.json"
FORMAT = "liarsdice-duel-shipped"
VERSION = 1
# What a trained strategy depends on: the bidding and counting rules, and the exact call (spot-on,
# calza): whether it exists and what a hit pays, which for a die gained depends on the cup's cap
# (`exact_cap`, derived; a strategy trained without exact is not the equilibrium of a round with it).
RULE_FIELDS = (
    "faces",
    "wild_face",
    "wild_bid_rule",
    "bid_order",
    "wild_opening",
    "max_quantity",
    "exact",
    "exact_limit",
    "exact_cap",
)
# Only in the keys of rules that have them: Soar's pass, who may still call an exact allowed once
# a game (the game's, not the round's: a strategy per answer), and for the round after a push the
# dice player 0 showed (`graph.Pushed`: the pusher is player 0).
OPTIONAL_FIELDS = ("pass", "exact_left", "pushed")


class ManifestError(ValueError):
    """A manifest or shipped file that does not check out (the message says what and where)."""


def rules_key(
    options: Options, exact_left: tuple[bool, bool] | None = None, pushed: tuple[int, ...] | None = None
) -> dict[str, Any]:
    """The rules a shipped strategy is for, as the manifest records them; `exact_left` where exact
    may be called once a game (which players still may); `pushed`, the dice player 0 showed, for
    the round after its push."""
    rules = {**options.to_dict(), "exact_cap": exact_cap(options)}
    key = {name: rules[name] for name in RULE_FIELDS}
    if options.pass_rule != "none":
        key["pass"] = options.pass_rule
    if options.exact != "none" and options.exact_limit != "unlimited" and exact_left is not None:
        key["exact_left"] = [bool(exact_left[0]), bool(exact_left[1])]
    if pushed is not None:
        key["pushed"] = sorted(int(d) for d in pushed)
    return key


@dataclass(frozen=True)
class Artifact:
    """One manifest entry."""

    file: str
    variant: str
    rules: dict[str, Any]
    dice: tuple[int, int]
    k: int
    bits: int
    iterations: int
    sample: int | None
    seed: int
    seconds: float
    bytes: int
    sha256: str
    plan: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "variant": self.variant,
            "rules": self.rules,
            "dice": list(self.dice),
            "k": self.k,
            "bits": self.bits,
            "iterations": self.iterations,
            "sample": self.sample,
            "seed": self.seed,
            "seconds": self.seconds,
            "bytes": self.bytes,
            "sha256": self.sha256,
            "plan": self.plan,
        }

    @classmethod
    def from_json(cls, data: Any, where: str) -> Artifact:
        if not isinstance(data, dict):
            raise ManifestError(f"{where} is not an object of the manifest's form")
        want: dict[str, type | tuple[type, ...]] = {
            "file": str,
            "variant": str,
            "rules": dict,
            "dice": list,
            "k": int,
            "bits": int,
            "iterations": int,
            "seed": int,
            "seconds": (int, float),
            "bytes": int,
            "sha256": str,
            "plan": dict,
        }
        for name, kind in want.items():
            if name not in data:
                raise ManifestError(f"{where} has no {name!r}")
            if not isinstance(data[name], kind) or isinstance(data[name], bool):
                raise ManifestError(f"{where}: {name!r} is {data[name]!r}, not a {getattr(kind, '__name__', 'number')}")
        dice = data["dice"]
        if len(dice) != 2 or not all(isinstance(d, int) and d >= 1 for d in dice):
            raise ManifestError(f"{where}: 'dice' is {dice!r}, not the dice of two players")
        names = set(data["rules"])
        if not set(RULE_FIELDS) <= names or not names <= {*RULE_FIELDS, *OPTIONAL_FIELDS}:
            raise ManifestError(
                f"{where}: 'rules' names {sorted(data['rules'])}, not {sorted(RULE_FIELDS)} "
                f"and perhaps {' and '.join(OPTIONAL_FIELDS)}"
            )
        sample = data.get("sample")
        if sample is not None and (not isinstance(sample, int) or sample < 1):
            raise ManifestError(f"{where}: 'sample' is {sample!r}, not a number of hands or null")
        if Path(data["file"]).name != data["file"] or not data["file"]:
            raise ManifestError(f"{where}: 'file' is {data['file']!r}, not a file name in the manifest's directory")
        return cls(
            data["file"],
            data["variant"],
            data["rules"],
            (dice[0], dice[1]),
            data["k"],
            data["bits"],
            data["iterations"],
            sample,
            data["seed"],
            float(data["seconds"]),
            data["bytes"],
            data["sha256"],
            data["plan"],
        )


def read_manifest(directory: Path) -> list[Artifact]:
    """The artifacts listed in `directory`'s manifest ([] if it has none); ManifestError if it
    is unreadable or not of the manifest's form. Kept while the file is unchanged: the duel bot
    asks at the first decision of every duel size."""
    path = directory / MANIFEST
    try:
        stat = path.stat()
    except FileNotFoundError:
        return []
    except OSError as e:
        raise ManifestError(f"{path} does not read: {e}") from e
    return list(_read_manifest(path, stat.st_mtime_ns, stat.st_size))


@lru_cache(maxsize=16)
def _read_manifest(path: Path, mtime_ns: int, size: int) -> tuple[Artifact, ...]:
    """`read_manifest` of the manifest at `path` as it was at this time and size."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return ()
    except (OSError, UnicodeDecodeError) as e:
        raise ManifestError(f"{path} does not read: {e}") from e
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ManifestError(f"{path} is not JSON: {e}") from e
    if not isinstance(data, dict) or data.get("format") != FORMAT or data.get("version") != VERSION:
        raise ManifestError(f"{path} is not a manifest of shipped duel strategies (format {FORMAT}, version {VERSION})")
    entries = data.get("artifacts")
    if not isinstance(entries, list):
        raise ManifestError(f"{path} has no list of artifacts")
    artifacts = [Artifact.from_json(e, f"{path}, artifact {i + 1}") for i, e in enumerate(entries)]
    seen: dict[tuple[str, tuple[int, int]], str] = {}
    for a in artifacts:
        key = (json.dumps(a.rules, sort_keys=True), a.dice)
        if key in seen:
            raise ManifestError(f"{path} lists {seen[key]} and {a.file} for the same rules and dice")
        seen[key] = a.file
    return tuple(artifacts)


def write_manifest(directory: Path, artifacts: list[Artifact]) -> Path:
    """Write the manifest of `artifacts` (by variant, then dice), whole or not at all."""
    directory.mkdir(parents=True, exist_ok=True)
    ordered = sorted(artifacts, key=lambda a: (a.variant, a.dice))
    # One line an artifact: a new or retrained one is one line of the diff.
    lines = ",\n".join("  " + json.dumps(a.to_json(), sort_keys=True) for a in ordered)
    head = json.dumps({"format": FORMAT, "version": VERSION})[:-1]
    text = f'{head}, "artifacts": [\n{lines}\n]}}' if ordered else f'{head}, "artifacts": []}}'
    path = directory / MANIFEST
    partial = directory / f".{MANIFEST}.{os.getpid()}.partial"
    try:
        partial.write_text(text + "\n", encoding="utf-8")
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
    return path


def sha256_of(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def verify_file(directory: Path, artifact: Artifact) -> bytes:
    """The bytes of `artifact`'s file; ManifestError if it is missing or its size or sha256 is not
    the manifest's."""
    path = directory / artifact.file
    try:
        data = path.read_bytes()
    except OSError as e:
        raise ManifestError(f"{path} does not read: {e}") from e
    if len(data) != artifact.bytes:
        raise ManifestError(f"{path} has {len(data):,} bytes where the manifest says {artifact.bytes:,}")
    if sha256_of(data) != artifact.sha256:
        raise ManifestError(f"{path} does not match the manifest's sha256 (a damaged or replaced file)")
    return data


def load_artifact(directory: Path, artifact: Artifact) -> DuelStrategy:
    """The strategy of `artifact`, checked against its entry (size, sha256, rules, dice and k);
    ManifestError saying what does not match."""
    from .packed import unpack

    path = directory / artifact.file
    data = verify_file(directory, artifact)
    try:
        strategy = unpack(data, str(path), lazy=True)  # a hand's row at a time: the first move at once
    except ValueError as e:
        raise ManifestError(str(e)) from e
    strategy.meta["shipped"] = artifact.file
    shown = None if strategy.pushed is None else strategy.pushed.dice
    if strategy.pushed is not None and strategy.pushed.seat != 0:
        raise ManifestError(f"{path} is of a round after player 1's push: a shipped one is after player 0's")
    got = (rules_key(strategy.options, strategy.exact_left, shown), strategy.dice, strategy.k)
    if got != (artifact.rules, artifact.dice, artifact.k):
        raise ManifestError(
            f"{path} holds {got[1][0]} vs {got[1][1]} dice at k={got[2]} with rules {got[0]}, "
            f"not what the manifest lists: {artifact.dice[0]} vs {artifact.dice[1]} at k={artifact.k}, {artifact.rules}"
        )
    return strategy


_lock = threading.Lock()
_reported: set[str] = set()  # problems logged once per process, not at every decision


def _report(problem: str) -> None:
    with _lock:
        if problem in _reported:
            return
        _reported.add(problem)
    log.warning("%s; the duel bot plays without this shipped strategy", problem)


def shipped_strategy(
    options: Options,
    dice: tuple[int, int],
    directory: Path | None = None,
    exact_left: tuple[bool, bool] | None = None,
    pushed: tuple[int, ...] | None = None,
) -> DuelStrategy | None:
    """The shipped strategy of a two-player round of these rules and dice (the opener's first)
    and, where exact may be called once a game, `exact_left` (the opener's first); with `pushed`,
    of the round after player 0 (the pusher, its dice first) showed those dice. None if none is
    shipped or it does not check out (then logged as a warning)."""
    where = SHIPPED_DIR if directory is None else directory
    try:
        artifacts = read_manifest(where)
    except ManifestError as e:
        _report(str(e))
        return None
    key = rules_key(options, exact_left, pushed)
    for artifact in artifacts:
        if artifact.rules == key and artifact.dice == tuple(dice):
            try:
                return load_artifact(where, artifact)
            except ManifestError as e:
                _report(str(e))
                return None
    return None


__all__ = [
    "Artifact",
    "ManifestError",
    "RULE_FIELDS",
    "SHIPPED_DIR",
    "load_artifact",
    "read_manifest",
    "rules_key",
    "shipped_strategy",
    "verify_file",
    "write_manifest",
]
