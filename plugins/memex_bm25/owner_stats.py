"""BM25 statistics of one owner set: the corpus an agent's search is scored against.

Scoring a search restricted to some owners with statistics taken over the whole
index would leak: another user's documents would change the document
frequencies, and so the order, the scores and even the presence of the caller's
own hits (a word in more than half of all documents gets a negative or zero
idf). A search with ``SearchFilters.owners`` is therefore scored exactly as
rank_bm25's BM25Okapi built on the live documents of those owners alone: N,
each term's document frequency (hence idf and the epsilon floor's mean) and the
average length are taken over those documents only.

Per-term frequencies over a set of slots need the terms of each slot, which the
term-major postings cannot give without a scan of every posting (about 10 ms at
100,000 passages). :class:`DocTerms` is the doc-major view of a segment's
postings: the store scans a segment the first time it needs owner statistics
from it, and builds the view (about 10 scans' worth) the next time, then keeps
it while the segment lives (segments are immutable; appending to the delta
extends its view), so the statistics of a small owner set then cost time in its
own postings, not the index's. When the owner set is most of the index, the
complement is counted instead and subtracted from the global frequencies.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from memex_bm25.segment import Segment


def okapi_idf(df: np.ndarray, n_docs: int, epsilon: float) -> np.ndarray:
    """BM25Okapi's idf per term id (0 for a term no document holds).

    ``log(N - df + 0.5) - log(df + 0.5)``, and every negative value replaced by
    ``epsilon`` times the mean over all present terms (negatives included).
    """
    idf = np.zeros(len(df), dtype=np.float64)
    present = df > 0
    counts = df[present].astype(np.float64)
    if len(counts):
        raw = np.log(n_docs - counts + 0.5) - np.log(counts + 0.5)
        floor = epsilon * (raw.sum() / len(raw))
        idf[present] = np.where(raw < 0, floor, raw)
    return idf


@dataclass(frozen=True)
class CorpusStats:
    """What BM25 needs from a corpus: its size, idf per term and length norm per slot."""

    n_docs: int
    idf: np.ndarray  # float64 per term id
    norm: np.ndarray  # float64 per slot: k1 * (1 - b + b * |D| / avgdl)


@dataclass(frozen=True)
class DocTerms:
    """The distinct terms of each slot of a segment: ``terms[offsets[s]:offsets[s + 1]]``."""

    offsets: np.ndarray  # int64, n_docs + 1
    terms: np.ndarray  # int32 term ids, grouped by slot

    @classmethod
    def of(cls, segment: Segment) -> DocTerms:
        slots = np.asarray(segment.slots)
        n_docs, n_terms = segment.n_docs, max(segment.n_terms, 1)
        offsets = np.zeros(n_docs + 1, dtype=np.int64)
        np.cumsum(np.bincount(slots, minlength=n_docs), out=offsets[1:])
        term_of_posting = np.repeat(
            np.arange(segment.n_terms, dtype=np.int64), np.diff(segment.term_offsets)
        )
        # Sorting (slot, term) keys groups the postings by slot; sorting plain int64
        # keys is about twice as fast as an argsort of the slots.
        keys = slots.astype(np.int64) * n_terms + term_of_posting
        keys.sort()
        return cls(offsets, (keys % n_terms).astype(np.int32))

    @classmethod
    def concat(cls, first: DocTerms, second: DocTerms) -> DocTerms:
        """The view of two segments' documents one after the other (term ids are global)."""
        offsets = np.concatenate([first.offsets, second.offsets[1:] + first.offsets[-1]])
        return cls(offsets, np.concatenate([first.terms, second.terms]))

    @property
    def n_docs(self) -> int:
        return len(self.offsets) - 1

    def document_frequencies(self, slots: np.ndarray, n_terms: int) -> np.ndarray:
        """How many of ``slots`` (local, distinct) contain each term (int64, ``n_terms``)."""
        starts = self.offsets[slots]
        lengths = self.offsets[slots + 1] - starts
        total = int(lengths.sum())
        if not total:
            return np.zeros(n_terms, dtype=np.int64)
        # Positions of every selected slot's run, without a Python loop over slots.
        shift = np.repeat(starts - (np.cumsum(lengths) - lengths), lengths)
        positions = np.arange(total, dtype=np.int64) + shift
        return np.bincount(self.terms[positions], minlength=n_terms).astype(np.int64)
