"""One measurement in a fresh process: ``python -m benchmarks.worker COMMAND SPEC.json``.

The speed benchmarks run each system in its own process so that its peak memory
(``ru_maxrss``, the kernel's high-water mark of resident memory, VmHWM) is its
own, and one system's caches never warm another's. The parent writes a JSON spec
(corpus file, vector cache, queries, home); the worker prints one JSON line of
figures as the last line of its output.

Commands:

* ``build``: ingest the corpus into a memex home through ``Memex.add_fragments``,
  10,000 fragments per call (as an export's files would come), keyword-only first,
  then the vectors through ``Memex.backfill`` with an embedder that serves the
  cached MiniLM vectors (``"vectors": "cache"``), or keyword-only (``"none"``). The
  real MiniLM model is loaded and run on one batch first, so its memory counts in the
  peak, as in a real ingest.
* ``memex``: open the home with the default components (real MiniLM for queries,
  chroma, bm25), warm up, then time ``Memex.search(q, "hybrid", 10)`` per query.
* ``langchain`` / ``llamaindex``: build the peer on the same texts and vectors, then
  time its retriever per query (see :mod:`benchmarks.peers`).
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from memex_core.domain import Fragment, Provenance

WARMUP = 10
BUILD_BATCH = 10_000


# -- the corpus file ---------------------------------------------------------------------


def write_corpus(path: Path, corpus: Sequence[Fragment]) -> None:
    """One JSON object per fragment (the fields the benchmark corpora use)."""
    with path.open("w", encoding="utf-8") as handle:
        for f in corpus:
            row = {
                "id": f.id,
                "conversation_id": f.conversation_id,
                "role": f.role,
                "content": f.content,
                "provenance": asdict(f.provenance),
                "timestamp": f.timestamp,
                "title": f.title,
            }
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")


def read_corpus(path: Path, batch: int = BUILD_BATCH) -> Iterator[list[Fragment]]:
    out: list[Fragment] = []
    with path.open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            row["provenance"] = Provenance(**row["provenance"])
            out.append(Fragment(**row))
            if len(out) >= batch:
                yield out
                out = []
    if out:
        yield out


def peak_rss_mb() -> float:
    """This process's peak resident set size so far, in MB.

    ``VmHWM`` from /proc, not ``ru_maxrss``: Linux carries ``ru_maxrss`` over from the
    process that forked (here the bench runner, with its corpora in memory) across
    ``exec``, while ``VmHWM`` belongs to the new program's own memory map.
    """
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# -- embedders serving stored vectors -----------------------------------------------------


class ServedEmbedder:
    """Looks like the default MiniLM embedder (same name and dimension, so the home records
    ``minilm:384`` and later processes query it with the real model), but documents get
    their vectors from the cache, read row by row (``None``: keyword-only, never called)."""

    def __init__(self, real: Any, cache_folder: str | None) -> None:
        from benchmarks.vector_cache import VectorCache

        self.real = real
        self.name: str = real.name
        self.dimension: int = real.dimension
        self.cache = VectorCache(Path(cache_folder), self.dimension) if cache_folder else None
        self.seconds = 0.0
        self.embedded = 0  # texts the cache lacked (another run cut them off): embedded here

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if self.cache is None:
            raise RuntimeError("this bench home is keyword-only: nothing should embed")
        started = time.perf_counter()
        out, embedded = self.cache.matrix_or_embed(list(texts), self.real.embed_documents)
        self.embedded += embedded
        self.seconds += time.perf_counter() - started
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return np.asarray(self.real.embed_query(text))


def _registry_with(embedder: ServedEmbedder) -> Any:
    from memex_core.hookspecs import hookimpl
    from memex_core.plugins import load_registry

    registry = load_registry()

    class Served:
        @hookimpl
        def register_embedders(self, register: Any) -> None:
            register("bench-served", lambda _context: embedder, description="bench vectors")

    registry.register_plugin(Served(), name="bench-served")
    return registry


# -- commands ------------------------------------------------------------------------------


class Builder:
    """The ``build`` command in steps (one batch of ``add_fragments`` at a time, then the
    vectors), so that a parent can interleave the builds of two homes batch by batch in
    two processes (``benchmarks.scale_out``): both then see the same load on a shared
    machine. Each batch's wall time and this process's CPU time are added up."""

    def __init__(self, spec: dict[str, Any]) -> None:
        from memex_core.api import Memex
        from memex_core.config import DEFAULT_COMPONENTS
        from memex_core.domain import PluginContext
        from memex_core.plugins import load_registry

        home = Path(spec["home"])
        home.mkdir(parents=True, exist_ok=True)
        self.home = home
        self.source = spec["vectors"]
        real = load_registry().build(
            "embedder", DEFAULT_COMPONENTS["embedder"], PluginContext(home)
        )
        started = time.perf_counter()
        warmup = int(spec.get("model_warmup", 256))
        first = next(read_corpus(Path(spec["corpus"]), batch=warmup))
        real.embed_documents([f.content for f in first])  # the model's memory counts
        self.model_seconds = time.perf_counter() - started
        cache = spec.get("cache") if self.source == "cache" else None
        self.embedder = ServedEmbedder(real, cache)
        (home / "config.toml").write_text('[embedder]\nuse = "bench-served"\n', encoding="utf-8")
        self.mx = Memex(home=home, registry=_registry_with(self.embedder))
        # Opened (and its schema made) before the clock starts: setting up a catalog is not
        # ingest, and PostgreSQL's migrations take seconds where SQLite's take milliseconds.
        self.mx.catalog  # noqa: B018
        self._batches = enumerate(read_corpus(Path(spec["corpus"])))
        self.count = 0
        self.keyword_seconds = self.keyword_cpu = 0.0
        self.vector_seconds = self.open_seconds = 0.0
        self.keyword_rss: float | None = None

    def batch(self) -> dict[str, Any] | None:
        """Store the next batch keyword-only; None when the corpus is done."""
        step = next(self._batches, None)
        if step is None:
            if self.keyword_rss is None:
                self.keyword_rss = peak_rss_mb()
            return None
        number, batch = step
        cpu = time.process_time()
        started = time.perf_counter()
        added = self.mx.add_fragments(batch, origin=f"bench:batch-{number}", embed=False)
        seconds = time.perf_counter() - started
        cpu = time.process_time() - cpu
        self.count += added
        self.keyword_seconds += seconds
        self.keyword_cpu += cpu
        return {"fragments": len(batch), "added": added, "seconds": seconds, "cpu": cpu}

    def vectors(self) -> dict[str, float]:
        """Store the cached vectors of every fragment (nothing for a keyword-only home)."""
        if self.keyword_rss is None:
            self.keyword_rss = peak_rss_mb()
        if self.source != "none":
            started = time.perf_counter()
            self.mx.vector_store.count()  # imports chromadb and opens the store: apart
            self.open_seconds = time.perf_counter() - started
            started = time.perf_counter()
            self.mx.backfill()
            self.vector_seconds = time.perf_counter() - started
        return {"vector_seconds": self.vector_seconds, "vector_open_seconds": self.open_seconds}

    def finish(self) -> dict[str, Any]:
        stats = self.mx.stats()
        self.mx.close()
        # Later processes query with the installed defaults (the real MiniLM, "minilm:384").
        (self.home / "config.toml").write_text("", encoding="utf-8")
        return {
            "fragments": self.count,
            "stored": stats.fragments,
            "embedded": stats.embedded,
            "keyword_seconds": self.keyword_seconds,
            "keyword_cpu_seconds": self.keyword_cpu,
            "vector_seconds": self.vector_seconds,
            "vector_open_seconds": self.open_seconds,
            "vector_lookup_seconds": self.embedder.seconds,
            "embedded_for_real": self.embedder.embedded,
            "model_warmup_seconds": self.model_seconds,
            "keyword_peak_rss_mb": self.keyword_rss,
            "peak_rss_mb": peak_rss_mb(),
        }


def build(spec: dict[str, Any]) -> dict[str, Any]:
    builder = Builder(spec)
    while builder.batch() is not None:
        pass
    builder.vectors()
    return builder.finish()


class EmbedClock:
    """Wraps a query-embedding callable and adds up the time spent in it."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.spent = 0.0

    def __call__(self, text: str) -> Any:
        started = time.perf_counter()
        try:
            return self.inner(text)
        finally:
            self.spent += time.perf_counter() - started


