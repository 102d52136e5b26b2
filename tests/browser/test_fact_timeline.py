"""The memory page's timeline in Chromium (issue 30): a fact that changed (Alice lived in
Rome, then Paris, then moved to Berlin) shows its chain oldest first, each fact with the
times it held, the replaced ones marked superseded (struck through, linking to what replaced
them) and the current one marked current; stored markup in a fact stays text and runs
nothing; an agent session sees its own chain and not bob's; the page passes axe.

Its own served home (keyword-only, the default rules supersession judge), facts told with
their dates through ``Memex.remember(at=)``. A replaced fact's Reopen button (a POST form with
the session's CSRF token, then a confirmation) makes it current again, as ``memex undelete``
does; alice's key cannot reopen bob's facts, and a POST without the token writes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tests.browser.conftest import Served, Tab, _serve, open_tab
from tests.browser.demo_home import DemoHome, new_home

if TYPE_CHECKING:
    from playwright.sync_api import Browser

MARKUP = '<img src=x onerror="window.__xss=1">'


@pytest.fixture(scope="module")
def moves(browser: Browser, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    from memex_core.api import Memex

    home = DemoHome(new_home(tmp_path_factory.mktemp("browser-timeline") / "home"))
    with Memex(home.path) as mx:
        for name, user, text, at in (
            ("rome", "alice", "Alice lives in Rome", "2023-02-01"),
            ("paris", "alice", f"Alice lives in Paris ({MARKUP})", "2024-01-10"),
            ("berlin", "alice", "Alice moved to Berlin", "2024-06-01"),
            ("oslo", "bob", "Bob lives in Oslo", "2024-01-10"),
            ("lisbon", "bob", "Bob moved to Lisbon", "2024-06-01"),
            # A chain of its own for the reopen test, so the one above stays as it is.
            ("acme", "alice", f"Alice works at Acme ({MARKUP})", "2023-03-01"),
            ("initech", "alice", "Alice now works at Initech", "2024-03-01"),
        ):
            home.ids[name] = mx.remember(text, user=user, at=at).memory_ids[0]
        for user in ("alice", "bob"):
            home.keys[user] = mx.agent_keys().create(user, name=f"{user}-viewer")[1]
    yield from _serve(home)


@pytest.fixture
def timeline_tab(browser: Browser, moves: Served) -> Iterator[Tab]:
    yield from open_tab(browser, moves)


#: Each fact of the timeline as the page lays it out.
FACTS_JS = """
() => [...document.querySelectorAll('#fact-timeline > li[data-testid="fact"]')].map(li => ({
  id: li.dataset.memoryId,
  state: li.classList.contains('current') ? 'current' : 'superseded',
  text: li.querySelector('.fact-text').innerText,
  struck: getComputedStyle(li.querySelector('.fact-text')).textDecorationLine,
  from: li.querySelector('time.valid-from').getAttribute('datetime'),
  until: li.querySelector('time.valid-until')?.getAttribute('datetime') ?? null,
  by: li.querySelector('a.superseded-by')?.getAttribute('href') ?? null,
  visible: li.getBoundingClientRect().height > 0,
}))
"""


@pytest.mark.parametrize("who", ["agent", "operator"])
def test_the_memory_page_shows_the_chain_as_a_timeline(timeline_tab: Tab, who: str) -> None:
    ids = timeline_tab.server.home.ids
    if who == "agent":
        timeline_tab.sign_in_agent("alice", f"/memory/{ids['paris']}")
    else:
        timeline_tab.sign_in_operator(f"/memory/{ids['paris']}")
    page = timeline_tab.page
    page.locator("#fact-timeline").wait_for()
    facts = page.evaluate(FACTS_JS)
    assert [f["id"] for f in facts] == [ids["rome"], ids["paris"], ids["berlin"]]
    assert [f["state"] for f in facts] == ["superseded", "superseded", "current"]
    assert all(f["visible"] for f in facts)
    rome, paris, berlin = facts
    assert paris["from"] == "2024-01-10T00:00:00+00:00"
    assert paris["until"] == berlin["from"] == "2024-06-01T00:00:00+00:00"
    assert rome["until"] == paris["from"]
    assert paris["by"] == f"/memory/{ids['berlin']}" and berlin["until"] is None
    assert "line-through" in paris["struck"] and "line-through" not in berlin["struck"]
    assert MARKUP in paris["text"]  # shown as the text it is
    assert timeline_tab.script_ran() == [] and timeline_tab.errors == []
    text = timeline_tab.text()
    assert "superseded by" in text and "current" in text
    assert "Oslo" not in text and "Lisbon" not in text
    # The link to what replaced Paris opens Berlin's page, with the same timeline.
    with page.expect_navigation(wait_until="load"):
        page.locator(f'#fact-timeline a.superseded-by[href="/memory/{ids["berlin"]}"]').click()
    assert page.evaluate(FACTS_JS)[-1]["id"] == ids["berlin"]
    assert timeline_tab.axe() == []


def test_an_agent_session_cannot_open_another_users_chain(timeline_tab: Tab) -> None:
    ids = timeline_tab.server.home.ids
    timeline_tab.sign_in_agent("alice", "/memory")
    for bobs in ("oslo", "lisbon"):
        response = timeline_tab.goto(f"/memory/{ids[bobs]}")
        assert response.status == 404
        assert "Oslo" not in timeline_tab.text() and "Lisbon" not in timeline_tab.text()


REOPEN_JS = """
() => [...document.querySelectorAll('#fact-timeline > li[data-testid="fact"]')].map(li => ({
  id: li.dataset.memoryId,
  state: li.classList.contains('current') ? 'current' : 'superseded',
  button: li.querySelector('form.reopen-form button.reopen-button') !== null,
  token: li.querySelector('form.reopen-form [name=csrf_token]')?.value ?? null,
}))
"""


def test_a_superseded_fact_is_reopened_from_the_timeline(timeline_tab: Tab) -> None:
    ids = timeline_tab.server.home.ids
    timeline_tab.sign_in_agent("alice", f"/memory/{ids['initech']}")
    page = timeline_tab.page
    page.locator("#fact-timeline").wait_for()
    facts = page.evaluate(REOPEN_JS)
    assert [(f["id"], f["state"], f["button"]) for f in facts] == [
        (ids["acme"], "superseded", True),
        (ids["initech"], "current", False),
    ]
    assert facts[0]["token"]  # the form carries the session's CSRF token
    # A POST without the token (a forged form) writes nothing.
    forged = page.request.post(
        f"{timeline_tab.server.url}/memory/{ids['acme']}/reopen", form={"confirm": "yes"}
    )
    assert forged.status == 403
    # The button asks first: nothing changes until the confirmation is sent.
    with page.expect_navigation(wait_until="load"):
        page.locator(f'li[data-memory-id="{ids["acme"]}"] button.reopen-button').click()
    assert page.locator('[data-testid="confirm-needed"]').is_visible()
    assert MARKUP in page.locator("#confirm-text").inner_text()  # shown as text
    assert ids["initech"] in page.locator("#reopen-note").inner_text()
    assert timeline_tab.script_ran() == []
    assert timeline_tab.axe() == []
    timeline_tab.goto(f"/memory/{ids['acme']}")
    assert page.evaluate(REOPEN_JS)[0]["state"] == "superseded"
    with page.expect_navigation(wait_until="load"):
        page.locator(f'li[data-memory-id="{ids["acme"]}"] button.reopen-button').click()
    with page.expect_navigation(wait_until="load"):
        page.locator("#confirm-submit").click()
    assert page.url.endswith(f"/memory/{ids['acme']}?done=reopened")
    assert "Reopened" in page.locator('[data-testid="flash"]').inner_text()
    assert page.locator("#record-facts .valid-until").count() == 0  # it holds again
    assert timeline_tab.script_ran() == [] and timeline_tab.errors == []
    # Reopened a second time: it holds already, so there is nothing to reopen.
    response = timeline_tab.goto(f"/memory/{ids['acme']}/reopen")
    assert response.status == 409


def test_an_agent_session_cannot_reopen_another_users_fact(timeline_tab: Tab) -> None:
    ids = timeline_tab.server.home.ids
    timeline_tab.sign_in_agent("alice", f"/memory/{ids['berlin']}")
    page = timeline_tab.page
    token = page.locator("form.reopen-form [name=csrf_token]").first.get_attribute("value")
    path = f"/memory/{ids['oslo']}/reopen"
    assert timeline_tab.goto(path).status == 404
    assert "Oslo" not in timeline_tab.text()
    sent = page.request.post(
        f"{timeline_tab.server.url}{path}", form={"csrf_token": token, "confirm": "yes"}
    )
    assert sent.status == 404 and "Oslo" not in sent.text()
