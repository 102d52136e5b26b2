"""Writing a home: ingest files, store fragments built in code, embed, rebuild the indexes.

Every write holds the home's write lock (and, on a shared catalog, the job locks of what it
touches: see :meth:`~memex_core.facade.components.HomeComponents.writing`), keeps the
keyword index in step with the catalog's change journal, and embeds what it stored when
an embedder and a vector store are there; when the vector store does not answer, the
catalog and keyword index hold everything and the vectors wait for the next write.
"""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from memex_core.crashpoints import crash_point
from memex_core.domain import Fragment, IngestReport
from memex_core.domain.turn_context import IndexContext
from memex_core.errors import MemexError
from memex_core.services.index_text import (
    ContextualKeywordStore,
    record_keyword_context,
    record_vector_context,
)
from memex_core.services.indexing import KeywordSync
from memex_core.services.ingest import IngestService
from memex_core.services.ports import NoProgress, Progress
from memex_core.services.search import VectorStoreUnavailableError

if TYPE_CHECKING:
    from memex_core.facade.components import HomeComponents


class Writer:
    """The writes of one home (``Memex.ingest``, ``sync``, ``add_fragments``, ``backfill``,
    ``rebuild``)."""

    def __init__(self, parts: HomeComponents) -> None:
        self._parts = parts

    def ingest(
        self,
        paths: Sequence[str | Path],
        embed: bool,
        progress: Progress | None,
        embed_progress: Progress | None,
        source: str | None,
    ) -> IngestReport:
        """``Memex.ingest``: read ``paths`` with every source (or the one named), then embed."""
        sources = self._parts.sources()
        if source is not None:
            sources = [s for s in sources if s.source_kind == source]
            if not sources:
                known = ", ".join(
                    sorted(r.name for r in self._parts.registry.registrations("source"))
                )
                raise MemexError(f"Unknown source {source!r} for --source: known are {known}.")
        with self._parts.writing("ingest"):
            # Holding the lock (on a shared catalog, the ingest lock of every host): any
            # run still "running" died.
            self._parts.catalog.close_interrupted_runs()
            sync = self._parts.keyword_sync
            sync.catch_up()  # another process may have written since this one opened
            service = IngestService(
                self._parts.catalog,
                sources,
                sync.keyword,
                progress or NoProgress(),
                scrubber=self._parts.ingest_scrubber(),
                named=source is not None,
            )
            command = " ".join(sys.argv[1:3]) or "ingest"
            resolved = [Path(p).expanduser().absolute() for p in paths]
            report = service.ingest(resolved, command=command)
            sync.own_changes_applied()
            sync.flushed()
            crash_point("ingest.indexed")
            if not embed:
                report.embedding_skipped_reason = "skipped on request (run `memex backfill`)"
            elif (reason := self._parts.semantic_unavailable_reason()) is not None:
                report.embedding_skipped_reason = reason
            elif (busy := self._vectors_busy()) is not None:
                report.embedding_skipped_reason = busy
            else:
                try:
                    self._parts.apply_vector_deletes()
                    report.embedded = self._parts.indexer().backfill(progress=embed_progress)
                    self._parts.settle_vectors()
                except VectorStoreUnavailableError as exc:
                    # The catalog and keyword index hold everything; vectors wait.
                    report.embedding_skipped_reason = self._vectors_pending(exc)
                finally:
                    self._parts.job_lock("vectors").release()
        return report

    def _vectors_busy(self) -> str | None:
        """Take the ``vectors`` job lock without waiting (released by the caller), or say
        why not: on a shared catalog, another host is embedding (and embeds these too)."""
        lock = self._parts.job_lock("vectors")
        if lock.try_acquire():
            return None
        holder = lock.holder() or "holder unknown"
        return (
            f"another memex process is embedding this catalog's fragments ({holder}); it "
            "embeds these too, or run `memex backfill` once it has finished"
        )

    def _vectors_pending(self, failure: VectorStoreUnavailableError) -> str:
        pending = self._parts.indexer().pending()
        return (
            f"{failure} {pending:,} fragment(s) wait for vectors; the next `memex ingest` or "
            "`memex backfill` stores them once the vector store answers (keyword search "
            "finds them meanwhile)."
        )

    def sync(
        self, embed: bool, progress: Progress | None, embed_progress: Progress | None
    ) -> IngestReport:
        """``Memex.sync``: ingest every path of ``[sync] paths`` again (only changes)."""
        paths = self._parts.config.sync_paths()
        if not paths:
            raise MemexError(
                f"Nothing to sync: add the folders to re-read to {self._parts.config.config_path}, "
                'for example\n\n[sync]\npaths = ["~/notes", "~/.claude/projects", '
                '"~/.codex/sessions"]'
            )
        return self.ingest(paths, embed, progress, embed_progress, None)

    def add_fragments(
        self,
        fragments: Iterable[Fragment],
        origin: str,
        embed: bool,
        progress: Progress | None,
        replace: bool,
    ) -> int:
        """``Memex.add_fragments``: one atomic batch under ``origin``; how many were new."""
        batch = list(fragments)
        digest = hashlib.sha256("\n".join(sorted(f.id for f in batch)).encode()).hexdigest()
        kinds = sorted({f.source_kind for f in batch}) or ["api"]
        with self._parts.writing("ingest"):
            sync = self._parts.keyword_sync
            sync.catch_up()
            run_id = self._parts.catalog.start_run(f"add_fragments {origin}")
            new, removed = self._parts.catalog.replace_file(
                run_id=run_id,
                path=origin,
                sha256=digest,
                size=0,
                source_kind=",".join(kinds),
                fragments=batch,
                replace=replace,
            )
            if removed:
                sync.keyword.delete(removed)
            sync.keyword.add(new)
            sync.keyword.flush()
            sync.own_changes_applied()
            sync.flushed()
            self._parts.catalog.finish_run(run_id, "finished", {"fragments_added": len(new)})
            if (
                embed
                and self._parts.semantic_unavailable_reason() is None
                and self._vectors_busy() is None
            ):
                try:
                    self._parts.apply_vector_deletes()
                    self._parts.indexer().backfill(progress=progress)
                except VectorStoreUnavailableError:
                    pass  # stored and keyword-searchable; `memex backfill` adds the vectors
                finally:
                    self._parts.job_lock("vectors").release()
        return len(new)

    def backfill(self, batch_size: int = 256, progress: Progress | None = None) -> int:
        """Embed every fragment that lacks a vector. Safe to interrupt and rerun."""
        reason = self._parts.semantic_unavailable_reason()
        if reason:
            raise MemexError(reason)
        with self._parts.writing("vectors"):
            self._parts.apply_vector_deletes()
            done = self._parts.indexer().backfill(batch_size=batch_size, progress=progress)
            self._parts.settle_vectors()
            return done

    def embed_fragments(self, ids: Sequence[str], progress: Progress | None = None) -> int:
        """``Memex.embed_fragments``: embed those of ``ids`` that lack a vector, now; 0 when
        semantic search is unavailable, another process is embedding or the vector store
        does not answer (the fragments then wait for `memex backfill`)."""
        if not ids or self._parts.semantic_unavailable_reason() is not None:
            return 0
        with self._parts.writing():
            if self._vectors_busy() is not None:
                return 0
            try:
                self._parts.apply_vector_deletes()
                unembedded = self._parts.catalog.unembedded_among
                done = self._parts.indexer().embed_missing(ids, unembedded, progress=progress)
                self._parts.settle_vectors()
                return done
            except VectorStoreUnavailableError:
                return 0
            finally:
                self._parts.job_lock("vectors").release()

    def rebuild(
        self, *, keyword: bool = True, vectors: bool = False, progress: Progress | None = None
    ) -> dict[str, int]:
        """Recreate indexes from the catalog (the record of truth)."""
        done: dict[str, int] = {}
        # The keyword index is this home's own; the vectors are shared by every host.
        with self._parts.writing(*(("vectors",) if vectors else ())):
            configured = self._parts.index_context()
            if keyword:
                # Built with the configured turn context, recorded once it is on disk.
                applied = IndexContext(configured.keyword, self._parts.indexed_context().vectors)
                store = self._parts.keyword_store_as_recorded(applied)
                store.clear()
                watermark = self._parts.keyword_watermark(store)
                sync = KeywordSync(self._parts.catalog, store, watermark)
                # Under the lock, all of it (on a shared catalog, whatever commits from
                # here on is replayed again, which changes nothing).
                sync.caught_up_at = sync.clock()
                sync.seen = self._parts.catalog.last_fragment_change()
                progress = progress or NoProgress()
                progress.start("Keyword index", self._parts.catalog.count_fragments())
                batch: list[Fragment] = []
                for fragment in self._parts.catalog.iter_fragments():
                    batch.append(fragment)
                    if len(batch) >= 2000:
                        store.add(batch)
                        progress.advance(len(batch))
                        batch = []
                store.add(batch)
                progress.advance(len(batch))
                store.flush()
                sync.flushed()
                record_keyword_context(self._parts.catalog, configured.keyword)
                progress.finish()
                reopened = ContextualKeywordStore(store.inner, self._parts.index_texts())
                reopened_sync = KeywordSync(self._parts.catalog, reopened, watermark)
                reopened_sync.seen = reopened_sync.flushed_to = sync.seen
                reopened_sync.caught_up_at = sync.caught_up_at
                self._parts.use_keyword_index(reopened, reopened_sync)
                done["keyword"] = store.count()
            if vectors:
                indexer = self._parts.indexer()
                indexer.reset()
                # The store is empty now: every vector from here on has the configured
                # context, so an interrupted backfill resumes with the same.
                record_vector_context(self._parts.catalog, configured.vectors)
                done["vectors"] = indexer.backfill(progress=progress)
                self._parts.settle_vectors()
        return done
