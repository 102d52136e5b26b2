"""Several homes on one PostgreSQL catalog (replicas): each keyword index keeps its own place in
the change journal, the journal is pruned only past what every recent replica replayed, a
replica away too long compares its whole index instead, and a server's follower takes in
other replicas' writes within its lag, refusing searches (503 ``replica_behind``) beyond it.

In-process: two ``Memex`` objects (fast test components: a hashing embedder and in-memory
vectors, keyword searches) on two homes, one database of the session's PostgreSQL; servers
are FastAPI test clients over ``build_app``. The two-``memex serve`` proof over HTTP is in
tests/integrations/server/test_replicas_serve.py.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from memex_core.api import Memex
from memex_core.domain import Fragment, Provenance
from memex_core.replicas import WATERMARK_FILE, replica_name
from memex_core.services.indexing import KEYWORD_SYNCED_SETTING
from memex_server.app import build_app
from memex_server.follower import FollowSettings
from tests.support.catalog_fixtures import home_memex
from tests.support.replica_lag import behind_for

SECRET = "replica-test-secret"
AUTH = {"Authorization": f"Bearer {SECRET}"}


@pytest.fixture
def replicas(
    postgres_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[[str], Memex]]:
    """Opens a Memex on home ``tmp/<name>`` whose catalog is this test's database."""
    monkeypatch.delenv("MEMEX_CATALOG_URL", raising=False)
    opened: list[Memex] = []

    def open_home(name: str, catalog: str = "") -> Memex:
        """``catalog``: more lines for the home's [catalog] table."""
        home = tmp_path / name
        home.mkdir(parents=True, exist_ok=True)
        (home / "config.toml").write_text(
            f'[catalog]\nuse = "postgres"\n{catalog}[catalog.postgres]\nurl = "{postgres_url}"\n',
            encoding="utf-8",
        )
        mx = home_memex(home)
        opened.append(mx)
        return mx

    yield open_home
    for mx in opened:
        mx.close()


def found(mx: Memex, query: str) -> list[str]:
    return [r.fragment.id for r in mx.search(query, mode="keyword", limit=50).results]


def remember(mx: Memex, text: str, user: str = "alice") -> str:
    result = mx.agent(user).remember(text)
    return str(result.decisions[0].memory_id)


def test_each_home_keeps_its_own_place(replicas: Callable[..., Memex]) -> None:
    a, b = replicas("a"), replicas("b")
    remember(a, "the ocelot sleeps in the red barn")
    assert len(found(a, "ocelot")) == 1
    assert len(found(b, "ocelot")) == 1  # B replayed A's write from the journal
    head = a.catalog.last_fragment_change()
    for mx in (a, b):
        place = json.loads((mx.home / "index" / WATERMARK_FILE).read_text())
        assert place["seen"] == head and place["replica"] == replica_name(mx.home)
    assert {name for name, _seen, _at in a.catalog.replicas()} == {
        replica_name(a.home),
        replica_name(b.home),
    }
    # A shared catalog holds no single home's place.
    assert a.catalog.get_setting(KEYWORD_SYNCED_SETTING) is None
    # Read-your-writes on each replica, and the other one's write once it catches up.
    remember(b, "the lynx hunts by the frozen river")
    assert len(found(b, "lynx")) == 1
    assert b.keyword_sync.lag().entries == 0
    lag = a.keyword_sync.lag()
    assert lag.entries >= 1 and lag.head > lag.seen
    a.keyword_sync.follow()
    assert len(found(a, "lynx")) == 1 and a.keyword_sync.lag().entries == 0


def test_the_journal_waits_for_every_recent_replica(replicas: Callable[..., Memex]) -> None:
    a, b = replicas("a"), replicas("b")
    remember(a, "first fact about the heron")
    assert found(b, "heron")
    b_place = b.keyword_sync.flushed_to
    assert b_place is not None and b_place > 0
    b.close()
    for n in range(5):
        remember(a, f"fact number {n} about the kingfisher")
    # A flushed after each write, but B has not replayed these: they stay in the journal.
    seen_b, kept = a.catalog.fragment_changes_since(b_place)
    assert len(kept) >= 5 and seen_b == a.catalog.last_fragment_change()
    b = replicas("b")
    assert len(found(b, "kingfisher")) == 5


