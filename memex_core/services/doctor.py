"""``memex doctor``: check the catalog, keyword index and vector store against each other.

The catalog is the record of truth; both indexes are derived from it. The
doctor compares them by id (not only by count), and reports every disagreement
as a :class:`Finding`:

- ``drift``: an index (or a derived row) disagrees with the catalog. ``--repair``
  fixes it from the catalog: missing keyword documents and vectors are added
  (embedding only what is missing), orphans deleted, a damaged keyword index
  rebuilt. Nothing in the catalog is lost.
- ``damage``: something the catalog itself would have to be fixed for (a
  corrupt file, a memory without its current revision). Needs a person; the
  finding says what to do.
- ``note``: worth knowing, not wrong (fragments not embedded yet, an ingest run
  that was killed but whose files were all committed or not at all).
- ``error``: the doctor could not check at all: the catalog's server does not answer
  (``catalog.unreachable``, :func:`unreachable_report`). Nothing was compared.

Exit status of the CLI: 0 when nothing is error, drift or damage, 1 otherwise.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from typing import Any

from memex_core.catalog import SqlCatalog
from memex_core.domain import Embedder, Fragment, KeywordStore, VectorStore
from memex_core.services.indexing import (
    CHANGES_PRUNED_SETTING,
    EMBEDDER_SETTING,
    CatalogWatermark,
    KeywordSync,
    KeywordWatermark,
    VectorIndexer,
    apply_changes,
    embedder_signature,
    full_keyword_diff,
)
from memex_core.services.ports import NoProgress, Progress

ERROR, DRIFT, DAMAGE, NOTE = "error", "drift", "damage", "note"
SEVERITIES = (ERROR, DAMAGE, DRIFT, NOTE)
SAMPLE_SIZE = 5


@dataclass(frozen=True)
class Finding:
    """One disagreement (or remark). ``code`` is stable, for scripts: ``keyword.missing``."""

    code: str
    severity: str
    summary: str
    fix: str
    count: int = 0
    sample: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity,
            "summary": self.summary,
            "count": self.count,
            "sample": list(self.sample),
            "fix": self.fix,
        }


@dataclass
class Inspection:
    """What one pass of checks saw: counts per store and the findings."""

    counts: dict[str, int | None] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        return not any(f.severity in (ERROR, DRIFT, DAMAGE) for f in self.findings)

    def codes(self) -> set[str]:
        return {f.code for f in self.findings}

    def get(self, code: str) -> Finding | None:
        return next((f for f in self.findings if f.code == code), None)


@dataclass
class DoctorReport:
    """The state after the doctor ran; with ``--repair``, what it found first and did."""

    home: str
    final: Inspection
    before: Inspection | None = None  # set when a repair ran
    repairs: list[str] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        return self.final.healthy

    @property
    def findings(self) -> list[Finding]:
        return self.final.findings

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "home": self.home,
            "healthy": self.healthy,
            "counts": self.final.counts,
            "findings": [f.to_dict() for f in self.final.findings],
        }
        if self.before is not None:
            out["repaired"] = self.repairs
            out["found_before_repair"] = [f.to_dict() for f in self.before.findings]
        return out


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


def _pruned(catalog: SqlCatalog) -> int:
    value = catalog.get_setting(CHANGES_PRUNED_SETTING) or "0"
    return int(value) if value.isdigit() else 0


def _sample(ids: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(ids)[:SAMPLE_SIZE])


def _plural(count: int, word: str) -> str:
    return f"{count:,} {word}" + ("" if count == 1 else "s")


class Doctor:
    def __init__(self, parts: DoctorParts) -> None:
        self.parts = parts
        self.catalog = parts.catalog
        make = parts.keyword_watermark
        self.watermark: KeywordWatermark = make() if make else CatalogWatermark(self.catalog)
        #: Several homes share the catalog: journal entries this home's index has not
        #: replayed yet are other replicas' writes, not drift.
        self.shared = not self.watermark.exclusive

    def run(self, *, repair: bool = False, progress: Progress | None = None) -> DoctorReport:
        progress = progress or NoProgress()
        first = self.check()
        if not repair:
            return DoctorReport(self.parts.home, first)
        repairs = self.repair(first, progress)
        return DoctorReport(self.parts.home, self.check(), before=first, repairs=repairs)

    # -- checking ------------------------------------------------------------------------

    def check(self) -> Inspection:
        seen = Inspection()
        catalog_ids = self._check_catalog(seen)
        if catalog_ids is not None:  # a damaged catalog cannot be compared with anything
            self._check_keyword(seen, catalog_ids)
            self._check_vectors(seen, catalog_ids)
            self._check_memory(seen)
            self._check_index_settings(seen)
        order = {severity: n for n, severity in enumerate(SEVERITIES)}
        seen.findings.sort(key=lambda f: (order[f.severity], f.code))
        return seen

    def _check_catalog(self, seen: Inspection) -> set[str] | None:
        catalog = self.catalog
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
                    f"{_plural(len(runs), 'ingest run')} stopped without finishing (killed or "
                    "crashed). Each file is committed whole or not at all, so the catalog "
                    "holds no partial file; rerun the ingest to add what it did not reach.",
                    "--repair records these runs as interrupted.",
                    count=len(runs),
                    sample=tuple(f"run {r[0]}: {r[2]}" for r in runs[:SAMPLE_SIZE]),
                )
            )
        ids = catalog.all_ids()
        seen.counts["fragments"] = len(ids)
        flushed_to = self.watermark.load()
        _, journal = catalog.fragment_changes_since(flushed_to)
        seen.counts["changes_not_flushed"] = len(journal)
        self._check_journal(seen, flushed_to)
        return ids

    def _check_journal(self, seen: Inspection, flushed_to: int) -> None:
        """How far this home's keyword index on disk is behind the catalog, how far the
        journal is pruned, and (shared catalog) replicas not heard from lately."""
        catalog = self.catalog
        head = catalog.last_fragment_change()
        pruned = _pruned(catalog)
        seen.counts["journal_head"] = head
        seen.counts["keyword_flushed_to"] = flushed_to
        seen.counts["journal_pruned_to"] = pruned
        if not self.shared:
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
                    "Nothing to do; a `memex serve` here flushes them within [serve] "
                    "flush_interval.",
                    count=head - flushed_to,
                )
            )
        gone = self._replicas_gone()
        if gone:
            seen.findings.append(
                Finding(
                    "catalog.replicas_gone",
                    NOTE,
                    f"{_plural(len(gone), 'replica')} sharing this catalog "
                    f"{'was' if len(gone) == 1 else 'were'} not heard from within [catalog] "
                    "replica_timeout; the journal is pruned without waiting for them (each "
                    "compares its whole keyword index with the catalog when it comes back).",
                    "Nothing to do if they come back; --repair forgets them (a replica that "
                    "comes back afterwards is listed again at its first flush).",
                    count=len(gone),
                    sample=tuple(f"{r[0]} (at {r[1]:,})" for r in gone[:SAMPLE_SIZE]),
                )
            )

    def _replicas_gone(self) -> list[tuple[str, int, float]]:
        heard_since = self.parts.clock() - self.parts.replica_timeout
        return [r for r in self.catalog.replicas() if r[2] < heard_since]

    def _check_keyword(self, seen: Inspection, catalog_ids: set[str]) -> None:
        fix_rebuild = "--repair rebuilds the keyword index from the catalog."
        try:
            store = self.parts.open_keyword()
            verify = getattr(store, "verify", None)
            problems: list[str] = verify() if callable(verify) else []
            if self.shared and not problems:
                # What any process opening this index sees: the index on disk and the
                # journal since it (other replicas' writes), replayed in memory.
                flushed_to = self.watermark.load()
                if flushed_to >= _pruned(self.catalog):
                    _, changed = self.catalog.fragment_changes_since(flushed_to)
                    apply_changes(self.catalog, store, changed)
                else:  # reported as keyword.journal_pruned; a full comparison is its fix
                    full_keyword_diff(self.catalog, store)
            index_ids = store.ids()
        except Exception as exc:  # any failure to read the index is what we report
            seen.counts["keyword_documents"] = None
            seen.findings.append(
                Finding("keyword.unreadable", DRIFT, str(exc), fix_rebuild, count=1)
            )
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
                    f"{_plural(len(missing), 'fragment')} of the catalog are not in the keyword "
                    "index (keyword search cannot find them).",
                    "--repair adds them from the catalog (any write also would).",
                    count=len(missing),
                    sample=_sample(missing),
                )
            )
        orphans = index_ids - catalog_ids
        if orphans:
            seen.findings.append(
                Finding(
                    "keyword.orphans",
                    DRIFT,
                    f"The keyword index holds {_plural(len(orphans), 'document')} the catalog "
                    "does not (removed fragments still indexed).",
                    "--repair deletes them from the keyword index.",
                    count=len(orphans),
                    sample=_sample(orphans),
                )
            )

    def _check_vectors(self, seen: Inspection, catalog_ids: set[str]) -> None:
        reason = self.parts.semantic_reason()
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
        catalog = self.catalog
        marks = catalog.embedded_ids()
        seen.counts["embedded"] = len(marks)
        pending = catalog.pending_vector_deletes()
        seen.counts["pending_vector_deletes"] = len(pending)
        try:
            embedder = self.parts.embedder()
            store = self.parts.vector_store()
            self._check_embedder(seen, embedder, store)
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
                    f"{_plural(len(pending), 'vector')} of removed fragments are still to be "
                    "deleted (a write stopped before deleting them).",
                    "--repair deletes them (so would the next ingest or backfill).",
                    count=len(pending),
                    sample=_sample(pending),
                )
            )
        ours = {i for i, by in marks.items() if by == embedder.name}
        others = set(marks) - ours
        if others:
            seen.findings.append(
                Finding(
                    "vectors.other_embedder",
                    DRIFT,
                    f"{_plural(len(others), 'fragment')} are recorded as embedded by another "
                    f"embedder than {embedder.name!r}.",
                    "--repair embeds them again with the configured embedder.",
                    count=len(others),
                    sample=_sample(others),
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
            self._compare_vector_ids(seen, catalog_ids, vector_ids, ours, set(pending))
        unembedded = len(catalog_ids) - len(marks)
        if unembedded > 0:
            seen.findings.append(
                Finding(
                    "vectors.not_embedded",
                    NOTE,
                    f"{_plural(unembedded, 'fragment')} have no vector yet (ingested with "
                    "--no-embed, or embedding was interrupted); semantic search misses them.",
                    "Run `memex backfill` (--repair embeds them too).",
                    count=unembedded,
                )
            )

    def _check_embedder(self, seen: Inspection, embedder: Embedder, store: VectorStore) -> None:
        configured = embedder_signature(embedder)
        recorded = self.catalog.get_setting(EMBEDDER_SETTING)
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
        self,
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
                    f"{_plural(len(missing), 'fragment')} are recorded as embedded but have no "
                    "vector (semantic search cannot find them).",
                    "--repair embeds exactly these again.",
                    count=len(missing),
                    sample=_sample(missing),
                )
            )
        orphans = vector_ids - catalog_ids - pending
        if orphans:
            seen.findings.append(
                Finding(
                    "vectors.orphans",
                    DRIFT,
                    f"The vector store holds {_plural(len(orphans), 'vector')} of fragments the "
                    "catalog does not have.",
                    "--repair deletes them from the vector store.",
                    count=len(orphans),
                    sample=_sample(orphans),
                )
            )

    def _check_index_settings(self, seen: Inspection) -> None:
        """An index built with another turn context than config.toml asks for: the keyword
        index is rebuilt by --repair (cheap); re-embedding everything is left to the user."""
        for index, sentence in self.parts.index_setting_changes():
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

    def _check_memory(self, seen: Inspection) -> None:
        drift = self.catalog.memory_drift()
        seen.counts["memories"] = self.catalog.count_memories()
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
                        sample=_sample(ids),
                    )
                )

    # -- repairing -----------------------------------------------------------------------

    def repair(self, found: Inspection, progress: Progress) -> list[str]:
        """Fix every drift finding from the catalog; returns what was done, in words."""
        done: list[str] = []
        catalog = self.catalog
        codes = found.codes()
        if "catalog.damaged" in codes:
            return done  # indexes rebuilt from a damaged catalog would spread the damage
        reindex: list[str] = []

        runs = catalog.interrupted_runs()
        if runs:
            catalog.close_interrupted_runs([r[0] for r in runs])
            done.append(f"recorded {_plural(len(runs), 'stopped ingest run')} as interrupted")
        if "catalog.replicas_gone" in codes:
            gone = self._replicas_gone()
            for name, _seen, _at in gone:
                catalog.forget_replica(name)
            done.append(f"forgot {_plural(len(gone), 'replica')} not heard from lately")
        drift = catalog.memory_drift()
        if drift.inactive_fragments:
            catalog.retire_fragments(drift.inactive_fragments)
            done.append(
                f"removed {_plural(len(drift.inactive_fragments), 'fragment')} of deleted memories"
            )
        if drift.scope_mismatch:
            catalog.copy_memory_scope(drift.scope_mismatch)
            reindex = drift.scope_mismatch
            done.append(
                f"gave {_plural(len(reindex), 'memory fragment')} their memory's owner, "
                "collection and privacy"
            )

        done.extend(self._repair_keyword(codes, reindex, progress))
        if "vectors.not_checked" not in codes and "vectors.embedder_mismatch" not in codes:
            try:
                done.extend(self._repair_vectors(codes, reindex, progress))
            except Exception as exc:  # a store that cannot be reached stays as found
                done.append(f"could not repair the vector store: {exc}")
        return done

    def _repair_keyword(self, codes: set[str], reindex: list[str], progress: Progress) -> list[str]:
        if codes & {"keyword.unreadable", "keyword.damaged", "keyword.context_setting"}:
            count = self.parts.rebuild_keyword(progress)
            return [f"rebuilt the keyword index from the catalog ({_plural(count, 'fragment')})"]
        store = self.parts.open_keyword()
        sync = KeywordSync(self.catalog, store, self.watermark)
        if reindex:
            store.delete(reindex)  # added back below with their corrected scope
        added, removed = full_keyword_diff(self.catalog, store)
        if not (added or removed):
            return []
        store.flush()
        sync.own_changes_applied()  # we hold the write lock: the index now is the catalog
        sync.flushed()
        done = []
        if added:
            done.append(f"added {_plural(added, 'fragment')} to the keyword index")
        if removed - len(reindex) > 0:
            done.append(
                f"deleted {_plural(removed - len(reindex), 'orphan')} from the keyword index"
            )
        return done

    def _repair_vectors(self, codes: set[str], reindex: list[str], progress: Progress) -> list[str]:
        catalog = self.catalog
        done: list[str] = []
        embedder = self.parts.embedder()
        store = self.parts.vector_store()
        indexer = VectorIndexer(catalog, store, embedder, self.parts.prepare_vectors)
        if codes & {"vectors.unreadable", "vectors.count"}:
            indexer.reset()
            done.append("cleared the vector store to embed everything again")
        else:
            deleted = self.parts.apply_vector_deletes()
            if deleted:
                done.append(f"deleted {_plural(deleted, 'queued vector')} of removed fragments")
            list_ids = getattr(store, "ids", None)
            if callable(list_ids):
                vector_ids = set(list_ids())
                marks = catalog.embedded_ids()
                orphans = vector_ids - catalog.all_ids()
                if orphans:
                    store.delete(sorted(orphans))
                    done.append(f"deleted {_plural(len(orphans), 'orphan vector')}")
                stale = [i for i, by in marks.items() if i not in vector_ids or by != embedder.name]
                if stale:
                    catalog.unmark_embedded(stale)
                    done.append(f"marked {_plural(len(stale), 'fragment')} to embed again")
            if reindex:
                store.delete(reindex)
                catalog.unmark_embedded(reindex)
        embedded = indexer.backfill(progress=progress)
        if embedded:
            done.append(f"embedded {_plural(embedded, 'fragment')}")
        return done


def unreachable_report(home: str, server: str, reason: str, fix: str) -> DoctorReport:
    """The report when the catalog's server cannot be reached: one ``catalog.unreachable``
    error naming ``server`` (``host:port/database``, never a password), and nothing
    compared (the catalog is what everything is compared with)."""
    where = f" at {server}" if server else ""
    finding = Finding(
        "catalog.unreachable",
        ERROR,
        f"The catalog server{where} cannot be reached ({reason}), so nothing was checked.",
        fix
        or "Start the catalog's server or fix the settings that name it, then run "
        "`memex doctor` again.",
        count=1,
    )
    return DoctorReport(home, Inspection(findings=[finding]))


def plugin_findings(
    checks: Iterable[tuple[str, Callable[[Any], Iterable[Finding]]]], home: Any
) -> list[Finding]:
    """Run the checks plugins registered (``register_doctor_checks``) on ``home``.

    A check that raises becomes a note naming it: a plugin's bug must not hide the
    doctor's own findings."""
    found: list[Finding] = []
    for name, check in checks:
        try:
            found.extend(check(home))
        except Exception as exc:
            found.append(
                Finding(
                    code=f"plugin.{name}.failed",
                    severity=NOTE,
                    summary=f"The doctor check {name!r} failed: {type(exc).__name__}: {exc}",
                    fix="Report it to the plugin that registered the check; the other "
                    "findings are unaffected.",
                )
            )
    return found
