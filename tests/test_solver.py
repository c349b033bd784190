"""The solver against independent numbers: known game values, OpenSpiel's own exploitability, a
brute-force best response through the rules engine, and the numpy reference solver."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from liarsdice.cli import app
from liarsdice.rules import Bid, BidAction, Challenge, Game, Roll, preset_options
from liarsdice.solver import Solution, solve
from liarsdice.solver.cfr import Solver
from liarsdice.solver.fast import FastSolver
from liarsdice.solver.tree import GameSpec, Tree


def test_one_die_each_top_face_wild_is_worth_minus_7_over_258() -> None:
    solution = solve(preset_options("openspiel"), (1, 1), algorithm="dcfr", target=5e-5)
    assert solution.exploitability <= 5e-5
    # with exploitability e, the value of the strategies is within 2e of the game's value
    assert abs(solution.game_value - float(Fraction(-7, 258))) <= 2 * solution.exploitability + 1e-9


def test_one_die_each_no_wild_face_is_worth_minus_one_ninth() -> None:
    solution = solve(preset_options("openspiel", {"wild_face": "none"}), (1, 1), algorithm="cfr+", target=5e-5)
    assert abs(solution.game_value - (-1 / 9)) <= 2 * solution.exploitability + 1e-9


@pytest.mark.parametrize("algorithm", ["cfr+", "dcfr"])
def test_both_algorithms_reach_1e_3_on_one_die_each(algorithm: str) -> None:
    solution = solve(preset_options("openspiel"), (1, 1), algorithm=algorithm, target=1e-3)  # type: ignore[arg-type]
    assert solution.exploitability <= 1e-3 and solution.iterations < 400
    e = [h.exploitability for h in solution.history]
    assert e[-1] < e[0] / 100


def test_openspiel_computes_the_same_exploitability_of_our_strategy() -> None:
    pyspiel = pytest.importorskip("pyspiel", reason="the OpenSpiel check needs the open_spiel package")
    from open_spiel.python.policy import python_policy_to_pyspiel_policy

    from liarsdice.solver.export import to_tabular_policy

    solution = solve(preset_options("openspiel"), (1, 1), algorithm="cfr+", target=1e-3)
    table = to_tabular_policy(solution)
    theirs = pyspiel.exploitability(table.game, python_policy_to_pyspiel_policy(table))
    assert abs(theirs - solution.exploitability) < 1e-9, (theirs, solution.exploitability)


def test_reset_quantity_exports_too() -> None:
    pytest.importorskip("pyspiel", reason="the OpenSpiel check needs the open_spiel package")
    from open_spiel.python.algorithms import exploitability

    from liarsdice.solver.export import to_tabular_policy

    options = preset_options("openspiel", {"bid_order": "face_major", "faces": 4})
    solution = solve(options, (1, 1), algorithm="dcfr", target=1e-3)
    table = to_tabular_policy(solution)
    assert abs(exploitability.exploitability(table.game, table) - solution.exploitability) < 1e-9


def test_games_openspiel_does_not_have_do_not_export() -> None:
    from liarsdice.solver.export import openspiel_params

    solution = solve(preset_options("perudo", {"num_players": 2}), (1, 1), max_iterations=2)
    with pytest.raises(ValueError, match="top face must be wild"):
        openspiel_params(solution)


# ----- a brute-force best response through the rules engine -----


def _brute_force_best_response(solution: Solution, player: int) -> float:
    """What `player` wins with a best response to the other's strategy, computed by walking the
    rules engine's own game (states, legal actions, returns), with exact chance over hands."""
    # the solved game: two players, one round, bids and liar calls, player 0 opens
    options = solution.options.replace(
        num_players=2,
        dice_per_player=tuple(solution.dice),
        max_dice=None,
        first_starter=0,
        rounds="single",
        exact="none",
    )
    game = Game(options)
    faces = options.faces
    hands = [list(itertools.combinations_with_replacement(range(1, faces + 1), d)) for d in solution.dice]
    total = 0.0
    other = 1 - player
    for mine in hands[player]:
        # the other's hands, weighted by chance; the best response is per (bid sequence, my hand)
        weights = {h: _hand_p(h, faces) for h in hands[other]}

        def value(bids: tuple[Bid, ...], reach: dict[tuple[int, ...], float], mine: tuple[int, ...] = mine) -> float:
            to_act = len(bids) % 2
            actions: list[Bid | None] = []
            # legal moves from the engine, on one representative deal
            deal = [mine, next(iter(reach))] if player == 0 else [next(iter(reach)), mine]
            state = game.position([list(deal[0]), list(deal[1])], starter=0)
            for b in bids:
                state, _ = state.apply(BidAction(b))
            for a in state.legal_actions():
                actions.append(a.bid if isinstance(a, BidAction) else None)
            if to_act == player:
                return max(child(bids, a, reach, mine) for a in actions)
            # the other acts: its strategy splits its reach over the actions
            out = 0.0
            for a in actions:
                split = {h: r * solution.policy(h, list(bids)).get(a, 0.0) for h, r in reach.items()}
                if any(v > 0 for v in split.values()):
                    out += child(bids, a, split, mine)
            return out

        def child(
            bids: tuple[Bid, ...], a: Bid | None, reach: dict[tuple[int, ...], float], mine: tuple[int, ...]
        ) -> float:
            if a is not None:
                return value((*bids, a), reach, mine)
            out = 0.0
            for h, r in reach.items():
                if r == 0:
                    continue
                deal = [mine, h] if player == 0 else [h, mine]
                state = game.position([list(deal[0]), list(deal[1])], starter=0)
                for b in bids:
                    state, _ = state.apply(BidAction(b))
                state, _ = state.apply(state.default_challenge())
                returns = state.returns()
                assert returns is not None
                out += r * returns[player]
            return out

        total += _hand_p(mine, faces) * value((), weights)
    return total


