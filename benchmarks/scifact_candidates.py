"""The SciFact home built once, and each query's candidates cached on disk (issue 33).

The learned-rerank study on SciFact (:mod:`benchmarks.scifact_rerank`) re-ranks these
candidates in memory, as :mod:`benchmarks.locomo_candidates` does for LoCoMo: for each of
the 809 train and 300 test queries, each signal's top :data:`DEPTH` hits through memex's
own stores (BM25 scores, cosines), the keyword store's query shares and the relevance
floor. The home holds the 5,183 abstracts one fragment each, as benchmark 3 stores them.

Files under ``<repo>/.memex-bench/scifact-rerank/`` (gitignored): the home and
``candidates.json`` (and ``query_vectors.npy``, for :func:`cosines`); delete the folder to
rebuild (the vector cache keeps the abstracts' embeddings).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from benchmarks.data import REPO_ROOT, BeirSet, load_scifact
from benchmarks.fragments import scifact_fragments
from benchmarks.locomo_candidates import Candidates, build_home
from memex_core.domain import Fragment

if TYPE_CHECKING:
    from memex_core.api import Memex

ROOT = REPO_ROOT / ".memex-bench" / "scifact-rerank"
#: Hits kept per signal and query (the default fusion reads 40 of them).
DEPTH = 100
#: Bump when what candidates.json holds changes.
VERSION = 1
SPLITS = ("train", "test")


@dataclass
class Query:
    """One SciFact query's cached signals (``candidates``: as a LoCoMo question's, so the
    fusion replay of :mod:`benchmarks.locomo_fusion` reads them unchanged)."""

    id: str
    split: str
    candidates: Candidates
    relevant: dict[str, float]  # document id -> grade (qrels)


@dataclass
class SciStudy:
    fragments: dict[str, Fragment]  # fragment id -> fragment (content, title)
    doc_of: dict[str, str]  # fragment id -> SciFact document id
    queries: list[Query]
    floor: float | None

    def split(self, name: str) -> list[int]:
        return [i for i, q in enumerate(self.queries) if q.split == name]


def _hits(hits: list[Any]) -> list[tuple[str, float]]:
    return [(h.id, float(h.score)) for h in hits]


def collect(mx: Memex, sets: dict[str, BeirSet]) -> dict[str, Any]:
    from benchmarks.context import log
    from memex_core.domain import SearchFilters

    reader = mx._reader  # the signals one by one, before fusion: what the study re-ranks
    service = reader.search_service("hybrid")
    keyword_store: Any = service.keyword_store  # bm25's, which has query_share
    floor = mx.relevance_floor()
    out: list[dict[str, Any]] = []
    filters = SearchFilters()
    for split, data in sets.items():
        for number, (qid, text) in enumerate(data.test_queries()):
            keyword = service.keyword_hits(text, DEPTH, filters)
            semantic = service.semantic_hits(text, DEPTH, filters, None, None)
            out.append(
                {
                    "id": qid,
                    "split": split,
                    "question": text,
                    "relevant": data.qrels[qid],
                    "keyword": _hits(keyword),
                    "semantic": _hits(semantic),
                    "shares": keyword_store.query_share(text, [h.id for h in keyword]),
                }
            )
            if number % 200 == 0:
                log(f"  SciFact {split} candidates: {number}/{len(data.qrels)}")
    return {"version": VERSION, "floor": floor, "queries": out}


def cosines(study: SciStudy) -> list[dict[str, float]]:
    """For each query: the exact cosine of every abstract (MiniLM, the stored vectors of the
    bench cache; the query embedded as memex embeds it, cached in ``query_vectors.npy``)."""
    from benchmarks.context import RunContext, Sizes

    ctx = RunContext(tmp=ROOT, sizes=Sizes(), quick=False)
    path = ROOT / "query_vectors.npy"
    if path.exists():
        queries = np.load(path)
    else:
        embedder = ctx.inner_embedder()
        queries = np.stack([embedder.embed_query(q.candidates.question) for q in study.queries])
        np.save(path, queries)
    ids = list(study.fragments)
    docs = ctx.disk_cache().matrix([study.fragments[i].content for i in ids])
    docs /= np.linalg.norm(docs, axis=1, keepdims=True)
    queries = queries / np.linalg.norm(queries, axis=1, keepdims=True)
    return [dict(zip(ids, (docs @ q).tolist(), strict=True)) for q in queries]


def load(rebuild: bool = False) -> SciStudy:
    """The study's data: built (home, candidates) on the first call, read after."""
    sets = {split: load_scifact(split=split) for split in SPLITS}
    fragments = list(scifact_fragments(sets["test"].docs, whole=True))
    path = ROOT / "candidates.json"
    cached = json.loads(path.read_text()) if path.exists() and not rebuild else None
    if cached is None or cached.get("version") != VERSION:
        from benchmarks.context import RunContext, Sizes

        ROOT.mkdir(parents=True, exist_ok=True)
        ctx = RunContext(tmp=ROOT, sizes=Sizes(), quick=False)
        mx = build_home(
            ctx, fragments, "bench:beir-scifact", "SciFact rerank: adding {count:,} abstracts"
        )
        try:
            cached = collect(mx, sets)
        finally:
            mx.close()
        path.write_text(json.dumps(cached))
    queries = [
        Query(
            q["id"],
            q["split"],
            Candidates(
                q["question"],
                "scifact",
                0,
                [],
                [tuple(h) for h in q["keyword"]],
                [],
                [tuple(h) for h in q["semantic"]],
                q["shares"],
            ),
            q["relevant"],
        )
        for q in cached["queries"]
    ]
    return SciStudy(
        {f.id: f for f in fragments},
        {f.id: f.provenance.source_id for f in fragments},
        queries,
        cached["floor"],
    )


__all__ = ["DEPTH", "Query", "SciStudy", "cosines", "load"]
