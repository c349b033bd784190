"""The lessons' scripts checked by the rules engine: every step is a real position where it is the
player's turn, every right move is legal and judged right, every move a step calls illegal is
refused, every button the browser offers has its own explanation, every count a text claims is
the engine's count, and every preset has a lesson."""

from __future__ import annotations

import re

import pytest

from liarsdice.learn import (
    FIRST,
    LESSONS,
    ME,
    BadMove,
    Count,
    Lesson,
    UnknownLesson,
    at_step,
    count_of,
    find_lesson,
    judge,
    judge_list,
    lesson_for,
    preset_lessons,
    right_actions,
)
from liarsdice.learn.judge import ALLOWED_BUT_NOT, KINDS, read_move
from liarsdice.rules import PRESETS, IllegalAction, format_action

STEPS = [(lesson.name, i) for lesson in LESSONS.values() for i in range(len(lesson.steps))]

NUMBER_WORDS = {
    w: n for n, w in enumerate(["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"])
}


def test_the_lessons_are_the_rule_families_in_order() -> None:
    assert list(LESSONS) == ["core", "wilds", "exact", "soar", "jokers", "tavern"]
    assert FIRST == "core"
    for lesson in LESSONS.values():
        assert 3 <= len(lesson.steps) <= 6, lesson.name
        assert lesson.title and lesson.teaches


def test_every_preset_has_the_lesson_of_its_rules() -> None:
    mapping = preset_lessons()
    assert set(mapping) == set(PRESETS)
    assert mapping == {
        "jokers": "jokers",
        "soar": "soar",
        "red-dead": "exact",
        "tavern": "tavern",
        "perudo": "wilds",
        "perudo_basic": "wilds",
        "openspiel": "wilds",
        "classic": "core",
    }
    # each preset is claimed by one lesson at most
    claimed = [p for lesson in LESSONS.values() for p in lesson.presets]
    assert len(claimed) == len(set(claimed)) and set(claimed) <= set(PRESETS)
    assert lesson_for("Perudo").name == "wilds"  # a preset's name in any case


def test_a_lesson_is_found_by_name_and_a_wrong_name_lists_them() -> None:
    assert find_lesson(" Soar ").name == "soar"
    with pytest.raises(UnknownLesson, match=r"there is no lesson 'poker': the lessons are core, wilds, exact, soar"):
        find_lesson("poker")


@pytest.mark.parametrize(("name", "index"), STEPS)
def test_every_step_is_the_players_turn_and_its_right_moves_are_legal(name: str, index: int) -> None:
    lesson = LESSONS[name]
    step = lesson.steps[index]
    state = at_step(lesson, index)
    assert state.seats[0] == ME and state.to_act == 0
    legal = state.legal_actions()
    for action in right_actions(lesson, index):
        plain = action if not getattr(action, "push", ()) else type(action)(action.bid)  # type: ignore[union-attr]
        assert plain in legal or action in legal, (name, index, action)
        verdict = judge(lesson, index, action)
        assert verdict.right and verdict.legal and verdict.explanation == step.right
    verdict = judge(lesson, index, right_actions(lesson, index)[0])
    if step.reveal_count is not None:
        assert verdict.outcome is not None and verdict.outcome.count == step.reveal_count


@pytest.mark.parametrize(("name", "index"), STEPS)
def test_every_offered_move_has_its_own_explanation(name: str, index: int) -> None:
    lesson = LESSONS[name]
    step = lesson.steps[index]
    state = at_step(lesson, index)
    rights = right_actions(lesson, index)
    assert any(tuple(c.move) in step.accept for c in step.choices), "a button for a right move"
    assert any(tuple(c.move) not in step.accept for c in step.choices), "a button for a wrong move"
    for choice in step.choices:
        verdict = judge_list(lesson, index, list(choice.move))
        try:
            action = read_move(state, choice.move)
        except IllegalAction:
            action = None
        if verdict.right:
            assert action in rights
            continue
        if not verdict.legal:
            # the script calls it illegal, and the engine refuses it, saying why
            assert verdict.explanation.startswith("Not allowed: ")
            assert verdict.move in step.wrong or "illegal" in step.wrong, (name, index, choice)
        else:
            assert verdict.move in step.wrong or verdict.kind in step.wrong, (name, index, choice)
            assert ALLOWED_BUT_NOT not in verdict.explanation
    for key in step.wrong:
        assert key in KINDS.values() or key == "illegal" or _is_move(lesson, index, key), key


