"""The lessons in the browser: /learn (the list), /learn/LESSON (one page that plays its steps),
and their API: a lesson's steps as the page draws them, a move judged by the same code as the
terminal's (learn/judge.py), and the short game at the end, a real table with the easiest bot.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Request
from fastapi import Path as PathParam
from fastapi.responses import HTMLResponse
from pydantic import BaseModel, ConfigDict, Field

from ...learn import (
    FIRST,
    LESSONS,
    BadMove,
    Lesson,
    UnknownLesson,
    at_step,
    describe_before,
    find_lesson,
    judge_list,
    preset_lessons,
    to_json,
)
from ...levels import LADDER, resolve
from ...rules import find_preset
from ...text import bid_words, challenge_word, exact_word
from ..limits import NAME_RULE, RoomError
from ..render import render
from ..tablerows import Seat
from .shared import StrictJSONRoute, rooms, status_of

router = APIRouter(route_class=StrictJSONRoute)

EASIEST = LADDER[0]  # the level of a lesson's short game: the weakest rung of the ladder

LESSON_RULE = f"a lesson's name: {', '.join(LESSONS)}"
STEP_RULE = "a step's number, from 1 to the lesson's number of steps"
MOVE_RULE = 'a move in the table socket\'s list form, e.g. ["bid", 3, 5], ["challenge"], ["exact"], ["fold"]'
LessonName = Annotated[str, PathParam(max_length=40, description=LESSON_RULE)]
StepNumber = Annotated[int, PathParam(description=STEP_RULE)]


class LessonMove(BaseModel):
    model_config = ConfigDict(extra="forbid")
    move: list[Any] = Field(max_length=8, description=MOVE_RULE)


class LessonGame(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = Field(description=NAME_RULE)  # checked as a table's host name is (clean_name)


def _lesson(name: str) -> Lesson:
    try:
        return find_lesson(name)
    except UnknownLesson as e:
        raise HTTPException(404, str(e)) from None


def _index(lesson: Lesson, step: int) -> int:
    if not 1 <= step <= len(lesson.steps):
        raise HTTPException(404, f"the lesson {lesson.name} has steps 1 to {len(lesson.steps)}, not {step}")
    return step - 1


def summary(lesson: Lesson) -> dict[str, Any]:
    return {
        "name": lesson.name,
        "title": lesson.title,
        "teaches": lesson.teaches,
        "steps": len(lesson.steps),
        "preset": lesson.preset,
        "presets": [{"name": p, "title": find_preset(p).title} for p in lesson.presets],
    }


def step_json(lesson: Lesson, index: int) -> dict[str, Any]:
    """One step as the page draws it: the table as the player sees it (their cup, every other
    seat's number of dice, the public moves), the instruction and the buttons."""
    step = lesson.steps[index]
    view = at_step(lesson, index).view(0)
    o = view.options
    seats = [
        {
            "name": name,
            "dice": view.dice[s],
            "active": view.active[s],
            "pushed": list(view.pushed[s]),
            "chips": view.chips[s] if view.chips is not None else None,
            "folded": view.folded[s],
            "to_act": view.to_act == s,
        }
        for s, name in enumerate(view.seats)
    ]
    preset = find_preset(step.preset or lesson.preset)
    return {
        "number": index + 1,
        "title": step.title,
        "rules": {"name": preset.name, "title": preset.title},
        "instruction": step.instruction,
        "seats": seats,
        "cup": sorted(view.cup),
        "faces": o.faces,
        "wild": view.wild,
        "one_die_round": view.one_die_round,
        "history": describe_before(lesson, index, bid_words),
        "standing": [view.standing_bid.quantity, view.standing_bid.face] if view.standing_bid is not None else None,
        "bet": view.current_bet,
        "pot": view.round_pot,
        "words": {
            "bid": "claim" if o.economy is not None else "bid",
            "challenge": challenge_word(o),
            "exact": exact_word(o),
        },
        "choices": [{"move": list(c.move), "label": c.label} for c in step.choices],
    }


@router.get("/learn", include_in_schema=False)
async def learn_page() -> HTMLResponse:
    return render("learn.html", lessons=[summary(lesson) for lesson in LESSONS.values()], first=FIRST)


@router.get("/learn/{name}", include_in_schema=False)
async def lesson_page(name: LessonName) -> HTMLResponse:
    lesson = _lesson(name)
    return render("lesson.html", lesson=summary(lesson), easiest=EASIEST.name)


@router.get("/api/learn")
async def lessons() -> dict[str, Any]:
    """Every lesson, the first first, and the lesson of each preset."""
    return {"lessons": [summary(lesson) for lesson in LESSONS.values()], "presets": preset_lessons()}


@router.get("/api/learn/{name}")
async def lesson_steps(name: LessonName) -> dict[str, Any]:
    lesson = _lesson(name)
    return {
        **summary(lesson),
        "easiest": EASIEST.name,
        "steps": [step_json(lesson, i) for i in range(len(lesson.steps))],
    }


@router.post("/api/learn/{name}/game")
async def lesson_game(name: LessonName, body: LessonGame, request: Request) -> dict[str, Any]:
    """A real table with the lesson's rules, the person in seat 0 and the easiest bot in every
    other seat, its game started: the seat's token, as making a table answers it."""
    lesson = _lesson(name)
    manager = rooms(request)
    try:
        room, token = await manager.create(lesson.preset, body.name, dict(lesson.game), 0)
        bots = len(room.seats) - 1
        async with room.lock:
            await room.set_seats(
                [
                    (seat, Seat(f"{EASIEST.name} bot" + (f" {seat}" if bots > 1 else ""), "bot", resolve(EASIEST.key)))
                    for seat in range(1, len(room.seats))
                ]
            )
            await room.new_game()
    except RoomError as e:
        raise HTTPException(status_of(e), e.message) from e
    return {"code": room.code, "seat": 0, "token": token, "url": f"{manager.base_url}/t/{room.code}"}


@router.post("/api/learn/{name}/{step}")
async def lesson_move(name: LessonName, step: StepNumber, body: LessonMove) -> dict[str, Any]:
    """The verdict on a move at a step: right or wrong, why, the moves it led to and the reveal."""
    lesson = _lesson(name)
    index = _index(lesson, step)
    try:
        verdict = judge_list(lesson, index, body.move, bid_words)
    except BadMove as e:
        raise HTTPException(422, f"{e}") from None
    return to_json(verdict, at_step(lesson, index).seats)
