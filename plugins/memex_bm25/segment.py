"""An immutable slice of the index: CSR postings by term plus per-document columns.

Postings of term ``t`` are ``slots[term_offsets[t]:term_offsets[t + 1]]`` (local
document numbers, ascending) with matching term frequencies in ``tf``. Term ids
are global (the store's vocabulary); a segment built before a term existed
simply has no postings for it (``t >= n_terms``).

Segments are never edited: adding builds a small segment and concatenates;
deleting is a tombstone kept by the store until the next merge drops it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from pathlib import Path

import numpy as np

from memex_bm25 import storage

_EMPTY_INT32 = np.zeros(0, dtype=np.int32)

#: Columns added after format version 1. A segment folder written before them
#: lacks their files; :meth:`DocColumns.load` asks the caller what to fill in.
SCOPE_COLUMNS = ("owner", "collection", "private")


@dataclass(frozen=True)
class DocColumns:
    """One row per document slot; codes index the store's string tables."""

    doc_len: np.ndarray  # int32, tokens after stopwords (BM25's |D|)
    ids: np.ndarray  # fixed-width bytes, UTF-8 fragment ids
    source: np.ndarray  # int32 code of source_kind
    role: np.ndarray  # int32 code of role
    conversation: np.ndarray  # int32 code of conversation_id
    timestamp: np.ndarray  # float64 epoch seconds, NaN when unknown
    timed: np.ndarray  # bool: the fragment has a timestamp (NaN alone can't say: NaN is a value)
    owner: np.ndarray  # int32 code of owner ("" is the operator's corpus)
    collection: np.ndarray  # int32 code of collection
    private: np.ndarray  # bool: left out of searches unless include_private

    @classmethod
    def empty(cls) -> DocColumns:
        return cls(
            doc_len=_EMPTY_INT32,
            ids=np.zeros(0, dtype="S1"),
            source=_EMPTY_INT32,
            role=_EMPTY_INT32,
            conversation=_EMPTY_INT32,
            timestamp=np.zeros(0, dtype=np.float64),
            timed=np.zeros(0, dtype=bool),
            owner=_EMPTY_INT32,
            collection=_EMPTY_INT32,
            private=np.zeros(0, dtype=bool),
        )

    def __len__(self) -> int:
        return len(self.doc_len)

    def take(self, keep: np.ndarray) -> DocColumns:
        return DocColumns(**{f.name: np.asarray(getattr(self, f.name))[keep] for f in fields(self)})

    @classmethod
    def concat(cls, parts: Sequence[DocColumns]) -> DocColumns:
        if len(parts) == 1:
            return parts[0]
        return cls(
            **{f.name: np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(cls)}
        )

    def save(self, directory: Path) -> None:
        for f in fields(self):
            storage.save_array(directory, f"doc_{f.name}", getattr(self, f.name))

    @classmethod
    def load(
        cls, directory: Path, missing: Callable[[str], int | bool] | None = None
    ) -> DocColumns:
        """Read the columns of a segment folder.

        With ``missing`` (reading a version-1 index, written before the scope
        columns), an absent scope column is filled with ``missing(name)``; it is
        only called for absent columns, so the caller adds a string-table entry
        only when one is needed. Without it every column must be there: a file
        that vanished means a writer replaced the generation, and the
        FileNotFoundError makes the store read the manifest again.
        """
        loaded: dict[str, np.ndarray] = {}
        for f in fields(cls):
            if (
                missing is not None
                and f.name in SCOPE_COLUMNS
                and not (directory / f"doc_{f.name}.npy").exists()
            ):
                continue
            loaded[f.name] = storage.load_array(directory, f"doc_{f.name}")
        n_docs = len(loaded["doc_len"])
        for name in SCOPE_COLUMNS:
            if name not in loaded and missing is not None:
                dtype = bool if name == "private" else np.int32
                loaded[name] = np.full(n_docs, missing(name), dtype=dtype)
        return cls(**loaded)