def _time_queries(
    search: Any, queries: Sequence[str], budget: float | None, clock: EmbedClock
) -> tuple[list[float], list[float]]:
    """Each query's wall time, and the part of it spent embedding the query."""
    times: list[float] = []
    embeds: list[float] = []
    deadline = None if budget is None else time.perf_counter() + budget
    for query in queries:
        clock.spent = 0.0
        started = time.perf_counter()
        search(query)
        times.append(time.perf_counter() - started)
        embeds.append(clock.spent)
        if deadline is not None and time.perf_counter() > deadline and len(times) >= 10:
            break
    return times, embeds


PHASE_QUERIES = 100


def _phases(mx: Any, queries: Sequence[str]) -> dict[str, list[float]]:
    """Each step of a hybrid search timed on its own, through the public components (the
    search itself runs them one after the other, then fuses and reads the catalog)."""
    from memex_core.domain import SearchFilters

    none = SearchFilters()
    out: dict[str, list[float]] = {"embed the query": [], "keyword store": [], "vector store": []}
    keyword, vectors, embedder = mx.keyword_store, mx.vector_store, mx.embedder
    for query in queries:
        started = time.perf_counter()
        vector = embedder.embed_query(query)
        middle = time.perf_counter()
        vectors.search(vector, 10, none)
        end = time.perf_counter()
        keyword.search(query, 10, none)
        out["embed the query"].append(middle - started)
        out["vector store"].append(end - middle)
        out["keyword store"].append(time.perf_counter() - end)
    return out


