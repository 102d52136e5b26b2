"""Small, fast stand-ins for the embedder and vector store, registered through the public hooks.

They let most API and CLI tests run in milliseconds and prove that the core
works with any component that honours the contracts. The real MiniLM and
Chroma are exercised in their own tests and in the end-to-end test.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memex_core.api import Memex
from memex_core.config import Config, load_config
from memex_core.domain import Fragment, PluginContext, SearchFilters, SignalHit
from memex_core.hookspecs import hookimpl
from memex_core.plugins import load_registry

_WORD = re.compile(r"\w+")


@functools.lru_cache(maxsize=1 << 16)
def _bucket(word: str, dimension: int) -> int:
    # Most of the suite embeds through this double: md5 per word was a tenth of an ingest's
    # CPU in the crash tests; the same words come back again and again.
    return int(hashlib.md5(word.encode()).hexdigest(), 16) % dimension


class HashingEmbedder:
    """Bag of hashed words: texts sharing words get similar vectors. Deterministic."""

    name = "hashing"
    dimension = 64
    #: Word overlap is not meaning: calibrating a relevance floor on hashed buckets would
    #: measure collisions, so the double declares no floor (memex_core.services.calibration).
    similarity_floor = -1.0

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            buckets = [_bucket(word, self.dimension) for word in _WORD.findall(text.lower())]
            np.add.at(out[row], buckets, 1.0)
            norm = np.linalg.norm(out[row])
            out[row] = out[row] / norm if norm else out[row]
            if not norm:
                out[row, 0] = 1.0
        return out

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]


class MemoryVectorStore:
    """Exact cosine search over vectors held in a dict; filters applied before top-k."""

    def __init__(self) -> None:
        self.vectors: dict[str, np.ndarray] = {}
        self.fragments: dict[str, Fragment] = {}

    def upsert(self, fragments: Sequence[Fragment], vectors: Sequence[Sequence[float]]) -> None:
        for fragment, vector in zip(fragments, vectors, strict=True):
            self.vectors[fragment.id] = np.asarray(vector, dtype=np.float32)
            self.fragments[fragment.id] = fragment

    def delete(self, ids: Iterable[str]) -> None:
        for i in ids:
            self.vectors.pop(i, None)
            self.fragments.pop(i, None)

    def search(
        self, vector: Sequence[float], limit: int, filters: SearchFilters
    ) -> list[SignalHit]:
        query = np.asarray(vector, dtype=np.float32)
        scored = [
            SignalHit(i, float(v @ query))
            for i, v in self.vectors.items()
            if filters.matches(self.fragments[i])
        ]
        return sorted(scored, key=lambda h: (-h.score, h.id))[:limit]

    def count(self) -> int:
        return len(self.vectors)

    def ids(self) -> set[str]:
        return set(self.vectors)

    def stored_vectors(self, ids: Sequence[str]) -> dict[str, list[float]]:
        return {i: self.vectors[i].tolist() for i in ids if i in self.vectors}

    def clear(self) -> None:
        self.vectors.clear()
        self.fragments.clear()


_STORES: dict[Path, MemoryVectorStore] = {}


class DoublesPlugin:
    """Registers the doubles. The vector store lives as long as the test process, one per
    home, so that separate CLI invocations on one home see the same vectors."""

    def __init__(self, home: Path) -> None:
        self.store = _STORES.setdefault(home, MemoryVectorStore())

    @hookimpl
    def register_embedders(self, register: Any) -> None:
        register("hashing", lambda context: HashingEmbedder())

    @hookimpl
    def register_vector_stores(self, register: Any) -> None:
        register("memory", lambda context: self.store)


def fast_memex(home: Path, *, components: Mapping[str, str] | None = None, **raw: Any) -> Memex:
    """A Memex on ``home`` using the built-in sources, bm25 and rerank, with the doubles for
    embedding and vectors; ``components`` chooses others (e.g. ``supersession_judge``) and
    ``raw`` holds config tables (``search={...}``)."""
    registry = load_registry()
    registry.register_plugin(DoublesPlugin(home), name="doubles")
    chosen = {
        **load_config(home).components,
        "embedder": "hashing",
        "vector_store": "memory",
        **(components or {}),
    }
    return Memex(registry=registry, config=Config(home=home, components=chosen, raw=raw))


@pytest.fixture
def fast_mx(memex_home: Path) -> Iterator[Memex]:
    mx = fast_memex(memex_home)
    yield mx
    mx.close()


__all__ = ["DoublesPlugin", "HashingEmbedder", "MemoryVectorStore", "PluginContext", "fast_memex"]


def hashing_memex_on(home: Path, engine: str, url: str | None) -> Memex:
    """A Memex with the hashing embedder on ``engine``: "sqlite" (the home's own catalog and
    vectors) or "postgres" (the catalog at ``url`` and pgvector)."""
    if engine == "postgres":
        home.mkdir(parents=True, exist_ok=True)
        (home / "config.toml").write_text(
            f'[catalog]\nuse = "postgres"\n\n[catalog.postgres]\nurl = "{url}"\n\n'
            '[vector]\nuse = "pgvector"\n',
            encoding="utf-8",
        )
    registry = load_registry()
    registry.register_plugin(DoublesPlugin(home), name="doubles")
    base = load_config(home)
    components = {**base.components, "embedder": "hashing"}
    return Memex(registry=registry, config=Config(home=home, components=components, raw=base.raw))
