"""The search page by keyboard alone: sign in, skip to the content, type a query, submit it
with Enter, Tab to a hit and follow it. Every stop on the way shows where the focus is."""

from __future__ import annotations

from tests.browser.conftest import Tab

#: How many Tab presses reaching an element may take before the test calls it unreachable.
MAX_TABS = 60

FOCUSED = """
() => {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  const style = getComputedStyle(el);
  return {
    tag: el.tagName.toLowerCase(),
    id: el.id,
    classes: el.className,
    href: el.getAttribute('href'),
    visible: (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0)
      || style.boxShadow !== 'none',
  };
}
"""


def tab_to(tab: Tab, wanted: str) -> dict:
    """Press Tab until the focused element matches the CSS selector ``wanted``."""
    seen = []
    for _ in range(MAX_TABS):
        tab.page.keyboard.press("Tab")
        focused = tab.page.evaluate(FOCUSED)
        if focused is None:
            continue
        seen.append(f"{focused['tag']}#{focused['id']}.{focused['classes']}")
        assert focused["visible"], f"no visible focus on {seen[-1]}"
        if tab.page.evaluate("(s) => document.activeElement.matches(s)", wanted):
            return focused
    raise AssertionError(f"{wanted} not reached by Tab; focus went through {seen}")


def test_search_and_follow_a_hit_by_keyboard(tab: Tab) -> None:
    page = tab.page
    tab.goto("/signin")
    tab_to(tab, "#credential")
    page.keyboard.type(tab.server.admin_secret)
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "/signin" not in page.url

    page.keyboard.press("Tab")  # the first stop of every page: the skip link
    skip = page.evaluate(FOCUSED)
    assert skip is not None and skip["id"] == "skip-link" and skip["visible"], skip
    assert skip["href"] == "#main"
    page.keyboard.press("Enter")
    tab_to(tab, "#q")
    page.keyboard.type("CrashLoopBackOff")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.locator("#hits li.hit").count() > 0

    hit = tab_to(tab, "#hits a.hit-link")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.url.endswith(hit["href"]) or hit["href"] in page.url
    assert page.locator("main").count() == 1
    assert not tab.errors, tab.errors


def test_memory_tree_undelete_and_forget_by_keyboard(tab: Tab) -> None:
    page = tab.page
    record_id = tab.server.home.ids["alice_forgotten"]
    tab.sign_in_operator("/memory?user=alice")

    tab_to(tab, "details.tree-node[data-collection='acme'] > summary")
    page.keyboard.press("Enter")  # a <details> tree: Enter opens it
    assert page.locator("details.tree-node[data-collection='acme']").get_attribute("open") == ""
    tab_to(tab, "a.tree-link[data-collection='acme:support']")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    records = page.locator("#records tr[data-testid='record']")
    assert records.count() == 1 and "acme support" in records.first.inner_text()

    tab.goto(f"/memory/{record_id}")
    assert page.locator("dl#record-facts dd.status").inner_text().strip() == "forgotten"
    for link, status in (("#undelete-link", "active"), ("#forget-link", "forgotten")):
        tab_to(tab, link)
        with page.expect_navigation():
            page.keyboard.press("Enter")
        tab_to(tab, "#confirm-submit")
        with page.expect_navigation():
            page.keyboard.press("Enter")
        assert page.get_by_test_id("flash").count() == 1
        assert page.locator("dl#record-facts dd.status").inner_text().strip() == status


def test_live_pause_switch_by_keyboard(tab: Tab) -> None:
    page = tab.page
    tab.sign_in_operator("/activity")
    pause = page.locator("#live-pause")
    tab_to(tab, "#live-pause")
    page.keyboard.press("Space")
    assert pause.get_attribute("aria-pressed") == "true"
    page.keyboard.press("Enter")
    assert pause.get_attribute("aria-pressed") == "false"
