"""Options and presets: what validation costs, and the options a preset fixes (RULES.md 2.2)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest

from liarsdice.rules import Game, Options, OptionsError, preset_options
from liarsdice.rules import options as options_module
from liarsdice.rules.options import find_preset
from liarsdice.scenario import run_scenario


def lines_run_in_options(build: Callable[[], Any]) -> int:
    """How many lines of `liarsdice/rules/options.py` run while `build()` runs.

    A count of work done, not a time: the same on any machine, so it can say that validation
    does not grow with the number of seats without a timed test."""
    count = 0

    def tracer(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line" and frame.f_code.co_filename == options_module.__file__:
            count += 1
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        build()
    finally:
        sys.settrace(previous)
    return count


@pytest.mark.parametrize(
    "options",
    [
        {"dice_per_player": 5},
        {"dice_per_player": 5, "max_dice": 6},
        {"dice_per_player": 3, "max_dice": 3, "faces": 8},
    ],
    ids=["dice", "dice-and-cap", "dice-cap-faces"],
)
def test_validation_does_the_same_work_for_any_number_of_seats(options: dict[str, Any]) -> None:
    def build(n: int) -> Callable[[], Any]:
        return lambda: Options.from_dict({**options, "num_players": n})

    assert lines_run_in_options(build(2)) == lines_run_in_options(build(100_000))


def test_a_huge_table_validates_at_once() -> None:
    # A loop over the seats or a list per seat would not finish (or run out of memory) here.
    options = Options.from_dict({"num_players": 10**12, "dice_per_player": 5, "max_dice": 7, "faces": 10**9})
    assert options.num_players == 10**12 and options.dice_cap(10**12 - 1) == 7


def test_huge_values_are_still_checked_against_each_other() -> None:
    with pytest.raises(OptionsError, match=r"max_dice \(4\) is below dice_per_player \(5\) for seat 0"):
        Options.from_dict({"num_players": 10**12, "dice_per_player": 5, "max_dice": 4})
    with pytest.raises(OptionsError, match="first_starter is seat 10 but the seats are 0 to 2"):
        Options.from_dict({"num_players": 3, "first_starter": 10})


def test_per_seat_lists_are_checked_seat_by_seat() -> None:
    with pytest.raises(OptionsError, match=r"max_dice \(5\) is below dice_per_player \(6\) for seat 2"):
        Options.from_dict({"num_players": 3, "dice_per_player": [5, 5, 6], "max_dice": 5})
    with pytest.raises(OptionsError, match=r"max_dice \(2\) is below dice_per_player \(3\) for seat 1"):
        Options.from_dict({"num_players": 3, "dice_per_player": 3, "max_dice": [3, 2, 2]})
    with pytest.raises(OptionsError, match="dice_per_player lists 2 seats but num_players is 3"):
        Options.from_dict({"num_players": 3, "dice_per_player": [5, 5]})
    options = Options.from_dict({"num_players": 3, "dice_per_player": [1, 2, 3], "max_dice": [4, 2, 3]})
    assert [options.dice_cap(s) for s in range(3)] == [4, 2, 3]


# ----- the openspiel preset seats two (RULES.md 2.2, 2.4 item 2) -----


@pytest.mark.parametrize("players", [3, 4, 12])
def test_openspiel_refuses_other_table_sizes(players: int) -> None:
    with pytest.raises(OptionsError) as caught:
        preset_options("openspiel", {"num_players": players})
    message = str(caught.value)
    assert f"openspiel preset fixes num_players at 2, not {players}" in message
    assert "rounds=single" in message  # says what to do instead


def test_openspiel_with_two_players_still_builds() -> None:
    assert preset_options("openspiel").num_players == 2
    assert preset_options("openspiel", {"num_players": 2, "dice_per_player": 3}).num_players == 2
    preset = find_preset("openspiel")
    assert (preset.min_players, preset.max_players) == (2, 2)


def test_a_single_round_at_a_bigger_table_is_another_preset_with_rounds_single() -> None:
    options = preset_options("classic", {"num_players": 3, "rounds": "single", "wild_face": "top"})
    state = Game(options).new_initial_state()
    assert state.is_chance and options.num_players == 3


def test_a_scenario_seating_three_at_openspiel_is_a_setup_error() -> None:
    case = {
        "id": "os3",
        "preset": "openspiel",
        "seats": ["A", "B", "C"],
        "dice": {"A": [2], "B": [3], "C": [6]},
        "actions": [["A", "bid", 1, 2], ["B", "challenge"]],
    }
    line = run_scenario(case)
    assert "observed" not in line
    assert line["error"].startswith("the openspiel preset fixes num_players at 2, not 3")


def test_the_perudo_table_size_is_not_an_option_limit() -> None:
    # S6: 2 to 6 is the table size when a game is started for play; a scenario may seat more.
    assert preset_options("perudo", {"num_players": 7}).num_players == 7
