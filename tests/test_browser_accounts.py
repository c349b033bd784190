"""Accounts in a real Chromium (docs/accounts.md): sign up, sign out, sign in again, the name in
the navigation; a wrong password says so on the page."""

from __future__ import annotations

from typing import Any

from test_browser import LAPTOP, NEEDS_CHROMIUM, Server, browser, server

pytestmark = NEEDS_CHROMIUM
__all__ = ["browser", "server"]  # the fixtures, shared with tests/test_browser.py


def test_sign_up_sign_out_and_sign_in_again(server: Server, browser: Any) -> None:
    context = browser.new_context(**LAPTOP)
    page = context.new_page()
    try:
        page.goto(server.url + "/")
        page.get_by_role("link", name="Sign in").click()
        page.get_by_role("link", name="Make one").click()
        page.fill("#signup-name", "Carmen")
        page.fill("#signup-password", "dados y mentiras 🎲")
        page.get_by_role("button", name="Make the account").click()
        page.wait_for_url("**/account")
        assert page.locator("#account-title").inner_text() == "Carmen"
        assert page.locator(".account-link").inner_text() == "Carmen"
        cookie = next(c for c in context.cookies() if c["name"] == "ld_session")
        assert cookie["httpOnly"] and cookie["sameSite"] == "Lax"

        page.get_by_role("button", name="Sign out").click()
        page.wait_for_url(server.url + "/")
        assert page.locator(".account-link").inner_text() == "Sign in"
        assert not [c for c in context.cookies() if c["name"] == "ld_session"]

        page.get_by_role("link", name="Sign in").click()
        page.fill("#signin-name", "carmen")
        page.fill("#signin-password", "not my password")
        page.get_by_role("button", name="Sign in").click()
        assert "No account has this name and password" in page.locator("#form-error").inner_text()
        assert page.input_value("#signin-name") == "carmen"  # what was typed stays
        page.fill("#signin-password", "dados y mentiras 🎲")
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url("**/account")
        assert page.locator(".account-link").inner_text() == "Carmen"
        page.goto(server.url + "/history")  # every page names the signed-in person
        assert page.locator(".account-link").inner_text() == "Carmen"
    finally:
        context.close()
