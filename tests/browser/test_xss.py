"""Stored XSS: the corpus of :mod:`tests.support.xss_payloads` (72 payloads), stored as chat text
and titles, note text, titles and links, memory text and revisions, and an access log's
tool-call ids, is loaded in the browser on every page that shows it. Each page is checked
for any sign that a payload ran (a dialog, the ``window.__xss`` trap, a ``javascript:``
link, an inline handler, a frame) and, where the page shows a stored text whole, that
every payload on it reads literally.

Secrets: no page's HTML, and no response the browser received (HTML, JS, CSS, the event
stream's first bytes aside), holds the admin secret or an agent key.
"""

from __future__ import annotations

import contextlib
from urllib.parse import quote

import httpx
import pytest

from tests.browser.conftest import Served, Tab, normalise
from tests.support.xss_payloads import PAYLOADS, numbered

CASES = numbered()
WIDE = "before=100&after=100"


def literal_cases(tab: Tab) -> set[str]:
    """The markers of the payloads this page shows, each checked to read literally."""
    text = tab.text()
    seen = set()
    for marker, payload in CASES:
        at = text.find(marker + " ")
        if at < 0:
            continue
        expected = normalise(f"{marker} {payload}")
        assert expected in text, (
            f"{tab.page.url}: {marker} not shown literally:\n"
            f"expected {expected!r}\npage has {text[at : at + len(expected) + 40]!r}"
        )
        seen.add(marker)
    return seen


def clean(tab: Tab) -> None:
    ran = tab.script_ran()
    assert not ran, f"{tab.page.url}: a payload ran or left live markup: {ran}"
    assert not tab.errors, tab.errors


def test_chat_note_and_memory_text_is_shown_as_text(xss_tab: Tab) -> None:
    ids = xss_tab.server.home.ids
    xss_tab.sign_in_operator(f"/timeline/{ids['chat']}?{WIDE}&q=xss")
    clean(xss_tab)
    chat = literal_cases(xss_tab)
    assert len(chat) == len(PAYLOADS), sorted({m for m, _ in CASES} - chat)
    assert "<script>alert('title')</script> xss chat" in xss_tab.text()

    xss_tab.goto(f"/timeline/{ids['title_chat']}")
    clean(xss_tab)
    assert '<img src=x onerror="window.__xss=99"> {{7*7}} title' in xss_tab.text()

    xss_tab.goto(f"/timeline/{ids['note']}?{WIDE}&q=onerror")
    clean(xss_tab)
    assert len(literal_cases(xss_tab)) == len(PAYLOADS)

    xss_tab.goto(f"/memory/{ids['memory']}")
    clean(xss_tab)
    # The current text holds the second half; the diff against revision 1 deletes the first.
    assert len(literal_cases(xss_tab)) == len(PAYLOADS)
    assert xss_tab.page.locator("#history [data-testid='diff'] ins").count() > 0

    xss_tab.goto(f"/memory/{ids['memory_fact']}")
    clean(xss_tab)
    assert "<script>window.__xss='fact'</script> Alice's fact {{7*7}}" in xss_tab.text()


def test_lists_search_and_links_show_payloads_as_text(xss_tab: Tab) -> None:
    page = xss_tab.page
    xss_tab.sign_in_operator("/?q=xss+onerror+script&mode=keyword&limit=100")
    clean(xss_tab)
    assert page.locator("#hits li.hit").count() > 5
    assert page.locator("#hits mark").count() > 0

    # A query is reflected in the box, the title and the guidance: still text.
    reflected = "<script>window.__xss='q'</script>\"><img src=x onerror=alert('q')>"
    xss_tab.goto(f"/?q={quote(reflected)}&mode=keyword")
    clean(xss_tab)
    assert page.locator("#q").input_value() == reflected

    xss_tab.goto("/notes")
    clean(xss_tab)
    titled = page.locator("#notes a.note-link", has_text="<img src=x onerror=alert(98)> note")
    assert titled.count() == 1
    with page.expect_navigation():
        titled.click()
    clean(xss_tab)
    assert page.locator("h1").inner_text() == "<img src=x onerror=alert(98)> note"
    outlinks = normalise(page.locator("#outlinks").inner_text())
    assert "<svg onload=alert(97)>" in outlinks  # an unresolved link named by a payload
    with page.expect_navigation():
        page.locator("#outlinks a", has_text="XSS corpus").click()
    clean(xss_tab)
    assert page.locator("h1").inner_text() == "XSS corpus"

    for path in ("/activity", "/memory?user=alice", "/memory/dream?user=alice", "/corpus"):
        xss_tab.goto(path)
        clean(xss_tab)


