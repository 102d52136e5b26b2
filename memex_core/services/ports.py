"""What the services need from the catalog, as a protocol (the SQLite catalog provides it)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol

from memex_core.domain import (
    DocumentRecord,
    Fragment,
    ParsedDocument,
    ResolvedLink,
    SearchFilters,
)


class CatalogPort(Protocol):
    def start_run(self, command: str) -> int: ...

    def finish_run(self, run_id: int, status: str, counts: dict[str, int]) -> None: ...

    def file_ingested(self, path: str, sha256: str) -> bool: ...

    def file_unchanged_since(self, path: str, size: int, mtime_ns: int) -> bool: ...

    def replace_file(
        self,
        *,
        run_id: int,
        path: str,
        sha256: str,
        size: int,
        source_kind: str,
        fragments: Sequence[Fragment],
        mtime_ns: int | None = None,
        replace: bool = True,
    ) -> tuple[list[Fragment], list[str]]: ...

    def get_many(self, ids: Sequence[str]) -> dict[str, Fragment]: ...

    def iter_fragments(self, batch_size: int = 2000, after_seq: int = 0) -> Iterator[Fragment]: ...

    def iter_unembedded(self, embedder: str, batch_size: int = 256) -> Iterator[list[Fragment]]: ...

    def all_ids(self) -> set[str]: ...

    def mark_embedded(self, ids: Iterable[str], embedder: str) -> None: ...

    def clear_embedded(self) -> None: ...

    def count_fragments(self) -> int: ...

    def count_embedded(self, embedder: str | None = None) -> int: ...

    def get_setting(self, key: str) -> str | None: ...

    def set_setting(self, key: str, value: str) -> None: ...

    def delete_setting(self, key: str) -> None: ...


class FolderCatalogPort(Protocol):
    """What syncing a folder source needs from the catalog."""

    def documents_under(self, root: str) -> dict[str, DocumentRecord]: ...

    def store_document(
        self,
        *,
        run_id: int,
        root: str,
        source_kind: str,
        document: ParsedDocument,
        sha256: str,
        size: int,
        mtime_ns: int | None,
    ) -> tuple[list[Fragment], list[str]]: ...

    def touch_document(self, document_id: str, mtime_ns: int | None) -> None: ...

    def remove_document(self, document_id: str) -> list[str]: ...

    def links_under(self, root: str) -> list[tuple[int, str, str, str | None, str | None]]: ...

    def set_link_targets(self, updates: Iterable[tuple[str | None, str | None, int]]) -> None: ...


class GraphPort(Protocol):
    """What explore, timeline and context read from the catalog."""

    def get_many(self, ids: Sequence[str]) -> dict[str, Fragment]: ...

    def document(self, document_id: str) -> DocumentRecord | None: ...

    def documents(self, document_ids: Sequence[str]) -> dict[str, DocumentRecord]: ...

    def find_documents(self, name: str) -> list[DocumentRecord]: ...

    def outlinks(self, document_id: str) -> list[ResolvedLink]: ...

    def backlinks(self, document_id: str) -> list[ResolvedLink]: ...

    def backlink_counts(self, fragment_ids: Sequence[str]) -> dict[str, int]: ...

    def conversation_fragments(self, conversation_id: str) -> list[Fragment]: ...

    def neighbours(self, fragment_id: str, before: int, after: int) -> list[Fragment]: ...

    def recent_fragments(
        self, limit: int, offset: int = 0, filters: SearchFilters | None = None
    ) -> list[Fragment]: ...


class Progress(Protocol):
    """Where long work reports how far it got (the CLI draws a progress bar)."""

    def start(self, description: str, total: int | None) -> None: ...

    def advance(self, amount: int = 1, description: str | None = None) -> None: ...

    def finish(self) -> None: ...


class NoProgress:
    def start(self, description: str, total: int | None) -> None:
        pass

    def advance(self, amount: int = 1, description: str | None = None) -> None:
        pass

    def finish(self) -> None:
        pass
