"""What the doctor examines: the parts :class:`memex_core.api.Memex` hands it, and this
home's place in the change journal (which decides what counts as drift)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from memex_core.catalog import SqlCatalog
from memex_core.domain import Embedder, Fragment, KeywordStore, VectorStore
from memex_core.services.indexing import (
    CHANGES_PRUNED_SETTING,
    CatalogWatermark,
    KeywordWatermark,
)
from memex_core.services.ports import Progress


@dataclass
class DoctorParts:
    """What the doctor works on, supplied by :class:`memex_core.api.Memex`.

    ``open_keyword`` builds a fresh keyword store as it is on disk (no catch-up, so
    drift stays visible); ``semantic_reason`` is why vectors cannot be checked
    (None when they can); ``rebuild_keyword`` recreates the keyword index from the
    catalog; ``apply_vector_deletes`` deletes the vectors the catalog queued;
    ``prepare_vectors`` adds turn context to what is embedded and
    ``index_setting_changes`` names each index built with another turn context than
    configured (both from :mod:`memex_core.services.index_text`).
    """

    home: str
    catalog: SqlCatalog
    open_keyword: Callable[[], KeywordStore]
    vector_store: Callable[[], VectorStore]
    embedder: Callable[[], Embedder]
    semantic_reason: Callable[[], str | None]
    rebuild_keyword: Callable[[Progress], int]
    apply_vector_deletes: Callable[[], int]
    prepare_vectors: Callable[[list[Fragment]], list[Fragment]] | None = None
    index_setting_changes: Callable[[], list[tuple[str, str]]] = list
    #: Where this home's keyword index keeps its place in the journal (the catalog's
    #: setting when None); on a shared catalog, a file of the home's own.
    keyword_watermark: Callable[[], KeywordWatermark] | None = None
    #: Replicas sharing the catalog, not heard from within this many seconds, are named.
    replica_timeout: float = 24 * 3600.0
    clock: Callable[[], float] = time.time


class Patient:
    """The parts under examination, with this home's keyword watermark.

    Every check and repair reads the same catalog and watermark, so they are
    made once per doctor run, here.
    """

    def __init__(self, parts: DoctorParts) -> None:
        self.parts = parts
        self.catalog = parts.catalog
        make = parts.keyword_watermark
        self.watermark: KeywordWatermark = make() if make else CatalogWatermark(self.catalog)
        #: Several homes share the catalog: journal entries this home's index has not
        #: replayed yet are other replicas' writes, not drift.
        self.shared = not self.watermark.exclusive

    def pruned(self) -> int:
        """How far the change journal is pruned (0 when never)."""
        value = self.catalog.get_setting(CHANGES_PRUNED_SETTING) or "0"
        return int(value) if value.isdigit() else 0

    def replicas_gone(self) -> list[tuple[str, int, float]]:
        """Replicas sharing the catalog not heard from within ``replica_timeout``."""
        heard_since = self.parts.clock() - self.parts.replica_timeout
        return [r for r in self.catalog.replicas() if r[2] < heard_since]