def query_memex(spec: dict[str, Any]) -> dict[str, Any]:
    from memex_core.api import Memex

    started = time.perf_counter()
    mx = Memex(home=spec["home"])
    queries: list[str] = spec["queries"]
    mode = spec.get("mode", "hybrid")
    first = mx.search(queries[0], mode, 10)
    first_seconds = time.perf_counter() - started
    for query in spec["warmup"]:
        mx.search(query, mode, 10)
    hits = [len(mx.search(q, mode, 10)) for q in queries[:5]]
    clock = EmbedClock(mx.embedder.embed_query)
    mx.embedder.embed_query = clock  # type: ignore[method-assign]  # called via the instance
    times, embeds = _time_queries(
        lambda q: mx.search(q, mode, 10), queries, spec.get("budget"), clock
    )
    mx.embedder.embed_query = clock.inner  # type: ignore[method-assign]
    mode = first.mode
    phases = _phases(mx, queries[:PHASE_QUERIES]) if mode == "hybrid" else {}
    mx.close()
    return {
        "times": times,
        "embed_times": embeds,
        "phases": phases,
        "first_query_seconds": first_seconds,
        "hits": hits,
        "mode": mode,
        "notes": first.notes,
        "peak_rss_mb": peak_rss_mb(),
    }


def query_peer(spec: dict[str, Any], which: str) -> dict[str, Any]:
    from benchmarks import peers
    from benchmarks.vector_cache import VectorCache
    from memex_core.config import DEFAULT_COMPONENTS
    from memex_core.domain import PluginContext
    from memex_core.plugins import load_registry

    peers.quiet_logs()
    name = peers.LANGCHAIN if which == "langchain" else peers.LLAMAINDEX
    embedder = load_registry().build(
        "embedder", DEFAULT_COMPONENTS["embedder"], PluginContext(Path(spec["folder"]))
    )
    cache = VectorCache(Path(spec["cache"]), embedder.dimension)
    corpus = [f for batch in read_corpus(Path(spec["corpus"])) for f in batch]
    clock = EmbedClock(lambda text: np.asarray(embedder.embed_query(text)))

    def lookup(texts: Sequence[str]) -> np.ndarray:
        return cache.matrix_or_embed(list(texts), embedder.embed_documents)[0]

    peer = peers.build(name, corpus, lookup, clock, Path(spec["folder"]))
    del corpus
    queries: list[str] = spec["queries"]
    hits = [len(peer.search(q)) for q in queries[:3]]
    for query in spec["warmup"]:
        peer.search(query)
    times, embeds = _time_queries(peer.search, queries, spec.get("budget"), clock)
    return {
        "times": times,
        "embed_times": embeds,
        "build_seconds": peer.build_seconds,
        "hits": hits,
        "peak_rss_mb": peak_rss_mb(),
    }


def main(argv: list[str]) -> int:
    command, spec_path = argv
    spec = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    if command == "build":
        result = build(spec)
    elif command == "memex":
        result = query_memex(spec)
    elif command in ("langchain", "llamaindex"):
        result = query_peer(spec, command)
    else:
        raise SystemExit(f"unknown command {command!r}: build, memex, langchain or llamaindex")
    sys.stdout.write("\n" + json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
