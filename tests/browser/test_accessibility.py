"""axe-core (4.12, bundled by axe-playwright-python) on every page of the viewer, run in the
real browser: no serious or critical violation. Each page is reached as a person would,
from a search or a link, so the check also covers the links between pages."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.browser.conftest import Tab


def _sign_in(tab: Tab) -> None:
    tab.goto("/signin")


def _search_results(tab: Tab) -> None:
    tab.sign_in_operator("/?q=CrashLoopBackOff&mode=keyword")
    assert tab.page.locator("#hits li.hit").count() > 0


def _search_no_results(tab: Tab) -> None:
    tab.sign_in_operator("/?q=zzyzx+qwertyuiop&mode=keyword")
    assert tab.page.locator("#no-results").count() == 1


def _timeline(tab: Tab) -> None:
    _search_results(tab)
    with tab.page.expect_navigation():
        tab.page.locator("#hits a.hit-link").first.click()
    assert tab.page.locator("#turns li.turn[data-current='true']").count() == 1


def _notes(tab: Tab) -> None:
    tab.sign_in_operator("/notes")
    assert tab.page.locator("#notes a.note-link").count() > 0


def _note(tab: Tab) -> None:
    _notes(tab)
    with tab.page.expect_navigation():
        tab.page.locator("#notes a.note-link", has_text="Deploy checklist").first.click()
    assert tab.page.locator("#outlinks li[data-resolved='false']").count() == 1


def _corpus(tab: Tab) -> None:
    tab.sign_in_operator("/corpus")
    assert tab.page.locator("table#by-source").count() == 1


def _corpus_doctor(tab: Tab) -> None:
    _corpus(tab)
    with tab.page.expect_navigation():
        tab.page.locator("#run-doctor").click()
    assert tab.page.locator("#doctor").count() == 1


def _activity(tab: Tab) -> None:
    tab.sign_in_operator("/activity")
    assert tab.page.locator("#activity li.turn").count() > 0


def _memory_tree(tab: Tab) -> None:
    tab.sign_in_operator("/memory?user=alice&collection=acme")
    assert tab.page.locator("#records tr[data-testid='record']").count() > 0


def _memory_agent(tab: Tab) -> None:
    tab.sign_in_agent("bob", "/memory")
    assert tab.page.locator("#records tr[data-testid='record']").count() > 0


def _record_diff(tab: Tab) -> None:
    tab.sign_in_operator(f"/memory/{tab.server.home.ids['alice_travel']}")
    assert tab.page.locator("#history [data-testid='diff']").count() > 0


def _confirm(tab: Tab) -> None:
    tab.sign_in_operator(f"/memory/{tab.server.home.ids['alice_tea']}")
    with tab.page.expect_navigation():
        tab.page.locator("#forget-link").click()
    assert tab.page.locator("#confirm-form").count() == 1


def _access_log(tab: Tab) -> None:
    tab.sign_in_operator("/memory/log")
    assert tab.page.locator("#access-log tr[data-testid='log-entry']").count() > 0


def _dream_plan(tab: Tab) -> None:
    tab.sign_in_operator("/memory/dream?user=alice")
    with tab.page.expect_navigation():
        tab.page.locator("#plan-submit").click()
    assert tab.page.locator("#dream-plan tr[data-testid='decision']").count() > 0


def _not_found(tab: Tab) -> None:
    tab.sign_in_operator("/timeline/no-such-fragment")


PAGES: dict[str, Callable[[Tab], None]] = {
    "signin": _sign_in,
    "search-results": _search_results,
    "search-no-results": _search_no_results,
    "timeline": _timeline,
    "notes": _notes,
    "note": _note,
    "corpus": _corpus,
    "corpus-doctor": _corpus_doctor,
    "activity": _activity,
    "memory-tree": _memory_tree,
    "memory-agent": _memory_agent,
    "record-diff": _record_diff,
    "confirm": _confirm,
    "access-log": _access_log,
    "dream-plan": _dream_plan,
    "not-found": _not_found,
}


@pytest.mark.parametrize("name", list(PAGES))
def test_page_has_no_serious_axe_violation(tab: Tab, name: str) -> None:
    PAGES[name](tab)
    page = tab.page
    assert page.locator("main").count() == 1, "every page has one <main> landmark"
    assert page.locator("html").get_attribute("lang") == "en"
    assert page.title().strip(), "every page has a <title>"
    assert page.locator("#skip-link").count() == 1
    violations = tab.axe()
    assert not violations, f"{name}: {page.url}\n" + "\n".join(violations)
    assert not tab.errors, tab.errors
