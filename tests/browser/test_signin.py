"""Sign in and out in the browser: the cookie's flags, pages that redirect to sign-in once
it is gone, a refused credential, an agent key's session, and the page an address gets
after too many wrong credentials."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tests.browser import chromium
from tests.browser.conftest import TIMEOUT_MS, Served, Tab

if TYPE_CHECKING:
    from playwright.sync_api import Browser

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


def test_too_many_wrong_credentials_get_a_page_that_says_when(
    browser: Browser, demo: Served, tab: Tab
) -> None:
    """Five wrong sign-ins from one address: the sixth attempt, even with the right secret,
    gets the 429 page saying when to try again; another address signs in meanwhile. The
    guesser's address is set by X-Forwarded-For, which the browser tests' server trusts from
    this machine (``[serve] trusted_proxies``, as for a reverse proxy here: conftest's
    PROXY_HERE), so the other tests' address is not locked."""
    context = browser.new_context(
        viewport=chromium.VIEWPORT,  # type: ignore[arg-type]
        extra_http_headers={"X-Forwarded-For": "203.0.113.77"},
    )
    context.set_default_timeout(TIMEOUT_MS)
    page = context.new_page()
    try:
        page.goto(demo.url + "/signin", wait_until="load")
        for n in range(5):
            page.locator("#credential").fill(f"not-the-secret-{n}")
            with page.expect_navigation() as sent:
                page.locator("#signin").click()
            assert sent.value is not None and sent.value.status == 401
            assert page.get_by_test_id("signin-error").is_visible()
        page.locator("#credential").fill(demo.admin_secret)
        with page.expect_navigation() as sent:
            page.locator("#signin").click()
        assert sent.value is not None and sent.value.status == 429
        assert int(sent.value.headers["retry-after"]) > 0
        notice = page.get_by_test_id("signin-throttled")
        assert notice.is_visible()
        assert "Try again in" in notice.inner_text() and "UTC" in notice.inner_text()
        assert page.get_by_test_id("signin-error").count() == 0
        assert _session_cookie_of(context) is None
        assert demo.admin_secret not in page.content()
        from axe_playwright_python.sync_playwright import Axe

        serious = [
            v["id"]
            for v in Axe().run(page).response["violations"]
            if v.get("impact") in ("serious", "critical")
        ]
        assert not serious, serious
    finally:
        context.close()
    # Another address, right now: signs in.
    tab.sign_in_operator()
    assert "operator" in tab.page.get_by_test_id("principal").inner_text()


def _session_cookie_of(context: Any) -> Any:
    return next((c for c in context.cookies() if c["name"] == COOKIE), None)
