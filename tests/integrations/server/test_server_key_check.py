"""How ``memex serve`` checks an agent key: on the event loop when that waits for nothing,
in a worker thread otherwise (:meth:`memex_server.state.ServerState.key_at_once`,
:func:`memex_server.auth.caller`).

A thread-pool round trip per request is a measurable part of a search's cost over HTTP
(benchmark 14), so a key is looked up where the request already is, when it can be: a
local SQLite catalog, memex's lock free to share, the key's last-use write not due. These
tests hold each condition false and check the key is then left to a worker thread, and
that a request then waits in that thread, not on the event loop: the server keeps
answering meanwhile.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="memex serve needs memex[server]")
from fastapi.testclient import TestClient

from memex_core.api import Memex
from memex_core.threads import reading_now
from memex_server.app import build_app
from memex_server.state import ServerState
from tests.support.server_fixtures import keyword_only_home

WAIT = 30.0


@pytest.fixture
def memex(tmp_path: Path) -> Iterator[Memex]:
    mx = Memex(keyword_only_home(tmp_path / "home"))
    mx.agent("alice").remember("The kettle is descaled with citric acid.")
    # Open what a search reads, as `memex serve` does before it listens: only then may
    # searches (and key checks) share memex's lock.
    mx.catalog  # noqa: B018
    mx.keyword_store  # noqa: B018
    mx.ranker  # noqa: B018
    yield mx
    mx.close()


@pytest.fixture
def state(memex: Memex) -> ServerState:
    return ServerState(memex, admin_secret="s" * 32)


def new_key(memex: Memex, user: str = "alice") -> str:
    return memex.agent_keys().create(user, name="bot")[1]


def holding_the_lock(memex: Memex) -> tuple[threading.Event, threading.Event, threading.Thread]:
    """Another thread holding memex's call lock exclusive (a write), until released."""
    held, release = threading.Event(), threading.Event()

    def write() -> None:
        with memex.call_lock:
            held.set()
            release.wait(WAIT)

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    assert held.wait(WAIT)
    return held, release, thread


def waiting_on(memex: Memex) -> int:
    """Threads waiting for memex's call lock right now, shared or exclusive."""
    lock: Any = memex.call_lock
    return int(lock.readers_waiting + lock.writers_waiting)


def test_a_live_key_is_found_at_once_after_its_last_use_was_written(
    memex: Memex, state: ServerState
) -> None:
    token = new_key(memex)
    # First use: the last-use write is due, which is never done on the event loop.
    assert state.key_at_once(token) is None
    key, revoked = state.check_key(token)
    assert key is not None and not revoked
    assert memex.agent_keys().find(key.id).last_used_at is not None  # written in the worker
    found = state.key_at_once(token)
    assert found is not None and found.id == key.id and found.user_id == "alice"


def test_a_wrong_or_revoked_key_is_left_to_the_worker_which_tells_which(
    memex: Memex, state: ServerState
) -> None:
    token = new_key(memex)
    state.check_key(token)
    assert state.key_at_once(token[:-2] + "xx") is None
    assert state.check_key(token[:-2] + "xx") == (None, False)  # a guess
    memex.agent_keys().revoke("bot")
    assert state.key_at_once(token) is None  # revoked: stops at once, even here
    assert state.check_key(token) == (None, True)  # exactly a revoked key: not a guess


def test_a_write_holding_memex_makes_the_check_step_aside_without_waiting(
    memex: Memex, state: ServerState
) -> None:
    token = new_key(memex)
    state.check_key(token)
    _, release, writer = holding_the_lock(memex)
    try:
        answers: list[Any] = []
        probe = threading.Thread(target=lambda: answers.append(state.key_at_once(token)))
        probe.start()
        probe.join(WAIT)
        assert not probe.is_alive() and answers == [None]  # returned while the write held on
        with reading_now(memex) as held:
            assert held is False
    finally:
        release.set()
        writer.join(WAIT)
    assert state.key_at_once(token) is not None


def test_a_catalog_on_a_database_server_is_never_asked_from_the_event_loop(
    memex: Memex, state: ServerState, monkeypatch: pytest.MonkeyPatch
) -> None:
    token = new_key(memex)
    state.check_key(token)
    monkeypatch.setattr(memex.catalog, "shared", True)  # as the postgres catalog says
    assert state.key_at_once(token) is None
    key, _ = state.check_key(token)
    assert key is not None


def test_a_request_waiting_for_a_write_waits_off_the_event_loop(memex: Memex) -> None:
    """While a write holds memex, a search with a key waits for it; the server meanwhile
    still answers other requests (the wait is in a worker thread), and the search then
    answers with what the write left."""
    token = new_key(memex)
    app = build_app(memex, admin_secret="s" * 32, viewer=False)
    with TestClient(app) as client:
        headers = {"Authorization": f"Bearer {token}"}
        body = {"query": "kettle descaled", "mode": "keyword"}
        assert client.post("/v1/search", json=body, headers=headers).status_code == 200
        _, release, writer = holding_the_lock(memex)
        results: list[Any] = []
        search = threading.Thread(
            target=lambda: results.append(client.post("/v1/search", json=body, headers=headers))
        )
        try:
            search.start()
            # Until the search's thread waits on memex's lock (for the key check or the
            # search itself), the assertions below would prove nothing.
            deadline = time.monotonic() + WAIT
            while not waiting_on(memex) and time.monotonic() < deadline:
                time.sleep(0.01)
            assert waiting_on(memex)
            assert client.get("/healthz").json() == {"status": "ok"}  # the loop is not stuck
            assert search.is_alive()  # and the search does wait for the write
        finally:
            release.set()
            writer.join(WAIT)
        search.join(WAIT)
        assert results and results[0].status_code == 200
        hits = results[0].json()["results"]
        assert [hit["fragment"]["content"] for hit in hits] == [
            "The kettle is descaled with citric acid."
        ]


def test_search_context_and_recall_write_what_fastapi_would(memex: Memex) -> None:
    """The routes that write their JSON in the worker thread answer with what FastAPI
    writes for their response model (search, context: memex_server.encoded), or, for memory
    search, with each hit's ``to_dict()`` (memex_server.memory_json: validity in ISO 8601)."""
    from pydantic import TypeAdapter

    from memex_core.domain.disclosure import ContextPack
    from memex_core.handles import MemoryHit
    from memex_core.services.search import SearchResults

    token = new_key(memex)
    app = build_app(memex, admin_secret="s" * 32, viewer=False)
    view = memex.view("alice", name="bot")
    handle = memex.agent("alice", name="bot")
    with TestClient(app) as client:
        headers = {"Authorization": f"Bearer {token}"}
        cases = [
            ("/v1/search", {"query": "kettle", "mode": "keyword"}, SearchResults,
             lambda: view.search("kettle", "keyword")),
            ("/v1/context", {"query": "kettle", "mode": "keyword", "budget_chars": 500},
             ContextPack, lambda: view.context("kettle", 500, mode="keyword")),
            ("/v1/memory/search", {"query": "kettle", "mode": "keyword"}, list[MemoryHit],
             lambda: handle.search("kettle", mode="keyword")),
        ]  # fmt: skip
        for path, body, kind, local in cases:
            response = client.post(path, json=body, headers=headers)
            assert response.status_code == 200, response.text
            assert response.headers["content-type"] == "application/json"
            adapter: TypeAdapter[Any] = TypeAdapter(kind)
            if path == "/v1/memory/search":
                expected = [hit.to_dict() for hit in local()]
            else:
                expected = adapter.dump_python(local(), mode="json")
            assert response.json() == expected, path
