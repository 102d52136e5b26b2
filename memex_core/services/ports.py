"""What the services need from the catalog, as a protocol (the SQLite catalog provides it)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Protocol

from memex_core.domain import Fragment


class CatalogPort(Protocol):
    def start_run(self, command: str) -> int: ...

    def finish_run(self, run_id: int, status: str, counts: dict[str, int]) -> None: ...

    def file_ingested(self, path: str, sha256: str) -> bool: ...

    def add_file(
        self,
        *,
        run_id: int,
        path: str,
        sha256: str,
        size: int,
        source_kind: str,
        fragments: Sequence[Fragment],
    ) -> list[Fragment]: ...

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
