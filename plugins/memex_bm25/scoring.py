"""BM25 scoring over the in-memory index: a search's hits, and how much of a query's
information given hits hold (the relevance floor's ``query_share``).

Scores are BM25Okapi's (see :mod:`memex_bm25.store`), against the whole index's
statistics or, for a search restricted to owners, those owners' own
(:meth:`memex_bm25.memory_index.MemoryIndex.owner_corpus`).
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np

from memex_bm25.filtering import filter_mask, hidden_codes
from memex_bm25.memory_index import MemoryIndex, decode_id
from memex_bm25.owner_stats import CorpusStats
from memex_bm25.tokenizer import Tokenizer
from memex_core.domain import SearchFilters, SignalHit


def search(
    index: MemoryIndex,
    tokenizer: Tokenizer,
    last_hits: threading.local,
    query: str,
    limit: int,
    filters: SearchFilters,
) -> list[SignalHit]:
    """Best ``limit`` hits that pass ``filters``, best first; no zero-score hits. The
    slots of the hits are kept in ``last_hits`` (this thread's) for :func:`query_share`."""
    if limit <= 0 or index.n_live == 0:
        return []
    lookup = index.vocab.index.get
    tokens = tokenizer.tokenize(query)
    counts = Counter(code for token in tokens if (code := lookup(token)) is not None)
    if not counts:
        return []
    corpus = index.owner_corpus(filters.owners) if filters.owners else None
    if corpus is not None and not corpus.n_docs:
        return []
    zero_weight: list[np.ndarray] = []
    scores = _scores(index, counts, corpus, zero_weight)
    candidates = np.flatnonzero(scores != 0)  # comparing first is 5x faster than on floats
    if zero_weight:
        # A term in exactly half the documents has idf log(1) = 0 in BM25Okapi, so its
        # matches score 0; they still match (common in a user's small memory).
        candidates = np.union1d(candidates, np.concatenate(zero_weight))
    if index.n_deleted:
        candidates = candidates[~index.deleted[candidates]]
    # Private slots and code (searched only when named) are excluded by default, so an
    # "empty" filter still needs the mask once the index holds one; without any, the
    # unfiltered path stays as fast.
    if (
        not filters.is_empty
        or (index.n_private and not filters.include_private)
        or hidden_codes(filters, index.tables)
    ):
        candidates = candidates[filter_mask(filters, index.columns(), index.tables, candidates)]
    return _top(index, last_hits, scores, candidates, limit)


def _scores(
    index: MemoryIndex,
    counts: Mapping[int, int],
    corpus: CorpusStats | None = None,
    zero_weight: list[np.ndarray] | None = None,
) -> np.ndarray:
    """Scores per slot against ``corpus``'s statistics (the whole index's by default).
    Slots matched only by terms of weight 0 are appended to ``zero_weight``."""
    if corpus is None:
        idf, norm = index.idf(), index.length_norm()
    else:
        idf, norm = corpus.idf, corpus.norm
    k1_plus_1 = index.scoring.k1 + 1
    scores = np.zeros(index.n_slots, dtype=np.float64)
    for term, repeats in counts.items():
        weight = idf[term]
        start = 0
        for segment in (index.base, index.delta):
            slots, tf = segment.postings(term)
            if len(slots):
                where = slots + start if start else slots
                if weight != 0.0:
                    freq = tf.astype(np.float64)
                    gain = weight * (freq * k1_plus_1 / (freq + norm[where]))
                    # A term's postings hold each slot once, so fancy += is exact.
                    scores[where] += gain * repeats if repeats > 1 else gain
                elif zero_weight is not None:
                    zero_weight.append(where)
            start += segment.n_docs
    return scores


def _top(
    index: MemoryIndex,
    last_hits: threading.local,
    scores: np.ndarray,
    candidates: np.ndarray,
    limit: int,
) -> list[SignalHit]:
    values = scores[candidates]
    if len(candidates) > limit:
        # Keep everything tied with the limit-th best so ties break by slot, not by
        # whatever order argpartition happens to leave them in.
        threshold = np.partition(values, len(values) - limit)[len(values) - limit]
        keep = values >= threshold
        candidates, values = candidates[keep], values[keep]
    order = np.lexsort((candidates, -values))[:limit]
    ids = index.columns().ids
    hits = [
        (SignalHit(id=decode_id(ids[slot]), score=float(values[i])), slot)
        for i, slot in zip(order.tolist(), candidates[order].tolist(), strict=True)
    ]
    # The slots of this thread's last hits, for query_share (the relevance floor asks
    # about these very hits): building the whole id -> slot index costs ~0.1 s at
    # 100,000 fragments. Per thread: concurrent searches each ask about their own.
    last_hits.slots = (index.epoch, {hit.id: slot for hit, slot in hits})
    return [hit for hit, _ in hits]


def query_share(
    index: MemoryIndex,
    tokenizer: Tokenizer,
    last_hits: threading.local,
    query: str,
    ids: Sequence[str],
) -> dict[str, float]:
    """For each of ``ids`` the index holds, the share of the query's information it
    contains: the IDF of the query's distinct terms it holds over the IDF of all of
    them. A term no document holds weighs what it would as a term of one document
    more than the rarest (``log(2N + 1)``), so words the index never saw count
    against a hit instead of vanishing. Optional beyond the KeywordStore protocol:
    the relevance floor (:mod:`memex_core.domain.relevance`) reads it to tell one
    shared common word from a match."""
    terms = list(dict.fromkeys(tokenizer.tokenize(query)))
    epoch, recent = getattr(last_hits, "slots", (None, {}))
    if epoch != index.epoch:
        recent = {}
    unique = list(dict.fromkeys(ids))
    slot_of = recent if all(i in recent for i in unique) else index.slot_index()
    wanted = [(i, slot_of[i]) for i in unique if i in slot_of]
    if not terms or not wanted:
        return {}
    unseen = math.log(2 * max(index.n_live, 1) + 1)
    idf = index.idf()
    lookup = index.vocab.index.get
    slots = np.array([slot for _, slot in wanted], dtype=np.int64)
    held = np.zeros(len(slots), dtype=np.float64)
    total = 0.0
    for term in terms:
        code = lookup(term)
        if code is None or code >= len(idf) or index.df[code] <= 0:
            total += unseen  # no document holds it: none of ``ids`` does
            continue
        weight = max(float(idf[code]), 0.0)
        total += weight
        start = 0
        for segment in (index.base, index.delta):
            inside = (slots >= start) & (slots < start + segment.n_docs)
            if inside.any():
                where = np.flatnonzero(inside)
                held[where[segment.holds(code, slots[where] - start)]] += weight
            start += segment.n_docs
    if total <= 0:
        return {fragment_id: 0.0 for fragment_id, _ in wanted}
    return {fragment_id: float(held[n]) / total for n, (fragment_id, _) in enumerate(wanted)}
