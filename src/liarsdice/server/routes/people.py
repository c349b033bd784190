"""People's accounts (docs/accounts.md): the sign-up, sign-in and account pages and their forms.

Each form is a plain HTML form posted as `application/x-www-form-urlencoded` (no script needed),
answered with a redirect when it worked, or with its page again saying what was wrong. Every
POST is refused if another site sent it (sessions.cross_site) or if its CSRF token is not this
browser's (sessions.csrf_matches). Sign-in and sign-up are limited per client address, and
sign-in per account name too (attempts.py), before any password is hashed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from ..limits import NAME_RULE, RoomError, hash_token
from ..people import (
    PASSWORD_MAX,
    PASSWORD_MIN,
    PASSWORD_RULE,
    AccountRefused,
    check_password,
    clean_person_name,
    hash_off_loop,
    matches_off_loop,
)
from ..peoplerows import (
    NameTaken,
    Person,
    change_password,
    close_session,
    create_person,
    delete_person,
    hash_of,
    open_session,
    password_hash_of,
)
from ..personseats import remember_seat, seat_hash, seats_of
from ..render import render
from ..sessions import (
    CSRF_COOKIE,
    CSRF_FIELD,
    SESSION_COOKIE,
    SESSION_DAYS,
    cross_site,
    csrf_for,
    csrf_matches,
    forget_cookie,
    set_cookie,
)
from ..sharedattempts import Limits, SharedAttempts, Ticket
from ..signedin import person_of
from ..storage import Store
from .shared import rooms

router = APIRouter()

FIELDS = 8  # fields a form may send: ours have at most four
FORM_TYPE = "application/x-www-form-urlencoded"


class FormRefused(Exception):
    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


def limits_of(request: Request) -> Limits:
    """The server's limits: shared through Redis when the server runs with `--redis-url`."""
    if not hasattr(request.app.state, "people_limits"):
        cluster = rooms(request).cluster
        if cluster is None:
            request.app.state.people_limits = Limits()
        else:
            request.app.state.people_limits = Limits(cluster.redis, f"{cluster.prefix}:tries")
    limits: Limits = request.app.state.people_limits
    return limits


