"""Shipped duel strategies: the packed format, the manifest, the duel bot's lookup, `train --all`.

Every artifact here is built in the test from a few iterations of a small duel (2 dice against 1),
in a temporary folder that stands for the package's `duel/shipped/`."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

pytest.importorskip("numba")

from liarsdice.bots import strong_duel as sd
from liarsdice.bots.duel import DuelBot
from liarsdice.bots.trained import TrainedDuels, strategies_dir, strategy_key
from liarsdice.cli import app
from liarsdice.duel import DuelStrategy, game_for, shipped, train
from liarsdice.duel.dcfr import Trainer
from liarsdice.duel.graph import GAME_WORTH_MOST_DICE
from liarsdice.duel.packed import BITS, Layout, PackedStrategy, own_reach, pack, unpack
from liarsdice.duel.plan import VARIANTS, Entry, entries, select
from liarsdice.duel.rebuild import Built, build, checkpoint_path, record
from liarsdice.rules import Bid, Game, preset_options

DICE = (2, 1)
K = 2


@pytest.fixture(autouse=True)
def folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty data directory, and an empty folder of shipped strategies (returned). No lookup
    of an earlier test goes on in the background: one had read this test's damaged folder and
    logged its warning here."""
    TrainedDuels.stop_fetching()
    monkeypatch.setenv("LIARSDICE_DATA", str(tmp_path / "data"))
    monkeypatch.setattr(TrainedDuels, "cache", {})
    monkeypatch.setattr(TrainedDuels, "not_trained", set())
    # what was asked ahead is kept by the id of the tables, which a new dict may reuse
    monkeypatch.setattr(TrainedDuels, "_asked_ahead", set())
    monkeypatch.setattr(TrainedDuels, "_last_ahead", None)
    monkeypatch.setattr(shipped, "_reported", set())
    monkeypatch.setattr(shipped, "SHIPPED_DIR", tmp_path / "shipped")
    sd.exact_solutions.cache_clear()
    yield tmp_path / "shipped"
    TrainedDuels.stop_fetching()


_trained: dict[int, DuelStrategy] = {}


def small(iterations: int = 60) -> DuelStrategy:
    """2 dice against 1, ones wild, remembering 2 bids: trained once for the whole module."""
    if iterations not in _trained:
        _trained[iterations] = train(preset_options("classic", {"wild_face": 1}), DICE, k=K, iterations=iterations)
    return _trained[iterations]


def ship(folder: Path, strategy: DuelStrategy | None = None, variant: str = "ones") -> shipped.Artifact:
    """`strategy` (the small one if None) written into `folder` as `train --all` writes it."""
    strategy = strategy or small()
    entry = Entry(variant, strategy.dice, strategy.k, 60, None, 0, 8, 0.005)
    return record(folder, Built(entry, pack(strategy, 8), 60, 1.0, 1.0))


def duel_view(options_overrides: dict[str, object], preset: str = "classic"):  # type: ignore[no-untyped-def]
    options = preset_options(preset, {"num_players": 2, "dice_per_player": [2, 1], **options_overrides})
    return Game(options, seats=["A", "B"]).position([(2, 5), (3,)], starter=0).view(0)


# ----- the format -----


def normalised(layout: Layout, rows: np.ndarray, threshold: float) -> np.ndarray:
    """Each (hand, node) of `rows` as probabilities, those under `threshold` but the best dropped."""
    total = np.add.reduceat(rows, layout.start, axis=1)[:, layout.segment]
    probs = rows / total
    best = np.maximum.reduceat(probs, layout.start, axis=1)[:, layout.segment]
    probs = np.where((probs >= threshold) | (probs == best), probs, 0.0)
    return probs / np.add.reduceat(probs, layout.start, axis=1)[:, layout.segment]


