"""Searches on one Memex from many threads: they run together, a write runs alone.

``memex_core.threads.call`` holds the Memex's call lock shared for searches (methods
marked ``reads``) once the components a search uses are open and each says it can be
read from several threads at once, and exclusive for anything else. These tests use the
real SQLite catalog, BM25 index and chroma folder, with a hashing embedder that declares
itself safe for concurrent reads (MiniLM does too; see test_minilm_threads).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("chromadb", reason="chromadb is not installed (pip install 'memex[chroma]')")

from memex_core.api import Memex
from memex_core.config import Config, load_config
from memex_core.domain import Fragment, Provenance
from memex_core.hookspecs import hookimpl
from memex_core.plugins import load_registry
from memex_core.threads import call, only_reads
from tests.support.component_doubles import HashingEmbedder

WAIT = 20.0
USER = "ana"


class ThreadSafeHashing(HashingEmbedder):
    concurrent_reads = True  # it keeps no state


class Plugin:
    @hookimpl
    def register_embedders(self, register: Any) -> None:
        register("hashing-threads", lambda context: ThreadSafeHashing())


def open_memex(home: Path) -> Memex:
    registry = load_registry()
    registry.register_plugin(Plugin(), name="threads-doubles")
    base = load_config(home)
    components = {**base.components, "embedder": "hashing-threads", "vector_store": "chroma"}
    return Memex(registry=registry, config=Config(home=home, components=components, raw={}))


def fragment(fragment_id: str, text: str, origin: str = "app:base") -> Fragment:
    # add_fragments(replace=True) replaces what came from the same source path (the origin).
    return Fragment(
        id=fragment_id,
        conversation_id=origin,
        role="user",
        content=text,
        provenance=Provenance("api", origin, fragment_id, fragment_id, timestamp=None),
    )


@pytest.fixture
def mx(memex_home: Path) -> Any:
    memex = open_memex(memex_home)
    corpus = [fragment(f"base-{n}", f"alpha{n} notes about topic {n % 9}") for n in range(150)]
    memex.add_fragments(corpus, origin="app:base")
    memex.agent(USER).remember("ana keeps her sourdough starter in the fridge")
    yield memex
    memex.close()


def test_searches_are_marked_and_share_once_the_components_are_open(mx: Memex) -> None:
    view = mx.view(USER)
    assert only_reads(view.search) and only_reads(mx.search) and only_reads(view.context)
    assert not only_reads(mx.ingest) and not only_reads(view.remember)
    fresh = open_memex(mx.home)
    assert not fresh.reads_may_share()  # nothing open yet: the first search goes alone
    call(fresh, fresh.view(USER).search, "alpha3", "hybrid", 5)
    assert fresh.reads_may_share()
    fresh.close()


def test_two_searches_run_at_once_and_a_write_waits_for_them(
    mx: Memex, monkeypatch: pytest.MonkeyPatch
) -> None:
    view = mx.view(USER)
    call(mx, view.search, "alpha1", "hybrid", 5)  # opens everything
    inside = threading.Barrier(2, timeout=WAIT)
    release = threading.Event()
    real_fuse = mx.ranker.fuse

    both_in = threading.Event()

    def fuse(*args: Any, **kwargs: Any) -> Any:
        inside.wait()  # breaks unless both searches are in here at once
        both_in.set()
        release.wait(WAIT)
        return real_fuse(*args, **kwargs)

    monkeypatch.setattr(mx.ranker, "fuse", fuse)
    found: list[list[str]] = []
    failures: list[BaseException] = []
    wrote = threading.Event()

    def search(query: str) -> None:
        try:
            found.append([r.fragment.id for r in call(mx, view.search, query, "hybrid", 3)])
        except BaseException as exc:
            failures.append(exc)

    def write() -> None:
        try:
            call(mx, mx.agent(USER).remember, "ana prefers rye flour")
            wrote.set()
        except BaseException as exc:
            failures.append(exc)

    searches = [threading.Thread(target=search, args=(q,)) for q in ("alpha2", "alpha7")]
    for thread in searches:
        thread.start()
    assert both_in.wait(WAIT)
    writer = threading.Thread(target=write)
    writer.start()
    # Until the write waits on memex's lock, 'not wrote' proves nothing.
    lock: Any = mx.call_lock
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline and not lock.writers_waiting:
        time.sleep(0.01)
    assert lock.writers_waiting == 1
    assert not wrote.is_set()  # the write waits while the searches are inside
    release.set()
    for thread in [*searches, writer]:
        thread.join(WAIT)
    assert not failures, failures[0]
    assert wrote.is_set()
    assert sorted(ids[0] for ids in found) == ["base-2", "base-7"]


def test_many_threads_search_while_another_writes(mx: Memex) -> None:
    view = mx.view(USER)
    call(mx, view.search, "alpha1", "hybrid", 5)
    stop = threading.Event()
    failures: list[BaseException] = []
    searched = [0]
    rounds = [0]

    def write() -> None:
        try:
            agent = mx.agent(USER)
            for round_ in range(15):
                batch = [
                    fragment(f"omega-{round_}-{n}", f"omega round{round_} item{n}", "app:omega")
                    for n in range(5)
                ]
                # replace: the batch is all the origin holds now, so a search sees one round
                call(mx, mx.add_fragments, batch, origin="app:omega", replace=True)
                text = f"ana fact number{round_} about kefir"
                call(mx, agent.remember, text)
                # Read your writes: acknowledged, so found by the next search.
                hits = call(mx, view.search, f"number{round_} kefir", "keyword", 5)
                assert any(f"number{round_}" in r.fragment.content for r in hits), hits
                rounds[0] = round_ + 1
        except BaseException as exc:
            failures.append(exc)
        finally:
            stop.set()

    def read(offset: int) -> None:
        try:
            n = offset
            while not stop.is_set():
                n += 1
                base = call(mx, view.search, f"alpha{n % 150}", "hybrid", 3)
                assert base.results[0].fragment.id == f"base-{n % 150}"
                omega = call(mx, view.search, "omega", "keyword", 20)
                rounds_seen = {r.fragment.id.split("-")[1] for r in omega}
                assert len(omega) in (0, 5) and len(rounds_seen) <= 1, [
                    r.fragment.id for r in omega
                ]
                mixed = call(mx, view.search, "omega item1", "hybrid", 10)
                assert (
                    len(
                        {
                            r.fragment.id.split("-")[1]
                            for r in mixed
                            if r.fragment.id.startswith("omega")
                        }
                    )
                    <= 1
                )
                for hit in call(mx, view.search, "kefir", "hybrid", 10):
                    assert hit.fragment.owner in ("", f"users/{USER}", "shared")
                searched[0] += 1
        except BaseException as exc:
            failures.append(exc)
            stop.set()

    threads = [threading.Thread(target=write)]
    threads += [threading.Thread(target=read, args=(n * 37,)) for n in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(180)
    assert not failures, failures[0]
    assert rounds[0] == 15 and searched[0] > 0
    report = mx.doctor()
    assert report.healthy, report
