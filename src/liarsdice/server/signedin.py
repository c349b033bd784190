"""Who is signed in, for the pages: the site's navigation names a signed-in person on every page.

A page request (or a form's post) that carries a session cookie has its person looked up once (in the database, as
any process may have made or revoked the session) and kept in a context variable that the
layout reads (`signed_in_name`). Requests without the cookie, every guest's, cost nothing.
"""

from __future__ import annotations

import contextvars
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette.requests import HTTPConnection

from .limits import hash_token
from .peoplerows import Person, person_of_session
from .personseats import remember_seat
from .sessions import SESSION_COOKIE, TOKEN_MAX
from .storage import Store

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

_person: contextvars.ContextVar[Person | None] = contextvars.ContextVar("person", default=None)


def signed_in_name() -> str | None:
    person = _person.get()
    return person.name if person is not None else None


async def person_of(connection: HTTPConnection) -> tuple[Person | None, str | None]:
    """The person signed in on this request (or websocket) and their session token."""
    token = connection.cookies.get(SESSION_COOKIE)
    if not token or len(token) > TOKEN_MAX:
        return None, None
    store: Store = connection.app.state.store
    person = await store.call(lambda s: person_of_session(s, token))
    return (person, token) if person is not None else (None, None)


class SignedInPages:
    """ASGI middleware: a page opened with a session cookie knows its person (see above)."""

    def __init__(self, app: Callable[[Scope, Receive, Send], Awaitable[None]]) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"].startswith(("/api/", "/static/", "/ws/")):
            await self.app(scope, receive, send)
            return
        person, _ = await person_of(HTTPConnection(scope))
        reset = _person.set(person)
        try:
            await self.app(scope, receive, send)
        finally:
            _person.reset(reset)


async def remember_seat_taken(connection: HTTPConnection, code: str, seat: int, token: str) -> None:
    """Keep a seat just taken with the account of whoever took it, if they are signed in (a
    guest's request, with no session cookie, costs nothing)."""
    person, _ = await person_of(connection)
    if person is None:
        return
    store: Store = connection.app.state.store
    person_id, token_hash = person.id, hash_token(token)
    await store.call(lambda s: remember_seat(s, person_id, code, seat, token_hash))
