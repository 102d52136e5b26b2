"""Sync a folder source (a vault) into the catalog: only what changed, deletions included.

Per document: a file whose size and modification time match the stored ones
is skipped without reading; otherwise it is hashed, and parsed only if the hash
changed. Documents whose file is gone are removed from the catalog and every
index. Links are then re-resolved over the whole folder, because a new or
renamed note can make links in unchanged notes resolve (or stop resolving).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from memex_core.domain import (
    DocumentRecord,
    FileOutcome,
    FolderSource,
    IngestReport,
    KeywordStore,
    SourceError,
)
from memex_core.errors import StorageFailure
from memex_core.services.file_reading import collect_skips, failed_outcome, sha256_of
from memex_core.services.ports import FolderCatalogPort, Progress
from memex_core.services.scrubbing import FragmentScrubber


class FolderSync:
    def __init__(
        self,
        catalog: FolderCatalogPort,
        keyword: KeywordStore | None,
        progress: Progress,
        scrubber: FragmentScrubber | None = None,
    ) -> None:
        self.catalog = catalog
        self.keyword = keyword
        self.progress = progress
        self.scrubber = scrubber or FragmentScrubber(None)

    def sync(self, run_id: int, source: FolderSource, folder: Path, report: IngestReport) -> None:
        root = str(folder.resolve())
        skipped: list[str] = []
        try:
            with collect_skips() as skipped:
                scan = source.scan(folder)
        except (SourceError, OSError) as exc:
            report.files.append(FileOutcome(root, "failed", source.source_kind, error=str(exc)))
            return
        except Exception as exc:  # a buggy folder source must not stop the run either
            report.files.append(failed_outcome(root, source.source_kind, exc))
            return
        finally:
            report.skipped.extend(skipped)
        stored = self.catalog.documents_under(root)
        self.progress.start(f"Syncing {folder.name}", len(scan.documents))
        changed = False
        try:
            for rel in scan.documents:
                self.progress.advance(0, description=f"Syncing {rel}")
                outcome = self._sync_document(
                    run_id, source, folder, root, rel, stored, report, scan.fingerprints.get(rel)
                )
                changed |= outcome.status in ("new", "updated")
                report.files.append(outcome)
                self.progress.advance(1)
        finally:
            self.progress.finish()
        present = set(scan.documents)
        for rel, record in stored.items():
            if rel not in present:
                removed = self.catalog.remove_document(record.id)
                self._forget(removed, report)
                report.files.append(
                    FileOutcome(
                        f"{root}/{rel}",
                        "removed",
                        source.source_kind,
                        fragments_removed=len(removed),
                    )
                )
                changed = True
        if changed:
            self.resolve_links(root, scan.files)

    def _sync_document(
        self,
        run_id: int,
        source: FolderSource,
        folder: Path,
        root: str,
        rel: str,
        stored: dict[str, DocumentRecord],
        report: IngestReport,
        fingerprint: str | None = None,
    ) -> FileOutcome:
        label = f"{root}/{rel}"
        path = folder / rel
        record = stored.get(rel)
        skipped: list[str] = []
        try:
            stat = path.stat()
            if fingerprint is not None:
                # The source's own digest (a git blob hash) decides, without reading the file;
                # it is stored where the SHA-256 would be.
                sha = fingerprint
                if record is not None and record.sha256 == sha:
                    return FileOutcome(label, "unchanged", source.source_kind)
            elif record is not None and (record.size, record.mtime_ns) == (
                stat.st_size,
                stat.st_mtime_ns,
            ):
                return FileOutcome(label, "unchanged", source.source_kind)
            else:
                sha = sha256_of(path)
                if record is not None and record.sha256 == sha:
                    self.catalog.touch_document(record.id, stat.st_mtime_ns)
                    return FileOutcome(label, "unchanged", source.source_kind)
            with collect_skips() as skipped:
                document = source.read_document(folder, rel)
                document = replace(document, fragments=self.scrubber.fragments(document.fragments))
        except StorageFailure:
            raise  # the catalog or the home broke, not this file: every other file would too
        except Exception as exc:  # reported per file; a buggy source must not stop the run
            return failed_outcome(label, source.source_kind, exc)
        finally:
            report.skipped.extend(skipped)
        new, removed = self.catalog.store_document(
            run_id=run_id,
            root=root,
            source_kind=source.source_kind,
            document=document,
            sha256=sha,
            size=stat.st_size,
            mtime_ns=stat.st_mtime_ns,
        )
        self._forget(removed, report)
        if self.keyword is not None and new:
            self.keyword.add(new)
        return FileOutcome(
            label,
            "new" if record is None else "updated",
            source.source_kind,
            fragments_added=len(new),
            fragments_seen=len(document.fragments),
            fragments_removed=len(removed),
        )

    def _forget(self, removed: list[str], report: IngestReport) -> None:
        if removed:
            report.removed_ids.extend(removed)
            if self.keyword is not None:
                self.keyword.delete(removed)

    def resolve_links(self, root: str, files: list[str]) -> int:
        """Re-resolve every link of the folder; returns how many changed target."""
        from memex_core.domain.link_resolution import LinkResolver

        documents = self.catalog.documents_under(root)
        resolver = LinkResolver(files, {rel: doc.aliases for rel, doc in documents.items()})
        updates = []
        for link_id, from_path, target, old_path, old_document in self.catalog.links_under(root):
            target_path = resolver.resolve(target, from_path)
            target_document = documents[target_path].id if target_path in documents else None
            if (target_path, target_document) != (old_path, old_document):
                updates.append((target_path, target_document, link_id))
        if updates:
            self.catalog.set_link_targets(updates)
        return len(updates)
