"""The search page of a replica that is behind its shared PostgreSQL catalog, in the browser:
the notice that the server is catching up (how many changes behind), the form kept, no
results, and no serious axe-core violation; results again once it has caught up.

The app runs in this process (FastAPI's TestClient over ``build_app``), so the test can
pause its follower; the browser's requests to ``http://replica.test`` are answered by it
through Playwright's request routing, styles and script included.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from fastapi.testclient import TestClient

from memex_core.api import Memex
from memex_server.app import build_app
from memex_server.follower import FollowSettings
from memex_viewer import sessions
from tests.browser import chromium
from tests.browser.conftest import TIMEOUT_MS
from tests.support.catalog_fixtures import home_memex
from tests.support.replica_lag import behind_for

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Route

SECRET = "replica-page-secret-0123456789"
ORIGIN = "http://replica.test"


@pytest.fixture
def homes(postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Two homes (fast test components) on one PostgreSQL database: one served, one writing."""
    monkeypatch.delenv("MEMEX_CATALOG_URL", raising=False)
    opened: list[Memex] = []
    for name in ("served", "writer"):
        home = tmp_path / name
        home.mkdir()
        (home / "config.toml").write_text(
            f'[catalog]\nuse = "postgres"\n[catalog.postgres]\nurl = "{postgres_url}"\n',
            encoding="utf-8",
        )
        opened.append(home_memex(home))
    yield opened
    for mx in opened:
        mx.close()


def test_a_lagging_replica_shows_a_catching_up_page(browser: Browser, homes: Any) -> None:
    served, writer = homes
    app = build_app(served, admin_secret=SECRET)
    state = app.state.memex
    follower = state.follow(FollowSettings(follow_interval=0.1, max_lag_s=0.5))
    client = TestClient(app, base_url=ORIGIN, follow_redirects=False)

    def answer(route: Route) -> None:
        request = route.request
        client.cookies.clear()  # the browser's own cookies come in the headers
        response = client.request(
            request.method, request.url, headers=request.headers, content=request.post_data_buffer
        )
        headers = {k: v for k, v in response.headers.items() if k != "set-cookie"}
        route.fulfill(status=response.status_code, headers=headers, body=response.content)

    context = browser.new_context(viewport=chromium.VIEWPORT)  # type: ignore[arg-type]
    context.set_default_timeout(TIMEOUT_MS)
    cookie = sessions.encode(
        sessions.new_session(sessions.OPERATOR, None), sessions.signing_key(SECRET)
    )
    context.add_cookies([{"name": sessions.COOKIE_NAME, "value": cookie, "url": ORIGIN}])
    context.route(f"{ORIGIN}/**", answer)
    page = context.new_page()
    try:
        # Open (caught up) before the pause: the lag counts from the last catch-up, and an
        # index first opened by the search would catch up there and answer 200.
        assert served.keyword_sync.lag().entries == 0
        follower.pause()
        writer.agent("alice").remember("the stoat turns white in winter")
        behind_for(served, 0.8)  # past max_lag_s with the follower paused
        shown = page.goto(f"{ORIGIN}/?q=stoat&mode=keyword", wait_until="load")
        assert shown is not None and shown.status == 503
        notice = page.get_by_test_id("replica-behind")
        assert notice.is_visible()
        text = notice.inner_text()
        assert "This server is catching up: its index is" in text
        assert "behind the shared catalog" in text and "Retry in a moment" in text
        assert page.locator("#hits").count() == 0 and page.locator("#no-results").count() == 0
        assert page.locator("#q").input_value() == "stoat"  # the form is kept, to retry
        from axe_playwright_python.sync_playwright import Axe

        serious = [
            f"{v['id']}: {v['help']}"
            for v in Axe().run(page).response["violations"]
            if v.get("impact") in ("serious", "critical")
        ]
        assert not serious, serious
        follower.resume()
        deadline = time.monotonic() + 10
        while served.keyword_sync.lag().entries and time.monotonic() < deadline:
            time.sleep(0.05)
        with page.expect_navigation() as again:
            page.locator("#search-submit").click()
        assert again.value is not None and again.value.status == 200
        assert page.locator("#hits li.hit").count() == 1
        assert page.get_by_test_id("replica-behind").count() == 0
    finally:
        context.close()
        state.stop_following()