def _hand_p(hand: tuple[int, ...], faces: int) -> float:
    from liarsdice.solver.tree import hand_chance

    return hand_chance(hand, faces)


@pytest.mark.parametrize(
    ("preset", "dice", "overrides"),
    [
        ("openspiel", (1, 1), {"faces": 3}),
        ("openspiel", (1, 2), {"faces": 3}),
        ("perudo", (1, 1), {"num_players": 2, "faces": 3}),
        ("jokers", (2, 1), {"num_players": 2, "faces": 3}),
        ("classic", (1, 1), {"num_players": 2, "faces": 4, "bid_order": "face_major"}),
    ],
)
def test_exploitability_equals_a_brute_force_best_response(
    preset: str, dice: tuple[int, int], overrides: dict[str, Any]
) -> None:
    options = preset_options(preset, overrides)
    solution = solve(options, dice, algorithm="cfr+", max_iterations=7)  # a strategy far from equilibrium
    brute = [_brute_force_best_response(solution, p) for p in (0, 1)]
    solver = FastSolver(solution.tree, "cfr+")
    for _ in range(7):
        solver.iterate()
    assert brute[0] == pytest.approx(solver.best_response_value(0), abs=1e-9)
    assert brute[1] == pytest.approx(solver.best_response_value(1), abs=1e-9)
    assert (brute[0] + brute[1]) / 2 == pytest.approx(solution.exploitability, abs=1e-9)


# ----- the compiled solver against the numpy reference -----


@pytest.mark.parametrize("algorithm", ["cfr+", "dcfr"])
@pytest.mark.parametrize(
    ("preset", "dice"),
    [("openspiel", (1, 1)), ("perudo", (1, 2)), ("jokers", (2, 1))],
)
def test_compiled_and_reference_solvers_agree(algorithm: str, preset: str, dice: tuple[int, int]) -> None:
    options = preset_options(preset, {"num_players": 2, "faces": 4} if preset != "openspiel" else {})
    tree = Tree(GameSpec.from_options(options, dice))
    ref, fast = Solver(tree, algorithm), FastSolver(tree, algorithm)  # type: ignore[arg-type]
    for _ in range(30):
        ref.iterate()
        fast.iterate()
    # the same regrets and average sums in every information set, to rounding
    for k in range(1, len(tree.levels)):
        lo, hi = fast.offsets[k], fast.offsets[k + 1]
        pairs = (
            (ref.regret_liar[k], fast.r_liar),
            (ref.regret_bid[k], fast.r_bid),
            (ref.avg_liar[k], fast.a_liar),
            (ref.avg_bid[k], fast.a_bid),
        )
        for mine, theirs in pairs:
            assert mine is not None
            np.testing.assert_allclose(theirs[lo:hi, : mine.shape[1]], mine, rtol=1e-9, atol=1e-9)
    assert fast.exploitability() == pytest.approx(ref.exploitability(), abs=1e-9)
    assert fast.game_value() == pytest.approx(ref.game_value(), abs=1e-9)