@pytest.mark.parametrize(("bits", "threshold"), [(12, 0.002), (8, 0.005), (8, 0.0), (5, 0.0)])
def test_round_trip_keeps_every_reachable_probability_within_one_unit(
    bits: int, threshold: float, tmp_path: Path
) -> None:
    strategy = small()
    data = pack(strategy, bits, threshold)
    back = unpack(data, graph=strategy.game)
    q = (1 << bits) - 1
    assert (back.dice, back.k, back.options) == (strategy.dice, strategy.k, strategy.options)
    assert (back.meta["bits"], back.meta["threshold"], back.meta["iterations"]) == (bits, threshold, 60)
    dropped = 0
    for p in (0, 1):
        layout = Layout(strategy.game, p)
        before = normalised(layout, layout.rows(strategy.liar[p], strategy.bid[p]), threshold)
        after = layout.rows(back.liar[p], back.bid[p])
        sums = np.add.reduceat(after, layout.start, axis=1)
        units = np.rint(after * q).astype(np.int64)
        reached = own_reach(strategy.game, p, layout, units, bits)
        # every node the player reaches with a hand under the stored strategy is stored whole
        assert np.allclose(sums[reached], 1.0, atol=1e-6)
        assert np.abs(after - before)[reached[:, layout.segment]].max() < 1 / q
        assert np.allclose(after, units / q, atol=1e-7)  # whole units
        # and only those are dropped (left at zero)
        assert np.all(sums[~reached] == 0)
        dropped += int((~reached).sum())
    assert dropped > 0  # the small strategy never raises some bids: something was left out
    assert len(data) < 0.5 * strategy.save(tmp_path / "float32.npz").stat().st_size


def test_eight_bits_play_as_well_as_the_trained_strategy() -> None:
    strategy = small()
    float_loss = strategy.exact_exploitability()
    assert unpack(pack(strategy, 8)).exact_exploitability() == pytest.approx(float_loss, abs=5e-4)


def test_a_lazy_strategy_plays_and_holds_what_the_whole_one_does() -> None:
    """`unpack(lazy=True)`, as the duel bot loads shipped strategies: a hand's row at a time for
    `policy`, the same numbers as decoding the whole tables, which it does when they are read."""
    strategy = small()
    data = pack(strategy, 8)
    whole = unpack(data, graph=strategy.game)
    lazy = unpack(data, graph=strategy.game, lazy=True)
    assert isinstance(lazy, PackedStrategy)
    game = strategy.game
    bids = game.spec.bids
    for history in ([], [bids[0]], [bids[0], bids[3]], [bids[2], bids[5], bids[7]]):
        player = len(history) % 2
        for hand in game.players[player].index:
            assert lazy.policy(hand, history) == whole.policy(hand, history)
    assert "liar" not in vars(lazy)  # played from rows alone
    for p in (0, 1):
        for h in range(len(game.players[p].hands)):
            for row, table in zip(lazy.rows(p, h), (whole.liar[p], whole.bid[p], whole.exact[p]), strict=True):
                assert np.array_equal(row, table[h])
    for p in (0, 1):
        assert np.array_equal(lazy.liar[p], whole.liar[p])  # reading the tables decodes them whole
        assert np.array_equal(lazy.bid[p], whole.bid[p])
        assert np.array_equal(lazy.exact[p], whole.exact[p])
    assert lazy.exact_exploitability() == whole.exact_exploitability()


def test_damaged_data_is_refused_with_what_is_wrong() -> None:
    data = pack(small(), 8)
    with pytest.raises(ValueError, match="does not start with"):
        unpack(b"PK" + data[2:], "x.duel")
    with pytest.raises(ValueError, match="compressed part"):
        unpack(data[:-40], "x.duel")
    with pytest.raises(ValueError, match="4 to 16 bits"):
        pack(small(), 3)
    with pytest.raises(ValueError, match="threshold is a probability"):
        pack(small(), 8, 0.5)
    assert max(BITS) == 16


# ----- the manifest and the duel bot's lookup -----


def test_a_fresh_empty_data_directory_plays_the_shipped_strategy(folders: Path) -> None:
    artifact = ship(folders)
    assert not strategies_dir().exists()
    listed = json.loads((folders / shipped.MANIFEST).read_text())
    assert (
        listed["artifacts"][0]["sha256"] == artifact.sha256
        and artifact.bytes == (folders / artifact.file).stat().st_size
    )
    bot = DuelBot(seed=0)
    view = duel_view({"wild_face": 1})
    assert bot.act(view) in view.legal_actions and bot.source == "duel"
    strategy = bot.strategy_for(view.options, DICE, train_small=False)
    assert strategy.meta["shipped"] == artifact.file
    assert not strategies_dir().exists()  # nothing trained or written at play time
    # the strong bot mixes it in as well
    assert sd.equilibrium_at(view, None) is not None


