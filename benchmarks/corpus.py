"""The passage corpus of the speed benchmarks at any size, drawn once per run, and its vectors.

Every size is a prefix of one draw (``passage_corpus`` shuffles all passage
windows with a fixed seed and takes them in order), so the 10,000-passage corpus
is the first tenth of the 100,000 one, and so on. The pool holds about 130,000
distinct windows; the million-passage corpus repeats them under new ids (new
fragments, same text), so its vectors are the same real MiniLM vectors.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from benchmarks.context import RunContext, log
from benchmarks.data import load_locomo, load_scifact, locomo_file, missing, scifact_dir
from benchmarks.fragments import passage_corpus
from benchmarks.vector_cache import EMBED_BATCH, VectorCache
from memex_core.domain import Fragment

_DRAWS: dict[int, list[Fragment]] = {}


def unavailable() -> str | None:
    return missing(scifact_dir() / "corpus.jsonl")


def passages(size: int) -> list[Fragment]:
    """The first ``size`` passages of the run's draw (drawn again only for a larger size)."""
    largest = max(_DRAWS, default=0)
    if size > largest:
        started = time.perf_counter()
        locomo = load_locomo() if locomo_file().exists() else None
        _DRAWS.clear()
        _DRAWS[size] = passage_corpus(load_scifact().docs, locomo, size)
        log(f"drew {size:,} passages in {time.perf_counter() - started:.0f} s")
        largest = size
    return _DRAWS[largest][:size]


def describe(corpus: Sequence[Fragment]) -> str:
    distinct = len({f.content for f in corpus})
    chars = sum(len(f.content) for f in corpus) / max(1, len(corpus))
    return (
        f"{len(corpus):,} passages (windows of 1-3 consecutive SciFact abstract sentences or "
        f"LoCoMo turns, seed 0; {distinct:,} distinct texts, mean {chars:.0f} characters)"
    )


@dataclass
class Vectors:
    """The embedder's vectors of a corpus, from the on-disk cache."""

    cache: VectorCache
    embedded_now: int  # texts this run had to embed to fill the cache
    embed_seconds: float

    def matrix(self, texts: Sequence[str]) -> np.ndarray:
        return self.cache.matrix(texts)


def ensure_vectors(ctx: RunContext, texts: Sequence[str]) -> Vectors:
    """Make sure every text has a cached vector, embedding the missing ones with the
    default embedder in batches of 256 (what ingest's backfill uses)."""
    embedder = ctx.inner_embedder()
    cache = ctx.disk_cache()
    todo = len(cache.missing(texts))
    if todo:
        log(f"embedding {todo:,} passages once for the on-disk vector cache ({cache.folder})")
    done, seconds = cache.fill(
        texts, lambda part: np.asarray(embedder.embed_documents(part)), batch=EMBED_BATCH, log=log
    )
    return Vectors(cache, done, seconds)