def _is_move(lesson: Lesson, index: int, text: str) -> bool:
    """A `wrong` key that names a move as typed: one of the step's buttons."""
    state = at_step(lesson, index)
    for choice in lesson.steps[index].choices:
        try:
            if format_action(read_move(state, choice.move), state.seats) == text:
                return True
        except IllegalAction:
            continue
    return False


@pytest.mark.parametrize(("name", "index"), STEPS)
def test_every_count_a_text_claims_is_the_engines_count(name: str, index: int) -> None:
    lesson = LESSONS[name]
    step = lesson.steps[index]
    assert step.counts, "every step says what the dice count"
    for count in step.counts:
        assert count_of(lesson, step, count) == count.number, count
    # and the counts the reveal shows are those of the engine too
    verdict = judge(lesson, index, right_actions(lesson, index)[0])
    if verdict.outcome is not None and verdict.outcome.bid is not None:
        assert f"{verdict.outcome.count} against" in " ".join(verdict.reveal)


def test_a_wrong_count_is_caught() -> None:
    """The count check can fail: two 3s where the core's first step has three is refused."""
    lesson = LESSONS["core"]
    step = lesson.steps[0]
    assert count_of(lesson, step, Count(3, 3)) == 3
    assert count_of(lesson, step, Count(3, 2, "You")) == 2
    assert count_of(lesson, step, Count(3, 2)) != 2


def test_wild_ones_count_as_the_rules_of_the_step_say() -> None:
    """Perudo's ones count for a 4; the same cups in the one-die round would not."""
    wilds = LESSONS["wilds"]
    assert count_of(wilds, wilds.steps[0], Count(4, 0, "You")) == 4  # two 4s and two wild 1s
    soar = LESSONS["soar"]
    one_die = soar.steps[3]
    assert one_die.state["special_round"] and count_of(soar, one_die, Count(6, 0)) == 1  # Ana's 1 is not wild


def test_a_refused_move_changes_nothing_and_says_why() -> None:
    core = LESSONS["core"]
    verdict = judge_list(core, 1, ["bid", 2, 6])
    assert not verdict.legal and not verdict.right
    assert "does not raise" in verdict.explanation and verdict.reveal == ()


def test_a_wrong_challenge_shows_the_reveal_it_would_have_led_to() -> None:
    core = LESSONS["core"]
    verdict = judge_list(core, 3, ["challenge"])
    assert not verdict.right and verdict.legal
    assert verdict.outcome is not None and verdict.outcome.count == 4
    assert "You lose 1 die." in verdict.reveal


@pytest.mark.parametrize(
    ("move", "message"),
    [
        (["dance"], "unknown action 'dance'"),
        ([], "is not an action"),
        (["bid", "x", 3], "quantity must be a whole number"),
        (["push"], "push only with a bid or pass"),
        (["bid", 3, 4, {"push": [4], "reroll": [2]}], "cannot carry a reroll"),
    ],
)
def test_a_move_that_is_not_one_is_refused(move: list[object], message: str) -> None:
    with pytest.raises(BadMove, match=re.escape(message)):
        judge_list(LESSONS["core"], 1, move)


def test_the_numbers_the_texts_spell_out_match_their_counts() -> None:
    """A right answer that says "there are N Fs" says the count the engine makes."""
    pattern = re.compile(r"there (?:are|is) (?:exactly |only )?(\w+) (\d)s?\b")
    checked = 0
    for lesson in LESSONS.values():
        for step in lesson.steps:
            for match in pattern.finditer(step.right):
                word, face = match.group(1), int(match.group(2))
                if word not in NUMBER_WORDS:
                    continue
                assert any(c.face == face and c.number == NUMBER_WORDS[word] for c in step.counts) or (
                    step.reveal_count == NUMBER_WORDS[word]
                ), (lesson.name, step.title, match.group(0))
                checked += 1
    assert checked >= 10
