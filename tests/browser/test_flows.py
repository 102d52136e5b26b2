"""What a person does in the viewer, in the browser: search and open a hit (the timeline
shows it in place), follow a note's links (an unresolved one marked), restore a revision
of a memory (history, diff, confirmation, the new revision), and watch a captured event
arrive over server-sent events (and not while paused)."""

from __future__ import annotations

from tests.browser.conftest import Tab
from tests.browser.demo_home import UNRESOLVED_LINK


def test_search_and_open_a_hit_in_its_timeline(tab: Tab) -> None:
    page = tab.page
    tab.sign_in_operator("/?q=CrashLoopBackOff&mode=keyword")
    hit = page.locator("#hits li.hit").first
    hit_id = hit.get_attribute("data-id")
    assert "crashloopbackoff" in hit.inner_text().lower()
    assert page.locator("#hits li.hit mark").count() > 0  # the match is highlighted
    with page.expect_navigation():
        hit.locator("a.hit-link").click()
    assert "/timeline/" in page.url
    current = page.locator("#turns li.turn[data-current='true']")
    assert current.count() == 1
    assert current.get_attribute("data-id") == hit_id
    assert current.get_attribute("aria-current") == "true"
    assert page.locator("#turns li.turn").count() > 1  # the turns around it too
    page.wait_for_function(  # viewer.js scrolls the hit into view
        """() => { const r = document.querySelector("[data-current='true']")
                     .getBoundingClientRect();
                   return r.top < window.innerHeight && r.bottom > 0; }"""
    )
    assert not tab.errors, tab.errors


def test_follow_note_links(tab: Tab) -> None:
    page = tab.page
    tab.sign_in_operator("/notes")
    with page.expect_navigation():
        page.locator("#notes a.note-link", has_text="Kubernetes").first.click()
    assert page.locator("h1").inner_text() == "Kubernetes"
    outlinks = page.locator("#outlinks li[data-testid='outlink']")
    assert {t.strip() for t in outlinks.locator("a").all_inner_texts()} >= {
        "Debugging pods",
        "Deploy checklist",
    }
    with page.expect_navigation():
        outlinks.locator("a", has_text="Deploy checklist").click()
    assert page.locator("h1").inner_text() == "Deploy checklist"
    unresolved = page.locator("#outlinks li[data-resolved='false']")
    assert unresolved.count() == 1
    assert UNRESOLVED_LINK in unresolved.inner_text()
    assert "unresolved" in (unresolved.get_attribute("class") or "")
    assert unresolved.locator("a").count() == 0  # nothing to follow
    backlinks = page.locator("#backlinks li[data-testid='backlink']")
    assert "Kubernetes" in backlinks.first.inner_text()
    with page.expect_navigation():
        backlinks.locator("a", has_text="Kubernetes").first.click()
    assert page.locator("h1").inner_text() == "Kubernetes"
    assert not tab.errors, tab.errors


def test_restore_a_revision(tab: Tab) -> None:
    page = tab.page
    record_id = tab.server.home.ids["alice_travel"]
    tab.sign_in_operator("/memory?user=alice")
    row = page.locator(f"#records tr[data-id='{record_id}']")
    assert row.locator("td.revision").inner_text().strip() == "3"
    with page.expect_navigation():
        row.locator("a.record-link").click()
    assert "Porto in June" in page.locator("#memory-content").inner_text()
    history = page.locator("#history li[data-testid='revision']")
    assert history.count() == 3
    diffs = page.locator("#history [data-testid='diff']")
    assert diffs.locator("ins").count() > 0 and diffs.locator("del").count() > 0
    latest_diff = page.locator("#history li[data-revision='3'] [data-testid='diff']")
    assert "Porto" in " ".join(latest_diff.locator("ins").all_inner_texts())
    assert "Lisbon" in " ".join(latest_diff.locator("del").all_inner_texts())

    with page.expect_navigation():
        page.locator("a.restore-link[data-revision='1']").click()
    assert "Lisbon in May" in page.locator("#confirm-text").inner_text()
    with page.expect_navigation():
        page.locator("#confirm-submit").click()
    assert page.get_by_test_id("flash").count() == 1
    assert "Lisbon in May" in page.locator("#memory-content").inner_text()
    assert page.locator("dl#record-facts dd.revision").inner_text().strip().startswith("4")
    assert page.locator("#history li[data-revision='4']").count() == 1
    assert not tab.errors, tab.errors