def test_the_next_round_s_strategies_are_looked_up_ahead_in_the_background(folders: Path) -> None:
    import time

    from liarsdice.duel import default_k

    artifact = ship(folders)  # 2 dice against 1
    options = duel_view({"wild_face": 1}).options
    TrainedDuels.fetch_ahead(options, (2, 2))  # the next round: 2 vs 1 or 1 vs 2
    found = strategy_key(options, DICE, default_k(options, DICE))
    missing = strategy_key(options, (1, 2), default_k(options, (1, 2)))
    deadline = time.monotonic() + 60
    while (found not in TrainedDuels.cache or missing not in TrainedDuels.not_trained) and time.monotonic() < deadline:
        time.sleep(0.01)
    strategy = TrainedDuels.cache[found]
    assert strategy is not None and strategy.meta["shipped"] == artifact.file
    assert missing not in TrainedDuels.cache  # none for 1 vs 2: noted, and nothing trained
    assert not strategies_dir().exists()


def test_forget_waits_for_the_lookup_under_way_in_the_background(monkeypatch: pytest.MonkeyPatch) -> None:
    """A lookup still going when the tables are emptied (a new data directory) would fill them
    from the old one."""
    import threading

    started, release, finished = threading.Event(), threading.Event(), threading.Event()

    def slow_look_up(cls, options, dice, k, train_small, cache, missing, left=None, pushed=None):  # type: ignore[no-untyped-def]
        started.set()
        release.wait(10)
        cache["from the old directory"] = None
        finished.set()

    monkeypatch.setattr(TrainedDuels, "_look_up", classmethod(slow_look_up))
    TrainedDuels.fetch(duel_view({"wild_face": 1}).options, [(2, 1)])
    assert started.wait(10)
    forgetting = threading.Thread(target=TrainedDuels.forget)
    forgetting.start()
    forgetting.join(0.3)
    assert forgetting.is_alive()  # waiting for the lookup
    release.set()
    forgetting.join(10)
    assert finished.is_set() and TrainedDuels.cache == {}


def test_the_first_duel_of_a_table_of_three_is_looked_up_ahead(folders: Path) -> None:
    """At a table of three where a cup of one die may go out, Master's decision there has the duel
    of the other two looked up in the background: the game's first duel decision finds it."""
    import time

    from liarsdice.duel import default_k

    artifact = ship(folders)  # 2 dice against 1
    options = preset_options("classic", {"num_players": 3, "dice_per_player": [2, 1, 1], "wild_face": 1})
    view = Game(options, seats=["A", "B", "C"]).position([(2, 5), (3,), (4,)], starter=0).view(0)
    found = strategy_key(options, DICE, default_k(options, DICE))
    assert found not in TrainedDuels.cache
    bot = DuelBot(seed=0)
    assert bot.act(view) in view.legal_actions and bot.source == "fallback"  # not a duel yet
    deadline = time.monotonic() + 60
    while found not in TrainedDuels.cache and time.monotonic() < deadline:
        time.sleep(0.01)
    strategy = TrainedDuels.cache[found]
    assert strategy is not None and strategy.meta["shipped"] == artifact.file
    bot.close()


def test_one_die_each_is_solved_ahead_in_the_background(monkeypatch: pytest.MonkeyPatch) -> None:
    import time

    from liarsdice.bots.cfr import CfrBot, solution_key

    monkeypatch.setattr(CfrBot, "_cache", {})
    options = duel_view({"wild_face": 1}).options  # no exact call: 1 vs 1 is solved exactly
    TrainedDuels.fetch_ahead(options, (1, 2))
    key = solution_key(options, (1, 1))
    deadline = time.monotonic() + 60
    while key not in CfrBot._cache and time.monotonic() < deadline:
        time.sleep(0.01)
    solution = CfrBot._cache[key]
    assert solution is not None and solution.exploitability < 1e-3


