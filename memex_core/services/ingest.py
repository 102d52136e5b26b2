"""Ingest: find a source for each file, store its fragments, keep the keyword index in step.

Per file: skip it if its size and modification time match the last ingest, or
if this exact content was ingested before; otherwise parse it completely, then
commit all its fragments in one catalog transaction. A bad file is reported
with its path and reason and does not stop the others.

A folder named on the command line that a folder source claims (a vault) is
synced as a whole by :class:`~memex_core.services.folder_sync.FolderSync`.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from memex_core.crashpoints import crash_point
from memex_core.domain import (
    FileOutcome,
    FolderSource,
    IngestReport,
    KeywordStore,
    Source,
    SourceError,
)
from memex_core.domain.contracts import EXPLAIN_UNREAD, EXPLICIT_ONLY, REPLACE_CHANGED_FILES
from memex_core.errors import StorageFailure
from memex_core.services.file_reading import collect_skips, failed_outcome, sha256_of
from memex_core.services.folder_sync import FolderSync
from memex_core.services.ports import CatalogPort, FolderCatalogPort, NoProgress, Progress
from memex_core.services.scrubbing import FragmentScrubber


@dataclass(frozen=True)
class Candidate:
    path: Path
    explicit: bool  # named on the command line (vs found inside a folder)
    root: Path | None = None  # the folder named on the command line it was found in


def expand_paths(
    paths: Iterable[Path], claim: Callable[[Path], bool] = lambda _: False
) -> Iterator[Candidate | Path]:
    """Files as given, and every non-hidden file under each folder, in a stable order.

    A subfolder for which ``claim`` says yes (a vault inside the folder) is yielded
    as a bare ``Path`` instead of being walked.
    """
    for path in paths:
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if not d.startswith("."))
                claimed = [d for d in dirs if claim(Path(root) / d)]
                for name in claimed:
                    yield Path(root) / name
                dirs[:] = [d for d in dirs if d not in claimed]
                for name in sorted(files):
                    if not name.startswith("."):
                        yield Candidate(Path(root) / name, explicit=False, root=path)
        else:
            yield Candidate(path, explicit=True)


class IngestService:
    def __init__(
        self,
        catalog: CatalogPort,
        sources: Sequence[Source | FolderSource],
        keyword: KeywordStore | None,
        progress: Progress | None = None,
        *,
        named: bool = False,
        scrubber: FragmentScrubber | None = None,
    ) -> None:
        """``named``: the caller chose ``sources`` by name (``--source``), so a folder goes
        to its folder source even when that one is explicit-only (see ``EXPLICIT_ONLY``)."""
        self.named = named
        self.catalog = catalog
        # Private spans are dropped even when no redactor is given.
        self.scrubber = scrubber or FragmentScrubber(None)
        self.sources: list[Source] = [s for s in sources if hasattr(s, "can_handle")]  # type: ignore[misc]
        self.folder_sources: list[FolderSource] = [
            s  # type: ignore[misc]
            for s in sources
            if hasattr(s, "can_handle_folder")
        ]
        self.keyword = keyword
        self.progress = progress or NoProgress()

    def pick_folder_source(self, folder: Path) -> FolderSource | None:
        for source in self.folder_sources:
            if getattr(source, EXPLICIT_ONLY, False):
                if self.named:
                    return source  # named on purpose: its scan says if the folder is wrong
                continue
            try:
                if source.can_handle_folder(folder):
                    return source
            except (OSError, ValueError):
                continue
        return None

    def _nested_vault(self, folder: Path) -> bool:
        """A subfolder met while walking is synced as a vault only when it says so
        (an ``.obsidian/`` folder inside); looser guesses apply to named folders only."""
        return (folder / ".obsidian").is_dir() and self.pick_folder_source(folder) is not None

    def pick_source(self, path: Path) -> Source | None:
        for source in self.sources:
            try:
                if source.can_handle(path):
                    return source
            except (OSError, ValueError):
                continue
        return None

    def ingest(self, paths: Sequence[Path], command: str = "ingest") -> IngestReport:
        report = IngestReport()
        missing = [p for p in paths if not p.exists()]
        for path in missing:
            report.files.append(FileOutcome(str(path), "failed", error="no such file or folder"))
        folders: list[tuple[FolderSource, Path]] = []
        plain: list[Path] = []
        for path in (p for p in paths if p.exists()):
            folder_source = self.pick_folder_source(path) if path.is_dir() else None
            if folder_source is not None:
                folders.append((folder_source, path))
            else:
                plain.append(path)
        candidates: list[Candidate] = []
        # Per folder named on the command line: whether anything in it was read.
        read_in: dict[Path, bool] = {p: False for p in plain if p.is_dir()}
        for item in expand_paths(plain, self._nested_vault):
            if isinstance(item, Candidate):
                candidates.append(item)
            else:
                folders.append((self.pick_folder_source(item), item))  # type: ignore[arg-type]
                read_in.update({root: True for root in read_in if item.is_relative_to(root)})
        run_id = self.catalog.start_run(command)
        status = "failed"
        try:
            for folder_source, folder in folders:
                self._sync_folder(run_id, folder_source, folder, report)
            self.progress.start("Ingesting", len(candidates))
            for candidate in candidates:
                self.progress.advance(0, description=f"Ingesting {candidate.path.name}")
                outcome = self._ingest_file(run_id, candidate, report)
                report.files.append(outcome)
                if candidate.root is not None and outcome.status != "skipped":
                    read_in[candidate.root] = True
                self.progress.advance(1)
            for folder in (f for f, read in read_in.items() if not read):
                report.files.append(self._nothing_in(folder, report))
            status = "finished"
        finally:
            self.progress.finish()
            report.redaction_skipped_reason = self.scrubber.skipped_reason
            report.private_spans_removed += self.scrubber.tally.private_spans
            report.secrets_redacted.update(self.scrubber.tally.secrets)
            self.scrubber.tally.private_spans = 0
            self.scrubber.tally.secrets.clear()
            if self.keyword is not None:
                self.keyword.flush()
            counts = {s: report.count(s) for s in ("unchanged", "failed")}
            counts["new"] = report.count("new") + report.count("updated")
            counts["fragments_added"] = report.fragments_added
            self.catalog.finish_run(run_id, status, counts)
        return report

    def _known_kinds(self) -> str:
        return ", ".join(s.source_kind for s in self.sources) or "none installed"

    def _why_unread(self, path: Path) -> str | None:
        """A source's own reason for refusing a file it knows (see ``EXPLAIN_UNREAD``)."""
        for source in self.sources:
            explain = getattr(source, EXPLAIN_UNREAD, None)
            if explain is None:
                continue
            try:
                reason = explain(path)
            except Exception:
                continue
            if reason:
                return str(reason)
        return None

    def _nothing_in(self, folder: Path, report: IngestReport) -> FileOutcome:
        """The outcome of a folder named on the command line in which nothing was read."""
        inside = str(folder).rstrip("/") + "/"
        unread = sum(1 for f in report.files if f.path.startswith(inside))
        if unread:
            reason = (
                f"nothing to ingest: none of its {unread:,} file(s) is in a format a source "
                f"reads (known sources: {self._known_kinds()}); run `memex sources` to see "
                "what each one accepts"
            )
        else:
            reason = (
                "nothing to ingest: the folder holds no files (hidden files and folders, "
                "whose names start with a dot, are not read)"
            )
        return FileOutcome(str(folder), "failed", error=reason)

    def _ingest_file(self, run_id: int, candidate: Candidate, report: IngestReport) -> FileOutcome:
        path = candidate.path
        label = str(path)
        source = self.pick_source(path)
        if source is None:
            if self.named and not self.sources:
                kinds = ", ".join(s.source_kind for s in self.folder_sources)
                return FileOutcome(
                    label,
                    "failed",
                    error=f"the {kinds} source reads whole folders, not single files: pass the "
                    "folder (for --source code, the git repository)",
                )
            why = self._why_unread(path)
            if not candidate.explicit:
                # A folder may hold files of no known format: reported, not an error.
                return FileOutcome(label, "skipped", error=why or "no source reads this format")
            return FileOutcome(
                label,
                "failed",
                error=why
                or f"no source can read this file (known sources: {self._known_kinds()}); "
                "run `memex sources` to see what each one accepts",
            )
        replace = bool(getattr(source, REPLACE_CHANGED_FILES, False))
        skipped: list[str] = []
        try:
            stat = path.stat()
            if self.catalog.file_unchanged_since(label, stat.st_size, stat.st_mtime_ns):
                return FileOutcome(label, "unchanged", source_kind=source.source_kind)
            sha = sha256_of(path)
            if self.catalog.file_ingested(label, sha):
                return FileOutcome(label, "unchanged", source_kind=source.source_kind)
            with collect_skips() as skipped:
                fragments = self.scrubber.fragments(source.ingest(path))
        except StorageFailure:
            raise  # the catalog or the home broke, not this file: every other file would too
        except Exception as exc:  # reported per file; a buggy source must not stop the run
            report.skipped.extend(skipped)
            return failed_outcome(label, source.source_kind, exc)
        report.skipped.extend(skipped)
        if not fragments and skipped:
            return FileOutcome(
                label,
                "failed",
                source.source_kind,
                error="nothing could be read: every item in it was skipped",
            )
        new, removed = self.catalog.replace_file(
            run_id=run_id,
            path=label,
            sha256=sha,
            size=stat.st_size,
            source_kind=source.source_kind,
            fragments=fragments,
            mtime_ns=stat.st_mtime_ns,
            replace=replace,
        )
        if removed:
            report.removed_ids.extend(removed)
            if self.keyword is not None:
                self.keyword.delete(removed)
        if self.keyword is not None and new:
            self.keyword.add(new)
        crash_point("ingest.keyword_added")
        return FileOutcome(
            label,
            ("updated" if removed else "new") if (new or removed) else "unchanged",
            source.source_kind,
            fragments_added=len(new),
            fragments_seen=len(fragments),
            fragments_removed=len(removed),
        )

    def _sync_folder(
        self, run_id: int, source: FolderSource, folder: Path, report: IngestReport
    ) -> None:
        catalog = self._folder_catalog()
        syncer = _LinkRecordingSync(catalog, self.keyword, self.progress, self.scrubber)
        syncer.sync(run_id, source, folder, report)
        root = str(folder.resolve())
        if catalog.links_stale(root):
            # An earlier run stored documents and died before resolving the folder's links
            # (this run found nothing changed, so the sync did not resolve them).
            try:
                files = source.scan(folder).files
            except (SourceError, OSError):
                return  # the sync already reported the folder as failed
            syncer.resolve_links(root, files)

    def _folder_catalog(self) -> LinkTrackingCatalog:
        catalog = self.catalog
        if not hasattr(catalog, "store_document"):
            raise TypeError("this catalog cannot store folder documents")
        return catalog  # type: ignore[return-value]


class LinkTrackingCatalog(FolderCatalogPort, Protocol):
    """A folder catalog that remembers, durably, when a folder's links need resolving."""

    def links_stale(self, root: str) -> bool: ...

    def links_resolved(self, root: str) -> None: ...


class _LinkRecordingSync(FolderSync):
    """Records in the catalog when a folder's links have been resolved."""

    catalog: LinkTrackingCatalog

    def resolve_links(self, root: str, files: list[str]) -> int:
        changed = super().resolve_links(root, files)
        self.catalog.links_resolved(root)
        return changed
