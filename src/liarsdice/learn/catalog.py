"""Every lesson in the order a newcomer takes them, found by name, and the lesson of each preset."""

from __future__ import annotations

from ..rules import PRESETS, find_preset
from .lesson import Lesson
from .lessons import CORE, EXACT, JOKERS, SOAR, TAVERN, WILDS

LESSONS: dict[str, Lesson] = {lesson.name: lesson for lesson in (CORE, WILDS, EXACT, SOAR, JOKERS, TAVERN)}
"""The lessons, the first one first: the core every other builds on."""

FIRST = CORE.name


class UnknownLesson(LookupError):
    """No lesson has that name; the message names the ones there are."""


def names() -> str:
    return ", ".join(LESSONS)


def find_lesson(name: str) -> Lesson:
    """The lesson called `name` (any case), or UnknownLesson naming every lesson."""
    key = name.strip().lower()
    if key in LESSONS:
        return LESSONS[key]
    raise UnknownLesson(f"there is no lesson {name.strip()!r}: the lessons are {names()}")


def lesson_for(preset: str) -> Lesson:
    """The lesson of a preset's most distinctive rules (the core for a preset no lesson claims)."""
    name = find_preset(preset).name
    for lesson in LESSONS.values():
        if name in lesson.presets:
            return lesson
    return CORE


def preset_lessons() -> dict[str, str]:
    """Every preset and the name of its lesson."""
    return {name: lesson_for(name).name for name in PRESETS}
