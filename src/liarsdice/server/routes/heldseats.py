"""`POST /account/seats/held`: a signed-in browser offers its account the seats it holds (the
seat tokens the table page keeps in localStorage), so that a guest who signs up or signs in
mid-game finds the table under "Your tables" on every device (docs/accounts.md).

A JSON POST from the account page's script (js/heldseats.js). As every form of people's
routes, it is refused if another site sent it or if its CSRF token (the `X-CSRF-Token` header)
is not this session's; a seat is kept only if the token sent is the seat's current one
(personseats.adopt_seats).
"""

from __future__ import annotations

import json
import re
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse

from ..personseats import adopt_seats
from ..sessions import TOKEN_MAX, cross_site, csrf_matches
from ..signedin import person_of
from ..storage import Store

router = APIRouter()

HELD_MAX = 50  # seats one offer may name
SEAT_MAX = 99
CSRF_HEADER = "x-csrf-token"
_CODE = re.compile(r"[A-Za-z0-9]{1,16}")
_TOKEN = re.compile(rf"[A-Za-z0-9_-]{{1,{TOKEN_MAX}}}")
HELD_RULE = (
    f'the body is a JSON object {{"seats": [{{"code": "ABC123", "seat": 0, "token": "..."}}]}} naming at most '
    f"{HELD_MAX} seats: each a table's code (1 to 16 letters and digits), a seat number (0 to {SEAT_MAX}) and "
    f"the seat's token (1 to {TOKEN_MAX} letters, digits, '-' and '_')"
)


class Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def held_of(data: Any) -> list[tuple[str, int, str]]:
    """The (code, seat, token) triples of an offer, checked (Refused 422 says what is allowed)."""
    seats = data.get("seats") if isinstance(data, dict) and set(data) == {"seats"} else None
    if not isinstance(seats, list) or len(seats) > HELD_MAX:
        raise Refused(422, HELD_RULE)
    held = []
    for item in seats:
        if not isinstance(item, dict) or set(item) != {"code", "seat", "token"}:
            raise Refused(422, HELD_RULE)
        code, seat, token = item["code"], item["seat"], item["token"]
        if (
            not isinstance(code, str)
            or not _CODE.fullmatch(code)
            or type(seat) is not int
            or not 0 <= seat <= SEAT_MAX
            or not isinstance(token, str)
            or not _TOKEN.fullmatch(token)
        ):
            raise Refused(422, HELD_RULE)
        held.append((code.upper(), seat, token))
    return held


async def checked_offer(request: Request) -> tuple[int, list[tuple[str, int, str]]]:
    """The person offering and the seats offered, after every check a state-changing POST has."""
    why = cross_site(request)
    if why is not None:
        raise Refused(403, f"refused: {why}; open this site's own account page")
    person, token = await person_of(request)
    if person is None or token is None:
        raise Refused(401, "sign in first: only a signed-in browser offers its seats to an account")
    if not csrf_matches(request, token, request.headers.get(CSRF_HEADER, "")):
        raise Refused(403, "refused: it was not sent from this browser's own account page (open it again)")
    if not request.headers.get("content-type", "").lower().startswith("application/json"):
        raise Refused(415, f"this address takes JSON (application/json): {HELD_RULE}")
    body = await request.body()  # at most MAX_BODY: sizes.RequestLimits refuses more
    try:
        data = json.loads(body)
    except ValueError:  # not JSON, or not UTF-8
        raise Refused(400, f"this is not JSON in UTF-8: {HELD_RULE}") from None
    return person.id, held_of(data)


@router.post("/account/seats/held", include_in_schema=False)
async def offer_held_seats(request: Request) -> JSONResponse:
    try:
        person_id, held = await checked_offer(request)
    except Refused as e:
        return JSONResponse({"detail": e.message}, e.status, headers={"Cache-Control": "no-store"})
    store: Store = request.app.state.store
    added = await store.call(lambda s: adopt_seats(s, person_id, held))
    return JSONResponse({"added": added, "offered": len(held)}, headers={"Cache-Control": "no-store"})
