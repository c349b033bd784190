"""Lessons: short interactive lessons with scripted dice, one per rule family.

A lesson is data (lesson.py: steps with every cup and the other seats' moves scripted; the texts
in lessons/, one file per rule family); the rules engine judges each move (judge.py), and the
catalog (catalog.py) lists the lessons and names the lesson of each preset. The terminal
(`liarsdice learn`, terminal/lesson.py) and the browser (/learn, server/routes/learn.py) play
the same steps through the same judge.
"""

from .catalog import FIRST, LESSONS, UnknownLesson, find_lesson, lesson_for, preset_lessons
from .judge import BadMove, Verdict, at_step, count_of, describe_before, judge, judge_list, right_actions, to_json
from .lesson import ME, Choice, Count, Lesson, Step

__all__ = [
    "FIRST",
    "LESSONS",
    "ME",
    "BadMove",
    "Choice",
    "Count",
    "Lesson",
    "Step",
    "UnknownLesson",
    "Verdict",
    "at_step",
    "count_of",
    "describe_before",
    "find_lesson",
    "judge",
    "judge_list",
    "lesson_for",
    "preset_lessons",
    "right_actions",
    "to_json",
]