def test_access_log_shows_tool_call_ids_as_text(xss_tab: Tab) -> None:
    server = xss_tab.server
    payload = "<img src=x onerror=alert('log')><script>window.__xss='log'</script>"
    response = httpx.post(
        f"{server.url}/v1/memory/search",
        json={"query": "tea"},
        headers={"Authorization": f"Bearer {server.keys['alice']}", "Memex-Tool-Call-Id": payload},
        timeout=60,
    )
    assert response.status_code == 200, response.text
    xss_tab.sign_in_operator("/memory/log")
    clean(xss_tab)
    assert payload in normalise(xss_tab.page.locator("#access-log").inner_text())


def test_sign_in_next_cannot_send_the_browser_to_script(xss_tab: Tab) -> None:
    xss_tab.sign_in_operator("javascript:alert('next')")
    clean(xss_tab)
    assert xss_tab.page.url.startswith(xss_tab.server.url)


# -- no secret in any page -------------------------------------------------------------------


def _signed_in_client(server: Served, credential: str) -> httpx.Client:
    from tests.support.viewer_fixtures import post_signin

    client = httpx.Client(base_url=server.url, timeout=60)
    response = post_signin(client, credential)
    assert response.status_code == 303, response.text[:500]
    return client


def page_paths(server: Served) -> list[str]:
    ids = server.home.ids
    return [
        "/",
        "/?q=xss&mode=keyword",
        "/?q=nothing+matches+zzyzx&mode=keyword",
        f"/timeline/{ids['chat']}?{WIDE}",
        f"/timeline/{ids['note']}",
        "/notes",
        "/activity",
        "/corpus",
        "/memory",
        "/memory?user=alice",
        f"/memory/{ids['memory']}",
        f"/memory/{ids['memory']}/forget",
        "/memory/log",
        "/memory/dream?user=alice",
        "/static/viewer.js",
        "/static/viewer.css",
        "/signin",
        "/no-such-page",
    ]


@pytest.mark.parametrize("who", ["operator", "agent"])
def test_no_secret_in_any_page(xss_demo: Served, who: str) -> None:
    credential = xss_demo.admin_secret if who == "operator" else xss_demo.keys["alice"]
    client = _signed_in_client(xss_demo, credential)
    try:
        for path in page_paths(xss_demo):
            response = client.get(path, follow_redirects=True)
            assert response.status_code < 500, (path, response.status_code)
            # Still signed in: a page that sent us to sign-in would prove nothing.
            assert path == "/signin" or "/signin" not in str(response.url), path
            for secret in xss_demo.secrets():
                assert secret not in response.text, f"{who}: {path} holds a secret"
            for header, value in response.headers.items():
                if header.lower() != "set-cookie":
                    assert all(s not in value for s in xss_demo.secrets()), (path, header)
        cookie = client.cookies.get("memex_session") or ""
        assert all(s not in cookie for s in xss_demo.secrets())
    finally:
        client.close()


def test_no_secret_reaches_the_browser(xss_tab: Tab) -> None:
    seen: list[tuple[str, bytes]] = []

    def keep(response: object) -> None:
        url = response.url  # type: ignore[attr-defined]
        if "/events" in url:  # a stream never ends: its body cannot be read here
            return
        with contextlib.suppress(Exception):  # a redirect has no body
            seen.append((url, response.body()))  # type: ignore[attr-defined]

    xss_tab.page.on("response", keep)
    xss_tab.sign_in_agent("alice", f"/timeline/{xss_tab.server.home.ids['chat']}")
    for path in ("/?q=xss&mode=keyword", "/memory", "/notes", "/activity"):
        xss_tab.goto(path)
    assert len(seen) >= 8
    for url, body in seen:
        for secret in xss_tab.server.secrets():
            assert secret.encode() not in body, f"{url} holds a secret"
    storage = xss_tab.page.evaluate(
        "() => JSON.stringify([document.cookie, {...localStorage}, {...sessionStorage}])"
    )
    assert all(s not in storage for s in xss_tab.server.secrets())
