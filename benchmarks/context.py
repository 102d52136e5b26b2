"""What every benchmark shares in one run: sizes, the temp folder, progress output, embeddings.

Embeddings are computed once per distinct text and kept in memory for the run
and on disk for later runs (:mod:`benchmarks.vector_cache`, under
``.memex-bench/``): :class:`CachingEmbedder` wraps the configured embedder, so
homes built later (the chunked SciFact variant) and the exact-cosine peers reuse
the vectors instead of paying for MiniLM again, and so does the next run. The
vectors are exactly the embedder's; only the bench's build time shrinks.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.vector_cache import VectorCache, default_cache, text_key
from memex_core.api import Memex
from memex_core.config import DEFAULT_COMPONENTS
from memex_core.domain import PluginContext
from memex_core.hookspecs import hookimpl
from memex_core.plugins import PluginRegistry, load_registry

BENCH_EMBEDDER = "bench-cached"


@dataclass(frozen=True)
class Sizes:
    keyword_corpus: int = 100_000
    keyword_peer_queries: int = 100
    add_batch: int = 1_000
    add_trials: int = 5
    add_sustained_batches: int = 20
    scifact_queries: int | None = None  # None: all 300 test queries, all 5,183 documents
    locomo_conversations: int | None = None  # None: all five development conversations
    cold_sizes: tuple[int, ...] = (10_000, 100_000)
    cold_runs: int = 7
    sweeps: bool = True
    # The speed benchmarks (hybrid latency, ingest, memory, growth): see benchmarks/scale.py.
    hybrid_sizes: tuple[int, ...] = (10_000, 100_000)
    growth_sizes: tuple[int, ...] = (1_000, 10_000, 100_000, 1_000_000)
    memory_size: int = 100_000
    hybrid_queries: int = 300  # memex: the first N SciFact queries, each timed once
    peer_queries: int = 100  # peers: at most N of the same queries ...
    peer_budget: float = 40.0  # ... or as many as fit in this many seconds (at least 10)
    vectors_max: int = 100_000  # larger homes are keyword-only (see benchmarks/scale.py)
    ingest_texts: int = 600  # ingest throughput: passages per round ...
    ingest_rounds: int = 3  # ... and rounds (ingest and the bare embedder alternate)
    model_warmup_texts: int = 256  # texts the ingest process embeds for real (model memory)

    @classmethod
    def quick(cls) -> Sizes:
        return cls(
            keyword_corpus=10_000,
            keyword_peer_queries=20,
            add_trials=3,
            add_sustained_batches=4,
            scifact_queries=40,
            locomo_conversations=1,
            cold_sizes=(1_000,),
            cold_runs=3,
            sweeps=False,
            hybrid_sizes=(500, 1_000),
            growth_sizes=(500, 1_000, 2_000),
            memory_size=1_000,
            hybrid_queries=30,
            peer_queries=10,
            peer_budget=10.0,
            vectors_max=1_000,
            ingest_texts=100,
            ingest_rounds=1,
            model_warmup_texts=32,
        )


def log(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


class StderrProgress:
    """memex's Progress protocol, printed as a line every tenth of the way."""

    def __init__(self) -> None:
        self.total: int | None = None
        self.done = 0
        self.next_report = 0.0
        self.description = ""
        self.started = 0.0

    def start(self, description: str, total: int | None) -> None:
        self.description, self.total, self.done = description, total, 0
        self.next_report, self.started = 0.1, time.perf_counter()

    def advance(self, amount: int = 1, description: str | None = None) -> None:
        self.done += amount
        if self.total and self.done / self.total >= self.next_report:
            log(
                f"  {self.description}: {self.done:,}/{self.total:,} "
                f"({time.perf_counter() - self.started:.0f} s)"
            )
            self.next_report += 0.1

    def finish(self) -> None:
        pass


