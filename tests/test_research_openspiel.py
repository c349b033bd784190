"""Every preset as an OpenSpiel game (`liarsdice.openspiel`), checked with OpenSpiel's own tools,
and the dense action encoding both research adapters share (`liarsdice.rules.encoding`)."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest

from liarsdice.rules import Encoding, EncodingError, Game, OptionsError, preset_options

pyspiel = pytest.importorskip("pyspiel", reason="OpenSpiel (pip package open_spiel) is not installed")

import liarsdice.openspiel  # noqa: E402,F401  (registers python_liarsdice)
from liarsdice.openspiel import options_from_parameters  # noqa: E402

# Small tables of every preset: quick to simulate, every rule of the preset still in play.
SMALL: dict[str, dict[str, Any]] = {
    "perudo": {"players": 3, "dice_per_player": 2},
    "soar": {"players": 3, "dice_per_player": 2},
    "jokers": {"players": 3, "dice_per_player": 2},
    "tavern": {"players": 3, "dice_per_player": 2},
    "red-dead": {"players": 3, "dice_per_player": 2},
    "classic": {"players": 2, "dice_per_player": 2},
    "openspiel": {"numdice": 2},
    "perudo_basic": {"players": 3, "dice_per_player": 2},
}


def load(preset: str, **params: Any) -> Any:
    return pyspiel.load_game("python_liarsdice", {"preset": preset, **params})


def random_states(game: Any, rng: random.Random, games: int) -> Any:
    """Every state of `games` random playouts."""
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            yield state
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(rng.choices(outcomes, probs)[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
        yield state


@pytest.mark.parametrize("preset", sorted(SMALL))
def test_random_simulation_with_openspiels_checks(preset: str) -> None:
    game = load(preset, **SMALL[preset])
    pyspiel.random_sim_test(game, num_sims=5, serialize=False, verbose=False)


@pytest.mark.parametrize("preset", sorted(SMALL))
def test_returns_are_zero_sum_and_games_fit_the_declared_bounds(preset: str) -> None:
    game = load(preset, **SMALL[preset])
    rng = random.Random(preset)
    finished = 0
    for state in random_states(game, rng, 30):
        if state.is_terminal():
            finished += 1
            returns = state.returns()
            assert sum(returns) == pytest.approx(0.0) and all(-1.0 <= r <= 1.0 for r in returns)
            player_moves = sum(1 for step in state.full_history() if step.player >= 0)
            assert player_moves <= game.max_game_length()
        elif not state.is_chance_node():
            assert all(0 <= a < game.num_distinct_actions() for a in state.legal_actions())
            assert len(state.information_state_tensor()) == game.information_state_tensor_size()
            assert len(state.observation_tensor()) == game.observation_tensor_size()
    assert finished == 30


def test_parameters_default_to_the_preset_and_accept_every_option() -> None:
    options, cap = options_from_parameters({"preset": "soar", "players": 3})
    assert options == preset_options("soar", {"num_players": 3}) and cap == 0
    options, _ = options_from_parameters(
        {
            "preset": "classic",
            "players": 2,
            "dice_per_seat": "2;1",
            "faces": 4,
            "wild_face": "top",
            "exact": "others_lose",
            "one_die_round_min_players": 2,
            "rounds": "single",
        }
    )
    assert options.dice_per_player == (2, 1) and options.faces == 4 and options.wild == 4
    assert options.one_die_round is not None and options.one_die_round.min_players == 2
    assert options.rounds == "single" and options.exact == "others_lose"
    options, _ = options_from_parameters({"preset": "tavern", "economy_starting_chips": 4, "economy_min_bet": "2"})
    assert options.economy is not None and options.economy.starting_chips == 4 and options.economy.min_bet == 2
    options, _ = options_from_parameters({"preset": "soar", "one_die_round": "none", "push": "false"})
    assert options.one_die_round is None and not options.push
    game = pyspiel.load_game("python_liarsdice(preset=openspiel,numdice=2,bidding_rule=reset-quantity)")
    assert game.options.bid_order == "face_major" and game.options.dice_per_player == 2


@pytest.mark.parametrize(
    ("params", "words"),
    [
        ({"preset": "nope"}, "unknown preset"),
        ({"preset": "soar", "goal": "sideways"}, "goal must be one of"),
        ({"preset": "soar", "challenge_mode": "siding_vote"}, "needs challenge_mode=duel"),
        ({"preset": "soar", "dice_per_seat": "2,x"}, "dice_per_seat must list"),
        ({"preset": "openspiel", "bidding_rule": "reset"}, "reset-face or reset-quantity"),
        ({"preset": "soar", "one_die_round": "none", "one_die_round_min_players": 2}, "contradicts"),
    ],
)
def test_bad_parameters_are_refused_with_the_reason(params: dict[str, Any], words: str) -> None:
    with pytest.raises(OptionsError, match=words):
        options_from_parameters(params)
    with pytest.raises(Exception, match=r"Unknown parameter|unknown"):
        pyspiel.load_game("python_liarsdice", {"bogus": 1})


# ----- the openspiel preset is OpenSpiel's liars_dice, id for id -----


@pytest.mark.parametrize(
    ("numdice", "rule", "sides"), [(1, "reset-face", 6), (2, "reset-quantity", 6), (2, "reset-face", 4)]
)
def test_openspiel_preset_moves_like_liars_dice(numdice: int, rule: str, sides: int) -> None:
    params = {"numdice": numdice, "bidding_rule": rule, "dice_sides": sides}
    ours = load("openspiel", **params)
    native = pyspiel.load_game("liars_dice", params)
    assert ours.num_distinct_actions() == native.num_distinct_actions()
    assert ours.max_chance_outcomes() == native.max_chance_outcomes()
    assert ours.max_game_length() == native.max_game_length()
    rng = random.Random(f"{numdice}{rule}{sides}")
    for _ in range(400):
        a, b = ours.new_initial_state(), native.new_initial_state()
        while not b.is_terminal():
            assert a.current_player() == b.current_player() and not a.is_terminal()
            if b.is_chance_node():
                assert a.chance_outcomes() == b.chance_outcomes()
                move = rng.choice(b.chance_outcomes())[0]
            else:
                assert a.legal_actions() == b.legal_actions()
                move = rng.choice(b.legal_actions())
            a.apply_action(move)
            b.apply_action(move)
        assert a.is_terminal() and a.returns() == b.returns()
        assert a.history() == b.history()


def test_all_states_of_the_openspiel_preset_are_liars_dices() -> None:
    from open_spiel.python.algorithms.get_all_states import get_all_states

    params = {"numdice": 1, "dice_sides": 3}
    ours = get_all_states(load("openspiel", **params))
    native = get_all_states(pyspiel.load_game("liars_dice", params))
    assert set(ours) == set(native)
    for key, state in ours.items():
        assert state.returns() == native[key].returns()
        if not state.is_terminal():
            assert state.legal_actions() == native[key].legal_actions()


@pytest.mark.parametrize(
    ("preset", "params"),
    [
        ("soar", {"players": 2, "dice_per_seat": "2;1", "faces": 2, "rounds": "single"}),
        ("jokers", {"players": 3, "dice_per_player": 1, "faces": 2, "rounds": "single"}),
        # a calza that hits gains no die at one die each: the round repeats, so cap the game
        ("perudo", {"players": 2, "dice_per_player": 1, "faces": 3, "max_rounds": 1}),
        ("tavern", {"players": 2, "dice_per_player": 1, "faces": 2, "economy_starting_chips": 2}),
    ],
)
def test_all_states_of_small_games(preset: str, params: dict[str, Any]) -> None:
    from open_spiel.python.algorithms.get_all_states import get_all_states

    game = load(preset, **params)
    states = get_all_states(game, include_chance_states=True)
    assert states
    for state in states.values():
        if state.is_terminal():
            assert sum(state.returns()) == pytest.approx(0.0)
        elif state.is_chance_node():
            assert sum(p for _, p in state.chance_outcomes()) == pytest.approx(1.0)
        else:
            player = state.current_player()
            assert state.legal_actions() and state.information_state_string(player).startswith(f"P{player}")


def test_cfr_plus_exploitability_curve_is_liars_dices() -> None:
    from open_spiel.python.algorithms import cfr, exploitability

    params = {"numdice": 1, "dice_sides": 3}
    ours, native = load("openspiel", **params), pyspiel.load_game("liars_dice", params)
    solvers = cfr.CFRPlusSolver(ours), cfr.CFRPlusSolver(native)
    curve: list[float] = []
    for _ in range(6):
        for solver in solvers:
            solver.evaluate_and_update_policy()
        mine = exploitability.exploitability(ours, solvers[0].average_policy())
        theirs = exploitability.exploitability(native, solvers[1].average_policy())
        assert mine == pytest.approx(theirs, abs=1e-12)
        curve.append(mine)
    assert curve[-1] < curve[0] / 3


def test_rl_environment_steps_through_a_multi_round_perudo_game() -> None:
    from open_spiel.python import rl_environment

    env = rl_environment.Environment("python_liarsdice", preset="perudo", players=3, dice_per_player=2)
    env.seed(3)
    rng = random.Random(3)
    for _ in range(3):
        step = env.reset()
        rounds = 0
        while not step.last():
            player = step.observations["current_player"]
            legal = step.observations["legal_actions"][player]
            assert len(step.observations["info_state"][player]) == env.game.information_state_tensor_size()
            step = env.step([rng.choice(legal)])
            rounds = env.get_state.rules_state.round_no
        assert rounds > 1
        assert sum(step.rewards) == pytest.approx(0.0) and sorted(step.rewards) == [-1.0, 0.0, 1.0]


def test_max_rounds_stops_a_game_with_zero_sum_returns() -> None:
    game = load("perudo", players=3, dice_per_player=3, max_rounds=2)
    rng = random.Random(5)
    stopped = 0
    for state in random_states(game, rng, 10):
        if state.is_terminal():
            assert state.rules_state.round_no <= 3 and sum(state.returns()) == pytest.approx(0.0)
            stopped += not state.rules_state.is_terminal
    assert stopped == 10  # two rounds never end a game of nine dice


# ----- information states hold nothing a player may not know -----


def _replay_with_other_dice(game: Any, history: list[int], player: int, rng: random.Random) -> Any:
    """`history` replayed with new faces for every die of the current round that `player` does
    not own (its roll and any reroll: earlier rounds were revealed to everyone)."""
    probe = game.new_initial_state()
    rounds = []
    for move in history:
        rounds.append(probe.rules_state.round_no)
        probe.apply_action(move)
    # a seat that pushed this round must still hold the faces it pushed: its dice stay as they were
    pushers = {t.seat for t in probe.rules_state.history if getattr(t.action, "push", ())}
    state = game.new_initial_state()
    for i, move in enumerate(history):
        if state.is_chance_node() and rounds[i] == probe.rules_state.round_no:
            spec = state.rules_state.chance_spec()
            drawn = len(state._snap.pending)
            owner = spec.seat
            if spec.kind == "roll":
                owner = next(s for s in range(len(spec.dice)) if drawn < sum(spec.dice[: s + 1]))
            if spec.kind != "starter" and owner != player and owner not in pushers:
                move = rng.randrange(spec.faces)
        state.apply_action(move)
    return state


@pytest.mark.parametrize("preset", sorted(SMALL))
def test_no_other_cup_reaches_a_players_information_state(preset: str) -> None:
    game = load(preset, **SMALL[preset])
    rng = random.Random(f"leak-{preset}")
    checked = 0
    for state in random_states(game, rng, 15):
        if state.is_terminal() or state.is_chance_node() or rng.random() < 0.7:
            continue
        for player in range(game.num_players()):
            other = _replay_with_other_dice(game, state.history(), player, rng)
            assert other.information_state_string(player) == state.information_state_string(player)
            assert other.observation_string(player) == state.observation_string(player)
            assert np.array_equal(other.information_state_tensor(player), state.information_state_tensor(player))
            assert np.array_equal(other.observation_tensor(player), state.observation_tensor(player))
            checked += 1
    assert checked > 10


def test_own_cup_is_in_the_information_state() -> None:
    game = load("openspiel")
    a, b = game.new_initial_state(), game.new_initial_state()
    for state, mine in ((a, 2), (b, 4)):
        state.apply_action(mine)
        state.apply_action(0)
    assert a.information_state_string(0) != b.information_state_string(0)
    assert a.information_state_string(1) == b.information_state_string(1)
    assert not np.array_equal(a.observation_tensor(0), b.observation_tensor(0))


# ----- the encoding -----


@pytest.mark.parametrize("preset", sorted(SMALL))
def test_every_legal_action_has_one_id_that_decodes_back(preset: str) -> None:
    options, _ = options_from_parameters({"preset": preset, **SMALL[preset]})
    enc = Encoding(options)
    rng = random.Random(preset)
    game = Game(options)
    for _ in range(20):
        state = game.new_initial_state()
        while not state.is_terminal:
            if state.is_chance:
                state, _ = state.apply(state.sample_chance(rng))
                continue
            legal = state.legal_actions()
            ids = [enc.encode(a, state.history) for a in legal]
            assert len(set(ids)) == len(ids) and all(0 <= i < enc.num_distinct_actions for i in ids)
            assert [enc.decode(i, state.history) for i in ids] == list(legal)
            state, _ = state.apply(rng.choice(legal))


def test_the_id_layout() -> None:
    soar = Encoding(preset_options("soar", {"num_players": 2, "dice_per_player": 2}))
    # 4 dice x 6 faces; challenge, challenge back, exact, pass; pushes of one die: 6
    assert soar.num_bids == 24 and soar.pushes == tuple((f,) for f in range(1, 7))
    assert [(b.name, b.start, b.size) for b in soar.blocks.values() if b.size] == [
        ("bid", 0, 24),
        ("challenge", 24, 1),
        ("challenge_back", 25, 1),
        ("exact", 26, 1),
        ("pass", 27, 1),
        ("bid_push", 28, 144),
        ("pass_push", 172, 6),
    ]
    assert soar.num_distinct_actions == 178
    jokers = Encoding(preset_options("jokers", {"num_players": 3, "dice_per_player": 1}))
    assert jokers.num_distinct_actions == 18 + 1 + 2
    tavern = Encoding(preset_options("tavern", {"num_players": 2, "dice_per_player": 1, "faces": 2}))
    # 2 dice x 2 faces = 4 bids; accuse, all-in, fold; raises to 1..20 for accuse and for each bid
    assert tavern.num_distinct_actions == 4 + 3 + 20 + 4 * 20
    with pytest.raises(EncodingError, match="ids run from 0 to 177"):
        soar.decode(178)
    with pytest.raises(EncodingError, match="no exact"):
        jokers._start("exact")


# ----- the example -----


def test_mccfr_example_learns_a_small_soar_round() -> None:
    import re
    import subprocess
    import sys
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "examples" / "research" / "mccfr_soar.py"
    out = subprocess.run(
        [sys.executable, str(script), "--iterations", "1000", "--every", "500"],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout
    values = [float(v) for v in re.findall(r"exploitability ([0-9.]+)", out)]
    assert len(values) == 2 and values[1] < values[0] < 0.727  # 0.727: the uniform random policy's


# ----- undo: OpenSpiel's in-place tree walks -----

WALKED: list[tuple[str, dict[str, Any]]] = [
    ("openspiel", {"numdice": 1, "dice_sides": 3}),
    ("openspiel", {"numdice": 1, "dice_sides": 3, "encoding": "full"}),
    ("tavern", {"players": 2, "dice_per_player": 1, "faces": 2, "economy_starting_chips": 2}),
    ("perudo", {"players": 2, "dice_per_player": 1, "faces": 3, "max_rounds": 1}),
    ("jokers", {"players": 3, "dice_per_player": 1, "faces": 2, "rounds": "single"}),
    # pushes and rerolls; 84,899 states in all, so two children of each node, drawn alike in both walks
    ("soar", {"players": 2, "dice_per_seat": "2;1", "faces": 2, "rounds": "single"}),
]


def _seen(game: Any, state: Any) -> list[Any]:
    """Everything a tree walk reads at a state."""
    seen: list[Any] = [state.history(), state.history_str(), state.move_number(), state.is_initial_state()]
    seen += [[(s.player, s.action) for s in state.full_history()], state.current_player(), str(state)]
    if state.is_terminal():
        seen.append(state.returns())
    elif state.is_chance_node():
        seen.append(state.chance_outcomes())
    else:
        seen.append(state.legal_actions())
    for p in range(game.num_players()):
        seen += [state.information_state_string(p), state.observation_string(p)]
        seen += [list(state.information_state_tensor(p)), list(state.observation_tensor(p))]
    return seen


def _moves(state: Any, rng: random.Random | None) -> list[int]:
    moves = [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
    return moves if rng is None or len(moves) <= 2 else rng.sample(moves, 2)


def _walk_in_place(game: Any, state: Any, rng: random.Random | None, out: list[Any]) -> None:
    out.append(_seen(game, state))
    if state.is_terminal():
        return
    player = state.current_player()
    for move in _moves(state, rng):
        state.apply_action(move)
        _walk_in_place(game, state, rng, out)
        state.undo_action(player, move)


def _walk_cloned(game: Any, state: Any, rng: random.Random | None, out: list[Any]) -> None:
    out.append(_seen(game, state))
    if state.is_terminal():
        return
    for move in _moves(state, rng):
        _walk_cloned(game, state.child(move), rng, out)


@pytest.mark.parametrize(("preset", "params"), WALKED)
def test_undo_walks_the_tree_in_place_as_clones_do(preset: str, params: dict[str, Any]) -> None:
    game = load(preset, **params)
    sampled = preset == "soar"
    in_place: list[Any] = []
    cloned: list[Any] = []
    root = game.new_initial_state()
    _walk_in_place(game, root, random.Random(1) if sampled else None, in_place)
    _walk_cloned(game, game.new_initial_state(), random.Random(1) if sampled else None, cloned)
    assert len(in_place) == len(cloned) > 200
    for a, b in zip(in_place, cloned, strict=True):
        assert a == b
    assert root.history() == [] and _seen(game, root) == cloned[0]  # back where it started
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)  # OpenSpiel's own checks


def test_undo_takes_back_only_the_last_move() -> None:
    state = load("openspiel").new_initial_state()
    with pytest.raises(ValueError, match="no move to take back"):
        state.undo_action(-1, 0)
    state.apply_action(2)
    with pytest.raises(ValueError, match="the last move was 2 by -1"):
        state.undo_action(0, 2)
    state.undo_action(-1, 2)
    assert state.history() == [] and state.is_chance_node()


# ----- the openspiel preset describes its states as liars_dice does -----


@pytest.mark.parametrize(
    "params",
    [
        {"numdice": 1},
        {"numdice": 2, "dice_sides": 4},
        {"numdice": 2, "bidding_rule": "reset-quantity"},
        {"numdice": 3, "dice_sides": 3},
    ],
)
def test_openspiel_preset_strings_and_tensors_are_liars_dices(params: dict[str, Any]) -> None:
    ours, native = load("openspiel", **params), pyspiel.load_game("liars_dice", params)
    assert ours.information_state_tensor_size() == native.information_state_tensor_size()
    assert ours.observation_tensor_size() == native.observation_tensor_size()
    rng = random.Random(str(params))
    checked = 0
    for _ in range(150):
        a, b = ours.new_initial_state(), native.new_initial_state()
        while True:  # chance nodes and the terminal included
            for p in range(2):
                assert a.information_state_string(p) == b.information_state_string(p)
                assert a.information_state_tensor(p) == b.information_state_tensor(p)
                assert a.observation_tensor(p) == b.observation_tensor(p)
                checked += 1
            if b.is_terminal():
                break
            move = rng.choice(b.legal_actions())
            a.apply_action(move)
            b.apply_action(move)
    assert checked > 1000


def test_the_encoding_parameter() -> None:
    full = load("openspiel", numdice=2, encoding="full")
    assert (
        full.information_state_tensor_size()
        != pyspiel.load_game("liars_dice", {"numdice": 2}).information_state_tensor_size()
    )
    state = full.new_initial_state()
    assert state.information_state_string(0).startswith("P0")  # the full encoding's words
    # native: any one-round game of bids and challenges that a fixed seat opens, liars_dice's layout
    classic = load("classic", players=3, dice_per_player=1, rounds="single", first_starter="0", encoding="native")
    assert classic.information_state_tensor_size() == 3 + 6 + 3 * 6 + 1
    pyspiel.random_sim_test(classic, num_sims=5, serialize=False, verbose=False)
    with pytest.raises(OptionsError, match=r"encoding=native .*pass, .*many rounds"):
        load("soar", encoding="native")
    with pytest.raises(OptionsError, match="encoding must be native or full"):
        load("openspiel", encoding="compact")
    # the openspiel preset with moves liars_dice lacks falls back to the full encoding by itself
    assert (
        load("openspiel", exact="gain_die", rounds="single")
        .new_initial_state()
        .information_state_string(0)
        .startswith("P0")
    )