# ----- solutions, files, the command -----


def test_a_solution_saves_loads_and_answers(tmp_path: Path) -> None:
    solution = solve(preset_options("openspiel"), (1, 1), target=1e-2)
    path = solution.save(tmp_path / "s.npz")
    again = Solution.load(path)
    assert again.iterations == solution.iterations and again.dice == (1, 1)
    opening = again.policy([4], [])
    assert set(opening) == set(solution.tree.spec.bids) and abs(sum(opening.values()) - 1) < 1e-6
    reply = again.policy([6], [Bid(2, 6)])
    assert set(reply) == {None} and reply[None] == pytest.approx(1.0)  # only liar follows the top bid
    with pytest.raises(ValueError, match="does not raise"):
        again.policy([1], [Bid(2, 3), Bid(1, 3)])
    with pytest.raises(ValueError, match="not a hand"):
        again.policy([1, 2], [])
    (tmp_path / "bad.npz").write_bytes(b"not a solution")
    with pytest.raises((ValueError, OSError)):
        Solution.load(tmp_path / "bad.npz")


def test_a_saved_solution_keeps_its_exploitability_to_the_last_digits(tmp_path: Path) -> None:
    # docs/solving.md's "agrees with OpenSpiel to 1e-14" must hold for a strategy read back from its
    # file, not only for the one in memory: float32 on disk moved it by ~1e-9.
    pyspiel = pytest.importorskip("pyspiel", reason="the OpenSpiel check needs the open_spiel package")
    from open_spiel.python.policy import python_policy_to_pyspiel_policy

    from liarsdice.solver.export import to_tabular_policy

    solution = solve(preset_options("openspiel"), (1, 1), algorithm="cfr+", target=1e-3)
    again = Solution.load(solution.save(tmp_path / "s.npz"))
    table = to_tabular_policy(again)
    theirs = pyspiel.exploitability(table.game, python_policy_to_pyspiel_policy(table))
    assert abs(theirs - solution.exploitability) < 1e-12, (theirs, solution.exploitability)
    for mine, read in itertools.chain(
        zip(solution.liar, again.liar, strict=True), zip(solution.bid, again.bid, strict=True)
    ):
        assert (mine is None) == (read is None)
        if mine is not None and read is not None:
            assert read.dtype == np.float64
            np.testing.assert_array_equal(read, mine)


def test_a_solution_saved_in_float32_still_loads(tmp_path: Path) -> None:
    # Files written before float64 (the cfr bot's cache) stay usable, at their own precision.
    solution = solve(preset_options("openspiel", {"faces": 3}), (1, 1), target=1e-2)
    path = solution.save(tmp_path / "s.npz")
    with np.load(path, allow_pickle=False) as data:
        old = {k: data[k].astype(np.float32) if k != "meta" else data[k] for k in data.files}
    np.savez_compressed(tmp_path / "old.npz", **old)
    again = Solution.load(tmp_path / "old.npz")
    for mine, read in zip(solution.bid, again.bid, strict=True):
        if mine is not None and read is not None:
            assert read.dtype == np.float64
            np.testing.assert_allclose(read, mine, rtol=0, atol=1e-7)
    assert again.policy([1], []) == pytest.approx(solution.policy([1], []), abs=1e-6)


