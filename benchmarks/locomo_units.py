"""Lever 3 of issue 33: what a LoCoMo turn is indexed as, replayed on the lever study.

Each variant changes one signal's candidates and is fused and floored as memex does
(:mod:`benchmarks.locomo_fusion`); the other signal keeps the study's cached hits.

- *Vectors* (exact cosine within the question's conversation, numpy; MiniLM vectors
  from the bench's vector cache): the turn alone (the baseline, memex's vector index),
  a second vector per turn of the turn with its speaker and session date, and windows
  of two adjacent turns (``A: ...\\nB: ...``), each window scoring both its turns (a
  turn's window score is the better of the window before and after it: an answer that
  spans two turns). A second vector is either max-pooled with the turn's own (one
  semantic signal, the better cosine) or fused as a third RRF signal.
- *Keyword text* (memex's BM25 store, built in a temporary folder from the same
  ``index_text`` memex writes: two earlier turns, the title, the turn twice): the
  session's date and its two speakers added to the title line.
- *Photo captions*: a turn that shared a photo carries its ``blip_caption`` after its
  text (``[photo: ...]``, as an export carries alt text), in both indexes.
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from benchmarks import locomo_fusion as lf
from benchmarks.data import load_locomo
from benchmarks.fragments import locomo_fragments
from benchmarks.locomo_candidates import DEPTH, Candidates, Study
from benchmarks.locomo_dated import Dated
from benchmarks.locomo_time import ALL
from memex_core.domain import KEYWORD, SEMANTIC, Fragment, SignalHit
from memex_core.domain.relevance import select
from memex_core.domain.search_options import make_filters
from memex_core.domain.turn_context import TurnContext, TurnText, with_context
from memex_rrf import ReciprocalRankFusion

EXTRA = "context"
PerQuery = list[tuple[float, float]]
Hits = list[tuple[str, float]]


def own_text(study: Study, fid: str) -> str:
    t = study.turns[fid]
    return f"{t.speaker}: {t.text}"


def dated_text(study: Study, dated: Dated, fid: str) -> str:
    t = study.turns[fid]
    day = dated.day(t.conversation, t.session)
    return f"{t.speaker}, {day.day} {day:%B %Y}: {t.text}"


def window_text(study: Study, fid: str) -> str | None:
    """The window of ``fid`` and the turn after it (None for a conversation's last turn)."""
    after = study.neighbour(fid, 1)
    return None if after is None else f"{own_text(study, fid)}\n{own_text(study, after)}"


def captioned_text(study: Study, dated: Dated, fid: str) -> str:
    t = study.turns[fid]
    caption = dated.captions.get((t.conversation, t.dia_id))
    return own_text(study, fid) + (f" [photo: {caption}]" if caption else "")


class Vectors:
    """Unit vectors of texts (the bench's disk cache, filled on first need) and queries."""

    def __init__(self) -> None:
        from benchmarks.context import RunContext, Sizes
        from benchmarks.locomo_candidates import ROOT

        self.ctx = RunContext(tmp=ROOT, sizes=Sizes(), quick=False)
        self.embedder = self.ctx.inner_embedder()
        self.cache = self.ctx.disk_cache()
        self.embedded, self.seconds = 0, 0.0

    def of(self, texts: Sequence[str]) -> np.ndarray:
        from benchmarks.context import log

        count, seconds = self.cache.fill(texts, self.embedder.embed_documents, log=log)
        self.embedded += count
        self.seconds += seconds
        return self.cache.matrix(list(texts))

    def queries(self, texts: Sequence[str]) -> np.ndarray:
        return np.stack([np.asarray(self.embedder.embed_query(t)) for t in texts])

    def rate(self, texts: Sequence[str]) -> float:
        """Texts per second the bare embedder takes ``texts`` at (no cache)."""
        started = time.perf_counter()
        self.embedder.embed_documents(list(texts))
        return len(texts) / (time.perf_counter() - started)


def nearest(study: Study, query_vectors: np.ndarray, units: dict[str, np.ndarray]) -> list[Hits]:
    """Per question, the top :data:`DEPTH` turns of its conversation by cosine over
    ``units`` (fragment id -> a matrix of one or more rows; a turn scores its best row)."""
    by_conv: dict[str, list[str]] = {}
    for fid, t in study.turns.items():
        if fid in units:
            by_conv.setdefault(t.conversation, []).append(fid)
    out = []
    for q, vector in zip(study.questions, query_vectors, strict=True):
        ids = by_conv[q.conversation]
        scores = np.array([float(np.max(units[i] @ vector)) for i in ids])
        order = np.argsort(-scores, kind="stable")[:DEPTH]
        out.append([(ids[j], float(scores[j])) for j in order])
    return out


def three_way(q: Candidates, extra: Hits, share: float, floor: float | None) -> list[str]:
    """Memex's fusion with a third signal taking ``share`` of the semantic weight."""
    fusion = lf.Fusion()
    signals = lf.signals(q, fusion) | {EXTRA: [SignalHit(i, s) for i, s in extra[: fusion.depth]]}
    weights = {
        KEYWORD: 1 - fusion.weight,
        SEMANTIC: fusion.weight * (1 - share),
        EXTRA: fusion.weight * share,
    }
    fused = ReciprocalRankFusion(fusion.rrf_k).fuse(signals, weights, fusion.depth * 2)
    labels = select([(q.shares.get(h.id), h.scores.get(SEMANTIC)) for h in fused], floor)
    return [h.id for h, label in zip(fused, labels, strict=True) if label is not None][:10]


def replay(study: Study, change: Callable[[int, Candidates], Candidates]) -> PerQuery:
    return [
        lf.recalls(study, q, lf.hybrid(change(i, q), lf.Fusion(), study.floor))
        for i, q in enumerate(study.questions)
    ]


def with_keyword(study: Study, hits: list[Hits], shares: list[dict[str, float]]) -> PerQuery:
    """Recalls with each question's keyword hits (and their query shares) replaced."""
    return replay(study, lambda i, q: replace(q, keyword=hits[i], shares=shares[i]))


def with_semantic(study: Study, hits: list[Hits]) -> PerQuery:
    """Recalls with each question's semantic hits replaced."""
    return replay(study, lambda i, q: replace(q, semantic=hits[i]))


def with_both(
    study: Study, hits: list[Hits], shares: list[dict[str, float]], semantic: list[Hits]
) -> PerQuery:
    """Recalls with both signals' hits replaced (a change to the turn's stored text)."""
    return replay(
        study, lambda i, q: replace(q, keyword=hits[i], shares=shares[i], semantic=semantic[i])
    )


def keyword_hits(
    study: Study, fragments: list[Fragment], deeper: dict[str, str] | None = None
) -> tuple[list[Hits], list[dict[str, float]]]:
    """Each question's keyword hits and query shares from a BM25 store of ``fragments``
    indexed with memex's default turn context; then, for each query of ``deeper`` (text
    -> conversation), every hit of its conversation (appended in ``deeper``'s order)."""
    from memex_bm25.store import BM25Store

    order: dict[str, list[TurnText]] = {}
    for n, f in enumerate(fragments):
        order.setdefault(f.conversation_id, []).append(TurnText(f.id, f.id, f.searchable_text, n))
    indexed = with_context(fragments, order, TurnContext(2))
    asked = [(q.question, q.conversation, DEPTH) for q in study.questions]
    asked += [(text, conv, ALL) for text, conv in (deeper or {}).items()]
    hits, shares = [], []
    with tempfile.TemporaryDirectory() as folder:
        store = BM25Store.open(folder)
        store.add(indexed)
        store.flush()
        for text, conversation, depth in asked:
            found = store.search(text, depth, make_filters(conversation=conversation))
            hits.append([(h.id, float(h.score)) for h in found])
            shares.append(store.query_share(text, [h.id for h in found]))
    return hits, shares


def dated_fragments(dated: Dated, captions: bool = False, title: str = "") -> list[Fragment]:
    """The study's fragments (same ids), their titles naming the session's date and/or
    speakers (``title``: "date", "speakers" or "both"), texts carrying their photo's
    caption (``captions``)."""
    data = load_locomo()
    out = []
    for turn, fragment in zip(data.turns, locomo_fragments(data), strict=True):
        changes: dict[str, Any] = {}
        day = dated.day(turn.conversation_id, turn.session)
        a, b = dated.speakers[turn.conversation_id]
        extra = {"date": [f"{day.day} {day:%B %Y}"], "speakers": [f"{a} and {b}"]}
        extra["both"] = extra["date"] + extra["speakers"]
        if title:
            changes["title"] = ", ".join([fragment.title or "", *extra[title]])
        caption = dated.captions.get((turn.conversation_id, turn.dia_id))
        if captions and caption:
            changes["content"] = f"{fragment.content} [photo: {caption}]"
        out.append(replace(fragment, **changes) if changes else fragment)
    return out


__all__ = [
    "Vectors",
    "captioned_text",
    "dated_fragments",
    "dated_text",
    "keyword_hits",
    "nearest",
    "own_text",
    "replay",
    "three_way",
    "window_text",
    "with_both",
    "with_keyword",
    "with_semantic",
]
