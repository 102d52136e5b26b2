"""Checks of the keyword index against the catalog, and of each index's turn-context setting."""

from __future__ import annotations

from memex_core.services.doctor.findings import (
    DRIFT,
    NOTE,
    SAMPLE_SIZE,
    Finding,
    Inspection,
    plural,
    sample,
)
from memex_core.services.doctor.parts import Patient
from memex_core.services.indexing import apply_changes, full_keyword_diff


def check_keyword(patient: Patient, seen: Inspection, catalog_ids: set[str]) -> None:
    fix_rebuild = "--repair rebuilds the keyword index from the catalog."
    try:
        store = patient.parts.open_keyword()
        verify = getattr(store, "verify", None)
        problems: list[str] = verify() if callable(verify) else []
        if patient.shared and not problems:
            # What any process opening this index sees: the index on disk and the
            # journal since it (other replicas' writes), replayed in memory.
            flushed_to = patient.watermark.load()
            if flushed_to >= patient.pruned():
                _, changed = patient.catalog.fragment_changes_since(flushed_to)
                apply_changes(patient.catalog, store, changed)
            else:  # reported as keyword.journal_pruned; a full comparison is its fix
                full_keyword_diff(patient.catalog, store)
        index_ids = store.ids()
    except Exception as exc:  # any failure to read the index is what we report
        seen.counts["keyword_documents"] = None
        seen.findings.append(Finding("keyword.unreadable", DRIFT, str(exc), fix_rebuild, count=1))
        return
    if problems:
        seen.counts["keyword_documents"] = None
        seen.findings.append(
            Finding(
                "keyword.damaged",
                DRIFT,
                f"The keyword index is damaged: {problems[0]}",
                fix_rebuild,
                count=len(problems),
                sample=tuple(problems[:SAMPLE_SIZE]),
            )
        )
        return
    seen.counts["keyword_documents"] = len(index_ids)
    missing = catalog_ids - index_ids
    if missing:
        seen.findings.append(
            Finding(
                "keyword.missing",
                DRIFT,
                f"{plural(len(missing), 'fragment')} of the catalog are not in the keyword "
                "index (keyword search cannot find them).",
                "--repair adds them from the catalog (any write also would).",
                count=len(missing),
                sample=sample(missing),
            )
        )
    orphans = index_ids - catalog_ids
    if orphans:
        seen.findings.append(
            Finding(
                "keyword.orphans",
                DRIFT,
                f"The keyword index holds {plural(len(orphans), 'document')} the catalog "
                "does not (removed fragments still indexed).",
                "--repair deletes them from the keyword index.",
                count=len(orphans),
                sample=sample(orphans),
            )
        )


def check_index_settings(patient: Patient, seen: Inspection) -> None:
    """An index built with another turn context than config.toml asks for: the keyword
    index is rebuilt by --repair (cheap); re-embedding everything is left to the user."""
    for index, sentence in patient.parts.index_setting_changes():
        if index == "keyword":
            seen.findings.append(
                Finding(
                    "keyword.context_setting",
                    DRIFT,
                    sentence,
                    "--repair (or `memex rebuild`) rebuilds the keyword index with the "
                    "configured setting.",
                    count=1,
                )
            )
        else:
            seen.findings.append(
                Finding(
                    "vectors.context_setting",
                    NOTE,
                    sentence,
                    "Run `memex rebuild --vectors` to re-embed everything with the "
                    "configured setting, or set it back in config.toml. The doctor will "
                    "not re-embed on its own.",
                    count=1,
                )
            )