def test_a_replica_away_too_long_compares_its_whole_index(
    replicas: Callable[..., Memex],
) -> None:
    a = replicas("a", "replica_timeout = 60\n")
    b = replicas("b")
    gone_id = remember(a, "the badger digs under the old oak")
    assert found(b, "badger")
    b_name = replica_name(b.home)
    b.close()
    # B is not heard from for longer than A waits for it.
    catalog = a.catalog
    (_, b_seen, _at) = next(r for r in catalog.replicas() if r[0] == b_name)
    catalog.record_replica(b_name, b_seen, at=time.time() - 3600)
    a.agent("alice").forget(gone_id, reason="wrong")
    remember(a, "the weasel sleeps in the stone wall")
    pruned = int(catalog.get_setting("fragment_changes_pruned") or 0)
    assert pruned > b_seen  # pruned past B's place
    doctor = a.doctor().to_dict()
    assert "catalog.replicas_gone" in {f["code"] for f in doctor["findings"]}
    b = replicas("b")
    # B finds its place pruned away and compares its whole index with the catalog: what
    # was removed meanwhile is gone from it too, what was added is there.
    assert found(b, "weasel") and not found(b, "badger")
    assert b.keyword_sync.keyword.ids() == b.catalog.all_ids()
    report = b.doctor()
    assert report.healthy or {f.code for f in report.findings if f.severity != "note"} == {
        "vectors.missing"  # the in-memory vector double is per process
    }


@pytest.fixture
def app_on(replicas: Callable[..., Memex]) -> Iterator[Callable[..., tuple[Memex, TestClient]]]:
    made: list[tuple[TestClient, Memex]] = []

    def make(name: str, **settings: Any) -> tuple[Memex, TestClient]:
        mx = replicas(name)
        app = build_app(mx, admin_secret=SECRET, viewer=False)
        follow = replace(FollowSettings(follow_interval=0.1, max_lag_s=1.0), **settings)
        app.state.memex.follow(follow)
        client = TestClient(app)
        made.append((client, mx))
        return mx, client

    yield make
    for client, _mx in made:
        client.app.state.memex.stop_following()  # type: ignore[attr-defined]
        client.close()


def search(client: TestClient, query: str) -> tuple[int, dict[str, object]]:
    response = client.post("/v1/search", json={"query": query, "mode": "keyword"}, headers=AUTH)
    return response.status_code, response.json()


def wait_until(check: Callable[[], bool], timeout: float = 10.0) -> float:
    started = time.monotonic()
    while not check():
        assert time.monotonic() - started < timeout, "not within the timeout"
        time.sleep(0.02)
    return time.monotonic() - started


def test_a_server_follows_another_replicas_writes(
    app_on: Callable[..., tuple[Memex, TestClient]], replicas: Callable[..., Memex]
) -> None:
    _mx, client = app_on("served")
    writer = replicas("writer")
    # Read-your-writes through the server: found as soon as the write returns.
    wrote = client.post(
        "/v1/admin/memory/remember",
        json={"text": "the otter fishes at dawn", "user_id": "alice"},
        headers=AUTH,
    )
    assert wrote.status_code == 200, wrote.text
    status, body = search(client, "otter")
    assert status == 200 and len(body["results"]) == 1  # type: ignore[arg-type]
    # Another replica's write: the follower (woken by NOTIFY) takes it in.
    remember(writer, "the marten climbs the tall pine")
    took = wait_until(lambda: len(search(client, "marten")[1]["results"]) == 1)  # type: ignore[arg-type]
    assert took < 5.0
    ready = client.get("/readyz")
    assert ready.status_code == 200, ready.text
    report = ready.json()
    assert report["keyword_lag"] == 0 and report["lag_seconds"] == 0
    assert report["max_lag_s"] == 1.0