def test_a_solution_file_with_arrays_of_another_kind_is_refused(tmp_path: Path) -> None:
    solution = solve(preset_options("openspiel", {"faces": 3}), (1, 1), max_iterations=2)
    path = solution.save(tmp_path / "s.npz")
    with np.load(path, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    np.savez_compressed(tmp_path / "ints.npz", **{**arrays, "bid1": arrays["bid1"].astype(np.int64)})
    with pytest.raises(ValueError, match="bid1 holds int64: a solution holds float32 or float64"):
        Solution.load(tmp_path / "ints.npz")
    np.savez_compressed(tmp_path / "short.npz", **{**arrays, "bid1": arrays["bid1"][:1]})
    with pytest.raises(ValueError, match=r"bid1 has shape \(1, 3\), its tree needs \(6, 3\)"):
        Solution.load(tmp_path / "short.npz")
    del arrays["liar2"]
    np.savez_compressed(tmp_path / "part.npz", **arrays)
    with pytest.raises(ValueError, match="not a whole solution: it lacks liar2"):
        Solution.load(tmp_path / "part.npz")
    del arrays["meta"]
    np.savez_compressed(tmp_path / "nometa.npz", **arrays)
    with pytest.raises(ValueError, match="it has no meta"):
        Solution.load(tmp_path / "nometa.npz")
    (tmp_path / "cut.npz").write_bytes(path.read_bytes()[:200])  # a copy cut short
    with pytest.raises(ValueError, match="not a readable liarsdice solution"):
        Solution.load(tmp_path / "cut.npz")


def test_sizes_of_the_trees() -> None:
    assert Tree(GameSpec.from_options(preset_options("openspiel"), (1, 1))).infosets() == 24_576
    assert Tree(GameSpec.from_options(preset_options("openspiel"), (2, 1))).infosets() == 3_538_944
    perudo = Tree(GameSpec.from_options(preset_options("perudo", {"num_players": 2}), (1, 1)))
    assert perudo.levels[1].size == 10  # no opening on pacos: 12 bids less the two on ones


def _cli() -> list[str]:
    exe = Path(sys.executable).with_name("liarsdice")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "liarsdice.cli"]


