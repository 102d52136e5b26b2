"""A chroma server that stops, hangs or is not there yet: memex says so and carries on.

Against a real ``chroma run`` on 127.0.0.1 (:class:`tests.support.chroma_server.ChromaServer`),
stopped and started again on the same port and folder:

- hybrid and semantic searches answer with keyword results, ``SearchResults.fallback``
  and a note saying which server is down and what to do, every result's semantic
  rank ``None``; keyword searches are untouched;
- when the server is back, the same ``Memex`` (no restart) searches semantically again;
- after a failure the server is not asked again before a retry time (1 s, doubling to
  10 s), so a dead server costs one failed connection, not one per query; the tests
  drive the store's clock, so nothing here depends on timing;
- an ingest while the server is down stores everything in the catalog and keyword
  index, reports the vectors as pending, and ``memex backfill`` (or the next ingest)
  stores them once the server answers; the doctor then finds nothing;
- the command line prints the note on stderr and ``--format json`` carries it.

``OUTAGE_SCENARIOS`` names each scenario; its length is the "outage scenarios" figure
of docs/reliability.md.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import cast

import pytest

pytest.importorskip("chromadb", reason="chromadb is not installed (pip install 'memex[chroma]')")

from memex_chroma.connection import ChromaConfigError, ChromaUnreachableError, parse_server_url
from memex_chroma.outage import FIRST_RETRY_S, MAX_RETRY_S, ServerHealth
from memex_chroma.store import ChromaVectorStore
from memex_core.api import Memex
from memex_core.domain import PluginContext
from memex_core.services.search import SearchResults
from tests.conftest import EXAMPLES
from tests.support.chroma_server import ChromaServer, chroma_server  # noqa: F401  (fixture)
from tests.support.memex_processes import (
    best_ids,
    run,
    worker_memex,
    write_config,
    write_material,
)

#: How a server goes away in the search tests.
STOP_MODES = ("terminated", "killed", "paused", "down-at-start")
#: Every outage scenario in this module (the figure for docs/reliability.md).
OUTAGE_SCENARIOS = (
    *(f"search-while-{mode}" for mode in STOP_MODES),
    "retry-waits-for-its-time",
    "ingest-while-down",
    "command-line-while-down",
)
QUERY = "database is locked while another process writes"
#: Short timeouts, so a hung server costs the test seconds, not the default 30 s.
TIMEOUTS = {"connect_timeout": 1, "timeout": 2}


class Clock:
    """The store's clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def server_memex(home: Path, server: ChromaServer, clock: Clock) -> Memex:
    write_config(home, server.url, **TIMEOUTS)
    mx = worker_memex(home)
    store = chroma_store(mx)
    assert store.health is not None and store.location.server is not None
    store.health.clock = clock
    return mx


def chroma_store(mx: Memex) -> ChromaVectorStore:
    return cast(ChromaVectorStore, mx.vector_store)


def assert_semantic(found: SearchResults) -> None:
    assert found.fallback is None, found.notes
    assert len(found) and any(r.ranks["semantic"] is not None for r in found)


def assert_fell_back(found: SearchResults, server: ChromaServer) -> None:
    assert found.fallback is not None
    assert found.fallback.startswith("semantic search failed, so these are keyword results only")
    assert server.url in found.fallback and "is not answering" in found.fallback
    assert found.fallback in found.notes
    assert len(found), "keyword results stand in"
    assert all(r.ranks["semantic"] is None and r.ranks["keyword"] is not None for r in found)


def search_every_mode(mx: Memex) -> dict[str, SearchResults]:
    return {
        mode: mx.search(QUERY, mode=mode, limit=5, time_phrases=False)
        for mode in ("hybrid", "semantic", "keyword")
    }