class CachingEmbedder:
    """The real embedder, remembering each distinct text's vector for the rest of the run.

    Query vectors are remembered apart (``queries``), so a sweep re-running the same
    queries does not re-embed them; callers clear that cache to time real queries.
    """

    def __init__(
        self,
        inner: Any,
        cache: dict[str, np.ndarray],
        stats: dict[str, float],
        queries: dict[str, np.ndarray],
        disk: VectorCache | None = None,
    ):
        self.inner = inner
        self.name: str = inner.name
        self.dimension: int = inner.dimension
        self.cache = cache
        self.stats = stats
        self.queries = queries
        self.disk = disk

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        todo = [t for t in dict.fromkeys(texts) if t not in self.cache]
        if todo and self.disk is not None:
            stored = [t for t in todo if text_key(t) in self.disk.rows]
            for text, vector in zip(stored, self.disk.matrix(stored), strict=True):
                self.cache[text] = vector
            self.stats["from_disk"] = self.stats.get("from_disk", 0) + len(stored)
            todo = [t for t in todo if t not in self.cache]
        if todo:
            started = time.perf_counter()
            vectors = self.inner.embed_documents(todo)
            self.stats["seconds"] += time.perf_counter() - started
            self.stats["texts"] += len(todo)
            matrix = np.asarray(vectors, dtype=np.float32)
            if self.disk is not None:
                self.disk.append(todo, matrix)
            for text, vector in zip(todo, matrix, strict=True):
                self.cache[text] = vector
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([self.cache[t] for t in texts])

    def embed_query(self, text: str) -> np.ndarray:
        vector = self.queries.get(text)
        if vector is None:
            vector = self.queries[text] = np.asarray(self.inner.embed_query(text))
        return vector


@dataclass
class RunContext:
    tmp: Path
    sizes: Sizes
    quick: bool
    vectors: dict[str, np.ndarray] = field(default_factory=dict)
    embed_stats: dict[str, float] = field(default_factory=lambda: {"seconds": 0.0, "texts": 0})
    query_vectors: dict[str, np.ndarray] = field(default_factory=dict)
    charts: Path | None = None  # where the growth charts go (None: not drawn)
    _inner_embedder: Any = None
    _disk: VectorCache | None = None

    def registry(self) -> PluginRegistry:
        """The installed plugins plus the run's caching wrapper around the default embedder."""
        registry = load_registry()
        context = self

        class BenchPlugin:
            @hookimpl
            def register_embedders(self, register: Any) -> None:
                register(
                    BENCH_EMBEDDER,
                    context._cached_embedder,
                    description="bench: the default embedder with an in-memory cache",
                )

        registry.register_plugin(BenchPlugin(), name="benchmarks")
        return registry

    def inner_embedder(self, plugin_context: PluginContext | None = None) -> Any:
        """The default embedder itself (no cache), built once per run."""
        if self._inner_embedder is None:
            self._inner_embedder = load_registry().build(
                "embedder",
                DEFAULT_COMPONENTS["embedder"],
                plugin_context or PluginContext(home=self.tmp),
            )
        return self._inner_embedder

    def _cached_embedder(self, plugin_context: PluginContext) -> CachingEmbedder:
        inner = self.inner_embedder(plugin_context)
        return CachingEmbedder(
            inner, self.vectors, self.embed_stats, self.query_vectors, self.disk_cache()
        )

    def disk_cache(self) -> VectorCache:
        """The on-disk vectors of the default embedder (one per run: a single writer)."""
        if self._disk is None:
            inner = self.inner_embedder()
            # Keyed by the encoder variant too: int8 vectors never mix with float32 ones.
            self._disk = default_cache(inner.name, inner.dimension, getattr(inner, "build", ""))
        return self._disk

    def home(self, name: str, config: str = "") -> Path:
        path = self.tmp / name
        path.mkdir(parents=True, exist_ok=True)
        write_config(path, config)
        return path

    def memex(self, home: Path) -> Memex:
        return Memex(home=home, registry=self.registry())

    def embedder_available(self) -> str | None:
        """Why semantic search cannot run here, or None."""
        registry = load_registry()
        for kind in ("embedder", "vector_store"):
            name = DEFAULT_COMPONENTS[kind]
            regs = {r.name: r for r in registry.registrations(kind)}
            if name not in regs:
                return f"no {kind.replace('_', ' ')} named {name!r} is registered"
            if not regs[name].available:
                hint = regs[name].install_hint
                return f"the {name} {kind.replace('_', ' ')} is unavailable ({hint})"
        return None


def write_config(home: Path, extra: str = "", *, cached_embedder: bool = True) -> None:
    """config.toml for a bench home: the caching embedder plus ``extra`` TOML."""
    lines = ["[embedder]", f'use = "{BENCH_EMBEDDER}"', ""] if cached_embedder else []
    (home / "config.toml").write_text("\n".join([*lines, extra]).strip() + "\n", encoding="utf-8")