@dataclass(frozen=True)
class Segment:
    term_offsets: np.ndarray  # int64, n_terms + 1
    slots: np.ndarray  # int32 local slot per posting
    tf: np.ndarray  # int32 term frequency per posting
    docs: DocColumns

    @classmethod
    def empty(cls) -> Segment:
        return cls(np.zeros(1, dtype=np.int64), _EMPTY_INT32, _EMPTY_INT32, DocColumns.empty())

    @property
    def n_docs(self) -> int:
        return len(self.docs)

    @property
    def n_terms(self) -> int:
        return len(self.term_offsets) - 1

    @property
    def n_postings(self) -> int:
        return len(self.slots)

    def postings(self, term: int) -> tuple[np.ndarray, np.ndarray]:
        """(local slots, term frequencies) of ``term``; empty if the segment never saw it."""
        if term >= self.n_terms:
            return _EMPTY_INT32, _EMPTY_INT32
        start, end = int(self.term_offsets[term]), int(self.term_offsets[term + 1])
        return self.slots[start:end], self.tf[start:end]

    def holds(self, term: int, local_slots: np.ndarray) -> np.ndarray:
        """Which of ``local_slots`` (this segment's slots, any order) contain ``term``: a
        binary search of its ascending postings per slot, so asking about a search's few
        dozen hits costs microseconds even for a term in half the documents."""
        postings, _ = self.postings(term)
        if not len(postings) or not len(local_slots):
            return np.zeros(len(local_slots), dtype=bool)
        at = np.searchsorted(postings, local_slots)
        np.minimum(at, len(postings) - 1, out=at)
        return np.asarray(postings[at] == local_slots)

    def document_frequencies(self, n_terms: int) -> np.ndarray:
        """Postings per term (int64, padded to ``n_terms``), tombstoned slots included."""
        counts = np.zeros(n_terms, dtype=np.int64)
        counts[: self.n_terms] = np.diff(self.term_offsets)
        return counts

    def terms_of_slots(self, slots_mask: np.ndarray, n_terms: int) -> np.ndarray:
        """How many of the slots flagged in ``slots_mask`` contain each term (int64, n_terms)."""
        positions = np.flatnonzero(slots_mask[self.slots])
        terms = np.searchsorted(self.term_offsets, positions, side="right") - 1
        return np.bincount(terms, minlength=n_terms).astype(np.int64)

    @classmethod
    def build(
        cls, tokens: np.ndarray, doc_len: np.ndarray, docs: DocColumns, n_terms: int
    ) -> Segment:
        """A segment from the term ids of each document, concatenated in slot order."""
        n_docs = len(doc_len)
        if n_docs == 0 or len(tokens) == 0:
            return cls(np.zeros(n_terms + 1, dtype=np.int64), _EMPTY_INT32, _EMPTY_INT32, docs)
        doc_of_token = np.repeat(np.arange(n_docs, dtype=np.int64), doc_len)
        # One sort of (term, doc) keys yields term-major postings with tf as run lengths.
        keys, tf = np.unique(tokens.astype(np.int64) * n_docs + doc_of_token, return_counts=True)
        terms = keys // n_docs
        offsets = np.zeros(n_terms + 1, dtype=np.int64)
        np.cumsum(np.bincount(terms, minlength=n_terms), out=offsets[1:])
        return cls(offsets, (keys % n_docs).astype(np.int32), tf.astype(np.int32), docs)

    @classmethod
    def concat(
        cls,
        parts: Sequence[tuple[Segment, np.ndarray | None]],
        n_terms: int,
        term_remap: np.ndarray | None = None,
    ) -> Segment:
        """Documents of ``parts`` in order, keeping only slots whose mask is true.

        ``term_remap`` renumbers terms; it must be increasing over the terms kept
        so each part's postings stay sorted by term. Runs in linear time: every
        posting's place in the result is computed, not sorted for.
        """
        pieces: list[tuple[np.ndarray, np.ndarray, np.ndarray, int]] = []
        all_docs: list[DocColumns] = []
        first_slot = 0
        for segment, keep in parts:
            slots, tf, docs = np.asarray(segment.slots), np.asarray(segment.tf), segment.docs
            dropped = keep if keep is not None and not keep.all() else None
            if dropped is not None or term_remap is not None:
                terms = np.repeat(
                    np.arange(segment.n_terms, dtype=np.int64), np.diff(segment.term_offsets)
                )
                if dropped is not None:
                    kept = dropped[slots]
                    terms, slots, tf = terms[kept], slots[kept], tf[kept]
                    slots = (np.cumsum(dropped, dtype=np.int64) - 1)[slots]
                    docs = docs.take(dropped)
                if term_remap is not None:
                    terms = term_remap[terms]
                counts = np.bincount(terms, minlength=n_terms)
            else:
                counts = segment.document_frequencies(n_terms)
            pieces.append((counts, slots, tf, first_slot))
            all_docs.append(docs)
            first_slot += len(docs)

        offsets = np.zeros(n_terms + 1, dtype=np.int64)
        np.cumsum(sum(piece[0] for piece in pieces), out=offsets[1:])
        out_slots = np.empty(int(offsets[-1]), dtype=np.int32)
        out_tf = np.empty(int(offsets[-1]), dtype=np.int32)
        earlier = np.zeros(n_terms, dtype=np.int64)  # postings per term from earlier parts
        for counts, slots, tf, part_first_slot in pieces:
            # A posting moves from its place in the part to: the term's start in the
            # result + what earlier parts put there + its rank within the term.
            part_starts = np.cumsum(counts) - counts
            shift = offsets[:-1] + earlier - part_starts
            destination = np.arange(len(slots), dtype=np.int64) + np.repeat(shift, counts)
            out_slots[destination] = slots
            if part_first_slot:
                out_slots[destination] += part_first_slot
            out_tf[destination] = tf
            earlier += counts
        return cls(
            offsets,
            out_slots,
            out_tf,
            DocColumns.concat(all_docs) if all_docs else DocColumns.empty(),
        )

    def save(self, directory: Path) -> None:
        storage.save_array(directory, "term_offsets", self.term_offsets)
        storage.save_array(directory, "posting_slots", self.slots)
        storage.save_array(directory, "posting_tf", self.tf)
        self.docs.save(directory)

    @classmethod
    def load(cls, directory: Path, missing: Callable[[str], int | bool] | None = None) -> Segment:
        """Read a segment folder; see :meth:`DocColumns.load` for ``missing``."""
        return cls(
            storage.load_array(directory, "term_offsets"),
            storage.load_array(directory, "posting_slots"),
            storage.load_array(directory, "posting_tf"),
            DocColumns.load(directory, missing),
        )