@pytest.mark.chroma_server
@pytest.mark.parametrize("how", STOP_MODES)
def test_searches_fall_back_to_keywords_and_recover_without_a_restart(
    how: str,
    chroma_server: ChromaServer,  # noqa: F811
    memex_home: Path,
) -> None:
    clock = Clock()
    with server_memex(memex_home, chroma_server, clock) as mx:
        assert mx.ingest(EXAMPLES).embedded > 30
        assert_semantic(mx.search(QUERY, limit=5))

    clock = Clock()
    with server_memex(memex_home, chroma_server, clock) as mx:
        if how == "down-at-start":
            chroma_server.stop()  # this Memex never reached the server
        else:
            assert_semantic(mx.search(QUERY, limit=5))  # connected
            if how == "paused":
                chroma_server.pause()  # accepts connections, never answers: the timeout ends it
            else:
                chroma_server.stop(kill=how == "killed")

        found = search_every_mode(mx)
        assert_fell_back(found["hybrid"], chroma_server)
        assert_fell_back(found["semantic"], chroma_server)
        assert found["keyword"].fallback is None and not found["keyword"].notes
        assert [r.id for r in found["semantic"]] == [r.id for r in found["keyword"]]

        if how == "paused":
            chroma_server.resume()
        else:
            chroma_server.start()
        clock.advance(MAX_RETRY_S)
        found = search_every_mode(mx)
        assert_semantic(found["hybrid"])
        assert_semantic(found["semantic"])


@pytest.mark.chroma_server
def test_a_failed_server_is_not_asked_again_before_its_retry_time(
    chroma_server: ChromaServer,  # noqa: F811
    memex_home: Path,
) -> None:
    clock = Clock()
    with server_memex(memex_home, chroma_server, clock) as mx:
        mx.ingest(EXAMPLES)
        chroma_server.stop()
        assert_fell_back(mx.search(QUERY), chroma_server)  # failure 1: retry in 1 s

        chroma_server.start()
        clock.advance(FIRST_RETRY_S / 2)
        waiting = mx.search(QUERY)  # the server is back, but it is not asked yet
        assert_fell_back(waiting, chroma_server)
        assert waiting.fallback is not None and "next try in 0.5 s" in waiting.fallback

        clock.advance(FIRST_RETRY_S / 2)
        assert_semantic(mx.search(QUERY))  # asked again, and it answers

        chroma_server.stop()
        assert_fell_back(mx.search(QUERY), chroma_server)  # a new outage: retry in 1 s
        clock.advance(FIRST_RETRY_S)
        assert_fell_back(mx.search(QUERY), chroma_server)  # still down: next retry in 2 s
        again = mx.search(QUERY)
        assert again.fallback is not None and "next try in 2.0 s" in again.fallback


@pytest.mark.chroma_server
def test_ingest_while_the_server_is_down_leaves_vectors_pending(
    chroma_server: ChromaServer,  # noqa: F811
    memex_home: Path,
    tmp_path: Path,
) -> None:
    clock = Clock()
    source = write_material(tmp_path / "material", "delta", 10)
    with server_memex(memex_home, chroma_server, clock) as mx:
        mx.ingest(EXAMPLES)
        chroma_server.stop()

        report = mx.ingest(source)
        assert not report.failed and report.fragments_added == 40 and report.embedded == 0
        reason = report.embedding_skipped_reason
        assert reason is not None and chroma_server.url in reason
        assert "40 fragment(s) wait for vectors" in reason and "memex backfill" in reason
        new = [f for f in mx.catalog.iter_fragments() if f.conversation_id.startswith("delta")]
        assert len(new) == 40
        assert {r.id for r in mx.search(new[0].content, mode="keyword", limit=40)} & {
            f.id for f in new
        }

        chroma_server.start()
        clock.advance(MAX_RETRY_S)
        assert mx.backfill() == 40
        for fragment in new[::7]:
            assert fragment.id in best_ids(mx, fragment.searchable_text)
        report = mx.doctor()
        assert report.healthy, [f.to_dict() for f in report.findings]
        assert chroma_store(mx).count() == mx.catalog.count_fragments()


