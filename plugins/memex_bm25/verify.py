"""A deep check of a loaded index, for ``memex doctor``: checksums and array invariants.

Opening the index checks only what is cheap (the manifest matches the folders,
sizes agree). Bytes garbled on disk after a flush can still load, and then give
wrong scores or fail mid-search; this module finds them: every file against the
CRC-32 the manifest recorded, then every invariant the arrays must keep.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from memex_bm25 import storage
from memex_bm25.segment import Segment
from memex_bm25.tables import StringTable

_CODE_COLUMNS = ("source", "role", "conversation", "owner", "collection")


def file_problems(root: Path, manifest: Mapping[str, Any]) -> list[str]:
    """Files of the current generation that differ from what the manifest recorded."""
    sums = manifest.get("checksums")
    if not isinstance(sums, dict):
        return []  # written before checksums existed: the array checks still run
    problems: list[str] = []
    for key in ("base", "delta"):
        folder = manifest.get(key)
        if isinstance(folder, str) and folder in sums:
            problems.extend(storage.damaged_files(root, folder, sums[folder]))
    return problems


def segment_problems(
    label: str, segment: Segment, n_terms: int, tables: Mapping[str, StringTable]
) -> list[str]:
    """Invariants of one segment: postings in range and sorted, lengths that add up."""
    problems: list[str] = []
    offsets = np.asarray(segment.term_offsets)
    slots, tf = np.asarray(segment.slots), np.asarray(segment.tf)
    n_docs = segment.n_docs
    if len(offsets) < 1 or offsets[0] != 0 or np.any(np.diff(offsets) < 0):
        return [f"{label}: term offsets are not increasing from 0"]
    if offsets[-1] != len(slots) or len(tf) != len(slots):
        return [f"{label}: term offsets do not match the {len(slots)} postings"]
    if segment.n_terms > n_terms:
        problems.append(f"{label}: postings for {segment.n_terms} terms, vocabulary has {n_terms}")
    if len(slots):
        if int(slots.min()) < 0 or int(slots.max()) >= n_docs:
            return [*problems, f"{label}: postings point outside its {n_docs} documents"]
        if int(tf.min()) < 1:
            problems.append(f"{label}: a term frequency below 1")
        steps = np.diff(slots.astype(np.int64))
        inside = np.ones(len(steps), dtype=bool)
        starts = offsets[1:-1]
        starts = starts[(starts > 0) & (starts < len(slots))]
        inside[starts - 1] = False  # the step into a new term may go down
        if np.any(steps[inside] <= 0):
            problems.append(f"{label}: a term's postings are not in document order")
    docs = segment.docs
    for name in ("ids", *_CODE_COLUMNS, "timestamp", "timed", "private"):
        if len(getattr(docs, name)) != n_docs:
            problems.append(f"{label}: column {name} does not have {n_docs} rows")
    if problems:
        return problems
    lengths = np.bincount(slots, weights=tf, minlength=n_docs).astype(np.int64)
    if not np.array_equal(lengths, np.asarray(docs.doc_len, dtype=np.int64)):
        problems.append(f"{label}: document lengths disagree with the postings")
    for name in _CODE_COLUMNS:
        codes = np.asarray(getattr(docs, name))
        if len(codes) and (int(codes.min()) < 0 or int(codes.max()) >= len(tables[name])):
            problems.append(f"{label}: {name} codes outside their table")
    return problems


def frequency_problems(
    base: Segment, delta: Segment, deleted: np.ndarray, df: np.ndarray
) -> list[str]:
    """Document frequencies must count the live documents holding each term."""
    n_terms = len(df)
    expected = np.zeros(n_terms, dtype=np.int64)
    start = 0
    for segment in (base, delta):
        expected += segment.document_frequencies(n_terms)
        gone = deleted[start : start + segment.n_docs]
        if gone.any():
            expected -= segment.terms_of_slots(gone, n_terms)
        start += segment.n_docs
    if not np.array_equal(expected, np.asarray(df)):
        return ["document frequencies disagree with the postings"]
    return []


def duplicate_ids(ids: np.ndarray, deleted: np.ndarray) -> list[str]:
    live = np.asarray(ids)[~deleted] if len(deleted) == len(ids) else np.asarray(ids)
    unique = np.unique(live)
    if len(unique) != len(live):
        return [f"{len(live) - len(unique)} fragment id(s) indexed twice"]
    return []
