"""Checks of the catalog itself: integrity, schema, stopped runs, the change journal, memories.

The catalog is the record of truth, so what is wrong here is mostly ``damage`` (a
person has to decide) rather than ``drift`` (the doctor repairs it from the catalog).
"""

from __future__ import annotations

from collections.abc import Collection

from memex_core.services.doctor.findings import (
    DAMAGE,
    DRIFT,
    NOTE,
    SAMPLE_SIZE,
    Finding,
    Inspection,
    plural,
    sample,
)
from memex_core.services.doctor.parts import Patient


def check_catalog(patient: Patient, seen: Inspection) -> set[str] | None:
    catalog = patient.catalog
    problems = catalog.quick_check()
    if problems != ["ok"]:
        seen.findings.append(
            Finding(
                "catalog.damaged",
                DAMAGE,
                f"{catalog.engine} finds the catalog {catalog.location} damaged or "
                f"unusable: {problems[0]}",
                "The catalog is the record of truth and cannot be rebuilt from the "
                "indexes. Restore it from a backup, or move it away and ingest your "
                "sources again.",
                count=len(problems),
                sample=tuple(problems[:SAMPLE_SIZE]),
            )
        )
        return None
    version = catalog.schema_version()
    seen.counts["schema_version"] = version
    if version != catalog.latest_version:
        seen.findings.append(
            Finding(
                "catalog.schema",
                DAMAGE,
                f"The catalog has schema version {version}; this memex uses "
                f"{catalog.latest_version}.",
                "Run any memex command with this version to migrate it, or upgrade memex "
                "if the catalog is newer.",
            )
        )
    runs = catalog.interrupted_runs()
    if runs:
        seen.findings.append(
            Finding(
                "catalog.interrupted_runs",
                NOTE,
                f"{plural(len(runs), 'ingest run')} stopped without finishing (killed or "
                "crashed). Each file is committed whole or not at all, so the catalog "
                "holds no partial file; rerun the ingest to add what it did not reach.",
                "--repair records these runs as interrupted.",
                count=len(runs),
                sample=tuple(f"run {r[0]}: {r[2]}" for r in runs[:SAMPLE_SIZE]),
            )
        )
    ids = catalog.all_ids()
    seen.counts["fragments"] = len(ids)
    flushed_to = patient.watermark.load()
    _, journal = catalog.fragment_changes_since(flushed_to)
    seen.counts["changes_not_flushed"] = len(journal)
    _check_journal(patient, seen, flushed_to)
    return ids


def _check_journal(patient: Patient, seen: Inspection, flushed_to: int) -> None:
    """How far this home's keyword index on disk is behind the catalog, how far the
    journal is pruned, and (shared catalog) replicas not heard from lately."""
    catalog = patient.catalog
    head = catalog.last_fragment_change()
    pruned = patient.pruned()
    seen.counts["journal_head"] = head
    seen.counts["keyword_flushed_to"] = flushed_to
    seen.counts["journal_pruned_to"] = pruned
    if not patient.shared:
        return
    if flushed_to < pruned:
        seen.findings.append(
            Finding(
                "keyword.journal_pruned",
                NOTE,
                f"The change journal is pruned up to entry {pruned:,}, past this home's "
                f"keyword index on disk (entry {flushed_to:,}): the other replicas stopped "
                "waiting for it ([catalog] replica_timeout). The next memex process here "
                "compares the whole index with the catalog (slow on a big catalog).",
                "Run `memex rebuild` here now (or leave it to the next process).",
                count=pruned - flushed_to,
            )
        )
    elif head > flushed_to:
        seen.findings.append(
            Finding(
                "keyword.behind",
                NOTE,
                f"This home's keyword index on disk is {head - flushed_to:,} journal "
                f"entries behind the catalog (at {flushed_to:,}, catalog at {head:,}): "
                "writes of other replicas. Every memex process here replays them when "
                "it opens the index, and `memex serve` follows continuously (its lag is "
                "on /readyz).",
                "Nothing to do; a `memex serve` here flushes them within [serve] flush_interval.",
                count=head - flushed_to,
            )
        )
    gone = patient.replicas_gone()
    if gone:
        seen.findings.append(
            Finding(
                "catalog.replicas_gone",
                NOTE,
                f"{plural(len(gone), 'replica')} sharing this catalog "
                f"{'was' if len(gone) == 1 else 'were'} not heard from within [catalog] "
                "replica_timeout; the journal is pruned without waiting for them (each "
                "compares its whole keyword index with the catalog when it comes back).",
                "Nothing to do if they come back; --repair forgets them (a replica that "
                "comes back afterwards is listed again at its first flush).",
                count=len(gone),
                sample=tuple(f"{r[0]} (at {r[1]:,})" for r in gone[:SAMPLE_SIZE]),
            )
        )


def check_memory(patient: Patient, seen: Inspection) -> None:
    drift = patient.catalog.memory_drift()
    seen.counts["memories"] = patient.catalog.count_memories()
    checks: list[tuple[str, str, Collection[str], str, str]] = [
        (
            "memory.missing_revision",
            DAMAGE,
            drift.missing_revision,
            "memories whose current revision is missing from memory_revisions",
            'Not repairable from the catalog. Look at them with `memex sql "SELECT * FROM '
            "memories WHERE id = '<id>'\"` and restore a revision as an operator.",
        ),
        (
            "memory.inactive_fragments",
            DRIFT,
            drift.inactive_fragments,
            "searchable fragments belong to deleted or invalidated memories",
            "--repair removes them from the catalog and both indexes (the memories' "
            "revisions keep their text).",
        ),
        (
            "memory.scope_mismatch",
            DRIFT,
            drift.scope_mismatch,
            "memory fragments carry another owner, collection or privacy than their memory",
            "--repair copies the memory's scope onto them and re-indexes them.",
        ),
        (
            "memory.orphan_fragments",
            DAMAGE,
            drift.orphan_fragments,
            "memory fragments belong to no memory",
            "Not repaired automatically (that would delete text). Inspect them with "
            '`memex sql "SELECT id, conversation_id, content FROM fragments WHERE '
            "source_kind = 'memory'\"`.",
        ),
        (
            "memory.without_fragments",
            DAMAGE,
            drift.active_without_fragments,
            "active memories have no searchable fragment",
            "Not repaired automatically. Update each such memory as an operator (its "
            "fragments are written again).",
        ),
    ]
    for code, severity, ids, what, fix in checks:
        if ids:
            seen.findings.append(
                Finding(
                    code,
                    severity,
                    f"{len(ids):,} {what}.",
                    fix,
                    count=len(ids),
                    sample=sample(ids),
                )
            )


# -- repairing -----------------------------------------------------------------------
