"""The viewer's search page on a replica that falls behind a shared PostgreSQL catalog: a 503
page saying the server is catching up (how many changes behind), never possibly stale
results, and results again once it has caught up. The same check as the API's 503
``replica_behind`` (``ServerState.fresh_call``), exercised as tests/core/test_replicas.py does:
two homes on one database, the served one's follower paused while the other writes.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytest.importorskip("jinja2", reason="the viewer needs memex[server]")
from fastapi.testclient import TestClient

from memex_core.api import Memex
from memex_server.app import build_app
from memex_server.follower import FollowSettings
from memex_viewer import sessions
from tests.support.catalog_fixtures import home_memex
from tests.support.replica_lag import behind_for
from tests.support.viewer_fixtures import csrf_of, sign_in

SECRET = "viewer-replica-test-secret-0123456789"
BEHIND = re.compile(
    r'data-testid="replica-behind">This server is catching up: its index is (\d+) changes? '
    r"behind the shared catalog"
)


@pytest.fixture
def open_home(
    postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[[str], Memex]]:
    """A Memex (fast test components) on home ``tmp/<name>`` whose catalog is this test's
    PostgreSQL database."""
    monkeypatch.delenv("MEMEX_CATALOG_URL", raising=False)
    opened: list[Memex] = []

    def make(name: str) -> Memex:
        home = tmp_path / name
        home.mkdir(parents=True, exist_ok=True)
        (home / "config.toml").write_text(
            f'[catalog]\nuse = "postgres"\n[catalog.postgres]\nurl = "{postgres_url}"\n',
            encoding="utf-8",
        )
        mx = home_memex(home)
        opened.append(mx)
        return mx

    yield make
    for mx in opened:
        mx.close()


def wait_until(check: Callable[[], bool], timeout: float = 10.0) -> None:
    started = time.monotonic()
    while not check():
        assert time.monotonic() - started < timeout, "not within the timeout"
        time.sleep(0.05)


def test_search_page_refuses_while_the_replica_is_behind(
    open_home: Callable[[str], Memex],
) -> None:
    served = open_home("served")
    writer = open_home("writer")
    _, alice_key = served.agent_keys().create("alice", name="alice-bot")
    app = build_app(served, admin_secret=SECRET)
    state = app.state.memex
    follower = state.follow(FollowSettings(follow_interval=0.1, max_lag_s=0.5))
    try:
        operator, alice = TestClient(app), TestClient(app)
        sign_in(operator, SECRET)
        sign_in(alice, alice_key)
        query = {"q": "stoat", "mode": "keyword"}
        assert operator.get("/", params=query).status_code == 200
        follower.pause()
        writer.agent("alice").remember("the stoat turns white in winter")
        behind_for(served, 0.8)  # past max_lag_s with the follower paused
        for client in (operator, alice):
            page = client.get("/", params=query)
            assert page.status_code == 503
            assert page.headers["retry-after"] == "1"
            found = BEHIND.search(page.text)
            assert found, page.text[-1500:]
            assert int(found.group(1)) == served.keyword_sync.lag().entries >= 1
            assert "Retry in a moment" in page.text
            # No results at all, not the stale "0 results" the index would give.
            assert 'id="results-heading"' not in page.text
            assert 'id="no-results"' not in page.text
            assert 'id="search-form"' in page.text  # the form stays, to search again
        follower.resume()
        wait_until(lambda: operator.get("/", params=query).status_code == 200)
        for client in (operator, alice):
            page = client.get("/", params=query)
            assert page.status_code == 200
            assert len(re.findall(r'data-testid="hit"', page.text)) == 1
            assert 'data-testid="replica-behind"' not in page.text
    finally:
        state.stop_following()


def test_signing_out_on_one_replica_ends_the_session_on_the_others(
    open_home: Callable[[str], Memex],
) -> None:
    # Sessions end in the catalog the replicas share, not in one process's memory.
    first, second = open_home("first"), open_home("second")
    _, alice_key = first.agent_keys().create("alice", name="alice-bot")
    here = TestClient(build_app(first, admin_secret=SECRET), follow_redirects=False)
    there = TestClient(build_app(second, admin_secret=SECRET), follow_redirects=False)
    alice_there = TestClient(build_app(second, admin_secret=SECRET), follow_redirects=False)
    sign_in(here, SECRET)
    sign_in(alice_there, alice_key)
    saved = here.cookies[sessions.COOKIE_NAME]
    there.cookies.set(sessions.COOKIE_NAME, saved)
    assert there.get("/activity").status_code == 200  # one secret: each other's sessions
    token = csrf_of(here.get("/activity").text)
    assert here.post("/signout", data={"csrf_token": token}).status_code == 303
    assert there.get("/activity").status_code == 303
    assert alice_there.get("/activity").status_code == 200  # another principal's session
