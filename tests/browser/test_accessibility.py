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


PAGES: dict[str, Callable[[Tab], None]] = {
    "signin": _sign_in,
    "search-results": _search_results,
    "search-no-results": _search_no_results,
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
