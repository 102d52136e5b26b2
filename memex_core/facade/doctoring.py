"""``Memex.doctor``: check the catalog, keyword index and vector store against each other,
and with ``repair`` fix what drifted from the catalog (the record of truth). The checks
themselves are :mod:`memex_core.services.doctor`; this hands them the home's components."""

from __future__ import annotations

from typing import TYPE_CHECKING

from memex_core.services.index_text import pending_changes
from memex_core.services.ports import Progress

if TYPE_CHECKING:
    from memex_core.facade.components import HomeComponents
    from memex_core.facade.writing import Writer
    from memex_core.services.doctor import DoctorReport
    from memex_core.services.doctor.findings import Finding


def run_doctor(
    parts: HomeComponents, writer: Writer, *, repair: bool, progress: Progress | None
) -> DoctorReport:
    """The doctor's report on ``parts`` (repaired first with ``repair``); an unreachable
    catalog is a finding, not a failure."""
    from memex_core.catalog.faults import CatalogUnavailableError
    from memex_core.services.doctor import unreachable_report

    try:
        return _doctor(parts, writer, repair=repair, progress=progress)
    except CatalogUnavailableError as exc:
        # A finding, not a failure: `memex doctor --format json` still answers, and
        # says which server (never its password) and what to do.
        return unreachable_report(str(parts.home), exc.server, exc.reason or str(exc), exc.fix)


def _doctor(
    parts: HomeComponents, writer: Writer, *, repair: bool, progress: Progress | None
) -> DoctorReport:
    from memex_core.services.doctor import Doctor, DoctorParts

    def rebuild_keyword(progress: Progress) -> int:
        return writer.rebuild(keyword=True, progress=progress)["keyword"]

    doctor_parts = DoctorParts(
        home=str(parts.home),
        catalog=parts.catalog,
        open_keyword=parts.keyword_store_as_recorded,
        vector_store=lambda: parts.vector_store,
        embedder=lambda: parts.embedder,
        semantic_reason=parts.semantic_unavailable_reason,
        rebuild_keyword=rebuild_keyword,
        apply_vector_deletes=parts.apply_vector_deletes,
        prepare_vectors=parts.index_texts().for_vectors,
        index_setting_changes=lambda: pending_changes(
            parts.indexed_context(), parts.index_context()
        ),
        keyword_watermark=parts.keyword_watermark,
        replica_timeout=parts.replica_timeout(),
    )
    # A write in progress would look like drift; a repair rewrites shared state (runs,
    # memory rows, vectors), so on a shared catalog it also waits for other hosts' jobs.
    with parts.writing(*(("ingest", "vectors") if repair else ())):
        report = Doctor(doctor_parts).run(repair=repair, progress=progress)
        if repair:  # reopen the keyword index as repaired on next use
            parts.use_keyword_index(None, None)
    report.final.findings.extend(supersession_findings(parts))
    report.final.findings.extend(ranker_findings(parts))
    return report


def supersession_findings(parts: HomeComponents) -> list[Finding]:
    """A note when the default supersession judge is not loaded: facts are then stored
    without closing the ones they update (remembering still works)."""
    from memex_core.services.doctor.findings import Finding

    _, reason = parts.supersession_state()
    if reason is None:
        return []
    return [
        Finding(
            "memory.supersession_unavailable",
            "note",
            f"Facts that change are not being closed: {reason}",
            "Install or enable the plugin that provides it (`memex plugins`), or set "
            '[supersession] use = "none" in config.toml to turn supersession off.',
        )
    ]


def ranker_findings(parts: HomeComponents) -> list[Finding]:
    """A note when hybrid search ranks with ``rrf`` because the default ranker's plugin is
    not loaded (search still works, without the learned rerank)."""
    from memex_core.config import DEFAULT_COMPONENTS, FALLBACK_RANKER
    from memex_core.errors import MemexError
    from memex_core.services.doctor.findings import Finding

    try:
        reason = parts.ranker_fallback()
    except MemexError as exc:  # a ranker named in config.toml, missing or misconfigured
        return [
            Finding(
                "search.ranker_unavailable",
                "error",
                f"Hybrid search cannot rank: {exc}",
                'Fix the [ranker] table of config.toml (or set [ranker] use = "rrf").',
            )
        ]
    if reason is None:
        return []
    default = DEFAULT_COMPONENTS["ranker"]
    return [
        Finding(
            "search.ranker_fallback",
            "note",
            f"Hybrid search ranks with {FALLBACK_RANKER}, not the default {default}: {reason}",
            "Install or enable the plugin that provides it (`memex plugins`), or set "
            f'[ranker] use = "{FALLBACK_RANKER}" in config.toml to choose {FALLBACK_RANKER}.',
        )
    ]