def test_cancelled_confirmation_changes_nothing(tab: Tab) -> None:
    page = tab.page
    record_id = tab.server.home.ids["bob_tea"]
    tab.sign_in_operator(f"/memory/{record_id}")
    with page.expect_navigation():
        page.locator("#forget-link").click()
    with page.expect_navigation():
        page.locator("#confirm-cancel").click()
    assert page.locator("dl#record-facts dd.status").inner_text().strip() == "active"


def test_captured_event_appears_live_and_pause_holds_it(tab: Tab) -> None:
    from memex_client import MemexClient

    page = tab.page
    tab.sign_in_operator("/activity")
    live = page.locator("[data-testid='live-item']")
    pause = page.locator("#live-pause")
    assert pause.get_attribute("aria-pressed") == "false"
    # No wait for the stream to open: it starts from the page's cursor (taken when the page
    # was rendered), so a write from now on reaches it whenever it connects.
    with MemexClient(tab.server.url, api_key=tab.server.keys["bob"]) as client:
        agent = client.agent()
        agent.remember("Bob's standup moved to 9:30 on Tuesdays")
        page.wait_for_selector("[data-testid='live-item']:has-text('standup moved')")
        assert "standup moved" in page.locator("#activity > li").first.inner_text()  # on top

        pause.click()
        assert pause.get_attribute("aria-pressed") == "true"
        agent.remember("Bob's parking spot is level 3")
        # The stream delivered it (the count is said only when a fragment arrives), and held it.
        page.wait_for_selector("#live-status:has-text('1 new fragment(s) held')")
        assert live.filter(has_text="parking spot").count() == 0

        pause.click()  # resume: what was held appears
        assert pause.get_attribute("aria-pressed") == "false"
        page.wait_for_selector("[data-testid='live-item']:has-text('parking spot')")
    assert not tab.errors, tab.errors


def _status(tab: Tab, record_id: str) -> str:
    tab.goto(f"/memory/{record_id}")
    return tab.page.locator("dl#record-facts dd.status").inner_text().strip()


def test_forget_without_its_csrf_token_is_refused(tab: Tab) -> None:
    page = tab.page
    record_id = tab.server.home.ids["bob_tea"]
    tab.sign_in_operator(f"/memory/{record_id}/forget")
    page.evaluate("() => document.querySelector('#confirm-form [name=csrf_token]').remove()")
    with page.expect_navigation() as navigation:
        page.locator("#confirm-submit").click()
    assert navigation.value is not None and navigation.value.status == 403
    assert _status(tab, record_id) == "active"


def test_another_site_cannot_post_a_forget(tab: Tab) -> None:
    """A page on another site submits the confirmation form, token and all: the
    SameSite=Strict cookie stays home (and the Origin check refuses it), nothing changes."""
    page = tab.page
    record_id = tab.server.home.ids["bob_tea"]
    tab.sign_in_operator(f"/memory/{record_id}/forget")
    token = page.locator("#confirm-form [name=csrf_token]").get_attribute("value")
    attack = f"""<!doctype html><html lang="en"><title>evil</title><body>
      <form id="f" method="post" action="{tab.server.url}/memory/{record_id}/forget">
        <input name="csrf_token" value="{token}"><input name="confirm" value="yes">
      </form><script>document.getElementById('f').submit()</script></body></html>"""
    page.route(
        "http://evil.example/**",
        lambda route: route.fulfill(status=200, content_type="text/html", body=attack),
    )
    with page.expect_response(
        lambda r: r.request.method == "POST" and "/forget" in r.url
    ) as posted:
        page.goto("http://evil.example/attack")
    # Without the cookie the server sees nobody signed in: sign-in, or 403 from the Origin check.
    assert posted.value.status in (303, 403), posted.value.status
    page.wait_for_load_state("load")
    assert page.url.startswith(tab.server.url)
    assert _status(tab, record_id) == "active"


def test_an_agent_session_sees_only_its_users_memory(tab: Tab) -> None:
    page = tab.page
    ids = tab.server.home.ids
    tab.sign_in_agent("bob", "/memory")
    records = page.locator("#records tr[data-testid='record']")
    shown = {records.nth(i).get_attribute("data-id") for i in range(records.count())}
    assert ids["bob_tea"] in shown
    assert not shown & {ids["alice_tea"], ids["alice_travel"], ids["alice_forgotten"]}
    response = tab.goto(f"/memory/{ids['alice_travel']}")
    assert response.status == 404  # as an unknown id: the API's answer for another user's
    assert "Porto" not in tab.text() and "Lisbon" not in tab.text()
    response = tab.goto("/corpus")
    assert response.status == 403
