"""Building the passage corpus and a flushed bm25 index of it, shared by two benchmarks."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from benchmarks.context import RunContext, log
from benchmarks.data import load_locomo, load_scifact, locomo_file, missing, scifact_dir
from benchmarks.fragments import passage_corpus
from memex_core.domain import Fragment, KeywordStore, PluginContext
from memex_core.plugins import load_registry

BATCH = 2_000
KEYWORD_STORE = "bm25"


def keyword_store_unavailable() -> str | None:
    regs = {r.name: r for r in load_registry().registrations("keyword_store")}
    if KEYWORD_STORE not in regs:
        return f"no keyword store named {KEYWORD_STORE!r} is registered yet"
    if not regs[KEYWORD_STORE].available:
        return (
            f"the {KEYWORD_STORE} keyword store is unavailable ({regs[KEYWORD_STORE].install_hint})"
        )
    return None


def open_store(home: Path) -> KeywordStore:
    """The bm25 store exactly as memex builds it (default settings)."""
    store: KeywordStore = load_registry().build(
        "keyword_store", KEYWORD_STORE, PluginContext(home=home)
    )
    return store


@dataclass
class PassageIndex:
    home: Path
    corpus: list[Fragment]  # the indexed passages
    spare: list[Fragment]  # more passages from the same draw, not indexed (for add benchmarks)
    build_seconds: float
    description: str


_CACHE: dict[tuple[Path, int], PassageIndex] = {}


def passage_index(ctx: RunContext) -> PassageIndex | str:
    """A flushed index of the run's keyword-corpus size, built once per run, plus spare
    passages for the add benchmark. Returns the reason instead when data or store is missing.
    """
    sizes = ctx.sizes
    size = sizes.keyword_corpus
    spare = sizes.add_batch * max(sizes.add_trials, sizes.add_sustained_batches)
    key = (ctx.tmp, size)
    if key in _CACHE:
        return _CACHE[key]
    reason = missing(scifact_dir() / "corpus.jsonl") or keyword_store_unavailable()
    if reason:
        return reason
    locomo = load_locomo() if locomo_file().exists() else None
    docs = load_scifact().docs
    passages = passage_corpus(docs, locomo, size + spare)
    corpus, extra = passages[:size], passages[size:]
    description = (
        f"{size:,} passages: windows of 1-3 consecutive sentences of the 5,183 SciFact abstracts"
        + (
            ' and of consecutive LoCoMo turns ("speaker: text", 5 dev conversations)'
            if locomo
            else ""
        )
        + ", drawn at random (seed 0) from all such windows; mean "
        f"{sum(len(f.content) for f in corpus) / len(corpus):.0f} characters per passage"
    )
    home = ctx.tmp / f"passages-{size}"
    home.mkdir(parents=True, exist_ok=True)
    log(f"indexing {size:,} passages with the {KEYWORD_STORE} store")
    store = open_store(home)
    started = time.perf_counter()
    for start in range(0, len(corpus), BATCH):
        store.add(corpus[start : start + BATCH])
    store.flush()
    build = time.perf_counter() - started
    log(f"  built in {build:.1f} s")
    index = PassageIndex(home, corpus, extra, build, description)
    _CACHE[key] = index
    return index
