"""The duel trainer on several threads: the same strategy to the bit as on one, in less time.

A half-iteration's hands are traversed at once, and the opponent's regret matching is compiled
and shared out by hands; what they compute must not change by a bit, so that a shipped file is
the same whoever trains it and however (docs/solving.md, "Shipped strategies")."""

from __future__ import annotations

import threading
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

pytest.importorskip("numba")

from liarsdice.cli import app
from liarsdice.duel import game_for
from liarsdice.duel.dcfr import Trainer
from liarsdice.duel.matching import _segment_sum
from liarsdice.rules import preset_options

ARRAYS = ("r_liar", "r_bid", "a_liar", "a_bid", "r_exact", "a_exact")

GAMES = [
    # (preset, overrides, dice, k, hands sampled, who may still call exact)
    ("classic", {"wild_face": 1, "faces": 4}, (2, 2), 3, 6, None),  # 6 draws of 10 hands: repeats
    ("classic", {"faces": 4}, (2, 1), 3, None, None),  # every hand
    ("red-dead", {"faces": 4}, (2, 2), 3, 5, None),  # spot-on
    ("soar", {"faces": 4}, (2, 1), 4, None, (True, False)),  # passes, an exact left to the opener
]


def trained(game, threads: int, sample: int | None, iterations: int = 6) -> Trainer:  # type: ignore[no-untyped-def]
    trainer = Trainer(game, sample=sample, seed=7, threads=threads)
    for _ in range(iterations):
        trainer.iterate()
    return trainer


@pytest.mark.parametrize(("preset", "overrides", "dice", "k", "sample", "left"), GAMES)
def test_threads_train_the_same_regrets_to_the_bit(preset, overrides, dice, k, sample, left) -> None:  # type: ignore[no-untyped-def]
    game = game_for(preset_options(preset, overrides), dice, k, exact_left=left)
    one, three = trained(game, 1, sample), trained(game, 3, sample)
    for name in ARRAYS:
        for player in (0, 1):
            assert np.array_equal(getattr(one, name)[player], getattr(three, name)[player]), (name, player)
    assert one.value == three.value
    assert np.abs(one.r_bid[0]).sum() > 0  # it did train


def test_regret_matching_compiled_is_numpy_s_to_the_bit() -> None:
    # the opponent's strategy is matched in compiled code: its sums must be numpy's (pairwise
    # from eight numbers up), or a file trained today would differ from one trained before
    game = game_for(preset_options("red-dead", {"faces": 4}), (2, 2), 3)
    trainer = Trainer(game, threads=2)
    rng = np.random.default_rng(3)
    for player in (0, 1):
        for name in ("r_liar", "r_bid", "r_exact"):
            array = getattr(trainer, name)[player]
            array[...] = rng.normal(size=array.shape) * (rng.random(array.shape) < 0.6)
        liar, bid, exact = trainer.current(player)
        liar_t, bid_t, exact_t = trainer._current_t(player)
        assert np.array_equal(liar_t, liar.T.astype(np.float32))
        assert np.array_equal(bid_t, bid.T.astype(np.float32))
        assert np.array_equal(exact_t, exact.T.astype(np.float32)) and exact_t.shape[0] > 0
    row = rng.normal(size=800)
    differs = 0
    for first in (0, 3, 50):
        for n in (1, 7, 8, 9, 15, 16, 17, 60, 127, 128, 129, 300, 700):
            numpy_s = np.add.reduceat(row[None, :], [first, first + n], axis=1)[0, 0]
            assert _segment_sum(row, first, n) == numpy_s, (first, n)
            sequential = 0.0
            for x in row[first : first + n]:
                sequential += x
            differs += sequential != numpy_s
    assert differs > 0  # the order of the sums shows: the test above can tell


def test_a_stop_asked_ends_every_thread_before_its_next_hand() -> None:
    game = game_for(preset_options("classic", {"wild_face": 1, "faces": 4}), (2, 2), 3)
    trainer = Trainer(game, threads=2)
    asked = 0
    lock = threading.Lock()

    def cut() -> bool:
        nonlocal asked
        with lock:
            asked += 1
            return asked > 4

    assert not trainer.iterate(cut)
    assert trainer.cut_short is not None
    player, done, hands = trainer.cut_short
    assert player == 0 and done == 4 and hands == 10
    rows_touched = np.flatnonzero(np.abs(trainer.r_bid[0]).sum(axis=1) > 0)
    assert len(rows_touched) == 4


def test_train_takes_threads_and_refuses_a_bad_count(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LIARSDICE_DATA", str(tmp_path))
    runner = CliRunner()
    result = runner.invoke(app, ["train", "--dice", "2", "1", "--faces", "4", "--iterations", "20", "--threads", "2"])
    assert result.exit_code == 0, result.output
    assert "20 iterations in" in result.output
    for bad in ("0", "-1"):
        result = runner.invoke(app, ["train", "--dice", "2", "1", "--threads", bad])
        assert result.exit_code != 0 and "--threads is how many hands train at once: 1 to 256" in result.output
    result = runner.invoke(app, ["train", "--all", "--threads", "0", "--into", str(tmp_path / "x")])
    assert result.exit_code != 0 and "--threads" in result.output
