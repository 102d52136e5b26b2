"""Checks of the vector store against the catalog: which fragments have a vector, by which
embedder, and whether the store was built by the embedder configured now."""

from __future__ import annotations

from memex_core.domain import Embedder, VectorStore
from memex_core.services.doctor.findings import (
    DAMAGE,
    DRIFT,
    NOTE,
    Finding,
    Inspection,
    plural,
    sample,
)
from memex_core.services.doctor.parts import Patient
from memex_core.services.indexing import EMBEDDER_SETTING, embedder_signature


def check_vectors(patient: Patient, seen: Inspection, catalog_ids: set[str]) -> None:
    reason = patient.parts.semantic_reason()
    if reason is not None:
        seen.counts["vectors"] = None
        seen.findings.append(
            Finding(
                "vectors.not_checked",
                NOTE,
                f"Vectors were not checked: {reason}",
                "Install the embedder and vector store to use (and check) semantic search.",
            )
        )
        return
    catalog = patient.catalog
    marks = catalog.embedded_ids()
    seen.counts["embedded"] = len(marks)
    pending = catalog.pending_vector_deletes()
    seen.counts["pending_vector_deletes"] = len(pending)
    try:
        embedder = patient.parts.embedder()
        store = patient.parts.vector_store()
        _check_embedder(patient, seen, embedder, store)
        list_ids = getattr(store, "ids", None)
        vector_ids: set[str] | None = set(list_ids()) if callable(list_ids) else None
        vector_count = len(vector_ids) if vector_ids is not None else store.count()
    except Exception as exc:  # an unreadable store is what we report
        seen.counts["vectors"] = None
        seen.findings.append(
            Finding(
                "vectors.unreadable",
                DRIFT,
                f"The vector store cannot be read: {exc}",
                "--repair clears it and embeds every fragment again.",
                count=1,
            )
        )
        return
    seen.counts["vectors"] = vector_count
    if pending:
        seen.findings.append(
            Finding(
                "vectors.pending_deletes",
                DRIFT,
                f"{plural(len(pending), 'vector')} of removed fragments are still to be "
                "deleted (a write stopped before deleting them).",
                "--repair deletes them (so would the next ingest or backfill).",
                count=len(pending),
                sample=sample(pending),
            )
        )
    ours = {i for i, by in marks.items() if by == embedder.name}
    others = set(marks) - ours
    if others:
        seen.findings.append(
            Finding(
                "vectors.other_embedder",
                DRIFT,
                f"{plural(len(others), 'fragment')} are recorded as embedded by another "
                f"embedder than {embedder.name!r}.",
                "--repair embeds them again with the configured embedder.",
                count=len(others),
                sample=sample(others),
            )
        )
    if vector_ids is None:
        if vector_count != len(marks) + len(pending):
            seen.findings.append(
                Finding(
                    "vectors.count",
                    DRIFT,
                    f"The vector store holds {vector_count:,} vectors; the catalog records "
                    f"{len(marks):,} (this store cannot list ids to say which differ).",
                    "--repair clears the vector store and embeds every fragment again.",
                    count=abs(vector_count - len(marks)),
                )
            )
    else:
        _compare_vector_ids(seen, catalog_ids, vector_ids, ours, set(pending))
    unembedded = len(catalog_ids) - len(marks)
    if unembedded > 0:
        seen.findings.append(
            Finding(
                "vectors.not_embedded",
                NOTE,
                f"{plural(unembedded, 'fragment')} have no vector yet (ingested with "
                "--no-embed, or embedding was interrupted); semantic search misses them.",
                "Run `memex backfill` (--repair embeds them too).",
                count=unembedded,
            )
        )


def _check_embedder(
    patient: Patient, seen: Inspection, embedder: Embedder, store: VectorStore
) -> None:
    configured = embedder_signature(embedder)
    recorded = patient.catalog.get_setting(EMBEDDER_SETTING)
    stored = getattr(store, "stored_embedding", None)
    in_store = stored() if callable(stored) else (None, None)
    differs = []
    if recorded and recorded != configured:
        differs.append(f"the catalog records {recorded}")
    name, dimension = in_store
    if (name and name != embedder.name) or (dimension and dimension != embedder.dimension):
        differs.append(f"the vector store holds {name or '?'}:{dimension or '?'}")
    if differs:
        seen.findings.append(
            Finding(
                "vectors.embedder_mismatch",
                DAMAGE,
                f"The configured embedder is {configured}, but " + " and ".join(differs) + ".",
                "Choose: run `memex rebuild --vectors` to re-embed everything with the "
                "configured embedder, or set the embedder in config.toml back to the one "
                "that built the vectors. The doctor will not re-embed on its own.",
                count=1,
            )
        )


def _compare_vector_ids(
    seen: Inspection,
    catalog_ids: set[str],
    vector_ids: set[str],
    ours: set[str],
    pending: set[str],
) -> None:
    missing = ours - vector_ids
    if missing:
        seen.findings.append(
            Finding(
                "vectors.missing",
                DRIFT,
                f"{plural(len(missing), 'fragment')} are recorded as embedded but have no "
                "vector (semantic search cannot find them).",
                "--repair embeds exactly these again.",
                count=len(missing),
                sample=sample(missing),
            )
        )
    orphans = vector_ids - catalog_ids - pending
    if orphans:
        seen.findings.append(
            Finding(
                "vectors.orphans",
                DRIFT,
                f"The vector store holds {plural(len(orphans), 'vector')} of fragments the "
                "catalog does not have.",
                "--repair deletes them from the vector store.",
                count=len(orphans),
                sample=sample(orphans),
            )
        )
