"""`liarsdice learn` in the terminal: every lesson taken with scripted input (a wrong move, then the
right one, at every step), the short game against the easiest bot played to its end, choosing a
lesson from the list, and the refusals of a wrong lesson name."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from rich.console import Console

from liarsdice.learn import LESSONS, at_step
from liarsdice.learn.judge import read_move
from liarsdice.record import load_record
from liarsdice.rules import IllegalAction, format_action
from liarsdice.terminal.lesson import NEXT_PROMPT, run_lesson
from test_terminal import LIARSDICE, Script, make_console, output


def _typed(lesson_name: str, index: int, move: tuple[object, ...]) -> str:
    """A list-form move as a person types it at the terminal."""
    lesson = LESSONS[lesson_name]
    state = at_step(lesson, index)
    try:
        return format_action(read_move(state, move), state.seats)
    except IllegalAction:
        return str(move[0])  # a bare challenge with nothing to challenge


class Learner:
    """A person taking a lesson: at each step `look`, then the move of the first wrong button the
    browser would offer, then the right move; Enter between steps; then `answer` to the offer of a game, whose
    moves a `Script` reads off the screen."""

    def __init__(self, console: Console, name: str, answer: str = "y") -> None:
        lesson = LESSONS[name]
        self.answers: list[str] = []
        for index, step in enumerate(lesson.steps):
            wrong = [c for c in step.choices if c.move not in step.accept]
            self.answers += ["look", _typed(name, index, wrong[0].move), _typed(name, index, step.accept[0])]
        self.answers.append(answer)
        self.game = Script(console, opening=())
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if prompt == NEXT_PROMPT:
            return ""
        if self.answers:
            return self.answers.pop(0)
        return self.game(prompt)


@pytest.mark.parametrize("name", list(LESSONS))
def test_a_lesson_is_taken_then_its_short_game_played_to_the_end(name: str, tmp_path: Path) -> None:
    console = make_console()
    learner = Learner(console, name)
    code = run_lesson(LESSONS[name], console=console, read_line=learner, record_dir=tmp_path, seed=3)
    assert code == 0
    text = output(console)
    lesson = LESSONS[name]
    for index, step in enumerate(lesson.steps):
        assert f"step {index + 1} of {len(lesson.steps)}: {step.title}" in text
        assert " ".join(step.right.split()) in " ".join(text.split())  # the explanation of the right move
    assert text.count("Try again") == len(lesson.steps)  # one wrong move a step, each explained
    assert f"Lesson done: {lesson.title}." in text
    assert any("Play a short game against a Beginner bot" in prompt for prompt in learner.prompts)
    assert "Final ranking:" in text
    records = list(tmp_path.glob("*.json"))
    assert len(records) == 1
    record = load_record(records[0])
    assert record["preset"] == lesson.preset
    assert record["options"]["num_players"] == lesson.game["num_players"]
    assert [p.get("level") for p in record["players"]] == [None] + ["beginner"] * (lesson.game["num_players"] - 1)
    assert "result" in record  # played to its end


def test_the_wrong_move_is_explained_and_the_reveal_shown() -> None:
    console = make_console()
    learner = Learner(console, "core", answer="n")
    assert run_lesson(LESSONS["core"], console=console, read_line=learner) == 0
    text = " ".join(output(console).split())
    # step 4: challenging Ben's true bid shows the count and who would lose
    assert "Counted 5s: 4 against the bid 3x5. Ben's bid was true. You lose 1 die." in text
    assert "There are four 5s, at least the three Ben bid" in text
    # step 2's illegal raise: the engine's reason, then the lesson's
    assert "Not allowed: 2x6 does not raise 3x2" in text
    assert "Final ranking:" not in text  # the game was declined


def test_typing_quit_stops_the_lesson() -> None:
    console = make_console()
    answers = iter(["help", "moves", "odds", "quit"])
    assert run_lesson(LESSONS["soar"], console=console, read_line=lambda prompt: next(answers)) == 0
    text = output(console)
    assert "Moves:" in text and "Pass:" in text and "Lesson stopped." in text


def _cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(LIARSDICE), *args], input=stdin, capture_output=True, text=True, timeout=120, check=False
    )


def test_cli_lists_the_lessons_then_asks_which() -> None:
    done = _cli("learn", stdin="9\npoker\n4\nquit\n")
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    for number, lesson in enumerate(LESSONS.values(), 1):
        assert f"{number}. {lesson.name}" in text and lesson.teaches in text
    assert "There is no lesson '9': the lessons are core, wilds, exact, soar, jokers, tavern" in text
    assert "There is no lesson 'poker'" in text
    assert "Lesson: Pass, push and the one-die round" in text and "Lesson stopped." in text


def test_cli_takes_a_lesson_by_name() -> None:
    done = _cli("learn", "Wilds", stdin="5x4\n")
    assert done.returncode == 0, done.stderr
    assert "Right: counting the ones, there are six 4s" in " ".join(done.stdout.split())


def test_cli_refuses_a_lesson_that_does_not_exist() -> None:
    done = _cli("learn", "poker")
    assert done.returncode == 2
    assert "error: there is no lesson 'poker': the lessons are core, wilds, exact, soar, jokers, tavern" in done.stderr
    assert "learn" in _cli("--help").stdout
