"""BM25Store: an incremental, persisted BM25 index that scores exactly like rank_bm25's BM25Okapi.

Scoring (for the live documents, as BM25Okapi built from scratch on them would)::

    idf(t)    = log(N - df + 0.5) - log(df + 0.5), and for every t whose idf < 0:
                epsilon * mean(idf over the whole vocabulary, negatives included)
    score(D)  = sum over query tokens q (repeats count each time) of
                idf(q) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * |D| / avgdl))

Hits are the documents with a non-zero score, best first, ties in insertion
order. Scores can be negative on tiny corpora (when most words occur in more
than half the documents the epsilon floor itself is negative); such documents
are still returned, last, because they do contain query words. A document whose
score is exactly 0 (say its only query word has idf 0) is not returned.

A search restricted to owners (``SearchFilters.owners``) is scored with N, the
document frequencies and the average length of those owners' live documents
only, as BM25Okapi built on them alone would: another user's documents must not
move the caller's scores (see :mod:`memex_bm25.owner_stats`). Every other filter
only selects hits; the statistics stay those of the owner set (or of the whole
index without an owners filter).

Layout: a large immutable *base* segment, a small *delta* segment holding
recent additions, tombstones for deleted slots and exact document frequencies.
``add`` buffers documents; they become a segment on the next search, delete or
flush. ``flush`` writes the delta (and the base only after a merge) into new
generation folders and then swaps the manifest (see :mod:`memex_bm25.storage`).

Threads: reads (``search``, ``query_share``, ``count``...) run at the same time as each
other; whatever replaces state (``add``, ``delete``, ``flush``, loading a newer
generation) waits for them and holds them off (:class:`~memex_core.rwlock.ReadWriteLock`),
so a search never sees half a change. A read first takes in, alone, what it needs (a
generation another process flushed, buffered additions).
"""

from __future__ import annotations

import itertools
import math
import threading
from array import array
from collections import Counter, OrderedDict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from memex_bm25 import storage
from memex_bm25.errors import IndexUnreadableError, TokenizerMismatchError
from memex_bm25.filtering import filter_mask
from memex_bm25.owner_stats import CorpusStats, DocTerms, okapi_idf
from memex_bm25.segment import DocColumns, Segment
from memex_bm25.settings import ScoringParams, StoreOptions, parse_settings
from memex_bm25.tables import StringTable
from memex_bm25.tokenizer import Tokenizer, describe_config
from memex_core.catalog.faults import from_os_error
from memex_core.crashpoints import crash_point
from memex_core.domain import Fragment, SearchFilters, SignalHit
from memex_core.errors import MemexError
from memex_core.rwlock import ReadWriteLock

FORMAT = "memex-bm25"
#: Version 2 added the owner, collection and private columns. Version 1 indexes
#: still load (as the operator's corpus: owner "", collection "", not private)
#: and are rewritten as version 2 on their next flush; an older memex refuses a
#: version 2 index (asking for a rebuild) rather than ignore ``private``.
FORMAT_VERSION = 2
READABLE_VERSIONS = (1, 2)

#: Filter columns kept as string-table codes, each named after what it encodes.
TABLES = ("source", "role", "conversation", "owner", "collection")

#: Buffered tokens that trigger building a segment during ``add`` (bounds memory in bulk loads).
MATERIALISE_TOKENS = 4_000_000

_LOAD_ATTEMPTS = 5
#: Lines whose term codes one ``add`` remembers. Turn context (memex_core/domain/
#: turn_context.py) indexes a turn's own text twice and again as the next turns'
#: context, so consecutive index texts share whole lines.
_LINE_CACHE = 4096

#: Owner sets whose statistics are kept between changes (each holds a float per term and per slot).
OWNER_STATS_CACHED = 16


def _decode_id(raw: bytes) -> str:
    return raw.decode("utf-8", "surrogatepass")