def address_of(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def store_of(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


def in_words(seconds: float) -> str:
    if seconds < 90:
        n = max(1, math.ceil(seconds))
        return f"{n} second{'s' if n != 1 else ''}"
    n = math.ceil(seconds / 60)
    return f"{n} minute{'s' if n != 1 else ''}"


def too_many(wait: float, what: str) -> FormRefused:
    return FormRefused(
        429, f"too many tries {what}: try again in {in_words(wait)}", {"Retry-After": str(math.ceil(wait))}
    )


async def check_wait(attempts: SharedAttempts, key: str, what: str) -> None:
    """FormRefused 429 if `key` must wait (a look, counting nothing: before anything is read)."""
    wait = await attempts.wait(key)
    if wait > 0:
        raise too_many(wait, what)


async def take_try(attempts: SharedAttempts, key: str, what: str) -> Ticket:
    """Count a try of `key` before its password is hashed (FormRefused 429 if it must wait):
    tries sent at once are thus counted one by one, none let through uncounted."""
    wait, ticket = await attempts.take(key)
    if ticket is None:
        raise too_many(wait, what)
    return ticket


async def read_form(request: Request, session_token: str | None) -> dict[str, str]:
    """The fields of a posted form (each field's first value), after the checks every POST has."""
    why = cross_site(request)
    if why is not None:
        raise FormRefused(403, f"this form was refused: {why}; open this site's own page and send it from there")
    if not request.headers.get("content-type", "").lower().startswith(FORM_TYPE):
        raise FormRefused(415, f"this address takes a form sent as {FORM_TYPE}")
    body = await request.body()  # at most MAX_BODY: sizes.RequestLimits refuses more
    try:  # strict UTF-8: a byte that is not (or a lone surrogate's) is refused, not guessed at
        fields = parse_qs(body.decode("utf-8"), keep_blank_values=True, max_num_fields=FIELDS, errors="strict")
    except UnicodeDecodeError:
        raise FormRefused(400, "this form is not UTF-8 text: send it from this site's own page") from None
    except ValueError:
        raise FormRefused(422, f"this form sent too many fields: it has at most {FIELDS}") from None
    form = {key: values[0] for key, values in fields.items()}
    if not csrf_matches(request, session_token, form.get(CSRF_FIELD, "")):
        raise FormRefused(
            403, "this form was refused: it was not sent from this browser's own page (open the page again and resend)"
        )
    return form


def page(
    request: Request,
    template: str,
    session_token: str | None,
    person: Person | None,
    status: int = 200,
    error: str | None = None,
    headers: dict[str, str] | None = None,
    **context: Any,
) -> HTMLResponse:
    """A form's page with this browser's CSRF token (and its cookie, for a new guest token)."""
    csrf, new = csrf_for(request, session_token)
    response = render(
        template,
        status,
        csrf=csrf,
        error=error,
        person=person,
        name_rule=NAME_RULE,
        password_rule=PASSWORD_RULE,
        password_min=PASSWORD_MIN,
        password_max=PASSWORD_MAX,
        **context,
    )
    if new:
        set_cookie(response, request, CSRF_COOKIE, csrf, None)
    response.headers.update(headers or {})
    response.headers["Cache-Control"] = "no-store"
    return response


def signed_in_answer(request: Request, token: str, to: str = "/account") -> Response:
    response = RedirectResponse(to, status_code=303)
    set_cookie(response, request, SESSION_COOKIE, token, SESSION_DAYS)
    forget_cookie(response, request, CSRF_COOKIE)
    return response


# ----- sign up -----


def credentials(form: Mapping[str, str]) -> tuple[str, str]:
    """The name and password of a sign-up or sign-in form, checked (FormRefused 422 says why)."""
    try:
        return clean_person_name(form.get("name", "")), check_password(form.get("password", ""))
    except AccountRefused as e:
        raise FormRefused(422, str(e)) from None


@router.get("/signup", include_in_schema=False)
async def signup_page(request: Request) -> Response:
    person, _ = await person_of(request)
    if person is not None:
        return RedirectResponse("/account", status_code=303)
    return page(request, "signup.html", None, None, name="")


@router.post("/signup", include_in_schema=False)
async def signup(request: Request) -> Response:
    name = ""
    try:
        form = await read_form(request, None)
        name = form.get("name", "")[:200]
        limits = limits_of(request)
        address = address_of(request)
        await check_wait(limits.signup_address, address, "to make an account from your address")
        name, password = credentials(form)
        await take_try(limits.signup_address, address, "to make an account from your address")  # a hash is made
        hashed = await hash_off_loop(password)
        store = store_of(request)
        try:
            made = await store.call(lambda s: create_person(s, name, hashed))
        except NameTaken as e:
            raise FormRefused(409, str(e)) from None
        token = await store.call(lambda s: open_session(s, made.id))
    except FormRefused as e:
        return page(request, "signup.html", None, None, e.status, e.message, e.headers, name=name)
    return signed_in_answer(request, token)


# ----- sign in and out -----


@router.get("/signin", include_in_schema=False)
async def signin_page(request: Request) -> Response:
    person, _ = await person_of(request)
    if person is not None:
        return RedirectResponse("/account", status_code=303)
    return page(request, "signin.html", None, None, name="")


WRONG = "no account has this name and password: check both (a name's case does not matter)"


@router.post("/signin", include_in_schema=False)
async def signin(request: Request) -> Response:
    name = ""
    try:
        form = await read_form(request, None)
        name = form.get("name", "")[:200]
        limits = limits_of(request)
        address = address_of(request)
        await check_wait(limits.signin_address, address, "to sign in from your address")
        name, password = credentials(form)
        key = name.casefold()
        at_address = await take_try(limits.signin_address, address, "to sign in from your address")
        try:
            await take_try(limits.signin_name, key, "to sign in to this account")
        except FormRefused:
            await limits.signin_address.give_back(at_address)
            raise
        store = store_of(request)
        found, stored = await store.call(lambda s: password_hash_of(s, name))
        if found is None or not await matches_off_loop(stored, password):
            raise FormRefused(401, WRONG)  # both tries stay counted
        await limits.signin_address.give_back(at_address)
        await limits.signin_name.forget(key)
        person_id = found.id
        token = await store.call(lambda s: open_session(s, person_id))
    except FormRefused as e:
        return page(request, "signin.html", None, None, e.status, e.message, e.headers, name=name)
    return signed_in_answer(request, token)


@router.post("/signout", include_in_schema=False)
async def signout(request: Request) -> Response:
    person, token = await person_of(request)
    try:
        await read_form(request, token)
    except FormRefused as e:
        if person is None:
            return refused(e)
        return await account(request, token, person, e.status, e.message)
    if token is not None:
        await store_of(request).call(lambda s: close_session(s, token))
    response = RedirectResponse("/", status_code=303)
    forget_cookie(response, request, SESSION_COOKIE)
    return response


def refused(e: FormRefused) -> Response:
    return render("error.html", e.status, title="Not done", heading="Not done", sentence=e.message + ".", back=None)


# ----- the account page: change the password, delete the account -----


@router.get("/account", include_in_schema=False)
async def account_page(request: Request) -> Response:
    person, token = await person_of(request)
    if person is None:
        return RedirectResponse("/signin", status_code=303)
    return await account(request, token, person, changed=request.query_params.get("changed") == "1")


async def account(
    request: Request,
    token: str | None,
    person: Person,
    status: int = 200,
    error: str | None = None,
    headers: dict[str, str] | None = None,
    changed: bool = False,
) -> HTMLResponse:
    """The account page, with the person's tables not finished."""
    person_id = person.id
    tables = await store_of(request).call(lambda s: seats_of(s, person_id))
    return page(request, "account.html", token, person, status, error, headers, changed=changed, tables=tables)


async def checked_password(request: Request, person: Person, password: str) -> None:
    """FormRefused unless `password` is this person's (limited as sign-ins are)."""
    limits = limits_of(request)
    key = person.name.casefold()
    ticket = await take_try(limits.signin_name, key, "with this account's password")
    stored = await store_of(request).call(lambda s: hash_of(s, person.id))
    if len(password) > PASSWORD_MAX or not await matches_off_loop(stored, password):
        raise FormRefused(401, "that is not your password: nothing was changed")  # the try stays counted
    await limits.signin_name.give_back(ticket)


@router.post("/account/password", include_in_schema=False)
async def new_password(request: Request) -> Response:
    person, token = await person_of(request)
    if person is None or token is None:
        return RedirectResponse("/signin", status_code=303)
    try:
        form = await read_form(request, token)
        await checked_password(request, person, form.get("password", ""))
        try:
            new = check_password(form.get("new_password", ""))
        except AccountRefused as e:
            raise FormRefused(422, f"the new password: {e}") from None
        hashed = await hash_off_loop(new)
        person_id = person.id
        fresh = await store_of(request).call(lambda s: change_password(s, person_id, hashed))
    except FormRefused as e:
        return await account(request, token, person, e.status, e.message, e.headers)
    return signed_in_answer(request, fresh, "/account?changed=1")


@router.post("/account/delete", include_in_schema=False)
async def delete_account(request: Request) -> Response:
    person, token = await person_of(request)
    if person is None or token is None:
        return RedirectResponse("/signin", status_code=303)
    try:
        form = await read_form(request, token)
        await checked_password(request, person, form.get("password", ""))
        person_id = person.id
        await store_of(request).call(lambda s: delete_person(s, person_id))
    except FormRefused as e:
        return await account(request, token, person, e.status, e.message, e.headers)
    response = RedirectResponse("/?deleted=1", status_code=303)
    forget_cookie(response, request, SESSION_COOKIE)
    return response


# ----- taking a seat back on this device -----


@router.post("/account/seat", include_in_schema=False)
async def take_seat_back(request: Request) -> Response:
    """Hand one of the person's seats to this device (personseats.py): a new seat token, which
    the page keeps in this browser before it opens the table."""
    person, token = await person_of(request)
    if person is None or token is None:
        return RedirectResponse("/signin", status_code=303)
    try:
        form = await read_form(request, token)
        code, seat_text = form.get("code", "")[:32], form.get("seat", "")
        seat = int(seat_text) if seat_text.isascii() and seat_text.isdigit() and len(seat_text) < 4 else -1
        person_id = person.id
        store = store_of(request)
        held = await store.call(lambda s: seat_hash(s, person_id, code, seat))
        if held is None:
            raise FormRefused(403, "that seat is not one you took while signed in: nothing was changed")
        try:
            answer = await rooms(request).table_call(code, "hand_over", {"seat": seat, "token_hash": held})
        except RoomError as e:
            raise FormRefused(409, e.message) from None
        if answer is None:
            raise FormRefused(404, f"there is no table {code} any more")
        new_hash = hash_token(str(answer["token"]))
        await store.call(lambda s: remember_seat(s, person_id, code, seat, new_hash))
    except FormRefused as e:
        return await account(request, token, person, e.status, e.message, e.headers)
    return page(
        request, "takeseat.html", token, person, code=code, seat=seat, seat_token=answer["token"], name=answer["name"]
    )
