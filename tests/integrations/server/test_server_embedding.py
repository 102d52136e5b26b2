"""memex serve embeds a search's query before memex's call lock, batching concurrent ones
(memex_server.embedding), and the agent view leaves out an owner filter that every fragment
passes. Doubles for the embedder; no model, no server process."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memex_core.domain.search_options import SearchOptions
from memex_server.embedding import PreparedEmbedder, QueryEmbeddings, search_text
from tests.support.component_doubles import fast_memex

EXPORTS = Path(__file__).resolve().parents[3] / "examples" / "exports"


class CountingEmbedder:
    name = "counting"
    dimension = 3

    def __init__(self, *, batches: bool = True, gate: threading.Event | None = None) -> None:
        self.single: list[str] = []
        self.batched: list[list[str]] = []
        self.gate = gate
        if not batches:
            self.embed_queries = None  # type: ignore[assignment]

    def _vector(self, text: str) -> np.ndarray:
        return np.array([len(text), text.count("a"), 1.0], dtype=np.float32)

    def embed_documents(self, texts: list[str]) -> np.ndarray:
        return np.stack([self._vector(t) for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        if self.gate is not None:
            self.gate.wait(5)
        self.single.append(text)
        return self._vector(text)

    def embed_queries(self, texts: list[str]) -> np.ndarray:
        self.batched.append(list(texts))
        return np.stack([self._vector(t) for t in texts])


def test_a_prepared_query_is_not_embedded_again_and_others_are() -> None:
    inner = CountingEmbedder()
    wrapped = PreparedEmbedder(inner)
    queries = QueryEmbeddings(inner, slots=1)
    with queries.prepared(["banana split"]):
        assert inner.single == ["banana split"]  # one query alone: embed_query itself
        vector = wrapped.embed_query("banana split")
        assert inner.single == ["banana split"]
        assert vector.tolist() == [12.0, 3.0, 1.0]
        wrapped.embed_query("something else")  # not prepared: embedded as before
    assert inner.single == ["banana split", "something else"]
    wrapped.embed_query("banana split")  # outside the block nothing is prepared
    assert inner.single[-1] == "banana split" and len(inner.single) == 3
    assert wrapped.name == "counting" and wrapped.dimension == 3


def test_prepared_vectors_belong_to_the_thread_that_prepared_them() -> None:
    inner = CountingEmbedder()
    wrapped = PreparedEmbedder(inner)
    queries = QueryEmbeddings(inner)
    seen: list[Any] = []
    with queries.prepared(["mine"]):
        other = threading.Thread(target=lambda: seen.append(wrapped.embed_query("mine")))
        other.start()
        other.join()
    assert inner.single == ["mine", "mine"]  # the other thread embedded its own


def test_waiting_queries_are_embedded_together() -> None:
    gate = threading.Event()
    inner = CountingEmbedder(gate=gate)
    queries = QueryEmbeddings(inner, slots=1)
    results: dict[str, list[float]] = {}

    def ask(text: str) -> None:
        results[text] = queries.embed(text).tolist()

    first = threading.Thread(target=ask, args=("first",))
    first.start()
    while not queries._running:  # the first query holds the only slot (blocked on the gate)
        threading.Event().wait(0.001)
    rest = [threading.Thread(target=ask, args=(f"query {n}",)) for n in range(5)]
    for thread in rest:
        thread.start()
    while len(queries._waiting) < 5:
        threading.Event().wait(0.001)
    gate.set()
    for thread in (first, *rest):
        thread.join(5)
    assert inner.single == ["first"]
    assert sorted(inner.batched[0]) == sorted(f"query {n}" for n in range(5))
    assert results["query 3"] == [7.0, 0.0, 1.0]
    assert queries.batches == 2 and queries.embedded == 6


def test_an_embedder_without_batches_embeds_one_by_one_and_errors_reach_every_caller() -> None:
    inner = CountingEmbedder(batches=False)
    queries = QueryEmbeddings(inner)
    assert queries.embed("x").tolist() == [1.0, 0.0, 1.0]

    class Broken(CountingEmbedder):
        def embed_query(self, text: str) -> np.ndarray:
            raise RuntimeError("model files missing")

    broken = QueryEmbeddings(Broken())
    with pytest.raises(RuntimeError, match="model files missing"):
        broken.embed("x")
    with broken.prepared(["x"]):  # best effort: memex meets the error itself later
        pass


def test_the_embedded_text_is_the_one_search_embeds() -> None:
    assert search_text("coffee last week", time_phrases=True, time_filtered=False) == "coffee"
    assert search_text("coffee last week", time_phrases=False, time_filtered=False) == (
        "coffee last week"
    )
    assert search_text("coffee last week", time_phrases=True, time_filtered=True) == (
        "coffee last week"
    )
    assert search_text("plain words", time_phrases=True, time_filtered=False) == "plain words"


def test_the_view_drops_an_owner_filter_every_fragment_passes(tmp_path: Path) -> None:
    mx = fast_memex(tmp_path / "home")
    mx.ingest(str(EXPORTS))
    alice, bob = mx.view("alice"), mx.view("bob")
    assert mx.catalog.fragment_owners() == [""]
    assert alice._scoped_filters(SearchOptions("espresso")).owners == ()  # type: ignore[union-attr]
    bob.remember("Bob drinks espresso daily")
    assert mx.catalog.fragment_owners() == ["", "users/bob"]
    narrowed = alice._scoped_filters(SearchOptions("espresso"))
    assert narrowed is not None and narrowed.owners == alice.owners
    assert bob._scoped_filters(SearchOptions("espresso")).owners == ()  # type: ignore[union-attr]
    # Either way each view finds only what it may read.
    assert "users/bob" not in {r.fragment.owner for r in alice.search("espresso daily")}
    assert "users/bob" in {r.fragment.owner for r in bob.search("espresso daily")}
    mx.close()


def test_warm_runs_the_embedders_warm_up_in_the_background_and_engine_waits_for_it() -> None:
    release = threading.Event()

    class Warming(CountingEmbedder):
        query_engine = "numpy/cpu"

        def warm_queries(self) -> str:
            release.wait(5)
            self.query_engine = "onnx-fp32/cpu"
            return self.query_engine

    queries = QueryEmbeddings(Warming(), slots=1)
    queries.warm()  # returns at once: the warm-up runs on its own thread
    assert queries.engine(timeout=0.01) == "numpy/cpu"
    release.set()
    assert queries.engine() == "onnx-fp32/cpu"


def test_an_embedder_without_a_warm_up_or_whose_warm_up_fails() -> None:
    plain = QueryEmbeddings(CountingEmbedder(), slots=1)
    plain.warm()
    assert plain.engine() == "counting"

    class Broken(CountingEmbedder):
        def warm_queries(self) -> str:
            raise RuntimeError("no model here")

    broken = QueryEmbeddings(Broken(), slots=1)
    broken.warm()
    assert broken.engine() == "unavailable (RuntimeError: no model here)"
    assert broken.embed("still embeds").tolist() == [12.0, 0.0, 1.0]


def test_building_the_app_loads_no_query_engine(tmp_path: Path) -> None:
    # Only `memex serve` warms the query engine (and waits for it before listening). A
    # process that builds the app and exits (the docs generator writing the OpenAPI
    # reference, a test client) must not leave ONNX Runtime loading on a thread at exit,
    # which aborted it ("terminate called without an active exception").
    import subprocess
    import sys

    script = (
        "import sys\n"
        "from memex_core.api import Memex\n"
        "from memex_server.app import build_app\n"
        f"mx = Memex({str(tmp_path / 'home')!r})\n"
        "app = build_app(mx, admin_secret='s' * 40, viewer=False)\n"
        "assert app.state.memex.queries is not None\n"
        "print('onnxruntime' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"