@pytest.mark.chroma_server
def test_the_command_line_says_so_and_json_carries_it(
    chroma_server: ChromaServer,  # noqa: F811
    memex_home: Path,
    tmp_path: Path,
) -> None:
    write_config(memex_home, chroma_server.url, **TIMEOUTS)
    assert run(memex_home, "ingest", "-q", str(EXAMPLES)).returncode == 0
    chroma_server.stop()

    dig = run(memex_home, "dig", QUERY, "--format", "json")
    assert dig.returncode == 0, dig.stderr
    assert "Note: semantic search failed, so these are keyword results only" in dig.stderr
    assert chroma_server.url in dig.stderr and "Traceback" not in dig.stderr
    results = json.loads(dig.stdout)
    assert results and all(r["ranks"]["semantic"] is None for r in results)
    assert all(r["fallback"].startswith("semantic search failed") for r in results)

    concise = run(memex_home, "semantic", QUERY, "--concise", "--format", "json")
    assert concise.returncode == 0, concise.stderr
    assert all(hit["fallback"] for hit in json.loads(concise.stdout))

    panels = run(memex_home, "dig", QUERY)
    assert panels.returncode == 0 and "Note: semantic search failed" in panels.stderr

    source = write_material(tmp_path / "material", "epsilon", 3)
    ingest = run(memex_home, "ingest", str(source), "--format", "json")
    assert ingest.returncode == 0, ingest.stderr
    summary = json.loads(ingest.stdout)
    assert summary["new"] == 1 and summary["embedded"] == 0
    assert "12 fragment(s) wait for vectors" in summary["embedding_skipped"]

    chroma_server.start()
    dig = run(memex_home, "dig", QUERY, "--format", "json")
    assert dig.returncode == 0 and "Note:" not in dig.stderr, dig.stderr
    results = json.loads(dig.stdout)
    assert all(r["fallback"] is None for r in results)
    assert any(r["ranks"]["semantic"] is not None for r in results)
    backfill = run(memex_home, "backfill", "--format", "json")
    assert json.loads(backfill.stdout) == {"embedded": 12}

    with worker_memex(memex_home) as mx:
        report = mx.doctor()
        assert report.healthy, [f.to_dict() for f in report.findings]


# -- without a server ----------------------------------------------------------------------


def test_retry_delay_doubles_while_down_and_resets_on_success() -> None:
    import httpx

    clock = Clock()
    health = ServerHealth(parse_server_url("http://127.0.0.1:9", "from a test"), clock=clock)
    delays = []
    for _ in range(6):
        refused = pytest.raises(ChromaUnreachableError, match="ConnectError: refused")
        with refused, health.guarded():
            raise httpx.ConnectError("refused")
        with (
            pytest.raises(ChromaUnreachableError, match="next try in") as waiting,
            health.guarded(),
        ):
            raise AssertionError("not called inside the retry delay")
        delays.append(float(str(waiting.value).split("next try in ")[1].split(" s")[0]))
        clock.advance(delays[-1])
    assert delays == [1.0, 2.0, 4.0, 8.0, 10.0, 10.0]
    with health.guarded():
        pass  # it answered
    assert not health.down
    with pytest.raises(ChromaUnreachableError), health.guarded():
        raise httpx.ReadTimeout("hung")
    retry = pytest.raises(ChromaUnreachableError, match=r"ReadTimeout: hung; next try in 1\.0 s")
    with retry, health.guarded():
        pass


def test_other_errors_are_not_outages() -> None:
    health = ServerHealth(parse_server_url("http://127.0.0.1:9", "from a test"), clock=Clock())
    with pytest.raises(ValueError), health.guarded():
        raise ValueError("a bad query is not a dead server")
    assert not health.down


@pytest.mark.parametrize("key", ["timeout", "connect_timeout"])
@pytest.mark.parametrize("value", [0, -1, "soon", True])
def test_rejects_bad_timeouts(tmp_path: Path, key: str, value: object) -> None:
    context = PluginContext(home=tmp_path, settings={key: value})
    with pytest.raises(ChromaConfigError, match=f"{key} in config.toml"):
        ChromaVectorStore.from_context(context)


def test_timeouts_come_from_the_settings(tmp_path: Path) -> None:
    context = PluginContext(
        home=tmp_path, settings={"url": "http://127.0.0.1:9", "timeout": 3, "connect_timeout": 0.5}
    )
    store = ChromaVectorStore.from_context(context)
    assert (store.timeouts.request, store.timeouts.connect) == (3.0, 0.5)