def test_solve_command(tmp_path: Path) -> None:
    run = subprocess.run(
        [
            *_cli(),
            "solve",
            "--preset",
            "openspiel",
            "--dice",
            "1",
            "1",
            "--target",
            "1e-3",
            "--out",
            str(tmp_path / "s.npz"),
            "--plots",
            str(tmp_path / "plots"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert "24,576 information sets" in run.stdout and "value for player 0 -0.02" in run.stdout
    assert (tmp_path / "s.npz").exists()
    for name in ("convergence.png", "opening.png"):
        data = (tmp_path / "plots" / name).read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 5000
    meta = json.loads(str(np.load(tmp_path / "s.npz")["meta"]))
    assert meta["exploitability"] <= 1e-3 and meta["infosets"] == 24_576
    for args, words in [
        (["--dice", "0", "1"], "at least one die"),
        (["--algorithm", "magic"], "cfr+ or dcfr"),
        (["--preset", "nonesuch"], "unknown preset"),
        (["--option", "max_quantity=unbounded"], "max_quantity"),
    ]:
        bad = subprocess.run([*_cli(), "solve", *args], capture_output=True, text=True, timeout=60)
        assert bad.returncode == 2 and words in bad.stderr, (args, bad.stderr)


def test_without_numba_solve_runs_the_reference_solver() -> None:
    # numba is an extra: the base install must still solve (the cfr bot does so on first use).
    script = (
        "import sys; sys.modules['numba'] = None\n"
        "from liarsdice.rules import preset_options\n"
        "from liarsdice.solver import solve\n"
        "s = solve(preset_options('openspiel', {'faces': 3}), (1, 1), target=1e-3)\n"
        "assert 'liarsdice.solver.fast' not in sys.modules or sys.modules['liarsdice.solver.fast'] is None\n"
        "print(s.exploitability, s.iterations)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    exploitability, iterations = done.stdout.split()
    assert float(exploitability) <= 1e-3 and int(iterations) > 0
    compiled = solve(preset_options("openspiel", {"faces": 3}), (1, 1), target=1e-3)
    assert int(iterations) == compiled.iterations


# ----- what the solver models: everything else is refused by name -----


@pytest.mark.parametrize(
    ("args", "named", "fix"),
    [
        (["-o", "num_players=3"], ["num_players=3"], "-o num_players=2"),
        (["-o", "push=true"], ["push=true"], "-o push=false"),
        (["-o", "exact=gain_die"], ["exact=gain_die"], "-o exact=none"),
        (["-o", "exact=others_lose"], ["exact=others_lose"], "-o exact=none"),
        (["-o", "pass=at_pass"], ["pass=at_pass"], "-o pass=none"),
        (["-o", "rounds=until_one_left"], ["rounds=until_one_left"], "-o rounds=single"),
        (["-o", "dice_per_player=3"], ["dice_per_player=3"], "--dice D0 D1"),
        (
            ["--preset", "soar"],
            ["pass=at_pass", "push=true", "exact=gain_die", "rounds=until_one_left"],
            "-o push=false",
        ),
        (["--preset", "perudo"], ["exact=gain_die", "rounds=until_one_left"], "-o exact=none"),
        (["--preset", "tavern"], ["economy=on", "rounds=until_one_left"], "-o economy=none"),
        (["--preset", "jokers"], ["challenge_mode=siding_vote", "rounds=until_one_left"], "-o challenge_mode=duel"),
        (["--preset", "classic"], ["rounds=until_one_left"], "-o rounds=single"),
    ],
)
def test_solve_refuses_rules_it_does_not_model(args: list[str], named: list[str], fix: str) -> None:
    result = CliRunner().invoke(app, ["solve", *args, "--iterations", "1"])
    assert result.exit_code == 2, result.output
    assert "cannot model" in result.output and "It solves one round between two players" in result.output
    for words in named:
        assert words in result.output, (words, result.output)
    assert fix in result.output
    assert "iterations in" not in result.output  # nothing was solved


def test_solve_takes_a_preset_once_its_unmodelled_rules_are_set_off() -> None:
    args = ["solve", "--preset", "perudo", "-o", "exact=none", "-o", "rounds=single", "--iterations", "2"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "perudo: 1 vs 1 dice" in result.output and "2 iterations in" in result.output


def test_shedding_is_the_same_single_round_and_solve_says_so() -> None:
    # RULES.md 2.2: a single round goes to the winner of the call whatever the goal; the solve
    # says why it is the same game instead of passing the option over in silence.
    result = CliRunner().invoke(app, ["solve", "-o", "goal=shedding", "--iterations", "1"])
    assert result.exit_code == 0, result.output
    assert "note: goal=shedding does not change a single round" in result.output
    for hands in [((2,), (3,)), ((6,), (6,))]:  # the engine agrees: the same returns under either goal
        for goal in ("elimination", "shedding"):
            state = Game(preset_options("openspiel", {"goal": goal})).new_initial_state()
            state, _ = state.apply(Roll(hands))
            state, _ = state.apply(BidAction(Bid(2, 3)))
            state, _ = state.apply(Challenge(0))
            assert state.result is not None
            assert state.result.returns == ((1.0, -1.0) if hands[0] == (6,) else (-1.0, 1.0))


def test_solve_refuses_a_tree_that_does_not_fit_in_memory() -> None:
    # 3 dice against 3 have 36 bids: 2^36 nodes, hundreds of terabytes; refused before building.
    result = CliRunner().invoke(app, ["solve", "--dice", "3", "3"])
    assert result.exit_code == 2, result.output
    assert "needs about" in result.output and "TB of memory" in result.output and "available" in result.output


def test_solve_ships_a_solution_under_its_rules_name_only_when_it_reached_the_target(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import liarsdice.bots.cfr as cfr

    monkeypatch.setattr(cfr, "SHIPPED_SOLUTIONS", tmp_path)
    short = CliRunner().invoke(app, ["solve", "--iterations", "1", "--ship"])
    assert short.exit_code == 0 and "not shipped: the target was not reached" in short.output
    assert not list(tmp_path.iterdir())
    whole = CliRunner().invoke(app, ["solve", "--ship"])
    assert whole.exit_code == 0, whole.output
    name = f"{cfr.solution_key(preset_options('openspiel', {'num_players': 2}), (1, 1))}.npz"
    assert [p.name for p in tmp_path.iterdir()] == [name] and f"strategy: {tmp_path / name}" in whole.output
