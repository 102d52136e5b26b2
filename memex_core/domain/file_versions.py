"""What a catalog write of one file or one document takes, as keyword arguments.

Spelled once as TypedDicts so that the services' catalog protocol
(:mod:`memex_core.services.ports`) and the catalog's own ``add_file`` say it the same way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NotRequired, TypedDict

from memex_core.domain.contracts import ParsedDocument
from memex_core.domain.fragment import Fragment


class StoredFile(TypedDict):
    """One version of a file, as ``replace_file`` takes it (keyword arguments)."""

    run_id: int
    path: str
    sha256: str
    size: int
    source_kind: str
    fragments: Sequence[Fragment]
    mtime_ns: NotRequired[int | None]


class StoredDocument(TypedDict):
    """One version of a folder source's document, as ``store_document`` takes it."""

    run_id: int
    root: str
    source_kind: str
    document: ParsedDocument
    sha256: str
    size: int
    mtime_ns: int | None
