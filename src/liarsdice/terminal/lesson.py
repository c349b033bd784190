"""A lesson in the terminal (`liarsdice learn`): each step shown as the table is at a turn, the
move typed as in a game, judged by the lesson's judge (learn/judge.py) and explained; then the
short game against the easiest bot, played as `liarsdice play` plays it."""

from __future__ import annotations

import random
from pathlib import Path

from rich.console import Console
from rich.text import Text

from ..learn import LESSONS, Lesson, UnknownLesson, Verdict, at_step, find_lesson, judge, judge_list
from ..learn.judge import game_of
from ..levels import LADDER
from ..rules import InvalidText, PlayerView, preset_options
from .person import read_move
from .play import run_play
from .screen import QuitGame, ReadLine, Screen

EASIEST = LADDER[0]
"""The level of a lesson's short game: the weakest rung of the ladder."""

NEXT_PROMPT = "Press Enter for the next step. "


def lesson_list() -> list[str]:
    """The lessons, numbered, each with what it teaches."""
    lines = []
    for number, lesson in enumerate(LESSONS.values(), 1):
        lines.append(f"{number}. {lesson.name:7} {lesson.title}: {lesson.teaches}")
    return lines


def choose_lesson(console: Console, read_line: ReadLine | None) -> Lesson:
    """Ask which lesson, by number or name (Enter: the first), until the answer names one."""
    screen = _plain_screen(console, read_line)
    screen.say("Lessons:", "bold")
    for line in lesson_list():
        screen.say("  " + line)
    names = list(LESSONS)
    while True:
        answer = screen.ask(f"Which lesson? (1-{len(names)} or a name; Enter: {names[0]}) ").strip()
        if not answer:
            return LESSONS[names[0]]
        if answer.isdigit() and 1 <= int(answer) <= len(names):
            return LESSONS[names[int(answer) - 1]]
        try:
            return find_lesson(answer)
        except UnknownLesson as e:
            screen.say(f"{str(e)[:1].upper()}{str(e)[1:]} (or a number from 1 to {len(names)}).", "red")


def _plain_screen(console: Console, read_line: ReadLine | None) -> Screen:
    first = next(iter(LESSONS.values()))
    return Screen(console, game_of(first, first.steps[0]), first.preset, [0], read_line)


def _show_verdict(screen: Screen, verdict: Verdict) -> None:
    for line in verdict.said:
        screen.say(line)
    for line in verdict.reveal:
        screen.say(line)
    if verdict.right:
        screen.say(verdict.explanation, "green")
    else:
        screen.say(verdict.explanation, "red")


def play_step(screen: Screen, lesson: Lesson, index: int) -> None:
    """One step: the table, the instruction, moves typed until the right one."""
    step = lesson.steps[index]
    view: PlayerView = at_step(lesson, index).view(0)
    screen.console.rule(Text(f"{lesson.title}, step {index + 1} of {len(lesson.steps)}: {step.title}"))
    screen.show_status(view)
    screen.say(step.instruction, "bold")
    while True:
        text = screen.ask("You> ", 0)
        command = " ".join(text.lower().split())
        if screen.answer(command, view, hints=False):  # a lesson's step is the player's to find
            continue
        if command == "look":
            screen.show_status(view)
            screen.say(step.instruction, "bold")
            continue
        if command in ("quit", "exit"):
            raise QuitGame("quit", seat=0)
        try:
            parsed = read_move(text, view)
        except InvalidText as e:
            screen.say(str(e), "red")
            continue
        # a challenge typed without a target: the judge completes it as the rules do
        verdict = (
            judge_list(lesson, index, ["challenge"]) if isinstance(parsed, tuple) else judge(lesson, index, parsed)
        )
        _show_verdict(screen, verdict)
        if verdict.right:
            return
        screen.say("Try again (look shows the table; help, the moves).", "dim")


def run_lesson(
    lesson: Lesson,
    *,
    console: Console | None = None,
    read_line: ReadLine | None = None,
    record_dir: Path | None = None,
    seed: int | None = None,
) -> int:
    """Take `lesson` step by step, then offer its short game against the easiest bot. The exit
    code: 0 (also when the person stops), or the game's."""
    console = console or Console()
    console.rule(Text(f"Lesson: {lesson.title}"))
    console.print(Text(lesson.teaches), highlight=False)
    try:
        for index, step in enumerate(lesson.steps):
            game = game_of(lesson, step)
            screen = Screen(console, game, step.preset or lesson.preset, [0], read_line)
            play_step(screen, lesson, index)
            if index + 1 < len(lesson.steps):
                screen.ask(NEXT_PROMPT, 0)
        screen.say(f"Lesson done: {lesson.title}.", "bold")
        others = [name for name in LESSONS if name != lesson.name]
        screen.say(f"The other lessons: {', '.join(others)} (liarsdice learn NAME).", "dim")
        answer = screen.ask(f"Play a short game against a {EASIEST.name} bot under these rules? [Y/n] ", 0)
    except QuitGame as e:
        console.print(Text("Lesson stopped." if e.code == 0 else "Lesson interrupted."), highlight=False)
        return e.code
    if answer.strip().lower() not in ("", "y", "yes"):
        return 0
    options = preset_options(lesson.preset, dict(lesson.game))
    return run_play(
        preset=lesson.preset,
        options=options,
        humans=1,
        names=[],
        bot_level=EASIEST.key,
        seed=seed if seed is not None else random.SystemRandom().randrange(1 << 31),
        record_dir=record_dir,
        console=console,
        read_line=read_line,
    )
