"""What a person's account may be: its name and its password, and how a password is kept.

A name follows the tables' rule (limits.clean_name: 1 to 24 letters, digits, punctuation marks,
symbols or spaces); no two accounts share a name whatever its case or its Unicode spelling
(`name_key`). A password has PASSWORD_MIN to PASSWORD_MAX characters of any kind.

A password is kept only as its argon2id hash (argon2-cffi, RFC 9106's second recommended
profile: 3 passes over 64 MiB, 4 lanes, a 16-byte random salt per hash). Hashing takes tens of
milliseconds of one core on purpose: the routes run it off the event loop (`asyncio.to_thread`),
at most HASHERS at once per process, so that no flood of sign-ins slows a table's play.
"""

from __future__ import annotations

import asyncio
import threading
import unicodedata

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from .limits import RoomError, clean_name

PASSWORD_MIN = 8
PASSWORD_MAX = 256  # characters: enough for any passphrase, and a bound on the work of a hash
PASSWORD_RULE = f"a password has {PASSWORD_MIN} to {PASSWORD_MAX} characters, of any kind"
DELETED_NAME = "deleted player"  # how the games of a deleted account name it
HASHERS = 2  # hashes at once per process (each takes 64 MiB for its moment)

_hasher = PasswordHasher()  # argon2id, time_cost=3, memory_cost=65536 KiB, parallelism=4
# (a thread's semaphore, held in the worker thread: never the event loop's to wait on)
_hashing = threading.BoundedSemaphore(HASHERS)


class AccountRefused(ValueError):
    """A name or password refused: the message says what was wrong and what is allowed."""


def clean_person_name(name: str) -> str:
    """`name` as an account keeps it, or AccountRefused with the rule."""
    try:
        return clean_name(name)
    except RoomError as e:
        raise AccountRefused(e.message) from None


def name_key(name: str) -> str:
    """What two names that look the same share: NFKC-normalised and case-folded."""
    return unicodedata.normalize("NFKC", name).casefold()


def check_password(password: str) -> str:
    """`password` if an account may have it, else AccountRefused saying what a password is."""
    if len(password) < PASSWORD_MIN:
        raise AccountRefused(f"{PASSWORD_RULE}, not {len(password)}")
    if len(password) > PASSWORD_MAX:
        raise AccountRefused(f"{PASSWORD_RULE}, not {len(password):,}")
    return password


def _secret(password: str) -> bytes:
    # Any character at all, a lone surrogate from a JSON body too: never an encoding error.
    return password.encode("utf-8", "surrogatepass")


def hash_password(password: str) -> str:
    with _hashing:
        return _hasher.hash(_secret(password))


def password_matches(stored: str | None, password: str) -> bool:
    """Whether `password` is the one `stored` was made from. With no stored hash (no such
    account, or a deleted one) a hash is still checked, so that the answer takes as long."""
    try:
        with _hashing:
            return _hasher.verify(stored or _DUMMY, _secret(password)) and stored is not None
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


_DUMMY = hash_password("no account has this password")


async def hash_off_loop(password: str) -> str:
    return await asyncio.to_thread(hash_password, password)


async def matches_off_loop(stored: str | None, password: str) -> bool:
    return await asyncio.to_thread(password_matches, stored, password)
