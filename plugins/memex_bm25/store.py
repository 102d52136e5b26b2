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

The parts: :mod:`memex_bm25.memory_index` (what is in memory),
:mod:`memex_bm25.index_changes` (adding, deleting, merging),
:mod:`memex_bm25.scoring` (searches and ``query_share``) and
:mod:`memex_bm25.generations` (reading and writing a generation); this module
is the store around them: its folder, its tokenizer, its lock.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from memex_bm25 import index_changes, scoring, storage
from memex_bm25.errors import IndexUnreadableError, TokenizerMismatchError
from memex_bm25.generations import (
    check_format,
    generation_on_disk,
    read_contents,
    write_generation,
)
from memex_bm25.memory_index import MemoryIndex
from memex_bm25.settings import ScoringParams, StoreOptions, parse_settings
from memex_bm25.tokenizer import Tokenizer, describe_config
from memex_core.catalog.faults import from_os_error
from memex_core.domain import Fragment, SearchFilters, SignalHit
from memex_core.errors import MemexError
from memex_core.rwlock import ReadWriteLock

_LOAD_ATTEMPTS = 5


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
        # Each thread's last hits, for its query_share (see memex_bm25.scoring).
        self._recent = threading.local()
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
        self._index = MemoryIndex(self.scoring, self._unreadable)
        self._unusable: MemexError | None = None
        self._stamp: tuple[int, int, int] | None = None
        self._sums: dict[str, storage.Checksums] = {}

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
        version = check_format(root, manifest)
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
        read_contents(self._index, root, manifest, version)

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
        if self._index.dirty or len(self._index.pending):
            return False
        if storage.manifest_stamp(self.directory) == self._stamp:
            return False
        with self._rw:
            if self._index.dirty or len(self._index.pending):
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
            if len(self._index.pending):
                with self._rw:
                    self._materialise()
            self._rw.acquire_shared()
            if not len(self._index.pending):
                break
            self._rw.release_shared()  # a write came in between: take it in first
        try:
            yield
        finally:
            self._rw.release_shared()

    # -- writing ----------------------------------------------------------------

    def add(self, fragments: Sequence[Fragment]) -> int:
        """Index fragments; ids already present are skipped. Returns how many were new."""
        with self._rw:
            self._require_usable()
            return index_changes.add_fragments(self._index, self.tokenizer, fragments)

    def _materialise(self) -> None:
        """Turn buffered documents into postings appended to the delta segment."""
        index_changes.materialise(self._index)

    def delete(self, ids: Iterable[str]) -> int:
        """Remove fragments by id. Returns how many were present."""
        with self._rw:
            self._require_usable()
            return index_changes.delete_ids(self._index, ids)

    def clear(self) -> None:
        """Forget every document (and any tokenizer mismatch); :meth:`flush` persists it."""
        with self._rw:
            if self._configured_tokenizer is None and self._unusable is not None:
                self.tokenizer = Tokenizer()
            self._reset()
            self._index.dirty = True

    def flush(self) -> None:
        """Persist pending changes atomically: readers see the old or the new generation."""
        with self._rw:
            self._require_usable()
            self._materialise()
            if not self._index.dirty:
                return
            if self._should_merge():
                index_changes.merge_into_base(self._index)
            try:
                self._write_generation()
            except OSError as exc:
                translated = from_os_error(exc, self.directory)
                if translated is None:
                    raise
                raise translated from exc

    def compact(self) -> None:
        """Rewrite the index as one base of the live documents and the terms they use, and
        delete every earlier generation: after a purge no file may keep a deleted
        document's words (a plain flush keeps tombstoned postings, unused terms and the
        previous generation for readers; a reader that loses it re-reads the manifest)."""
        with self._rw:
            self._require_usable()
            self._materialise()
            index_changes.merge_into_base(self._index)
            index_changes.drop_unused_values(self._index)
            self._index.dirty = True
            try:
                self._write_generation(keep_previous=False)
            except OSError as exc:
                translated = from_os_error(exc, self.directory)
                if translated is None:
                    raise
                raise translated from exc

    def _write_generation(self, *, keep_previous: bool = True) -> None:
        root = self.directory
        root.mkdir(parents=True, exist_ok=True)
        index = self._index
        generation = self._generation + 1
        if storage.manifest_stamp(root) != self._stamp:
            # Another process flushed since this store read the index. The base folder
            # this store knows may be gone (a flush keeps one previous generation), so
            # write it afresh, and number the generation after the one on disk.
            index.base_dirty = True
            generation = max(generation, generation_on_disk(root) + 1)
        previous = {name for name in (self._base_name, self._delta_name) if name}
        known_base = None
        if not index.base_dirty and self._base_name is not None:
            known_base = (self._base_name, self._sums.get(self._base_name))
        base_name, delta_name, sums = write_generation(
            root, index, generation, self.tokenizer.config(), known_base
        )
        self._generation, self._base_name, self._delta_name = generation, base_name, delta_name
        self._sums = sums
        index.dirty = index.base_dirty = False
        self._stamp = storage.manifest_stamp(root)
        kept = previous if keep_previous else set()
        storage.remove_unreferenced(root, keep={base_name, delta_name, *kept})

    def _should_merge(self) -> bool:
        base, delta = self._index.base.n_docs, self._index.delta.n_docs
        if delta > self.merge_ratio * base:
            return True
        return self._index.n_deleted > self.merge_ratio * (base + delta)

    # -- reading ----------------------------------------------------------------

    def search(self, query: str, limit: int, filters: SearchFilters) -> list[SignalHit]:
        """Best ``limit`` hits that pass ``filters``, best first; no zero-score hits."""
        with self._reading():
            self._require_usable()
            try:
                return scoring.search(
                    self._index, self.tokenizer, self._recent, query, limit, filters
                )
            except (IndexError, ValueError) as exc:
                # Arrays that loaded but point outside themselves: bytes damaged on disk.
                raise self._unreadable(f"{type(exc).__name__} while searching: {exc}") from exc

    def query_share(self, query: str, ids: Sequence[str]) -> dict[str, float]:
        """For each of ``ids`` the index holds, the share of the query's information it
        contains (see :func:`memex_bm25.scoring.query_share`). Optional beyond the
        KeywordStore protocol: the relevance floor (:mod:`memex_core.domain.relevance`)
        reads it to tell one shared common word from a match."""
        with self._reading():
            self._require_usable()
            return scoring.query_share(self._index, self.tokenizer, self._recent, query, ids)

    def count(self) -> int:
        self.refresh()
        with self._rw.shared():
            self._require_usable()
            return self._index.n_live

    def ids(self) -> set[str]:
        self.refresh()
        with self._rw.shared():
            self._require_usable()
            return set(self._index.slot_index())

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
        index = self._index
        n_terms = len(index.vocab)
        for label, segment in (("base", index.base), ("delta", index.delta)):
            problems.extend(verify.segment_problems(label, segment, n_terms, index.tables))
        if problems:
            return problems
        deleted = index.deleted[: index.n_slots]
        problems.extend(
            verify.frequency_problems(index.base, index.delta, deleted, index.df[:n_terms])
        )
        problems.extend(verify.duplicate_ids(index.columns().ids, deleted))
        return problems

    def stats(self) -> dict[str, Any]:
        """Sizes worth showing in ``memex stats`` or a bug report."""
        self._require_usable()
        with self._reading():
            return self._stats()

    def _stats(self) -> dict[str, Any]:
        index = self._index
        return {
            "documents": index.n_live,
            "vocabulary": int(np.count_nonzero(index.df)),
            "deleted_slots": index.n_deleted,
            "base_documents": index.base.n_docs,
            "delta_documents": index.delta.n_docs,
            "postings": index.base.n_postings + index.delta.n_postings,
            "average_length": index.total_len / index.n_live if index.n_live else 0.0,
            "generation": self._generation,
            "tokenizer": self.tokenizer.describe(),
        }

    def __repr__(self) -> str:
        return f"BM25Store({str(self.directory)!r}, {self.tokenizer!r})"
