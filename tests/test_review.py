"""The best bot's review: judging a view, analysing a record, marks, JSON and the command."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from liarsdice.bots import make_builtin
from liarsdice.cli import app
from liarsdice.match import play_game
from liarsdice.record import Recorder, RecordError
from liarsdice.review import (
    ANALYSIS_VERSION,
    ESTIMATE,
    EXACT,
    THRESHOLDS,
    Analysis,
    Judge,
    accuracy,
    analyse,
    judge,
    mark,
    player_steps,
)
from liarsdice.rules import BidAction, Challenge, DrawStarter, Exact, Game, Roll, preset_options

NAMES = ("Ann", "Bob", "Cy", "Dee", "Eve", "Fay")


def build(preset: str, overrides: dict[str, Any], hands: list[list[int]], moves: list[str]) -> dict[str, Any]:
    """A record (today's format, version 1) of one round dealt `hands`, the first seat opening,
    and `moves` typed in turn."""
    game = Game(preset_options(preset, overrides), NAMES[: len(hands)])
    recorder = Recorder(game, preset=preset)
    state = game.new_initial_state()
    if state.phase == "starter":
        state, _ = recorder.apply(state, DrawStarter(0))
    state, _ = recorder.apply(state, Roll(tuple(tuple(h) for h in hands)))
    for text in moves:
        state, _ = recorder.apply(state, state.parse(text))
    data = recorder.to_json()
    assert data["version"] == 1
    return data


def last_decision(record: dict[str, Any]) -> Any:
    analysis = analyse(record)
    decision = analysis.decisions[-1]
    assert decision.step == len(record["steps"]) - 1
    return decision


# The three moves a seat's own cup already dooms, at a table of three (the multi-seat level's
# estimate) and in two-player rounds a trained duel strategy covers (exact).
DOOMED = {
    "challenge a bid the own cup makes true (3 players)": (
        "perudo",
        {"num_players": 3},
        [[2, 3, 4, 6, 6], [2, 5, 5, 3, 4], [5, 5, 5, 1, 2]],
        ["2x3", "3x5", "challenge"],
        ESTIMATE,
    ),
    "a bid the own cup rules out (3 players)": (
        "perudo",
        {"num_players": 3, "dice_per_player": 2},
        [[2, 3], [5, 4], [6, 6]],
        ["5x5"],
        ESTIMATE,
    ),
    "calza when the own cup exceeds the bid (3 players)": (
        "perudo",
        {"num_players": 3},
        [[2, 3, 4, 6, 6], [5, 5, 1, 3, 4], [2, 2, 3, 3, 4]],
        ["2x5", "calza"],
        ESTIMATE,
    ),
    "challenge a bid the own cup makes true (duel)": (
        "red-dead",
        {"num_players": 2, "dice_per_player": 2},
        [[2, 3], [5, 5]],
        ["1x5", "challenge"],
        EXACT,
    ),
    "a bid the own cup rules out (duel)": (
        "red-dead",
        {"num_players": 2, "dice_per_player": 2},
        [[2, 3], [5, 4]],
        ["4x5"],
        EXACT,
    ),
    "spot-on when the own cup exceeds the bid (duel)": (
        "red-dead",
        {"num_players": 2, "dice_per_player": 2},
        [[2, 3], [5, 5]],
        ["1x5", "spot-on"],
        EXACT,
    ),
    "a bid the own cup rules out (one die each)": ("openspiel", {}, [[2], [4]], ["2x3"], EXACT),
}


@pytest.mark.parametrize("case", sorted(DOOMED))
def test_a_move_the_own_cup_dooms_is_a_blunder(case: str) -> None:
    preset, overrides, hands, moves, source = DOOMED[case]
    decision = last_decision(build(preset, overrides, hands, moves))
    assert decision.judged and decision.source == source
    assert decision.mark == "blunder", decision
    assert decision.value == pytest.approx(-1.0)  # worth no more than losing the check
    assert decision.loss >= THRESHOLDS["blunder"]
    # the chance that the bid is true (or, called exact, exactly right) from the own cup
    assert decision.holds == (1.0 if "challenge" in case else 0.0)


def test_a_record_written_by_hand_in_version_1_is_analysed() -> None:
    record = {
        "format": "liarsdice-record",
        "version": 1,
        "preset": "classic",
        "options": preset_options("classic", {"num_players": 3}).to_dict(),
        "seats": ["Ann", "Bob", "Cy"],
        "players": [{"name": "Ann"}, {"name": "Bob"}, {"name": "Cy"}],
        "seed": None,
        "meta": {},
        "steps": [
            {"chance": "starter", "seat": "Ann"},
            {
                "chance": "roll",
                "round": 1,
                "hands": {"Ann": [4, 4, 4, 2, 3], "Bob": [1, 2, 3, 5, 6], "Cy": [6, 6, 2, 1, 5]},
            },
            {"seat": "Ann", "action": ["bid", 3, 4]},
            {"seat": "Bob", "action": ["challenge", {"target": "Ann"}]},
        ],
        "rounds": [],
        "result": None,
    }
    if "first_starter" in record["options"] and record["options"]["first_starter"] != "random":
        record["steps"].pop(0)
    analysis = analyse(record)
    assert [d.step for d in analysis.decisions] == player_steps(record)
    bob = analysis.decisions[-1]
    assert bob.seat == "Bob" and bob.move == "challenge Ann" and bob.judged
    assert bob.holds is not None and 0 < bob.holds < 1
    ann = analysis.decisions[0]
    assert ann.holds == 1.0 and ann.mark is None  # Ann's own cup makes 3x4 true: a sound bid
    assert not analysis.finished


@pytest.mark.parametrize("kind", ["trained strategy", "exact solution"])
def test_duel_values_agree_with_a_walk_of_the_whole_round(kind: str) -> None:
    """Under a trained 1-vs-1 strategy (the graph's backward pass) and under the exact solution
    (the tree's), every move's value equals a plain walk of every history of the round, with the
    other cup weighed by Bayes' rule on its bid."""
    from liarsdice.bots.cfr import CfrBot
    from liarsdice.duel import train
    from liarsdice.review.duel import duel_values, solution_values

    options = preset_options("openspiel")
    strategy = train(options, (1, 1), iterations=60)
    g = strategy.game
    policy_of: Any
    if kind == "trained strategy":
        policy_of = strategy.policy
    else:
        solution = CfrBot(0).solution_for(options, (1, 1))
        assert solution is not None
        policy_of = solution.policy

    def walk(hands: tuple[tuple[int, ...], tuple[int, ...]], bids: list[Any], me: int) -> float:
        actor = len(bids) % 2
        total = 0.0
        for move, p in policy_of(hands[actor], bids).items():
            if p == 0:
                continue
            if move is None:
                bid = bids[-1]
                count = sum(g.spec.count(h, bid.face) for h in hands)
                caller_wins = count < bid.quantity
                total += p * (1.0 if caller_wins == (actor == me) else -1.0)
            else:
                total += p * walk(hands, [*bids, move], me)
        return total

    game = Game(options)
    state = game.position([(2,), (6,)], starter=0)
    opening = g.spec.bids[1]
    state, _ = state.apply(BidAction(opening))  # the opener bids; the other answers
    view = state.view(1)
    values = duel_values(view, strategy) if kind == "trained strategy" else solution_values(view, solution)
    assert values is not None and len(values) == len(view.legal_actions)
    opp = g.players[0]
    post = np.array([c * policy_of(h, []).get(opening, 0.0) for h, c in zip(opp.hands, opp.chance, strict=True)])
    post = post / post.sum()
    for action, value in values.items():
        expected = 0.0
        for h, w in zip(opp.hands, post, strict=True):
            hands = (h, (6,))
            if isinstance(action, Challenge):
                count = sum(g.spec.count(x, opening.face) for x in hands)
                expected += w * (1.0 if count < opening.quantity else -1.0)
            else:
                assert isinstance(action, BidAction)
                expected += w * walk(hands, [opening, action.bid], 1)
        assert value == pytest.approx(expected, abs=1e-6), action


def test_soar_duel_values_agree_with_a_walk_of_the_whole_round() -> None:
    """Soar's duel: passes, the challenge of a pass and an exact call once a game. Under a trained
    strategy of two dice against one, every move's value at the opener's second turn equals a
    plain walk of every history of the round, the other cup weighed by Bayes' rule on its raise."""
    from liarsdice.duel import train
    from liarsdice.duel.graph import EXACT, PASS
    from liarsdice.review.duel import duel_values

    options = preset_options("soar", {"num_players": 2, "faces": 4})
    strategy = train(options, (2, 1), iterations=60, exact_left=(True, True))
    g = strategy.game
    assert g.passes and g.has_exact
    hit = g.exact_hit
    assert hit is not None

    def settle(hands: tuple[tuple[int, ...], ...], moves: list[Any], call: Any, actor: int, me: int) -> float:
        """The value to `me` of `actor` calling (None: the liar call, EXACT) on the last move."""
        bids = [m for m in moves if m != PASS]
        if call is None and moves[-1] == PASS:
            passer = hands[1 - actor]
            caller_wins = len(set(passer)) > 1  # a pass holds where every die shows one face
            return 1.0 if caller_wins == (actor == me) else -1.0
        count = sum(g.spec.count(h, bids[-1].face) for h in hands)
        if call is None:
            caller_wins = count < bids[-1].quantity
            return 1.0 if caller_wins == (actor == me) else -1.0
        if count == bids[-1].quantity:
            return hit[actor] if actor == me else -hit[actor]
        return -1.0 if actor == me else 1.0

    def walk(hands: tuple[tuple[int, ...], ...], moves: list[Any], me: int) -> float:
        actor = len(moves) % 2
        total = 0.0
        for move, p in strategy.policy(hands[actor], moves).items():
            if p == 0:
                continue
            if move is None or move == EXACT:
                total += p * settle(hands, moves, move, actor, me)
            else:
                total += p * walk(hands, [*moves, move], me)
        return total

    game = Game(options)
    mine = (3, 3)  # two dice of one face: a pass that holds
    state = game.position([mine, (2,)], starter=0)
    opening, answer = g.spec.bids[0], g.spec.bids[2]
    state, _ = state.apply(BidAction(opening))
    state, _ = state.apply(BidAction(answer))
    view = state.view(0)
    values = duel_values(view, strategy)
    assert values is not None
    assert {type(a).__name__ for a in values} >= {"Pass", "Challenge", "Exact", "BidAction"}
    other = g.players[1]
    post = np.array(
        [c * strategy.policy(h, [opening]).get(answer, 0.0) for h, c in zip(other.hands, other.chance, strict=True)]
    )
    post = post / post.sum()
    for action, value in values.items():
        expected = 0.0
        for h, w in zip(other.hands, post, strict=True):
            hands = (mine, h)
            if isinstance(action, Challenge):
                expected += w * settle(hands, [opening, answer], None, 0, 0)
            elif isinstance(action, Exact):
                expected += w * settle(hands, [opening, answer], EXACT, 0, 0)
            else:
                move = action.bid if isinstance(action, BidAction) else PASS
                expected += w * walk(hands, [opening, answer, move], 0)
        assert value == pytest.approx(expected, abs=1e-6), action


def test_a_soar_duel_after_a_pass_is_judged_under_the_shipped_strategy() -> None:
    # The last two cups of a game of five dice each, two dice left each (a cup of two dice from
    # the start would cap an exact's gain at two: other rules, which no strategy is shipped for).
    from liarsdice.review.judge import Judge

    game = Game(preset_options("soar", {"num_players": 2}))
    state = game.position([(3, 3), (5, 2)], starter=0)
    for text in ("1x4", "1x5", "pass"):
        state, _ = state.apply(state.parse(text))
    view = state.view(1)
    judgement = Judge(1).judge(view, made=state.parse("4x6"))
    assert judgement.source == EXACT
    values = {
        type(m.action).__name__ if not isinstance(m.action, BidAction) else m.text: m.value for m in judgement.moves
    }
    assert values["4x6"] == pytest.approx(-1.0)  # the own cup rules it out: the other holds two dice
    assert {"Challenge", "Pass"} <= set(values)  # the challenge of the pass, and a pass in turn
    assert -1.0 < values["Challenge"] < 1.0  # the pass holds for some of the hands it may hide


def test_judge_is_a_hint_from_the_view_alone() -> None:
    game = Game(preset_options("perudo", {"num_players": 3}))
    state = game.position([(1, 5, 2, 3, 4), (2, 2, 2, 2, 2), (3, 3, 3, 3, 3)], starter=2)
    state, _ = state.apply(state.parse("4x3"))
    view = state.view(0)
    judgement = judge(view)
    assert judgement.source == ESTIMATE and judgement.unit == "dice"
    values = [m.value for m in judgement.moves]
    assert values == sorted(values, reverse=True)
    assert judgement.best() is judgement.moves[0]
    mix = judgement.mix()
    assert mix and sum(m.chance for m in mix) == pytest.approx(1.0)
    assert any(isinstance(m.action, Challenge) for m in judgement.moves)
    assert any(isinstance(m.action, Exact) for m in judgement.moves)
    data = judgement.to_json(view.seats)
    assert data["best"] == judgement.moves[0].text and data["source"] == "estimate"
    assert {"move", "action", "value", "chance", "holds"} <= set(data["moves"][0])
    with pytest.raises(ValueError, match="whose turn"):
        judge(state.view(1))


def self_play(preset: str, players: int, dice: int, seed: int) -> dict[str, Any]:
    game = Game(preset_options(preset, {"num_players": players, "dice_per_player": dice}))
    bots = [make_builtin("duel", seed=seed * 10 + s) for s in range(players)]
    _, recorder = play_game(game, bots, seed=seed, preset=preset)
    return recorder.to_json()


def test_the_best_bots_own_moves_are_seldom_marked() -> None:
    """A small sample of self-play (the full measurement: benchmarks/analysis.py)."""
    judged = blunders = marked = 0
    for preset, players, dice, seed in (("perudo", 3, 3, 1), ("red-dead", 2, 2, 2), ("classic", 4, 3, 3)):
        analysis = analyse(self_play(preset, players, dice, seed))
        for d in analysis.decisions:
            judged += d.judged
            blunders += d.mark == "blunder"
            marked += d.mark is not None
    assert judged >= 60
    assert blunders == 0
    assert marked <= judged * 0.1


def test_the_json_names_every_player_step_and_round_trips() -> None:
    record = self_play("perudo", 3, 2, 4)
    analysis = analyse(record)
    data = analysis.to_json()
    assert data["format"] == "liarsdice-analysis" and data["version"] == ANALYSIS_VERSION
    assert data["record_version"] == 1 and data["seats"] == record["seats"] and data["unit"] == "dice"
    assert [d["step"] for d in data["decisions"]] == player_steps(record)
    for d in data["decisions"]:
        step = record["steps"][d["step"]]
        assert step["seat"] == d["seat"] and step["action"] == d["action"]
        if d["judged"]:
            assert d["loss"] == pytest.approx(max(d["best_value"] - d["value"], 0.0), abs=2e-4)
            assert d["mark"] == mark(d["loss"])
            assert d["move"] in [m["move"] for m in d["moves"]]
        else:
            assert d["reason"] and "mark" not in d
    again = Analysis.from_json(json.loads(json.dumps(data)))
    assert again == analysis and again.to_json() == data
    with pytest.raises(ValueError, match="version"):
        Analysis.from_json({**data, "version": ANALYSIS_VERSION + 1})
    with pytest.raises(ValueError, match="format"):
        Analysis.from_json({**data, "format": "something else"})
    # the chart: the dice at every roll, and the dice the game ended with
    rolls = [i for i, s in enumerate(record["steps"]) if s.get("chance") == "roll"]
    assert [p.step for p in analysis.standing if p.step in rolls] == rolls
    final = record["rounds"][-1]["dice_after"]
    assert list(analysis.standing[-1].values) == [float(final.get(s, 0)) for s in record["seats"]]
    for summary in analysis.summary:
        mine = [d for d in analysis.decisions if d.seat == summary.seat]
        assert summary.decisions == len(mine) and summary.judged == sum(d.judged for d in mine)
        assert summary.blunders == sum(d.mark == "blunder" for d in mine)


def test_a_move_the_best_bot_cannot_weigh_is_not_marked() -> None:
    # A Tavern claim with a raise the multi-seat level never scores (a claim off its best few, raised to 7).
    record = build("tavern", {"num_players": 2}, [[2, 3, 4], [5, 5, 1]], ["2x7 raise 7"])
    decision = analyse(record).decisions[-1]
    assert not decision.judged and decision.mark is None and decision.reason
    assert "mark" not in decision.to_json() and "reason" in decision.to_json()


def test_marks_and_accuracy() -> None:
    t = THRESHOLDS
    assert mark(0.0) is None and mark(t["inaccuracy"] - 1e-9) is None
    assert mark(t["inaccuracy"]) == "inaccuracy" and mark(t["mistake"]) == "mistake"
    assert mark(t["blunder"]) == "blunder" and mark(5.0) == "blunder"
    assert accuracy([]) is None and accuracy([0.0, 0.0]) == 100.0
    assert accuracy([0.0, 1.0]) < accuracy([0.0, 0.2]) < 100.0


def test_analyse_refuses_a_record_that_does_not_replay() -> None:
    record = build("perudo", {"num_players": 3}, [[2, 3, 4, 6, 6], [2, 5, 5, 3, 4], [5, 5, 5, 1, 2]], ["2x3"])
    record["steps"].append({"seat": "Bob", "action": ["bid", 1, 3]})  # not a raise
    with pytest.raises(RecordError, match="illegal"):
        analyse(record)


def test_a_judge_learns_the_seats_views_in_order() -> None:
    judge_ = Judge(0)
    record = self_play("perudo", 3, 2, 5)
    from liarsdice.record import replay

    for step in replay(record):
        if step.seat == 0 and step.before.view(0).legal_actions and len(step.before.view(0).legal_actions) > 1:
            assert judge_.judge(step.before.view(0), made=step.action).find(step.action) is not None  # type: ignore[arg-type]
    assert judge_.strong.honesty  # it has weighed the others' bids at the reveals it saw


# ----- the command -----

runner = CliRunner()


def test_analyse_prints_the_marks_and_a_summary(tmp_path: Path) -> None:
    preset, overrides, hands, moves, _ = DOOMED["challenge a bid the own cup makes true (3 players)"]
    path = tmp_path / "game.json"
    path.write_text(json.dumps(build(preset, overrides, hands, moves)))
    result = runner.invoke(app, ["analyse", str(path)])
    assert result.exit_code == 0, result.output
    text = result.output
    assert "Round 1" in text and "Summary" in text
    line = next(line for line in text.splitlines() if "challenge Bob" in line)
    assert "??" in line and "(blunder)" in line and "holds 100%" in line and "[estimate]" in line
    assert "Cy: 1 decision, 1 judged" in text and "1 blunder ??" in text
    assert "analysed as far as it was played" in text  # the record stops mid-game

    result = runner.invoke(app, ["analyse", str(path), "--json"])
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data["decisions"][-1]["mark"] == "blunder" and data["decisions"][-1]["step"] == 4


def test_analyse_says_what_is_wrong_with_bad_input(tmp_path: Path) -> None:
    missing = runner.invoke(app, ["analyse", str(tmp_path / "none.json")])
    assert missing.exit_code == 1 and "cannot read" in missing.output
    other = tmp_path / "other.json"
    other.write_text('{"hello": 1}')
    result = runner.invoke(app, ["analyse", str(other)])
    assert result.exit_code == 1 and "not a liarsdice game record" in result.output
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    result = runner.invoke(app, ["analyse", str(broken)])
    assert result.exit_code == 1 and "is not JSON" in result.output
    record = build("perudo", {"num_players": 3}, [[2, 3, 4, 6, 6], [2, 5, 5, 3, 4], [5, 5, 5, 1, 2]], ["2x3"])
    record["steps"].append({"seat": "Bob", "action": ["bid", 1, 3]})
    illegal = tmp_path / "illegal.json"
    illegal.write_text(json.dumps(record))
    result = runner.invoke(app, ["analyse", str(illegal)])
    assert result.exit_code == 1 and "step 3" in result.output and "illegal" in result.output
    assert "Traceback" not in missing.output + result.output


def test_analyse_stops_when_asked() -> None:
    from liarsdice.review import AnalysisStopped

    record = self_play("perudo", 3, 2, 6)
    asked = []

    def stop() -> bool:
        asked.append(1)
        return len(asked) > 3

    with pytest.raises(AnalysisStopped, match="stopped at step"):
        analyse(record, stop=stop)
    assert len(asked) == 4


def test_the_standing_of_a_duel_splits_one_die_between_the_two() -> None:
    record = self_play("red-dead", 2, 3, 7)
    analysis = analyse(record)
    rolls = {p.round: sum(p.values) for p in analysis.standing if record["steps"][p.step].get("chance") == "roll"}
    decided = [p for p in analysis.standing if "chance" not in record["steps"][p.step]][:-1]
    assert decided  # a point after each judged decision of the two-player rounds
    for point in decided:
        assert sum(point.values) == pytest.approx(rolls[point.round] - 1, abs=1e-3)  # one die is lost
        assert all(0 <= v <= 3 for v in point.values)