@pytest.mark.parametrize(
    ("preset", "overrides"),
    [
        ("classic", {"wild_face": "top"}),  # another wild face
        ("classic", {}),  # no wild face
        ("perudo_basic", {}),  # Perudo's bids on ones
        ("classic", {"wild_face": 1, "exact": "others_lose"}),  # a spot-on call
        ("classic", {"wild_face": 1, "faces": 5}),
    ],
)
def test_a_shipped_strategy_is_played_only_under_exactly_its_rules(
    folders: Path, preset: str, overrides: dict[str, object]
) -> None:
    ship(folders)
    view = duel_view(overrides, preset)
    bot = DuelBot(seed=0)
    # found for its own rules first (and kept in memory), then asked for others
    assert bot.strategy_for(duel_view({"wild_face": 1}).options, DICE, train_small=False) is not None
    assert bot.strategy_for(view.options, DICE, train_small=False) is None
    assert sd.equilibrium_at(view, None) is None
    # the same rules with other cups are not it either
    other = preset_options("classic", {"num_players": 2, "dice_per_player": [1, 2], "wild_face": 1})
    assert bot.strategy_for(other, (1, 2), train_small=False) is None


def test_a_strategy_trained_in_the_data_directory_comes_before_the_shipped_one(folders: Path) -> None:
    ship(folders)
    options = duel_view({"wild_face": 1}).options
    local = small(20)
    local.save(strategies_dir() / f"{strategy_key(options, DICE, K)}.npz")
    strategy = DuelBot(seed=0, k=K).strategy_for(options, DICE, train_small=False)
    assert "shipped" not in strategy.meta and strategy.meta["iterations"] == 20


def test_one_die_each_is_played_exactly_not_from_a_shipped_file(folders: Path) -> None:
    ship(folders)
    view = Game(preset_options("classic", {"num_players": 2, "dice_per_player": 1, "wild_face": 1}), ["A", "B"])
    bot = DuelBot(seed=0)
    bot.act(view.position([(2,), (5,)], starter=0).view(0))
    assert bot.source == "exact"


@pytest.mark.parametrize("variant", ["ones", "top", "none", "perudo", "jokers"])
def test_one_die_each_is_played_from_a_shipped_solution_with_nothing_solved(
    folders: Path, monkeypatch: pytest.MonkeyPatch, variant: str
) -> None:
    import liarsdice.solver as solver
    from liarsdice.bots.cfr import CfrBot, solutions_dir

    def no_solving(*args: object, **kwargs: object) -> None:
        raise AssertionError("solved at play time")

    monkeypatch.setattr(solver, "solve", no_solving)
    monkeypatch.setattr(CfrBot, "_cache", {})
    preset, overrides = VARIANTS[variant]
    options = preset_options(preset, {**overrides, "num_players": 2, "dice_per_player": 1})
    bot = DuelBot(seed=0)
    view = Game(options, ["A", "B"]).position([(2,), (5,)], starter=0).view(0)
    assert bot.act(view) in view.legal_actions and bot.source == "exact"
    assert not solutions_dir().exists()  # nothing solved or written at play time


def test_the_shipped_solutions_are_exact_and_named_for_their_rules() -> None:
    from liarsdice.bots.cfr import SHIPPED_SOLUTIONS, solution_key
    from liarsdice.solver import Solution

    files = sorted(SHIPPED_SOLUTIONS.glob("*.npz"))
    assert len(files) == 5
    for path in files:
        solution = Solution.load(path)
        assert solution.dice == (1, 1) and solution.exploitability <= 1e-3
        assert path.name == f"{solution_key(solution.options, solution.dice)}.npz"


