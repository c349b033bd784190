"""A signed-in browser: its session cookie, the CSRF token its forms carry, and the refusal of a
state-changing request sent from another site.

The cookie holds a random token (peoplerows.open_session; the database keeps its SHA-256):
HttpOnly (no script reads it), SameSite=Lax (another site's POST does not carry it), Path=/, and
Secure when the request came over https (directly, or through a proxy `liarsdice serve
--forwarded-allow-ips` trusts, which uvicorn reads into the request's scheme).

Every form that changes something carries a CSRF token, checked on POST:
- signed in: derived from the session token (an HMAC of it), so it dies with the session and no
  other site can compute it (it never sees the HttpOnly cookie);
- not signed in (the sign-in and sign-up forms): a random token in a cookie of its own, which the
  form repeats (double submit).
And a POST whose `Sec-Fetch-Site` says cross-site, or whose `Origin` is another site's, is refused
before anything else is read.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from urllib.parse import urlsplit

from fastapi import Request
from fastapi.responses import Response

SESSION_COOKIE = "ld_session"
CSRF_COOKIE = "ld_csrf"  # the double-submit token of a browser not signed in
CSRF_FIELD = "csrf"  # the forms' hidden field
SESSION_DAYS = 30  # a session cookie's life in the browser (the database may revoke it sooner)
TOKEN_MAX = 200  # characters of a cookie's token read at all


def cookie_token(request: Request, name: str) -> str | None:
    value = request.cookies.get(name)
    return value if value and len(value) <= TOKEN_MAX else None


def secure(request: Request) -> bool:
    return request.url.scheme == "https"


def set_cookie(response: Response, request: Request, name: str, value: str, days: int | None) -> None:
    response.set_cookie(
        name,
        value,
        max_age=days * 86400 if days is not None else None,
        path="/",
        httponly=True,
        samesite="lax",
        secure=secure(request),
    )


def forget_cookie(response: Response, request: Request, name: str) -> None:
    response.delete_cookie(name, path="/", httponly=True, samesite="lax", secure=secure(request))


def csrf_of_session(session_token: str) -> str:
    return hmac.new(session_token.encode(), b"liarsdice csrf", hashlib.sha256).hexdigest()


def csrf_for(request: Request, session_token: str | None) -> tuple[str, bool]:
    """The CSRF token this browser's forms carry, and whether it is a new guest token that the
    answer must set as a cookie."""
    if session_token is not None:
        return csrf_of_session(session_token), False
    known = cookie_token(request, CSRF_COOKIE)
    return (known, False) if known else (secrets.token_urlsafe(32), True)


def csrf_matches(request: Request, session_token: str | None, sent: str) -> bool:
    if session_token is not None:
        wanted: str | None = csrf_of_session(session_token)
    else:
        wanted = cookie_token(request, CSRF_COOKIE)
    return wanted is not None and hmac.compare_digest(wanted.encode(), sent.encode("utf-8", "replace"))


def cross_site(request: Request) -> str | None:
    """Why this request came from another site (None: from this one, or from no browser)."""
    fetch_site = request.headers.get("sec-fetch-site", "")
    if fetch_site == "cross-site":
        return "it was sent from another site"
    origin = request.headers.get("origin")
    if origin is not None:
        parts = urlsplit(origin)
        if origin == "null" or parts.netloc != request.url.netloc:
            return "it was sent from another site"
    return None
