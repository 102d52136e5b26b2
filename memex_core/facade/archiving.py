"""``Memex.export_archive`` and ``Memex.import_archive``: a home to one file and back.

Both hold the home's write lock: an export reads one consistent state, an import writes
its one transaction and then brings the indexes up to it (the keyword index replays the
catalog's change journal; fragments without a vector are embedded, as after an ingest).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import IO, TYPE_CHECKING

from memex_core.domain.memory.paths import validate_user_id
from memex_core.services.archive_export import ArchiveWriter, ExportReport
from memex_core.services.archive_format import ArchiveError, Filters
from memex_core.services.archive_import import ArchiveImporter, ImportReport
from memex_core.services.archive_vectors import vector_source
from memex_core.services.index_text import KEYWORD_CONTEXT_SETTING, VECTOR_CONTEXT_SETTING
from memex_core.services.indexing import embedder_build, embedder_signature
from memex_core.services.ports import Progress
from memex_core.services.search import VectorStoreUnavailableError

if TYPE_CHECKING:
    from memex_core.facade.components import HomeComponents


def _version() -> str:
    from memex_core import __version__

    return __version__


def export_archive(
    parts: HomeComponents,
    target: Path | IO[bytes],
    filters: Filters,
    *,
    with_vectors: bool = False,
    with_log: bool = True,
    progress: Progress | None = None,
) -> ExportReport:
    if filters.user is not None:
        validate_user_id(filters.user)
    vectors = None
    if with_vectors:
        if (reason := parts.semantic_unavailable_reason()) is not None:
            raise ArchiveError(f"--with-vectors: {reason}")
        vectors = vector_source(parts.vector_store, parts.config.component("vector_store"))
    with parts.lock:
        return ArchiveWriter(parts.catalog, _version(), vectors).export(
            target,
            filters=filters,
            with_log=with_log,
            with_vectors=with_vectors,
            progress=progress,
        )


def import_archive(
    parts: HomeComponents,
    source: Path | IO[bytes],
    *,
    user: str | None = None,
    dry_run: bool = False,
    embed: bool = True,
    progress: Progress | None = None,
) -> ImportReport:
    """Import ``source``; ``user``: as an agent bound to that user (only their memory)."""
    if user is not None:
        validate_user_id(user)
    # The write lock without ``writing()``'s settling of the turn context: an empty home
    # records the archive's (or else its configured one) inside the import's transaction,
    # so a refused or dry-run import leaves even a brand-new home untouched.
    configured = parts.index_context()
    defaults = {
        KEYWORD_CONTEXT_SETTING: configured.keyword.signature(),
        VECTOR_CONTEXT_SETTING: configured.vectors.signature(),
    }
    embedder = None
    if embed and parts.semantic_unavailable_reason() is None:
        embedder = {
            "embedder": embedder_signature(parts.embedder),
            "build": embedder_build(parts.embedder),
        }
    with parts.lock, parts.job_lock("ingest"):
        sync = parts.keyword_sync
        sync.catch_up()  # another process may have written since this one opened
        importer = ArchiveImporter(parts.catalog, user, defaults, embedder)
        report = importer.run(source, dry_run=dry_run, progress=progress)
        if dry_run or not report.changed:
            return report
        started = time.perf_counter()
        planned, report.vectors_used = report.vectors_used, 0  # stored below, or none
        sync.flush()  # replays the journal the import's rows wrote: added and removed
        if not embed:
            report.embedding_skipped_reason = "skipped on request (run `memex backfill`)"
        elif (reason := parts.semantic_unavailable_reason()) is not None:
            report.embedding_skipped_reason = reason
        elif not parts.job_lock("vectors").try_acquire():
            report.embedding_skipped_reason = "another process is embedding; it embeds these too"
        else:
            try:
                parts.apply_vector_deletes()
                indexer = parts.indexer()
                if planned:  # the archive's vectors first: backfill embeds only the rest
                    report.vectors_used = importer.store_vectors(
                        source, report, indexer, parts.catalog
                    )
                report.embedded = indexer.backfill(progress=progress)
                parts.settle_vectors()
            except VectorStoreUnavailableError as exc:
                report.embedding_skipped_reason = f"{exc} Run `memex backfill` later."
            finally:
                parts.job_lock("vectors").release()
        report.index_seconds = time.perf_counter() - started
    return report