def damage(folder: Path, artifact: shipped.Artifact, how: str) -> None:
    path = folder / artifact.file
    manifest = folder / shipped.MANIFEST
    if how == "flipped byte":
        data = bytearray(path.read_bytes())
        data[len(data) // 2] ^= 0xFF
        path.write_bytes(bytes(data))
    elif how == "missing file":
        path.unlink()
    elif how == "manifest not json":
        manifest.write_text("{not json")
    elif how == "entry without sha256":
        listed = json.loads(manifest.read_text())
        del listed["artifacts"][0]["sha256"]
        manifest.write_text(json.dumps(listed))
    elif how == "other rules":
        # a file of 2 dice against 1 with the top face wild, listed as the ones-wild one
        other = train(preset_options("classic", {"wild_face": "top"}), DICE, k=K, iterations=2)
        data = pack(other, 8)
        path.write_bytes(data)
        listed = json.loads(manifest.read_text())
        listed["artifacts"][0].update(bytes=len(data), sha256=shipped.sha256_of(data))
        manifest.write_text(json.dumps(listed))


@pytest.mark.parametrize(
    ("how", "said"),
    [
        ("flipped byte", "sha256"),
        ("missing file", "does not read"),
        ("manifest not json", "is not JSON"),
        ("entry without sha256", "artifact 1 has no 'sha256'"),
        ("other rules", "not what the manifest lists"),
    ],
)
def test_a_damaged_artifact_is_logged_and_the_bot_plays_without_it(
    folders: Path, caplog: pytest.LogCaptureFixture, how: str, said: str
) -> None:
    damage(folders, ship(folders), how)
    view = duel_view({"wild_face": 1})
    bot = DuelBot(seed=0)
    with caplog.at_level(logging.WARNING, logger="liarsdice.duel"):
        assert bot.act(view) in view.legal_actions
    assert bot.source == "fallback"
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and said in warnings[0] and "plays without" in warnings[0]


def test_the_manifest_refuses_two_files_for_one_round(folders: Path) -> None:
    artifact = ship(folders)
    manifest = folders / shipped.MANIFEST
    listed = json.loads(manifest.read_text())
    listed["artifacts"].append({**listed["artifacts"][0], "file": "again.duel"})
    manifest.write_text(json.dumps(listed))
    with pytest.raises(shipped.ManifestError, match=f"lists {artifact.file} and again.duel"):
        shipped.read_manifest(folders)


# ----- the plan and train --all -----


def test_the_plan_covers_every_pair_but_one_die_each_in_every_variant() -> None:
    plan = entries()
    # 24 pairs of cups in each of 8 variants, and 1 vs 1 in the three with an exact call; Soar's
    # once an exact is called, all 25 sizes in each of the three answers; and the rounds after a
    # push, up to 5 dice in all, one a set of dice the pusher (2, 3 or 4 dice) may show: 6, 17, 33
    pushed = [e for e in plan if e.variant == "soar-pushed"]
    assert len(pushed) == 3 * 6 + 2 * 17 + 33 and all(e.pushed for e in pushed)
    assert {e.dice for e in pushed} == {(2, 1), (2, 2), (2, 3), (3, 1), (3, 2), (4, 1)}
    assert len(plan) == 24 * 8 + 3 + 3 * 25 + len(pushed)
    assert len({(e.variant, e.dice, e.pushed) for e in plan}) == len({e.file for e in plan}) == len(plan)
    assert {e.dice for e in plan} == {(a, b) for a in range(1, 6) for b in range(1, 6)}
    assert {e.variant for e in plan} == set(VARIANTS)
    # the cut from six dice in all, in every variant but ones wild (the exploitability goals' game),
    # after a push at every size, and once an exact is called from five, where every hand is trained
    spent = ("soar-opener", "soar-other", "soar-spent")
    assert {e.name for e in plan if e.recut is not None} == {
        e.name
        for e in plan
        if (sum(e.dice) >= 6 and e.variant != "ones")
        or e.variant == "soar-pushed"
        or (e.variant in spent and sum(e.dice) >= 5)
    }
    assert {e.name for e in plan if e.variant in spent and e.sample is None and e.bits == 6} == {
        e.name for e in plan if e.variant in spent and sum(e.dice) >= 5
    }
    assert all(e.to_json().get("recut") == 0.05 for e in plan if e.recut is not None)
    assert all("recut" not in e.to_json() for e in plan if e.recut is None)
    # a die gained by exact is worth what it does for the game in Soar and in calza's last rounds,
    # a round won in calza's bigger ones but where the two agree (a full cup gains nothing, and 4
    # against 5 is worth a round won either way); where exact gains no die, the entry says nothing
    worth = {e.name: e.to_json().get("worth") for e in plan}
    calza = [e for e in plan if e.variant == "calza"]
    agree = {(5, 5), (5, 4), (4, 5)}
    assert {n for n, w in worth.items() if w == "round"} == {
        e.name for e in calza if sum(e.dice) > GAME_WORTH_MOST_DICE and e.dice not in agree
    }
    assert {n for n, w in worth.items() if w == "game"} == {
        e.name for e in plan if e.variant.startswith("soar") or (e in calza and worth[e.name] != "round")
    }
    for variant in spent:
        assert {e.dice for e in plan if e.variant == variant} == {(a, b) for a in range(1, 6) for b in range(1, 6)}
    rules = {e.variant: shipped.rules_key(e.options(), e.exact_left) for e in plan}
    # Soar's: one a game's state of who may still call exact, the opener first
    soar = preset_options("soar")
    assert shipped.rules_key(soar, (True, True)) == rules["soar"]
    assert shipped.rules_key(soar, (True, False)) == rules["soar-opener"] != rules["soar-other"]
    assert rules["soar-spent"]["exact_left"] == [False, False] and rules["soar"]["pass"] == "at_pass"
    # the keys the presets' two-player rounds reach
    for preset, variant in [
        ("classic", "none"),
        ("openspiel", "top"),
        ("perudo_basic", "perudo"),
        ("jokers", "jokers"),
        ("perudo", "calza"),
        ("red-dead", "spot-on"),
    ]:
        assert shipped.rules_key(preset_options(preset)) == rules[variant]
    # with an exact call, 1 vs 1 has no exact solution at hand: it is shipped too
    one_each = ["calza-1v1", "spot-on-1v1", "soar-1v1", "soar-opener-1v1", "soar-other-1v1", "soar-spent-1v1"]
    assert [e.name for e in plan if e.dice == (1, 1)] == one_each
    assert [e.name for e in select(plan, "1v1")] == one_each
    assert rules["ones"] == shipped.rules_key(preset_options("openspiel", {"wild_face": 1}))
    assert [e.name for e in select(plan, "2v2, 3V2", "ones,top")] == ["ones-2v2", "ones-3v2", "top-2v2", "top-3v2"]
    with pytest.raises(ValueError, match="1v1 is solved exactly"):
        select(plan, "1v1", "ones,top")
    with pytest.raises(ValueError, match="not a variant: the variants are ones, top"):
        select(plan, None, "wild")
    with pytest.raises(ValueError, match="sizes like 2v2"):
        select(plan, "2x2")


PACKAGE_SHIPPED = Path(shipped.__file__).parent / "shipped"
BUDGET = 40_000_000  # bytes: every artifact the repository holds, together


def test_the_package_s_own_artifacts_are_whole_of_the_plan_and_within_the_budget() -> None:
    artifacts = shipped.read_manifest(PACKAGE_SHIPPED)
    plan = {e.file: e for e in entries(variants=tuple(VARIANTS))}
    assert set(plan) == {a.file for a in artifacts}, "an entry of the plan not shipped, or the reverse"
    for artifact in artifacts:
        # made by today's plan entry (a changed plan makes it again), and it plays what it says
        entry = plan[artifact.file]
        assert artifact.plan == entry.to_json() and artifact.variant == entry.variant, artifact.file
        strategy = shipped.load_artifact(PACKAGE_SHIPPED, artifact)
        assert strategy.dice == entry.dice and strategy.pushed == entry.pushed_round
        shown = None if strategy.pushed is None else strategy.pushed.dice
        assert shipped.rules_key(strategy.options, strategy.exact_left, shown) == artifact.rules
    files = {p.name for p in PACKAGE_SHIPPED.glob("*.duel")}
    assert files == {a.file for a in artifacts}, "a .duel file the manifest does not list, or the reverse"
    from liarsdice.bots.cfr import SHIPPED_SOLUTIONS

    held = [*PACKAGE_SHIPPED.iterdir(), *SHIPPED_SOLUTIONS.iterdir()]
    assert sum(p.stat().st_size for p in held) < BUDGET


def test_train_all_writes_an_artifact_and_its_entry_and_a_second_run_skips_it(tmp_path: Path) -> None:
    into = tmp_path / "out"
    runner = CliRunner()
    args = ["train", "--all", "--only", "4v2", "--variant", "ones", "--iterations", "2", "--into", str(into)]
    first = runner.invoke(app, args)
    assert first.exit_code == 0, first.output
    assert "ones-4v2: 2 iterations in" in first.output and "1 shipped strategies" in first.output
    (artifact,) = shipped.read_manifest(into)
    assert (artifact.variant, artifact.dice, artifact.iterations, artifact.seed) == ("ones", (4, 2), 2, 22)
    assert artifact.plan == select(entries(iterations=2), "4v2", "ones")[0].to_json()
    made = (into / artifact.file).stat().st_mtime_ns
    second = runner.invoke(app, args)
    assert second.exit_code == 0 and "ones-4v2: shipped already" in second.output
    assert (into / artifact.file).stat().st_mtime_ns == made
    # the same file from the same entry, anywhere
    elsewhere = runner.invoke(app, [*args[:-1], str(tmp_path / "again")])
    assert elsewhere.exit_code == 0 and shipped.read_manifest(tmp_path / "again")[0].sha256 == artifact.sha256
    # another seed is another artifact: made again, in place of the first
    third = runner.invoke(app, [*args, "--seed", "5"])
    assert third.exit_code == 0 and "2 iterations in" in third.output
    (artifact,) = shipped.read_manifest(into)
    assert artifact.seed == 5
    strategy = shipped.load_artifact(into, artifact)
    assert strategy.meta["iterations"] == 2 and strategy.dice == (4, 2)


def test_a_plan_that_recuts_an_entry_recuts_its_file_without_training_to_the_bytes_a_training_gives(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from liarsdice.duel import packed, plan

    into = tmp_path / "out"
    runner = CliRunner()
    args = ["train", "--all", "--only", "4v4", "--variant", "none", "--iterations", "3"]
    with monkeypatch.context() as m:
        m.setattr(plan, "RECUT_FROM", 99)  # the plan before the cut
        first = runner.invoke(app, [*args, "--into", str(into)])
    assert first.exit_code == 0, first.output
    (uncut,) = shipped.read_manifest(into)
    assert "recut" not in uncut.plan
    data = (into / uncut.file).read_bytes()
    second = runner.invoke(app, [*args, "--into", str(into)])
    assert second.exit_code == 0, second.output
    assert "none-4v4: recut under 0.05 without training" in second.output and "iterations in" not in second.output
    (cut,) = shipped.read_manifest(into)
    assert cut.plan["recut"] == 0.05 and cut.iterations == 3 and cut.bytes < uncut.bytes
    assert (into / cut.file).read_bytes() == packed.recut(data, 0.05)
    # trained afresh under today's plan: the same bytes
    fresh = runner.invoke(app, [*args, "--into", str(tmp_path / "fresh")])
    assert fresh.exit_code == 0 and "3 iterations in" in fresh.output
    assert shipped.read_manifest(tmp_path / "fresh")[0].sha256 == cut.sha256
    strategy = shipped.load_artifact(into, cut)
    assert strategy.meta["threshold"] == 0.05 and strategy.dice == (4, 4)
    cut_data = (into / cut.file).read_bytes()
    assert packed.read_header(cut_data)[0]["cut_first"] == 0.02
    with pytest.raises(ValueError, match=r"from 0 to under 0\.5"):
        packed.recut(cut_data, 0.5)


def test_a_training_stopped_goes_on_from_its_checkpoint_to_the_same_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (entry,) = select(entries(iterations=4), "4v2", "ones")
    asked = 0

    def stop() -> bool:  # yes from the 40th question on: within the first iterations
        nonlocal asked
        asked += 1
        return asked > 40

    stopped = build(entry, stop)
    assert stopped.data is None and 1 <= stopped.iterations < 4 and checkpoint_path(entry).exists()
    ran = []
    iterate = Trainer.iterate
    monkeypatch.setattr(Trainer, "iterate", lambda self, cut=None: ran.append(1) or iterate(self, cut))
    resumed = build(entry)
    assert resumed.data is not None and resumed.iterations == 4
    assert len(ran) == 4 - stopped.iterations  # only the iterations left
    monkeypatch.setenv("LIARSDICE_DATA", str(tmp_path / "elsewhere"))
    assert not checkpoint_path(entry).exists()
    assert build(entry).data == resumed.data  # one run of the four iterations


def test_train_all_trains_two_at_once(tmp_path: Path) -> None:
    into = tmp_path / "out"
    args = ["train", "--all", "--only", "4v2,5v1", "--variant", "none", "--iterations", "2", "--jobs", "2"]
    result = CliRunner().invoke(app, [*args, "--into", str(into)])
    assert result.exit_code == 0, result.output
    assert {a.file for a in shipped.read_manifest(into)} == {"none-4v2.duel", "none-5v1.duel"}
    for artifact in shipped.read_manifest(into):
        assert shipped.load_artifact(into, artifact).meta["iterations"] == 2


def test_train_all_says_what_does_not_go_with_it() -> None:
    runner = CliRunner()
    result = runner.invoke(app, ["train", "--all", "--wild", "top", "--k", "2"])
    assert result.exit_code != 0 and "--wild, --k do not go with it" in result.output
    result = runner.invoke(app, ["train", "--only", "2v2"])
    assert result.exit_code != 0 and "go with --all" in result.output
    result = runner.invoke(app, ["train", "--all", "--only", "6v2"])
    assert result.exit_code != 0 and "every size from 1v1 to 5v5" in result.output


# ----- training -----


def test_a_player_with_no_more_hands_than_the_sample_updates_every_hand() -> None:
    # 1 die against 3 with four faces: 4 hands against 20. Sampling 8 hands, the player with 4
    # takes each once (the full update), not 8 draws of them.
    options = preset_options("classic", {"wild_face": 1, "faces": 4})
    game = game_for(options, (1, 3), 2)
    full, sampled = Trainer(game), Trainer(game, sample=8, seed=3)
    assert sampled.sample == 8
    full.iterate()
    sampled.iterate()
    assert np.array_equal(full.r_bid[0], sampled.r_bid[0]) and np.array_equal(full.a_bid[0], sampled.a_bid[0])
    assert not np.array_equal(full.r_bid[1], sampled.r_bid[1])  # the other player is sampled


def test_a_shipped_strategy_has_no_answer_where_its_training_never_came() -> None:
    # Spot-on, one die against five: the one-die opener seldom opens at five fives, and the
    # trained average of five fives facing it is every move alike (a bid of six fours among them).
    strategy = shipped.shipped_strategy(preset_options("red-dead", {"num_players": 2}), (1, 5), PACKAGE_SHIPPED)
    assert strategy is not None
    assert strategy.play((5, 5, 5, 5, 5), [Bid(5, 5)]) == {}
    assert strategy.play((1, 2, 3, 4, 6), [Bid(5, 5)]) == strategy.policy((1, 2, 3, 4, 6), [Bid(5, 5)])


@pytest.mark.parametrize(("preset", "dice"), [("red-dead", (1, 5)), ("perudo", (3, 2)), ("classic", (2, 2))])
def test_a_node_of_every_hand_at_once_is_what_play_answers_hand_by_hand(preset: str, dice: tuple[int, int]) -> None:
    """`node_chances`, as the reader weighs every hand of a cup by the equilibrium's chance of a
    move: read from the packed bytes (lazy) or the whole tables, the same chances as `play` for
    each hand, and no answer where `play` has none."""
    options = preset_options(preset, {"num_players": 2})
    found = shipped.shipped_strategy(options, dice, PACKAGE_SHIPPED)
    assert isinstance(found, PackedStrategy)
    whole = shipped.shipped_strategy(options, dice, PACKAGE_SHIPPED)  # a second, decoded whole
    assert isinstance(whole, PackedStrategy) and whole is not found
    whole.liar  # noqa: B018  (reading the tables decodes them)
    bids = found.game.spec.bids
    rng = np.random.default_rng(5)
    untrained = 0
    for trial in range(12):
        history: list[Bid] = []
        for _ in range(trial % 4):
            start = bids.index(history[-1]) + 1 if history else 0
            if start >= len(bids):
                break
            history.append(bids[int(rng.integers(start, min(start + 6, len(bids))))])
        for strategy in (found, whole):
            node = strategy.node_chances(history)
            assert node.player == len(history) % 2 and node.chances.shape == (len(node.hands), len(node.moves))
            for h, hand in enumerate(node.hands):
                played = strategy.play(hand, history)
                if not node.trained[h]:
                    untrained += 1
                    assert played == {}
                    continue
                got = {m: float(c) for m, c in zip(node.moves, node.chances[h], strict=True) if c > 0}
                assert got.keys() == {m for m, p in played.items() if p > 0}
                assert all(got[m] == pytest.approx(played[m], abs=1e-12) for m in got)
    assert "liar" not in vars(found)  # read from the packed bytes
    if dice == (1, 5):
        assert found.node_chances([Bid(5, 5)]).trained.sum() < len(found.game.players[1].hands)


def test_the_rounds_fetched_ahead_go_no_higher_than_the_plan() -> None:
    from liarsdice.bots.trained import MAX_DUEL_DICE
    from liarsdice.duel.plan import MAX_DICE

    assert MAX_DUEL_DICE == MAX_DICE
