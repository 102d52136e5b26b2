"""A stored document of a folder source (a note): where it lives and what it is called."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class DocumentRecord:
    """A stored document: where it lives, its names, and what its file looked like."""

    id: str
    source_kind: str
    root: str
    path: str
    title: str
    aliases: tuple[str, ...]
    tags: tuple[str, ...]
    properties: dict[str, Any]
    sha256: str
    size: int
    mtime_ns: int | None
    timestamp: float | None
