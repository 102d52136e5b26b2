"""``--repair``: fix every drift finding from the catalog, the record of truth."""

from __future__ import annotations

from memex_core.services.doctor.findings import Inspection, plural
from memex_core.services.doctor.parts import Patient
from memex_core.services.indexing import KeywordSync, VectorIndexer, full_keyword_diff
from memex_core.services.ports import Progress


def repair(patient: Patient, found: Inspection, progress: Progress) -> list[str]:
    """Fix every drift finding from the catalog; returns what was done, in words."""
    done: list[str] = []
    catalog = patient.catalog
    codes = found.codes()
    if "catalog.damaged" in codes:
        return done  # indexes rebuilt from a damaged catalog would spread the damage
    reindex: list[str] = []

    runs = catalog.interrupted_runs()
    if runs:
        catalog.close_interrupted_runs([r[0] for r in runs])
        done.append(f"recorded {plural(len(runs), 'stopped ingest run')} as interrupted")
    if "catalog.replicas_gone" in codes:
        gone = patient.replicas_gone()
        for name, _seen, _at in gone:
            catalog.forget_replica(name)
        done.append(f"forgot {plural(len(gone), 'replica')} not heard from lately")
    drift = catalog.memory_drift()
    if drift.inactive_fragments:
        catalog.retire_fragments(drift.inactive_fragments)
        done.append(
            f"removed {plural(len(drift.inactive_fragments), 'fragment')} of deleted memories"
        )
    if drift.scope_mismatch:
        catalog.copy_memory_scope(drift.scope_mismatch)
        reindex = drift.scope_mismatch
        done.append(
            f"gave {plural(len(reindex), 'memory fragment')} their memory's owner, "
            "collection and privacy"
        )

    done.extend(_repair_keyword(patient, codes, reindex, progress))
    if "vectors.not_checked" not in codes and "vectors.embedder_mismatch" not in codes:
        try:
            done.extend(_repair_vectors(patient, codes, reindex, progress))
        except Exception as exc:  # a store that cannot be reached stays as found
            done.append(f"could not repair the vector store: {exc}")
    return done


def _repair_keyword(
    patient: Patient, codes: set[str], reindex: list[str], progress: Progress
) -> list[str]:
    if codes & {"keyword.unreadable", "keyword.damaged", "keyword.context_setting"}:
        count = patient.parts.rebuild_keyword(progress)
        return [f"rebuilt the keyword index from the catalog ({plural(count, 'fragment')})"]
    store = patient.parts.open_keyword()
    sync = KeywordSync(patient.catalog, store, patient.watermark)
    if reindex:
        store.delete(reindex)  # added back below with their corrected scope
    added, removed = full_keyword_diff(patient.catalog, store)
    if not (added or removed):
        return []
    store.flush()
    sync.own_changes_applied()  # we hold the write lock: the index now is the catalog
    sync.flushed()
    done = []
    if added:
        done.append(f"added {plural(added, 'fragment')} to the keyword index")
    if removed - len(reindex) > 0:
        done.append(f"deleted {plural(removed - len(reindex), 'orphan')} from the keyword index")
    return done


def _repair_vectors(
    patient: Patient, codes: set[str], reindex: list[str], progress: Progress
) -> list[str]:
    catalog = patient.catalog
    done: list[str] = []
    embedder = patient.parts.embedder()
    store = patient.parts.vector_store()
    indexer = VectorIndexer(catalog, store, embedder, patient.parts.prepare_vectors)
    if codes & {"vectors.unreadable", "vectors.count"}:
        indexer.reset()
        done.append("cleared the vector store to embed everything again")
    else:
        deleted = patient.parts.apply_vector_deletes()
        if deleted:
            done.append(f"deleted {plural(deleted, 'queued vector')} of removed fragments")
        list_ids = getattr(store, "ids", None)
        if callable(list_ids):
            vector_ids = set(list_ids())
            marks = catalog.embedded_ids()
            orphans = vector_ids - catalog.all_ids()
            if orphans:
                store.delete(sorted(orphans))
                done.append(f"deleted {plural(len(orphans), 'orphan vector')}")
            stale = [i for i, by in marks.items() if i not in vector_ids or by != embedder.name]
            if stale:
                catalog.unmark_embedded(stale)
                done.append(f"marked {plural(len(stale), 'fragment')} to embed again")
        if reindex:
            store.delete(reindex)
            catalog.unmark_embedded(reindex)
    embedded = indexer.backfill(progress=progress)
    if embedded:
        done.append(f"embedded {plural(embedded, 'fragment')}")
    return done