class _Pending:
    """Documents added since the last segment build, kept flat and compact."""

    def __init__(self) -> None:
        self.tokens = array("q")
        self.doc_len: list[int] = []
        self.ids: list[str] = []
        self.codes: dict[str, list[int]] = {name: [] for name in TABLES}
        self.timestamp: list[float] = []
        self.timed: list[bool] = []
        self.private: list[bool] = []

    def __len__(self) -> int:
        return len(self.doc_len)

    def append(
        self,
        fragment_id: str,
        terms: list[int],
        codes: Mapping[str, int],
        ts: Any,
        private: bool,
    ) -> None:
        self.tokens.extend(terms)
        self.doc_len.append(len(terms))
        self.ids.append(fragment_id)
        for name in TABLES:
            self.codes[name].append(codes[name])
        self.timed.append(ts is not None)
        self.timestamp.append(float(ts) if ts is not None else math.nan)
        self.private.append(private)

    def to_segment(self, n_terms: int) -> Segment:
        doc_len = np.array(self.doc_len, dtype=np.int64)
        encoded = [value.encode("utf-8", "surrogatepass") for value in self.ids]
        width = max((len(value) for value in encoded), default=1) or 1
        docs = DocColumns(
            doc_len=doc_len.astype(np.int32),
            ids=np.array(encoded, dtype=f"S{width}"),
            source=np.array(self.codes["source"], dtype=np.int32),
            role=np.array(self.codes["role"], dtype=np.int32),
            conversation=np.array(self.codes["conversation"], dtype=np.int32),
            timestamp=np.array(self.timestamp, dtype=np.float64),
            timed=np.array(self.timed, dtype=bool),
            owner=np.array(self.codes["owner"], dtype=np.int32),
            collection=np.array(self.codes["collection"], dtype=np.int32),
            private=np.array(self.private, dtype=bool),
        )
        tokens = np.array(self.tokens, dtype=np.int64)
        return Segment.build(tokens, doc_len, docs, n_terms)


