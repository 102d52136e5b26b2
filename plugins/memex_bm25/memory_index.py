"""The keyword index as it is in memory: segments, string tables, document frequencies,
tombstones, and the arrays derived from them (kept until the next change).

:class:`MemoryIndex` holds what one generation on disk holds plus the changes not
flushed yet; :mod:`memex_bm25.index_changes` changes it, :mod:`memex_bm25.scoring`
reads it, :mod:`memex_bm25.generations` loads and writes it, and
:class:`memex_bm25.store.BM25Store` guards it with its lock.
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from memex_bm25.owner_stats import CorpusStats, DocTerms, okapi_idf
from memex_bm25.pending import TABLES, PendingDocs
from memex_bm25.segment import DocColumns, Segment
from memex_bm25.settings import ScoringParams
from memex_bm25.tables import StringTable

#: Owner sets whose statistics are kept between changes (each holds a float per term and per slot).
OWNER_STATS_CACHED = 16

#: Dates every state an index goes through, across indexes: a thread's remembered hits
#: (``BM25Store.query_share``) are only used while the epoch they were found in lasts.
_EPOCHS = itertools.count(1)


def decode_id(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogatepass")


class MemoryIndex:
    """An empty index, or (filled by :func:`memex_bm25.generations.read_generation`) one
    generation on disk and the changes made since.

    ``unreadable`` builds the error for bytes found damaged while reading (it names
    the index's folder and the fix).
    """

    def __init__(self, scoring: ScoringParams, unreadable: Callable[[str], Exception]) -> None:
        self.scoring = scoring
        self.unreadable = unreadable
        self.vocab = StringTable()
        self.tables = {name: StringTable() for name in TABLES}
        self.base = Segment.empty()
        self.delta = Segment.empty()
        self.df = np.zeros(0, dtype=np.int64)
        self.deleted = np.zeros(0, dtype=bool)
        self.n_deleted = 0
        self.n_live = 0
        # Private slots (tombstoned ones included, until a merge drops them): while
        # there are none, an unrestricted search skips the filter mask entirely.
        self.n_private = 0
        self.total_len = 0
        self.pending = PendingDocs()
        self.slot_of: dict[str, int] | None = None
        #: Changes not flushed; the base segment differs from the one on disk.
        self.dirty = False
        self.base_dirty = True
        self.cache: dict[str, Any] = {}
        # Statistics per owner set (cleared on every change, least recently used dropped
        # first) and the doc-major view of a segment, kept while that segment lives.
        # Concurrent readers fill them: one computes, the others wait (``memo``).
        self.memo = threading.Lock()
        self.owner_stats: OrderedDict[frozenset[int], CorpusStats] = OrderedDict()
        self.doc_terms: dict[str, tuple[Segment, DocTerms]] = {}
        self.scanned: set[str] = set()
        self.epoch = next(_EPOCHS)

    # -- derived arrays (cached until the next change) ----------------------------

    def invalidate(self) -> None:
        self.cache.clear()
        self.owner_stats.clear()
        self.epoch = next(_EPOCHS)

    @property
    def n_slots(self) -> int:
        return self.base.n_docs + self.delta.n_docs

    def columns(self) -> DocColumns:
        columns = self.cache.get("columns")
        if columns is None:
            parts = [seg.docs for seg in (self.base, self.delta) if seg.n_docs]
            columns = DocColumns.concat(parts) if parts else DocColumns.empty()
            self.cache["columns"] = columns
        return columns

    def idf(self) -> np.ndarray:
        idf = self.cache.get("idf")
        if idf is None:
            idf = okapi_idf(self.df, self.n_live, self.scoring.epsilon)
            self.cache["idf"] = idf
        return idf

    def length_norm(self) -> np.ndarray:
        """k1 * (1 - b + b * |D| / avgdl) per slot: the document-only part of BM25."""
        norm = self.cache.get("norm")
        if norm is None:
            norm = self.norm(self.total_len, self.n_live)
            self.cache["norm"] = norm
        return norm

    def norm(self, total_len: int, n_docs: int) -> np.ndarray:
        k1, b = self.scoring.k1, self.scoring.b
        avgdl = total_len / n_docs if total_len else 1.0
        lengths = self.columns().doc_len.astype(np.float64)
        return k1 * (1 - b + b * lengths / avgdl)

    def slot_index(self) -> dict[str, int]:
        """Fragment id -> slot for live documents, pending ones included (built lazily)."""
        if self.slot_of is None:
            ids = self.columns().ids
            slots: Iterable[int]
            if self.n_deleted:
                live = np.flatnonzero(~self.deleted)
                raw_ids, slots = ids[live].tolist(), live.tolist()
            else:
                raw_ids, slots = ids.tolist(), range(len(ids))
            try:
                index = dict(zip(map(decode_id, raw_ids), slots, strict=True))
            except UnicodeDecodeError as exc:  # bytes damaged on disk
                raise self.unreadable(f"a fragment id is not valid UTF-8: {exc}") from exc
            first_pending = self.n_slots
            for offset, fragment_id in enumerate(self.pending.ids):
                index[fragment_id] = first_pending + offset
            self.slot_of = index
        return self.slot_of

    # -- statistics of an owner set (see memex_bm25.owner_stats) -------------------

    def owner_corpus(self, owners: Iterable[str]) -> CorpusStats:
        """BM25 statistics of the live documents whose owner is in ``owners`` (materialised)."""
        table = self.tables["owner"]
        codes = frozenset(code for owner in owners if (code := table.lookup(owner)) is not None)
        with self.memo:
            found = self.owner_stats.get(codes)
            if found is not None:
                self.owner_stats.move_to_end(codes)
                return found
            found = self._owner_statistics(codes)
            self.owner_stats[codes] = found
            if len(self.owner_stats) > OWNER_STATS_CACHED:
                self.owner_stats.popitem(last=False)
            return found

    def _owner_statistics(self, codes: frozenset[int]) -> CorpusStats:
        columns = self.columns()
        members = np.isin(columns.owner, np.fromiter(codes, dtype=np.int64, count=len(codes)))
        live = ~self.deleted if self.n_deleted else None
        if live is not None:
            members &= live  # tombstoned slots are out of N, df and the length sum, as globally
        n_docs = int(np.count_nonzero(members))
        if not n_docs:
            return CorpusStats(0, np.zeros(0, dtype=np.float64), np.zeros(0, dtype=np.float64))
        total_len = int(columns.doc_len[members].sum(dtype=np.int64))
        # Count terms over the smaller side: the owner set's slots, or the live slots
        # outside it, subtracted from the global frequencies.
        outside = n_docs > self.n_live - n_docs
        counted = members
        if outside:
            counted = ~members if live is None else live & ~members
        n_terms = len(self.df)
        df = np.zeros(n_terms, dtype=np.int64)
        start = 0
        for name, segment in (("base", self.base), ("delta", self.delta)):
            chosen = counted[start : start + segment.n_docs]
            if chosen.any():
                df += self._segment_df(name, segment, chosen, n_terms)
            start += segment.n_docs
        if outside:
            df = self.df - df
        idf = okapi_idf(df, n_docs, self.scoring.epsilon)
        return CorpusStats(n_docs, idf, self.norm(total_len, n_docs))

    def _segment_df(
        self, name: str, segment: Segment, chosen: np.ndarray, n_terms: int
    ) -> np.ndarray:
        """Document frequencies over the slots ``chosen`` (a local mask) of ``segment``."""
        entry = self.doc_terms.get(name)
        if entry is None or entry[0] is not segment:
            if name not in self.scanned:
                # The first time, scan the postings: ~10x cheaper than building the
                # doc-major view, so a one-off search (a CLI call) stays fast. Needed
                # again, the view is built and kept for as long as the segment lives.
                self.scanned.add(name)
                return segment.terms_of_slots(chosen, n_terms)
            entry = self.doc_terms[name] = (segment, DocTerms.of(segment))
        return entry[1].document_frequencies(np.flatnonzero(chosen), n_terms)