def test_a_replica_that_falls_behind_says_so(
    app_on: Callable[..., tuple[Memex, TestClient]], replicas: Callable[..., Memex]
) -> None:
    mx, client = app_on("served", max_lag_s=0.5)
    writer = replicas("writer")
    assert search(client, "stoat")[0] == 200
    follower = client.app.state.memex.follower  # type: ignore[attr-defined]
    follower.pause()
    remember(writer, "the stoat turns white in winter")
    behind_for(mx, 0.8)  # past max_lag_s with the follower paused
    status, body = search(client, "stoat")
    assert status == 503
    error = body["error"]
    assert error["code"] == "replica_behind"  # type: ignore[index]
    assert "max_lag_s = 0.5" in error["message"] and "/readyz" in error["message"]  # type: ignore[index]
    recall = client.post(
        "/v1/admin/memory/search", json={"query": "stoat", "user_id": "alice"}, headers=AUTH
    )
    assert recall.status_code == 503 and recall.json()["error"]["code"] == "replica_behind"
    context = client.post("/v1/context", json={"query": "stoat"}, headers=AUTH)
    assert context.status_code == 503 and context.json()["error"]["code"] == "replica_behind"
    ready = client.get("/readyz")
    assert ready.status_code == 503
    assert ready.json()["keyword_lag"] >= 1 and ready.json()["lag_seconds"] > 0.5
    # Reading a fragment by id needs no keyword index: still answered.
    assert client.post("/v1/fragments", json={"ids": []}, headers=AUTH).status_code == 200
    follower.resume()
    wait_until(lambda: search(client, "stoat")[0] == 200)
    assert len(search(client, "stoat")[1]["results"]) == 1  # type: ignore[arg-type]
    assert client.get("/readyz").status_code == 200
    assert mx.keyword_sync.lag().entries == 0


def fragments(count: int, word: str) -> list[Fragment]:
    """``count`` fragments built in code, each holding ``word``."""
    return [
        Fragment(
            id=f"{word}-{n:05d}",
            conversation_id=f"{word}-conversation",
            role="user",
            content=f"passage {n} about the {word} and the reeds",
            provenance=Provenance("api", "bench", f"{word}-{n}", f"{word}#{n}"),
        )
        for n in range(count)
    ]


def test_a_large_backlog_is_replayed_between_reads(
    app_on: Callable[..., tuple[Memex, TestClient]], replicas: Callable[..., Memex]
) -> None:
    """A backlog of 2,000 journal entries (another host's big write while this replica was
    paused) is replayed 100 entries per hold of the call lock: /readyz and searches are
    answered between the chunks, and they tell the true lag (entries falling chunk by
    chunk, seconds still counted from before the backlog: 503 replica_behind) until the
    replica has caught up."""
    mx, client = app_on("served", max_lag_s=0.5, replay_chunk=100)
    writer = replicas("writer")
    assert search(client, "heron")[0] == 200
    follower = client.app.state.memex.follower  # type: ignore[attr-defined]
    follower.pause()
    writer.add_fragments(fragments(2000, "heron"), origin="test:backlog", embed=False)
    backlog = mx.keyword_sync.lag().entries
    assert backlog >= 2000
    behind_for(mx, 0.6)  # behind for longer than max_lag_s allows
    # Each chunk takes a while, as a big one does on a big index.
    keyword = mx.keyword_sync.keyword
    add = keyword.add

    def slow_add(batch: Any) -> Any:
        time.sleep(0.02)
        return add(batch)

    keyword.add = slow_add  # type: ignore[method-assign]
    reports: list[tuple[int, dict[str, Any]]] = []
    refusals: list[tuple[int, str]] = []
    follower.resume()
    deadline = time.monotonic() + 60
    while True:
        ready = client.get("/readyz")
        reports.append((ready.status_code, ready.json()))
        if ready.json()["keyword_lag"] == 0:
            break
        status, body = search(client, "heron")
        if status == 200:
            # The last chunk may land between /readyz and this search: an answer is only
            # right once the replica has caught up.
            assert mx.keyword_sync.lag().entries == 0, body
            continue
        refusals.append((status, body.get("error", {}).get("code", "")))  # type: ignore[union-attr]
        assert time.monotonic() < deadline, "the backlog was not replayed within 60 s"
    between = [(status, r) for status, r in reports if 0 < r["keyword_lag"] < backlog]
    assert len(between) >= 3, f"no reads answered between chunks: {reports}"
    lags = [r["keyword_lag"] for _status, r in between]
    assert lags == sorted(lags, reverse=True)
    seconds = [r["lag_seconds"] for _status, r in between]
    assert seconds == sorted(seconds) and seconds[0] > 0.5  # never reset by a chunk
    assert all(status == 503 and not r["ready"] for status, r in between)
    assert refusals and set(refusals) == {(503, "replica_behind")}
    status, body = search(client, "heron")
    assert status == 200 and len(body["results"]) == 10  # type: ignore[arg-type]
    assert client.get("/readyz").status_code == 200
    assert keyword.count() == mx.catalog.count_fragments()


