"""Changes to the in-memory keyword index: fragments added (buffered, then built into
postings appended to the delta segment), deleted (tombstoned, their frequencies taken
out), and the delta folded into the base."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import replace

import numpy as np

from memex_bm25.memory_index import MemoryIndex
from memex_bm25.owner_stats import DocTerms
from memex_bm25.pending import PendingDocs
from memex_bm25.segment import Segment
from memex_bm25.tables import StringTable
from memex_bm25.tokenizer import Tokenizer
from memex_core.domain import Fragment

#: Buffered tokens that trigger building a segment during ``add`` (bounds memory in bulk loads).
MATERIALISE_TOKENS = 4_000_000

#: Lines whose term codes one ``add`` remembers. Turn context (memex_core/domain/
#: turn_context.py) indexes a turn's own text twice and again as the next turns'
#: context, so consecutive index texts share whole lines.
_LINE_CACHE = 4096


def add_fragments(index: MemoryIndex, tokenizer: Tokenizer, fragments: Sequence[Fragment]) -> int:
    """Buffer fragments for the next segment; ids already present are skipped. Returns how
    many were new."""
    known = index.slot_index()
    pending = index.pending
    tokenize, vocab = tokenizer.tokenize, index.vocab
    tables = index.tables
    next_slot = index.n_slots + len(pending)
    added = 0
    lines: dict[str, list[int]] = {}

    def term_codes(text: str) -> list[int]:
        # Tokens never span a line break (\w+), so line by line gives the same terms.
        if "\n" not in text:
            return vocab.codes(tokenize(text))
        out: list[int] = []
        for line in text.split("\n"):
            found = lines.get(line)
            if found is None:
                if len(lines) >= _LINE_CACHE:
                    lines.clear()
                found = lines[line] = vocab.codes(tokenize(line))
            out.extend(found)
        return out

    for fragment in fragments:
        if fragment.id in known:
            continue
        terms = term_codes(fragment.searchable_text)
        codes = {
            "source": tables["source"].code(fragment.source_kind),
            "role": tables["role"].code(fragment.role),
            "conversation": tables["conversation"].code(fragment.conversation_id),
            "owner": tables["owner"].code(fragment.owner),
            "collection": tables["collection"].code(fragment.collection),
        }
        pending.append(fragment.id, terms, codes, fragment.timestamp, fragment.private)
        index.n_private += fragment.private
        known[fragment.id] = next_slot
        next_slot += 1
        added += 1
        index.n_live += 1
        index.total_len += len(terms)
    if added:
        index.dirty = True
        index.invalidate()
        if len(pending.tokens) >= MATERIALISE_TOKENS:
            materialise(index)
    return added


def materialise(index: MemoryIndex) -> None:
    """Turn buffered documents into postings appended to the delta segment."""
    pending = index.pending
    if not len(pending):
        return
    n_terms = len(index.vocab)
    fresh = pending.to_segment(n_terms)
    df = np.zeros(n_terms, dtype=np.int64)
    df[: len(index.df)] = index.df
    index.df = df + fresh.document_frequencies(n_terms)
    if index.delta.n_docs:
        previous = index.delta
        index.delta = Segment.concat([(previous, None), (fresh, None)], n_terms)
        # Appending documents appends to the doc-major view: extend it, don't rebuild.
        known = index.doc_terms.get("delta")
        if known is not None and known[0] is previous:
            extended = DocTerms.concat(known[1], DocTerms.of(fresh))
            index.doc_terms["delta"] = (index.delta, extended)
    else:
        index.delta = fresh
    index.deleted = np.concatenate([index.deleted, np.zeros(len(pending), dtype=bool)])
    index.pending = PendingDocs()
    index.invalidate()


def delete_ids(index: MemoryIndex, ids: Iterable[str]) -> int:
    """Tombstone fragments by id. Returns how many were present."""
    known = index.slot_index()
    slots = [slot for fragment_id in ids if (slot := known.pop(fragment_id, None)) is not None]
    if not slots:
        return 0
    materialise(index)
    gone = np.zeros(index.n_slots, dtype=bool)
    gone[slots] = True
    start = 0
    for segment in (index.base, index.delta):
        local = gone[start : start + segment.n_docs]
        if local.any():
            index.df -= segment.terms_of_slots(local, len(index.df))
        start += segment.n_docs
    index.total_len -= int(index.columns().doc_len[gone].sum(dtype=np.int64))
    index.deleted |= gone
    index.n_deleted += len(slots)
    index.n_live -= len(slots)
    index.dirty = True
    index.invalidate()
    return len(slots)


def merge_into_base(index: MemoryIndex) -> None:
    """Fold the delta into a new base, dropping tombstoned slots and unused terms."""
    live = ~index.deleted
    nb = index.base.n_docs
    used = index.df > 0
    remap = np.cumsum(used) - 1
    index.base = Segment.concat(
        [(index.base, live[:nb]), (index.delta, live[nb:])], int(used.sum()), remap
    )
    index.delta = Segment.empty()
    index.vocab = StringTable(itertools.compress(index.vocab.values, used.tolist()))
    index.df = index.df[used]
    for table in index.tables.values():
        table.freeze()
    index.deleted = np.zeros(index.base.n_docs, dtype=bool)
    index.n_deleted = 0
    index.n_private = int(np.count_nonzero(index.base.docs.private))
    index.slot_of = None
    index.base_dirty = True
    index.invalidate()


def drop_unused_values(index: MemoryIndex) -> None:
    """After :func:`merge_into_base` (one segment, no tombstones): keep in each filter
    column's table only the values a live document uses, re-coding the documents, so a
    purged memory's conversation id or a collection name nobody uses any more is gone."""
    docs = index.base.docs
    columns = {}
    for name, table in index.tables.items():
        codes = np.asarray(getattr(docs, name))
        used = np.unique(codes)
        columns[name] = np.searchsorted(used, codes).astype(np.int32)
        index.tables[name] = StringTable([table.values[int(code)] for code in used])
    index.base = replace(index.base, docs=replace(docs, **columns))
    index.slot_of = None
    index.base_dirty = True
    index.invalidate()
