"""Sign in and out in the browser: the cookie's flags, pages that redirect to sign-in once
it is gone, a refused credential, and an agent key's session."""

from __future__ import annotations

from typing import Any

from tests.browser.conftest import Tab

COOKIE = "memex_session"


def _session_cookie(tab: Tab) -> Any:
    return next((c for c in tab.page.context.cookies() if c["name"] == COOKIE), None)


def test_sign_in_and_out_as_operator(tab: Tab) -> None:
    page = tab.page
    tab.goto("/")
    assert "/signin" in page.url  # not signed in: the search page sends us to sign in
    tab.sign_in_operator()
    cookie = _session_cookie(tab)
    assert cookie is not None
    assert cookie["httpOnly"] is True
    assert cookie["sameSite"] == "Strict"
    assert cookie["path"] == "/"
    assert page.evaluate("() => document.cookie") == ""  # HttpOnly: no script reads it
    assert "operator" in page.get_by_test_id("principal").inner_text()
    assert tab.server.admin_secret not in tab.html()

    with page.expect_navigation():
        page.locator("#signout").click()
    assert "/signin" in page.url
    assert _session_cookie(tab) is None
    tab.goto("/?q=kubernetes")
    assert "/signin" in page.url  # signed out: pages redirect to sign-in again
    assert not tab.script_ran()


def test_wrong_credential_is_refused(tab: Tab) -> None:
    page = tab.page
    tab.goto("/signin")
    page.locator("#credential").fill("not-the-secret")
    with page.expect_navigation():
        page.locator("#signin").click()
    assert page.get_by_test_id("signin-error").is_visible()
    assert _session_cookie(tab) is None
    assert page.locator("#credential").input_value() == ""  # the page does not echo it back


def test_agent_key_session_names_its_user_not_its_key(tab: Tab) -> None:
    tab.sign_in_agent("alice")
    principal = tab.page.get_by_test_id("principal").inner_text()
    assert "alice" in principal
    html = tab.html()
    for secret in tab.server.secrets():
        assert secret not in html
    # An agent key reaches no operator page: no Corpus link for it.
    assert tab.page.get_by_test_id("nav-corpus").count() == 0