def test_the_follower_flushes_and_tells_the_catalog(
    app_on: Callable[..., tuple[Memex, TestClient]], replicas: Callable[..., Memex]
) -> None:
    mx, _client = app_on("served", flush_interval=0.3)
    writer = replicas("writer")
    for n in range(3):
        remember(writer, f"note {n} on the polecat")
    head = writer.catalog.last_fragment_change()
    wait_until(lambda: mx.keyword_sync.flushed_to == head)
    place = json.loads((mx.home / "index" / WATERMARK_FILE).read_text())
    assert place["seen"] == head
    rows = {name: seen for name, seen, _at in writer.catalog.replicas()}
    assert rows[replica_name(mx.home)] == head


def test_a_server_on_a_homes_own_sqlite_follows_other_processes(
    memex_home: Path,
) -> None:
    """SQLite: no NOTIFY, the follower polls; another process's write on the same home is
    found without a restart, and the server's own writes stay searchable at once."""
    from tests.support.component_doubles import fast_memex

    served = fast_memex(memex_home)
    app = build_app(served, admin_secret=SECRET, viewer=False)
    state = app.state.memex
    state.follow(FollowSettings(follow_interval=0.05, max_lag_s=2.0))
    other = fast_memex(memex_home)
    try:
        with TestClient(app) as client:
            assert not served.keyword_flush_deferred  # a flush per write on SQLite
            remember(other, "the dormouse sleeps all winter")
            wait_until(lambda: len(search(client, "dormouse")[1]["results"]) == 1)  # type: ignore[arg-type]
            assert client.get("/readyz").json()["keyword_lag"] == 0
    finally:
        state.stop_following()
        other.close()
        served.close()


def test_serve_settings_are_checked(tmp_path: Path) -> None:
    from memex_core.errors import MemexError

    settings = FollowSettings.from_table({"max_lag_s": 2, "flush_changes": 50}, "c.toml")
    assert settings.max_lag_s == 2.0 and settings.flush_changes == 50
    assert settings.follow_interval == 0.5 and settings.flush_interval == 30.0
    assert settings.replay_chunk == 2000
    assert FollowSettings.from_table({"replay_chunk": 500}, "c.toml").replay_chunk == 500
    for bad in (
        {"max_lag_s": "soon"},
        {"follow_interval": 0},
        {"flush_changes": True},
        {"replay_chunk": 0},
    ):
        with pytest.raises(MemexError) as refused:
            FollowSettings.from_table(bad, tmp_path / "config.toml")
        key = next(iter(bad))
        assert f"[serve] {key}" in str(refused.value)
        assert str(tmp_path / "config.toml") in str(refused.value)


def test_replica_timeout_setting(tmp_path: Path) -> None:
    from memex_core.errors import MemexError
    from memex_core.replicas import DEFAULT_REPLICA_TIMEOUT_S, replica_timeout

    where = tmp_path / "config.toml"
    assert replica_timeout({}, where) == DEFAULT_REPLICA_TIMEOUT_S == 86400
    assert replica_timeout({"replica_timeout": "90m"}, where) == 5400
    assert replica_timeout({"replica_timeout": 3600}, where) == 3600
    with pytest.raises(MemexError, match=r"\[catalog\] replica_timeout = 'soon'"):
        replica_timeout({"replica_timeout": "soon"}, where)
