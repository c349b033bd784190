"""Accounts in a real Chromium (docs/accounts.md): sign up, sign out, sign in again, the name in
the navigation; a wrong password says so on the page."""

from __future__ import annotations

from typing import Any

from test_browser import LAPTOP, NEEDS_CHROMIUM, PHONE, Server, browser, server

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


def _sign_up(browser: Any, server: Server, name: str, password: str, **size: Any) -> tuple[Any, Any]:
    context = browser.new_context(**size)
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.goto(server.url + "/signup")
    page.fill("#signup-name", name)
    page.fill("#signup-password", password)
    page.get_by_role("button", name="Make the account").click()
    page.wait_for_url("**/account")
    return context, page


def test_a_signed_in_host_takes_their_seat_back_on_a_phone(server: Server, browser: Any) -> None:
    laptop, _ = _sign_up(browser, server, "Dario", "two devices, one seat", **LAPTOP)
    phone = browser.new_context(**PHONE)
    try:
        # The host's table, made with the laptop's session (the home page's fetch sends it too).
        table = laptop.request.post(f"{server.url}/api/tables", data={"preset": "perudo", "name": "Dario"}).json()
        code = table["code"]
        page = phone.new_page()
        page.set_default_timeout(15_000)
        page.goto(server.url + "/signin")
        page.fill("#signin-name", "dario")
        page.fill("#signin-password", "two devices, one seat")
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url("**/account")
        page.get_by_role("button", name=f"Take my seat at table {code} here").click()
        page.wait_for_url(f"**/t/{code}")
        page.wait_for_selector("#host-controls:not([hidden])")  # seated, as the host
    finally:
        phone.close()
        laptop.close()


def test_a_guest_who_signs_up_mid_game_finds_the_table_and_takes_the_seat_elsewhere(
    server: Server, browser: Any
) -> None:
    host = browser.new_context().request.post(f"{server.url}/api/tables", data={"preset": "perudo", "name": "Ann"})
    code = host.json()["code"]
    laptop = browser.new_context(**LAPTOP)
    phone = browser.new_context(**PHONE)
    try:
        page = laptop.new_page()
        page.set_default_timeout(15_000)
        page.goto(server.url + "/")
        page.fill("#join-code", code.lower())
        page.fill("#join-name", "Elena")
        page.click("#join-btn")
        page.wait_for_url(f"**/t/{code}")
        page.wait_for_selector(".seat.me")  # a guest's seat, held by this browser
        page.get_by_role("link", name="Sign in").click()
        page.get_by_role("link", name="Make one").click()
        page.fill("#signup-name", "Elena")
        page.fill("#signup-password", "a seat kept by signing up")
        page.get_by_role("button", name="Make the account").click()
        page.wait_for_url("**/account")
        # The page offers the browser's seats to the account, then lists the table.
        page.locator("#my-tables li", has_text=f"table {code}").wait_for()
        page.goto(f"{server.url}/t/{code}")
        page.wait_for_selector(".seat.me")  # still seated after signing up

        other = phone.new_page()
        other.set_default_timeout(15_000)
        other.goto(server.url + "/signin")
        other.fill("#signin-name", "ELENA")
        other.fill("#signin-password", "a seat kept by signing up")
        other.get_by_role("button", name="Sign in").click()
        other.wait_for_url("**/account")
        other.get_by_role("button", name=f"Take my seat at table {code} here").click()
        other.wait_for_url(f"**/t/{code}")
        other.wait_for_selector(".seat.me")
        assert other.locator(".seat.me .seat-name").inner_text() == "Elena"
    finally:
        phone.close()
        laptop.close()