class BM25Store:
    """A :class:`memex_core.domain.KeywordStore` kept under ``directory``.

    ``tokenizer=None`` adopts the tokenizer the index on disk was built with
    (the default tokenizer for a new index). With an explicit tokenizer, an
    index built differently is reported by every call except :meth:`clear`,
    which starts afresh with the new tokenizer (what ``memex rebuild`` does).
    """

    #: Searches may run on several threads at once (see the module docstring).
    concurrent_reads = True

    def __init__(
        self,
        directory: str | Path,
        tokenizer: Tokenizer | None = None,
        *,
        k1: float = 1.5,
        b: float = 0.75,
        epsilon: float = 0.25,
        merge_ratio: float = 0.15,
    ) -> None:
        self.directory = Path(directory)
        self.scoring = ScoringParams(k1=k1, b=b, epsilon=epsilon)
        self.merge_ratio = merge_ratio
        self._configured_tokenizer = tokenizer
        self.tokenizer = tokenizer or Tokenizer()
        self._generation = 0
        self._base_name: str | None = None
        self._delta_name: str | None = None
        # Readers share it; anything that replaces state takes it alone (module docstring).
        self._rw = ReadWriteLock()
        # Owner statistics, which concurrent readers fill: one computes, the others wait.
        self._memo = threading.Lock()
        # Each thread's last hits, for its query_share (see _top); _epoch dates them.
        self._recent = threading.local()
        self._epoch = 0
        self._reset()
        self._load()

    @classmethod
    def open(cls, directory: str | Path, settings: Mapping[str, Any] | None = None) -> BM25Store:
        """The store as config.toml's ``[keyword.bm25]`` table configures it."""
        options: StoreOptions = parse_settings(settings)
        return cls(
            directory,
            options.tokenizer,
            k1=options.scoring.k1,
            b=options.scoring.b,
            epsilon=options.scoring.epsilon,
            merge_ratio=options.merge_ratio,
        )

    # -- state ------------------------------------------------------------------

    def _reset(self) -> None:
        self._vocab = StringTable()
        self._tables = {name: StringTable() for name in TABLES}
        self._base = Segment.empty()
        self._delta = Segment.empty()
        self._df = np.zeros(0, dtype=np.int64)
        self._deleted = np.zeros(0, dtype=bool)
        self._n_deleted = 0
        self._n_live = 0
        # Private slots (tombstoned ones included, until a merge drops them): while
        # there are none, an unrestricted search skips the filter mask entirely.
        self._n_private = 0
        self._total_len = 0
        self._pending = _Pending()
        self._slot_of: dict[str, int] | None = None
        self._dirty = False
        self._base_dirty = True
        self._unusable: MemexError | None = None
        self._stamp: tuple[int, int, int] | None = None
        self._sums: dict[str, storage.Checksums] = {}
        self._cache: dict[str, Any] = {}
        # Statistics per owner set (cleared on every change, least recently used dropped
        # first) and the doc-major view of a segment, kept while that segment lives.
        self._owner_stats: OrderedDict[frozenset[int], CorpusStats] = OrderedDict()
        self._doc_terms: dict[str, tuple[Segment, DocTerms]] = {}
        self._scanned: set[str] = set()
        self._epoch += 1

    def _load(self) -> None:
        for attempt in range(_LOAD_ATTEMPTS):
            try:
                self._load_once()
                return
            except FileNotFoundError as exc:
                # A writer may have replaced the generation between our reading the
                # manifest and opening its folders: read the manifest again.
                if attempt == _LOAD_ATTEMPTS - 1:
                    self._fail(self._unreadable(f"missing file {exc.filename}"))
            except (OSError, ValueError, KeyError, TypeError, IndexError) as exc:
                self._fail(self._unreadable(f"{type(exc).__name__}: {exc}"))
                return

    def _fail(self, error: MemexError) -> None:
        """Hold an empty state that raises ``error`` until clear() or a newer manifest."""
        self._reset()
        self._unusable = error
        self._stamp = storage.manifest_stamp(self.directory)

    def _unreadable(self, reason: str) -> IndexUnreadableError:
        return IndexUnreadableError(
            f"The keyword index at {self.directory} cannot be read ({reason}). "
            "Run `memex doctor --repair` (or `memex rebuild`) to recreate it from the catalog."
        )

    def _load_once(self) -> None:
        root = self.directory
        stamp = storage.manifest_stamp(root)
        manifest = storage.read_manifest(root)
        self._reset()
        self._stamp = stamp
        if manifest is None:
            return
        version = manifest.get("version")
        if manifest.get("format") != FORMAT or version not in READABLE_VERSIONS:
            raise ValueError(
                f"{root / storage.MANIFEST} is format {manifest.get('format')!r} "
                f"version {version!r}, expected {FORMAT!r} {FORMAT_VERSION}"
            )
        self._generation = int(manifest["generation"])
        self._base_name, self._delta_name = manifest["base"], manifest["delta"]
        written = manifest.get("checksums") or {}
        self._sums = {
            name: written[name] for name in (self._base_name, self._delta_name) if name in written
        }
        stored = manifest["tokenizer"]
        if self._configured_tokenizer is None:
            adopted = Tokenizer.from_config(stored)
            if adopted is None:
                self._unusable = self._mismatch(stored)
                return
            self.tokenizer = adopted
        elif stored != self.tokenizer.config():
            self._unusable = self._mismatch(stored)
            return

        base_dir, delta_dir = root / manifest["base"], root / manifest["delta"]
        base_vocab = storage.load_json(base_dir, "vocab")
        vocab = StringTable(base_vocab + storage.load_json(delta_dir, "vocab"), len(base_vocab))
        base_tables = storage.load_json(base_dir, "tables")
        delta_tables = storage.load_json(delta_dir, "tables")
        old_format = version == 1
        if old_format:
            for written in (base_tables, delta_tables):
                for name in TABLES:
                    written.setdefault(name, [])
        tables = {
            name: StringTable(base_tables[name] + delta_tables[name], len(base_tables[name]))
            for name in TABLES
        }

        def operator_corpus(column: str) -> int | bool:
            # Everything indexed before scopes existed is the operator's corpus.
            return False if column == "private" else tables[column].code("")

        missing = operator_corpus if old_format else None
        base, delta = Segment.load(base_dir, missing), Segment.load(delta_dir, missing)
        df = np.asarray(storage.load_array(delta_dir, "df", writable=True), dtype=np.int64)
        deleted_slots = storage.load_array(delta_dir, "deleted", writable=True)
        if (
            base.n_docs != manifest["base_docs"]
            or delta.n_docs != manifest["delta_docs"]
            or len(vocab) != manifest["vocabulary"]
            or len(df) != len(vocab)
            or max(base.n_terms, delta.n_terms) > len(vocab)
        ):
            raise ValueError(f"generation {self._generation} does not match its manifest")

        self._base, self._delta, self._df = base, delta, df
        self._vocab, self._tables = vocab, tables
        self._deleted = np.zeros(base.n_docs + delta.n_docs, dtype=bool)
        self._deleted[deleted_slots] = True
        self._n_deleted = len(deleted_slots)
        self._n_live = len(self._deleted) - self._n_deleted
        self._n_private = int(np.count_nonzero(base.docs.private)) + int(
            np.count_nonzero(delta.docs.private)
        )
        lengths = self._columns().doc_len
        self._total_len = int(lengths.sum(dtype=np.int64)) - int(
            lengths[deleted_slots].sum(dtype=np.int64)
        )
        # A version-1 base lacks the scope columns on disk: the next flush rewrites it,
        # so every folder a version-2 manifest names has them.
        self._base_dirty = old_format

    def _mismatch(self, stored: Mapping[str, Any]) -> TokenizerMismatchError:
        return TokenizerMismatchError(
            f"The keyword index at {self.directory} was built with tokenizer "
            f"({describe_config(stored)}), but config.toml [keyword.bm25] asks for "
            f"({self.tokenizer.describe()}). Run `memex rebuild` to re-index with the "
            "configured tokenizer, or set [keyword.bm25] back to what the index was built with."
        )

    def _require_usable(self) -> None:
        if self._unusable is not None:
            raise self._unusable

    def refresh(self) -> bool:
        """Load a newer generation another process flushed; returns whether it did.

        Never discards this instance's own unflushed changes.
        """
        if self._dirty or len(self._pending):
            return False
        if storage.manifest_stamp(self.directory) == self._stamp:
            return False
        with self._rw:
            if self._dirty or len(self._pending):
                return False
            if storage.manifest_stamp(self.directory) == self._stamp:
                return False  # another thread loaded it meanwhile
            self._load()
            return True

    def changed_on_disk(self) -> bool:
        """Whether another process flushed since this store loaded or flushed."""
        return storage.manifest_stamp(self.directory) != self._stamp

    def reload(self) -> None:
        """Load the generation on disk, dropping unflushed changes (for a reader whose only
        changes were a catch-up with the catalog that the newer generation holds)."""
        with self._rw:
            self._load()

    def writing(self) -> ReadWriteLock:
        """The store held alone (``with store.writing():``) for changes in several calls
        that searches must see whole, such as reloading and then catching up with the
        catalog; calls inside take it again freely."""
        return self._rw

    @contextmanager
    def _reading(self) -> Iterator[None]:
        """Hold the store shared for a read, once a newer generation on disk and buffered
        additions are taken in (alone: they replace state readers use)."""
        while True:
            self.refresh()
            if len(self._pending):
                with self._rw:
                    self._materialise()
            self._rw.acquire_shared()
            if not len(self._pending):
                break
            self._rw.release_shared()  # a write came in between: take it in first
        try:
            yield
        finally:
            self._rw.release_shared()

    # -- derived arrays (cached until the next change) ----------------------------

    def _invalidate(self) -> None:
        self._cache.clear()
        self._owner_stats.clear()
        self._epoch += 1

    @property
    def _n_slots(self) -> int:
        return self._base.n_docs + self._delta.n_docs

    def _columns(self) -> DocColumns:
        columns = self._cache.get("columns")
        if columns is None:
            parts = [seg.docs for seg in (self._base, self._delta) if seg.n_docs]
            columns = DocColumns.concat(parts) if parts else DocColumns.empty()
            self._cache["columns"] = columns
        return columns

    def _idf(self) -> np.ndarray:
        idf = self._cache.get("idf")
        if idf is None:
            idf = okapi_idf(self._df, self._n_live, self.scoring.epsilon)
            self._cache["idf"] = idf
        return idf

    def _length_norm(self) -> np.ndarray:
        """k1 * (1 - b + b * |D| / avgdl) per slot: the document-only part of BM25."""
        norm = self._cache.get("norm")
        if norm is None:
            norm = self._norm(self._total_len, self._n_live)
            self._cache["norm"] = norm
        return norm

    def _norm(self, total_len: int, n_docs: int) -> np.ndarray:
        k1, b = self.scoring.k1, self.scoring.b
        avgdl = total_len / n_docs if total_len else 1.0
        lengths = self._columns().doc_len.astype(np.float64)
        return k1 * (1 - b + b * lengths / avgdl)

    def _segment_df(
        self, name: str, segment: Segment, chosen: np.ndarray, n_terms: int
    ) -> np.ndarray:
        """Document frequencies over the slots ``chosen`` (a local mask) of ``segment``."""
        entry = self._doc_terms.get(name)
        if entry is None or entry[0] is not segment:
            if name not in self._scanned:
                # The first time, scan the postings: ~10x cheaper than building the
                # doc-major view, so a one-off search (a CLI call) stays fast. Needed
                # again, the view is built and kept for as long as the segment lives.
                self._scanned.add(name)
                return segment.terms_of_slots(chosen, n_terms)
            entry = self._doc_terms[name] = (segment, DocTerms.of(segment))
        return entry[1].document_frequencies(np.flatnonzero(chosen), n_terms)

    def _owner_corpus(self, owners: Iterable[str]) -> CorpusStats:
        """BM25 statistics of the live documents whose owner is in ``owners`` (materialised)."""
        table = self._tables["owner"]
        codes = frozenset(code for owner in owners if (code := table.lookup(owner)) is not None)
        with self._memo:
            found = self._owner_stats.get(codes)
            if found is not None:
                self._owner_stats.move_to_end(codes)
                return found
            found = self._owner_statistics(codes)
            self._owner_stats[codes] = found
            if len(self._owner_stats) > OWNER_STATS_CACHED:
                self._owner_stats.popitem(last=False)
            return found

    def _owner_statistics(self, codes: frozenset[int]) -> CorpusStats:
        columns = self._columns()
        members = np.isin(columns.owner, np.fromiter(codes, dtype=np.int64, count=len(codes)))
        live = ~self._deleted if self._n_deleted else None
        if live is not None:
            members &= live  # tombstoned slots are out of N, df and the length sum, as globally
        n_docs = int(np.count_nonzero(members))
        if not n_docs:
            return CorpusStats(0, np.zeros(0, dtype=np.float64), np.zeros(0, dtype=np.float64))
        total_len = int(columns.doc_len[members].sum(dtype=np.int64))
        # Count terms over the smaller side: the owner set's slots, or the live slots
        # outside it, subtracted from the global frequencies.
        outside = n_docs > self._n_live - n_docs
        counted = members
        if outside:
            counted = ~members if live is None else live & ~members
        n_terms = len(self._df)
        df = np.zeros(n_terms, dtype=np.int64)
        start = 0
        for name, segment in (("base", self._base), ("delta", self._delta)):
            chosen = counted[start : start + segment.n_docs]
            if chosen.any():
                df += self._segment_df(name, segment, chosen, n_terms)
            start += segment.n_docs
        if outside:
            df = self._df - df
        idf = okapi_idf(df, n_docs, self.scoring.epsilon)
        return CorpusStats(n_docs, idf, self._norm(total_len, n_docs))

    def _slot_index(self) -> dict[str, int]:
        """Fragment id -> slot for live documents, pending ones included (built lazily)."""
        if self._slot_of is None:
            ids = self._columns().ids
            slots: Iterable[int]
            if self._n_deleted:
                live = np.flatnonzero(~self._deleted)
                raw_ids, slots = ids[live].tolist(), live.tolist()
            else:
                raw_ids, slots = ids.tolist(), range(len(ids))
            try:
                index = dict(zip(map(_decode_id, raw_ids), slots, strict=True))
            except UnicodeDecodeError as exc:  # bytes damaged on disk
                raise self._unreadable(f"a fragment id is not valid UTF-8: {exc}") from exc
            first_pending = self._n_slots
            for offset, fragment_id in enumerate(self._pending.ids):
                index[fragment_id] = first_pending + offset
            self._slot_of = index
        return self._slot_of

    # -- writing ----------------------------------------------------------------

    def add(self, fragments: Sequence[Fragment]) -> int:
        """Index fragments; ids already present are skipped. Returns how many were new."""
        with self._rw:
            return self._add(fragments)

    def _add(self, fragments: Sequence[Fragment]) -> int:
        self._require_usable()
        known = self._slot_index()
        pending = self._pending
        tokenize, vocab = self.tokenizer.tokenize, self._vocab
        tables = self._tables
        next_slot = self._n_slots + len(pending)
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
            self._n_private += fragment.private
            known[fragment.id] = next_slot
            next_slot += 1
            added += 1
            self._n_live += 1
            self._total_len += len(terms)
        if added:
            self._dirty = True
            self._invalidate()
            if len(pending.tokens) >= MATERIALISE_TOKENS:
                self._materialise()
        return added

    def _materialise(self) -> None:
        """Turn buffered documents into postings appended to the delta segment."""
        pending = self._pending
        if not len(pending):
            return
        n_terms = len(self._vocab)
        fresh = pending.to_segment(n_terms)
        df = np.zeros(n_terms, dtype=np.int64)
        df[: len(self._df)] = self._df
        self._df = df + fresh.document_frequencies(n_terms)
        if self._delta.n_docs:
            previous = self._delta
            self._delta = Segment.concat([(previous, None), (fresh, None)], n_terms)
            # Appending documents appends to the doc-major view: extend it, don't rebuild.
            known = self._doc_terms.get("delta")
            if known is not None and known[0] is previous:
                extended = DocTerms.concat(known[1], DocTerms.of(fresh))
                self._doc_terms["delta"] = (self._delta, extended)
        else:
            self._delta = fresh
        self._deleted = np.concatenate([self._deleted, np.zeros(len(pending), dtype=bool)])
        self._pending = _Pending()
        self._invalidate()

    def delete(self, ids: Iterable[str]) -> int:
        """Remove fragments by id. Returns how many were present."""
        with self._rw:
            return self._delete(ids)

    def _delete(self, ids: Iterable[str]) -> int:
        self._require_usable()
        known = self._slot_index()
        slots = [slot for fragment_id in ids if (slot := known.pop(fragment_id, None)) is not None]
        if not slots:
            return 0
        self._materialise()
        gone = np.zeros(self._n_slots, dtype=bool)
        gone[slots] = True
        start = 0
        for segment in (self._base, self._delta):
            local = gone[start : start + segment.n_docs]
            if local.any():
                self._df -= segment.terms_of_slots(local, len(self._df))
            start += segment.n_docs
        self._total_len -= int(self._columns().doc_len[gone].sum(dtype=np.int64))
        self._deleted |= gone
        self._n_deleted += len(slots)
        self._n_live -= len(slots)
        self._dirty = True
        self._invalidate()
        return len(slots)

    def clear(self) -> None:
        """Forget every document (and any tokenizer mismatch); :meth:`flush` persists it."""
        with self._rw:
            if self._configured_tokenizer is None and self._unusable is not None:
                self.tokenizer = Tokenizer()
            self._reset()
            self._dirty = True

    def flush(self) -> None:
        """Persist pending changes atomically: readers see the old or the new generation."""
        with self._rw:
            self._require_usable()
            self._materialise()
            if not self._dirty:
                return
            if self._should_merge():
                self._merge_into_base()
            try:
                self._write_generation()
            except OSError as exc:
                translated = from_os_error(exc, self.directory)
                if translated is None:
                    raise
                raise translated from exc

    def _write_generation(self) -> None:
        root = self.directory
        root.mkdir(parents=True, exist_ok=True)
        generation = self._generation + 1
        if storage.manifest_stamp(root) != self._stamp:
            # Another process flushed since this store read the index. The base folder
            # this store knows may be gone (a flush keeps one previous generation), so
            # write it afresh, and number the generation after the one on disk.
            self._base_dirty = True
            generation = max(generation, self._generation_on_disk() + 1)
        previous = {name for name in (self._base_name, self._delta_name) if name}
        base_name = self._base_name
        sums: dict[str, storage.Checksums] = {}
        if self._base_dirty or base_name is None:
            base_name, sums[base_name] = storage.write_folder(
                root, f"base-{generation:06d}", self._write_base
            )
        elif base_name in self._sums:
            sums[base_name] = self._sums[base_name]
        delta_name, sums[delta_name] = storage.write_folder(
            root, f"delta-{generation:06d}", self._write_delta
        )
        crash_point("bm25.folder_written")
        storage.write_manifest(
            root,
            {
                "format": FORMAT,
                "version": FORMAT_VERSION,
                "generation": generation,
                "tokenizer": self.tokenizer.config(),
                "base": base_name,
                "delta": delta_name,
                "base_docs": self._base.n_docs,
                "delta_docs": self._delta.n_docs,
                "vocabulary": len(self._vocab),
                "live_docs": self._n_live,
                "checksums": sums,
            },
        )
        crash_point("bm25.manifest_written")
        self._generation, self._base_name, self._delta_name = generation, base_name, delta_name
        self._sums = sums
        self._dirty = self._base_dirty = False
        self._stamp = storage.manifest_stamp(root)
        storage.remove_unreferenced(root, keep={base_name, delta_name, *previous})

    def _generation_on_disk(self) -> int:
        try:
            manifest = storage.read_manifest(self.directory) or {}
            return int(manifest.get("generation", 0))
        except (OSError, ValueError, TypeError):
            return 0

    def _should_merge(self) -> bool:
        base, delta = self._base.n_docs, self._delta.n_docs
        if delta > self.merge_ratio * base:
            return True
        return self._n_deleted > self.merge_ratio * (base + delta)

    def _merge_into_base(self) -> None:
        """Fold the delta into a new base, dropping tombstoned slots and unused terms."""
        live = ~self._deleted
        nb = self._base.n_docs
        used = self._df > 0
        remap = np.cumsum(used) - 1
        self._base = Segment.concat(
            [(self._base, live[:nb]), (self._delta, live[nb:])], int(used.sum()), remap
        )
        self._delta = Segment.empty()
        self._vocab = StringTable(itertools.compress(self._vocab.values, used.tolist()))
        self._df = self._df[used]
        for table in self._tables.values():
            table.freeze()
        self._deleted = np.zeros(self._base.n_docs, dtype=bool)
        self._n_deleted = 0
        self._n_private = int(np.count_nonzero(self._base.docs.private))
        self._slot_of = None
        self._base_dirty = True
        self._invalidate()

    def _write_base(self, folder: Path) -> None:
        self._base.save(folder)
        storage.save_json(folder, "vocab", self._vocab.values[: self._vocab.frozen])
        storage.save_json(
            folder, "tables", {name: t.values[: t.frozen] for name, t in self._tables.items()}
        )

    def _write_delta(self, folder: Path) -> None:
        self._delta.save(folder)
        storage.save_json(folder, "vocab", self._vocab.tail)
        storage.save_json(folder, "tables", {name: t.tail for name, t in self._tables.items()})
        storage.save_array(folder, "df", self._df)
        storage.save_array(folder, "deleted", np.flatnonzero(self._deleted).astype(np.int64))

    # -- reading ----------------------------------------------------------------

    def search(self, query: str, limit: int, filters: SearchFilters) -> list[SignalHit]:
        """Best ``limit`` hits that pass ``filters``, best first; no zero-score hits."""
        with self._reading():
            self._require_usable()
            try:
                return self._search(query, limit, filters)
            except (IndexError, ValueError) as exc:
                # Arrays that loaded but point outside themselves: bytes damaged on disk.
                raise self._unreadable(f"{type(exc).__name__} while searching: {exc}") from exc

    def _search(self, query: str, limit: int, filters: SearchFilters) -> list[SignalHit]:
        if limit <= 0 or self._n_live == 0:
            return []
        lookup = self._vocab.index.get
        tokens = self.tokenizer.tokenize(query)
        counts = Counter(code for token in tokens if (code := lookup(token)) is not None)
        if not counts:
            return []
        corpus = self._owner_corpus(filters.owners) if filters.owners else None
        if corpus is not None and not corpus.n_docs:
            return []
        zero_weight: list[np.ndarray] = []
        scores = self._scores(counts, corpus, zero_weight)
        candidates = np.flatnonzero(scores != 0)  # comparing first is 5x faster than on floats
        if zero_weight:
            # A term in exactly half the documents has idf log(1) = 0 in BM25Okapi, so its
            # matches score 0; they still match (common in a user's small memory).
            candidates = np.union1d(candidates, np.concatenate(zero_weight))
        if self._n_deleted:
            candidates = candidates[~self._deleted[candidates]]
        # Private slots are excluded by default, so an "empty" filter still needs the
        # mask once the index holds one; without any, the unfiltered path stays as fast.
        if not filters.is_empty or (self._n_private and not filters.include_private):
            candidates = candidates[filter_mask(filters, self._columns(), self._tables, candidates)]
        return self._top(scores, candidates, limit)

    def _scores(
        self,
        counts: Mapping[int, int],
        corpus: CorpusStats | None = None,
        zero_weight: list[np.ndarray] | None = None,
    ) -> np.ndarray:
        """Scores per slot against ``corpus``'s statistics (the whole index's by default).
        Slots matched only by terms of weight 0 are appended to ``zero_weight``."""
        if corpus is None:
            idf, norm = self._idf(), self._length_norm()
        else:
            idf, norm = corpus.idf, corpus.norm
        k1_plus_1 = self.scoring.k1 + 1
        scores = np.zeros(self._n_slots, dtype=np.float64)
        for term, repeats in counts.items():
            weight = idf[term]
            start = 0
            for segment in (self._base, self._delta):
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

    def _top(self, scores: np.ndarray, candidates: np.ndarray, limit: int) -> list[SignalHit]:
        values = scores[candidates]
        if len(candidates) > limit:
            # Keep everything tied with the limit-th best so ties break by slot, not by
            # whatever order argpartition happens to leave them in.
            threshold = np.partition(values, len(values) - limit)[len(values) - limit]
            keep = values >= threshold
            candidates, values = candidates[keep], values[keep]
        order = np.lexsort((candidates, -values))[:limit]
        ids = self._columns().ids
        hits = [
            (SignalHit(id=_decode_id(ids[slot]), score=float(values[i])), slot)
            for i, slot in zip(order.tolist(), candidates[order].tolist(), strict=True)
        ]
        # The slots of this thread's last hits, for query_share (the relevance floor asks
        # about these very hits): building the whole id -> slot index costs ~0.1 s at
        # 100,000 fragments. Per thread: concurrent searches each ask about their own.
        self._recent.slots = (self._epoch, {hit.id: slot for hit, slot in hits})
        return [hit for hit, _ in hits]

    def query_share(self, query: str, ids: Sequence[str]) -> dict[str, float]:
        """For each of ``ids`` the index holds, the share of the query's information it
        contains: the IDF of the query's distinct terms it holds over the IDF of all of
        them. A term no document holds weighs what it would as a term of one document
        more than the rarest (``log(2N + 1)``), so words the index never saw count
        against a hit instead of vanishing. Optional beyond the KeywordStore protocol:
        the relevance floor (:mod:`memex_core.domain.relevance`) reads it to tell one
        shared common word from a match."""
        with self._reading():
            self._require_usable()
            return self._query_share(query, ids)

    def _query_share(self, query: str, ids: Sequence[str]) -> dict[str, float]:
        terms = list(dict.fromkeys(self.tokenizer.tokenize(query)))
        epoch, recent = getattr(self._recent, "slots", (None, {}))
        if epoch != self._epoch:
            recent = {}
        unique = list(dict.fromkeys(ids))
        slot_of = recent if all(i in recent for i in unique) else self._slot_index()
        wanted = [(i, slot_of[i]) for i in unique if i in slot_of]
        if not terms or not wanted:
            return {}
        unseen = math.log(2 * max(self._n_live, 1) + 1)
        idf = self._idf()
        lookup = self._vocab.index.get
        slots = np.array([slot for _, slot in wanted], dtype=np.int64)
        held = np.zeros(len(slots), dtype=np.float64)
        total = 0.0
        for term in terms:
            code = lookup(term)
            if code is None or code >= len(idf) or self._df[code] <= 0:
                total += unseen  # no document holds it: none of ``ids`` does
                continue
            weight = max(float(idf[code]), 0.0)
            total += weight
            start = 0
            for segment in (self._base, self._delta):
                inside = (slots >= start) & (slots < start + segment.n_docs)
                if inside.any():
                    where = np.flatnonzero(inside)
                    held[where[segment.holds(code, slots[where] - start)]] += weight
                start += segment.n_docs
        if total <= 0:
            return {fragment_id: 0.0 for fragment_id, _ in wanted}
        return {fragment_id: float(held[n]) / total for n, (fragment_id, _) in enumerate(wanted)}

    def count(self) -> int:
        self.refresh()
        with self._rw.shared():
            self._require_usable()
            return self._n_live

    def ids(self) -> set[str]:
        self.refresh()
        with self._rw.shared():
            self._require_usable()
            return set(self._slot_index())

    def verify(self) -> list[str]:
        """Problems with the index on disk (empty when sound): files that differ from the
        checksums the manifest recorded, arrays that break the index's invariants. Reads
        everything, so it is for ``memex doctor``, not for every open."""
        from memex_bm25 import verify

        self.refresh()
        with self._rw.shared():
            return self._verify(verify)

    def _verify(self, verify: Any) -> list[str]:
        if self._unusable is not None:
            return [str(self._unusable)]
        try:
            manifest = storage.read_manifest(self.directory)
        except (OSError, ValueError) as exc:
            return [f"{self.directory / storage.MANIFEST}: {exc}"]
        problems = verify.file_problems(self.directory, manifest) if manifest else []
        n_terms = len(self._vocab)
        for label, segment in (("base", self._base), ("delta", self._delta)):
            problems.extend(verify.segment_problems(label, segment, n_terms, self._tables))
        if problems:
            return problems
        problems.extend(
            verify.frequency_problems(
                self._base, self._delta, self._deleted[: self._n_slots], self._df[:n_terms]
            )
        )
        problems.extend(verify.duplicate_ids(self._columns().ids, self._deleted[: self._n_slots]))
        return problems

    def stats(self) -> dict[str, Any]:
        """Sizes worth showing in ``memex stats`` or a bug report."""
        self._require_usable()
        with self._reading():
            return self._stats()

    def _stats(self) -> dict[str, Any]:
        return {
            "documents": self._n_live,
            "vocabulary": int(np.count_nonzero(self._df)),
            "deleted_slots": self._n_deleted,
            "base_documents": self._base.n_docs,
            "delta_documents": self._delta.n_docs,
            "postings": self._base.n_postings + self._delta.n_postings,
            "average_length": self._total_len / self._n_live if self._n_live else 0.0,
            "generation": self._generation,
            "tokenizer": self.tokenizer.describe(),
        }

    def __repr__(self) -> str:
        return f"BM25Store({str(self.directory)!r}, {self.tokenizer!r})"
