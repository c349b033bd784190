"""People's accounts and their sessions as the database keeps them (storage.PersonRow,
PersonSessionRow): jobs run on the store's thread. The hashing of passwords is not done here
(it is slow on purpose): the routes hash off the event loop and hand the hash in.

Sessions live in the database, not in a process: any server process answers any request, and a
session revoked by one (sign-out, a password change, a deletion) is refused by all at once.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from .limits import hash_token
from .people import DELETED_NAME, AccountRefused, name_key
from .storage import PersonRow, PersonSeatRow, PersonSessionRow, utcnow

SEEN_EVERY = timedelta(minutes=5)  # a session's `seen_at` is written at most this often


@dataclass(frozen=True, slots=True)
class Person:
    id: int
    name: str


class NameTaken(AccountRefused):
    """The name belongs to an account already (in any case)."""


def taken_message(name: str) -> str:
    return (
        f"the name {name!r} belongs to an account already (names differing only in case count as one): choose another"
    )


def create_person(session: Session, name: str, password_hash: str) -> Person:
    """A new account `name` (cleaned already); NameTaken if the name is anyone's."""
    key = name_key(name)
    if session.scalar(select(PersonRow.id).where(PersonRow.name_key == key)) is not None:
        raise NameTaken(taken_message(name))
    row = PersonRow(name=name, name_key=key, password_hash=password_hash)
    try:
        with session.begin_nested():  # two sign-ups racing for one name, in two processes
            session.add(row)
            session.flush()
    except IntegrityError:
        raise NameTaken(taken_message(name)) from None
    return Person(row.id, row.name)


def password_hash_of(session: Session, name: str) -> tuple[Person | None, str | None]:
    """The live account named `name` (any case) and its hash; (None, None) if there is none."""
    row = session.scalar(select(PersonRow).where(PersonRow.name_key == name_key(name)))
    if row is None or row.deleted_at is not None:
        return None, None
    return Person(row.id, row.name), row.password_hash


def hash_of(session: Session, person_id: int) -> str | None:
    row = session.get(PersonRow, person_id)
    return None if row is None or row.deleted_at is not None else row.password_hash


def open_session(session: Session, person_id: int) -> str:
    """A new session of `person_id`: its token, for the cookie (only its SHA-256 is kept)."""
    token = secrets.token_urlsafe(32)
    session.add(PersonSessionRow(token_hash=hash_token(token), person_id=person_id))
    session.flush()
    return token


def person_of_session(session: Session, token: str) -> Person | None:
    """The person signed in with this session token; None if it is wrong, revoked or theirs no more."""
    found = session.execute(
        select(PersonSessionRow, PersonRow)
        .join(PersonRow, PersonRow.id == PersonSessionRow.person_id)
        .where(PersonSessionRow.token_hash == hash_token(token))
    ).first()
    if found is None:
        return None
    row, person = found
    if row.revoked_at is not None or person.deleted_at is not None:
        return None
    now = utcnow()
    seen = row.seen_at if row.seen_at.tzinfo is not None else row.seen_at.replace(tzinfo=now.tzinfo)
    if now - seen > SEEN_EVERY:
        row.seen_at = now
    return Person(person.id, person.name)


def close_session(session: Session, token: str) -> None:
    """Revoke the session of this token (signing out): the cookie works nowhere any more."""
    session.execute(
        update(PersonSessionRow)
        .where(PersonSessionRow.token_hash == hash_token(token), PersonSessionRow.revoked_at.is_(None))
        .values(revoked_at=utcnow())
    )


def close_all_sessions(session: Session, person_id: int) -> None:
    session.execute(
        update(PersonSessionRow)
        .where(PersonSessionRow.person_id == person_id, PersonSessionRow.revoked_at.is_(None))
        .values(revoked_at=utcnow())
    )


def change_password(session: Session, person_id: int, new_hash: str) -> str:
    """Set a new password hash and revoke every session of the person (a stolen cookie dies
    with the old password); a new session token for the browser that changed it."""
    row = session.get(PersonRow, person_id)
    if row is None or row.deleted_at is not None:
        raise AccountRefused("this account is deleted")
    row.password_hash = new_hash
    close_all_sessions(session, person_id)
    return open_session(session, person_id)


def delete_person(session: Session, person_id: int) -> None:
    """Delete the account: its sessions revoked, its seats forgotten, its password hash and name
    gone (the name is free again); the row stays, named DELETED_NAME."""
    row = session.get(PersonRow, person_id)
    if row is None or row.deleted_at is not None:
        return
    close_all_sessions(session, person_id)
    session.execute(delete(PersonSeatRow).where(PersonSeatRow.person_id == person_id))  # no seat to take back
    row.name = DELETED_NAME
    row.name_key = f"\ndeleted {row.id}"  # no name has a line break (clean_name), so no key does
    row.password_hash = None
    row.deleted_at = utcnow()
