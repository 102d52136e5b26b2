"""The page-timing benchmark (``benchmarks/viewer_render.py``) measures what it says, tiny:
two queries against the demo server, every time taken from the page's own clock and the
page's hits equal to ``POST /v1/search``'s."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tests.browser.conftest import Served

if TYPE_CHECKING:
    from playwright.sync_api import Browser


def test_render_benchmark_measures_pages_and_json(browser: Browser, demo: Served) -> None:
    from benchmarks.viewer_render import measure_in

    queries = ["CrashLoopBackOff", "sourdough proof"]
    found = measure_in(browser, demo.url, demo.admin_secret, queries, [])
    assert len(found.json) == len(found.results) == len(found.wall) == 2
    assert len(found.first_byte) == 2
    assert found.mismatched == []
    for first_byte, results in zip(found.first_byte, found.results, strict=True):
        assert 0 < first_byte <= results  # the list appears after the first byte
