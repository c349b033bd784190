"""Game records: every game writes one, `replay` rebuilds it exactly, and a record that breaks
the rules is refused with the step and the reason."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from liarsdice.match import play_game
from liarsdice.players import make_bot
from liarsdice.record import Recorder, RecordError, load_record, replay, replay_text
from liarsdice.rules import PRESETS, Game, preset_options


def _record(preset: str, players: int, seed: int) -> tuple[Any, dict[str, Any]]:
    game = Game(preset_options(preset, {"num_players": players}))
    bots = [make_bot("probability" if s % 2 else "random", seed * 10 + s) for s in range(players)]
    state, recorder = play_game(game, bots, seed=seed, preset=preset)
    # through JSON text, as a file would hold it
    return state, json.loads(json.dumps(recorder.to_json()))


@pytest.mark.parametrize("preset", list(PRESETS))
@pytest.mark.parametrize("players", [2, 4])
def test_record_round_trip(preset: str, players: int) -> None:
    if preset == "openspiel" and players != 2:
        players = 2
    final, data = _record(preset, players, seed=players * 7 + 1)
    steps = list(replay(data))
    assert steps, "a finished game has steps"
    replayed = steps[-1].after
    assert replayed.is_terminal
    assert replayed.result == final.result
    assert replayed.dice == final.dice
    assert len(data["rounds"]) == sum(1 for s in steps for e in s.events if type(e).__name__ == "RoundResolved")
    assert data["result"]["places"] == {final.seats[s]: p for s, p in enumerate(final.result.places)}
    text = "\n".join(replay_text(data))
    assert "Round 1" in text and "Final ranking:" in text


def test_same_seed_same_game() -> None:
    _, a = _record("perudo", 3, seed=11)
    _, b = _record("perudo", 3, seed=11)
    assert a["steps"] == b["steps"] and a["rounds"] == b["rounds"]
    _, c = _record("perudo", 3, seed=12)
    assert a["steps"] != c["steps"]


def _first(data: dict[str, Any], pred: Any) -> int:
    return next(i for i, step in enumerate(data["steps"]) if pred(step))


def test_an_illegal_action_is_refused_with_its_index() -> None:
    _, data = _record("classic", 3, seed=5)
    bad = copy.deepcopy(data)
    i = _first(bad, lambda s: s.get("action", [None])[0] == "bid")
    j = i + 1 + _first({"steps": bad["steps"][i + 1 :]}, lambda s: s.get("action", [None])[0] == "bid")
    # the second bid of the round now repeats the first: not a raise
    bad["steps"][j]["action"] = list(bad["steps"][i]["action"])
    with pytest.raises(RecordError) as err:
        list(replay(bad))
    assert err.value.index == j
    assert "does not raise" in err.value.reason


def test_a_roll_that_contradicts_the_options_is_refused() -> None:
    _, data = _record("perudo", 2, seed=3)
    i = _first(data, lambda s: s.get("chance") == "roll")
    too_many = copy.deepcopy(data)
    name = too_many["seats"][0]
    too_many["steps"][i]["hands"][name] = [*too_many["steps"][i]["hands"][name], 3]
    with pytest.raises(RecordError) as err:
        list(replay(too_many))
    assert err.value.index == i and "holds 5 dice" in err.value.reason
    bad_face = copy.deepcopy(data)
    bad_face["steps"][i]["hands"][name][0] = 7
    with pytest.raises(RecordError) as err:
        list(replay(bad_face))
    assert err.value.index == i and "faces are 1 to 6" in err.value.reason


def test_steps_out_of_order_are_refused() -> None:
    _, data = _record("classic", 2, seed=2)
    i = _first(data, lambda s: "seat" in s and "action" in s)
    swapped = copy.deepcopy(data)
    swapped["steps"][i]["seat"] = next(s for s in swapped["seats"] if s != swapped["steps"][i]["seat"])
    with pytest.raises(RecordError) as err:
        list(replay(swapped))
    assert err.value.index == i and "turn" in err.value.reason
    no_roll = copy.deepcopy(data)
    del no_roll["steps"][_first(no_roll, lambda s: s.get("chance") == "roll")]
    with pytest.raises(RecordError):
        list(replay(no_roll))


def test_a_summary_that_disagrees_with_the_steps_is_refused() -> None:
    _, data = _record("perudo", 3, seed=4)
    wrong_round = copy.deepcopy(data)
    wrong_round["rounds"][0]["round_loser"] = next(s for s in data["seats"] if s != data["rounds"][0]["round_loser"])
    with pytest.raises(RecordError, match="round 1 is recorded with round_loser"):
        list(replay(wrong_round))
    wrong_result = copy.deepcopy(data)
    places = wrong_result["result"]["places"]
    first, second = list(places)[:2]
    places[first], places[second] = places[second], places[first]
    with pytest.raises(RecordError, match="recorded result"):
        list(replay(wrong_result))
    truncated = copy.deepcopy(data)
    truncated["steps"] = truncated["steps"][:-1]
    with pytest.raises(RecordError):
        list(replay(truncated))


def test_an_unfinished_record_without_a_result_replays() -> None:
    _, data = _record("perudo", 3, seed=4)
    partial = copy.deepcopy(data)
    keep = _first(partial, lambda s: s.get("chance") == "roll" and s.get("round") == 2)
    partial["steps"] = partial["steps"][:keep]
    partial["rounds"] = partial["rounds"][:1]
    partial["result"] = None
    steps = list(replay(partial))
    assert not steps[-1].after.is_terminal


@pytest.mark.parametrize(
    ("patch", "message"),
    [
        ({"format": "chess"}, "not a liarsdice game record"),
        ({"version": 99}, "version 99"),
        ({"options": {"faces": 1}}, "bad options"),
        ({"seats": "AB"}, "seats"),
        ({"steps": {}}, "steps must be a list"),
    ],
)
def test_malformed_records_are_refused(patch: dict[str, Any], message: str) -> None:
    _, data = _record("classic", 2, seed=1)
    data.update(patch)
    with pytest.raises(RecordError, match=message):
        list(replay(data))


def _cli() -> list[str]:
    exe = Path(sys.executable).with_name("liarsdice")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "liarsdice.cli"]


def test_replay_command(tmp_path: Path) -> None:
    _, data = _record("soar", 3, seed=9)
    good = tmp_path / "good.json"
    good.write_text(json.dumps(data), encoding="utf-8")
    run = subprocess.run([*_cli(), "replay", str(good)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "Round 1" in run.stdout and "Final ranking:" in run.stdout and "Reveal:" in run.stdout
    assert load_record(good) == data

    bad = copy.deepcopy(data)
    i = _first(bad, lambda s: s.get("chance") == "roll")
    bad["steps"][i]["hands"][bad["seats"][1]] = [1]
    bad_path = tmp_path / "bad.json"
    bad_path.write_text(json.dumps(bad), encoding="utf-8")
    run = subprocess.run([*_cli(), "replay", str(bad_path)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 1
    assert f"step {i}:" in run.stderr and "invalid record" in run.stderr

    run = subprocess.run(
        [*_cli(), "replay", str(tmp_path / "missing.json")], capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 1 and "cannot read" in run.stderr


def _stopped_in_round_two() -> dict[str, Any]:
    _, data = _record("perudo", 3, seed=4)
    keep = _first(data, lambda s: s.get("chance") == "roll" and s.get("round") == 2) + 3
    data["steps"] = data["steps"][:keep]
    data["rounds"] = data["rounds"][:1]
    data["result"] = None
    return data


def test_replay_says_a_game_was_stopped_by_whom_and_when(tmp_path: Path) -> None:
    data = _stopped_in_round_two()
    who = data["seats"][1]
    data["meta"].update(stopped="quit", stopped_by=who, stopped_at="2026-01-02T03:04:05+00:00")
    moves = sum(1 for step in data["steps"] if "chance" not in step)  # deals and rolls are not moves
    assert 1 < moves < len(data["steps"])
    said = f"{who} quit the game after {moves} moves. It stopped in round 2 at 2026-01-02T03:04:05+00:00."
    assert list(replay_text(data))[-1] == said + " The game is unfinished."
    path = tmp_path / "stopped.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    run = subprocess.run([*_cli(), "replay", str(path)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert said in run.stdout and "Final ranking:" not in run.stdout

    data["meta"].update(stopped=f"{who} forfeited", forfeit={"seat": who, "reason": "illegal"})
    del data["meta"]["stopped_by"]
    said = f"{who} forfeited the game after {moves} moves (illegal): last place, and everyone else shares first."
    assert list(replay_text(data))[-1] == said

    del data["meta"]["stopped"], data["meta"]["forfeit"], data["meta"]["stopped_at"]
    assert list(replay_text(data))[-1] == f"The record ends before the game is over (in round 2, after {moves} moves)."
    _, finished = _record("perudo", 3, seed=4)
    assert not any("stopped" in line or "record ends" in line for line in replay_text(finished))


def test_a_record_never_overwrites_another(tmp_path: Path) -> None:
    _, first = _record("classic", 2, seed=1)
    _, second = _record("classic", 2, seed=2)
    path = tmp_path / "records" / "game.json"
    written = []
    for data in (first, second, second):
        recorder = Recorder(Game(preset_options("classic", {"num_players": 2})))
        recorder.data = data
        written.append(recorder.write_new(path))
    assert [p.name for p in written] == ["game.json", "game-2.json", "game-3.json"]
    assert load_record(written[0]) == first and load_record(written[1]) == second == load_record(written[2])
