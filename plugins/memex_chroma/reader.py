"""Reading a local chroma folder without importing the ``chromadb`` package.

``import chromadb`` takes about 0.85 s (its package imports the HTTP client, pydantic,
OpenTelemetry's exporters and every embedding function before a collection can be
opened): more than everything else a cold ``memex dig`` does on a small home. The
engine under it is a Rust extension, ``chromadb_rust_bindings`` (about 25 ms to import),
which chromadb's own embedded client (``chromadb.api.rust.RustBindingsAPI``) calls
with the same arguments as here. So a :class:`FolderReader` answers exactly what
``PersistentClient`` would (the same engine on the same files: same ids, order and
distances; ``tests/plugins/chroma/test_chroma_reader.py`` compares them), but it only
reads: :mod:`memex_chroma.access` replaces it with a full client before any write.

What chromadb's Python layer adds and this leaves out: argument validation (memex
builds its own queries, see :mod:`memex_chroma.metadata`) and telemetry (turned off by
memex anyway). A chromadb whose major version is not :data:`CHECKED_MAJOR` is not
read this way (:func:`open_reader` answers None and the full client is used).
"""

from __future__ import annotations

import resource
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

#: The chromadb major version whose binding calls this module was written against (1.5.9).
CHECKED_MAJOR = "1"
#: chromadb's defaults (``chromadb.config``), as ``PersistentClient`` passes them.
TENANT = "default_tenant"
DATABASE = "default_database"
DATABASE_FILE = "chroma.sqlite3"


class CollectionMissing(LookupError):
    """The folder holds no collection of that name (chromadb's ``NotFoundError``)."""


def is_missing(exc: BaseException) -> bool:
    """Whether ``exc`` says a collection does not exist, from either client.

    chromadb's own ``NotFoundError`` is looked up in ``sys.modules`` rather than
    imported: an instance of it exists only once its module was imported.
    """
    if isinstance(exc, CollectionMissing):
        return True
    errors = sys.modules.get("chromadb.errors")
    return errors is not None and isinstance(exc, errors.NotFoundError)


def _chromadb_major() -> str | None:
    """The installed chromadb's major version, read from the name of its ``dist-info``
    folder beside the bindings (``importlib.metadata`` scans every folder on the path:
    5-20 ms), else through ``importlib.metadata``."""
    try:
        import chromadb_rust_bindings
    except ImportError:
        return None
    site = Path(chromadb_rust_bindings.__file__).resolve().parent.parent
    for info in site.glob("chromadb-*.dist-info"):
        return info.name.removeprefix("chromadb-").split(".", 1)[0]
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("chromadb").split(".", 1)[0]
    except PackageNotFoundError:
        return None


class ReaderCollection:
    """The reading half of ``chromadb.Collection``: ``query``, ``get``, ``count``."""

    def __init__(self, bindings: Any, model: Any) -> None:
        self._bindings = bindings
        self.id = model.id
        self.name = model.name
        self.metadata = model.metadata
        self.configuration_json = model.configuration
        self.dimension = model.dimension

    def query(
        self,
        query_embeddings: np.ndarray,
        n_results: int = 10,
        where: dict[str, Any] | None = None,
        include: Sequence[str] = ("metadatas", "documents", "distances"),
    ) -> dict[str, Any]:
        import json

        rows = np.asarray(query_embeddings, dtype=np.float32)
        # As chromadb's normalize_embeddings hands them on: one 1-D array per query.
        embeddings = [rows] if rows.ndim == 1 else [row for row in rows]
        found = self._bindings.query(
            str(self.id),
            None,
            embeddings,
            n_results,
            json.dumps(where) if where else None,
            None,
            list(include),
            TENANT,
            DATABASE,
        )
        return {
            "ids": found.ids,
            "distances": found.distances,
            "metadatas": found.metadatas,
            "documents": found.documents,
            "embeddings": found.embeddings,
        }

    def get(
        self,
        ids: Sequence[str] | None = None,
        where: dict[str, Any] | None = None,
        limit: int | None = None,
        offset: int | None = None,
        include: Sequence[str] = ("metadatas", "documents"),
    ) -> dict[str, Any]:
        import json

        found = self._bindings.get(
            str(self.id),
            list(ids) if ids is not None else None,
            json.dumps(where) if where else None,
            limit,
            offset or 0,
            None,
            list(include),
            TENANT,
            DATABASE,
        )
        embeddings = found.embeddings
        if "embeddings" in include:  # as chromadb's _transform_get_response
            embeddings = np.array(embeddings)
        return {
            "ids": found.ids,
            "metadatas": found.metadatas,
            "documents": found.documents,
            "embeddings": embeddings,
        }

    def count(self) -> int:
        return int(self._bindings.count(str(self.id), TENANT, DATABASE))


class FolderReader:
    """A read-only client on a local chroma folder (see the module docstring).

    Opening it applies chroma's pending migrations and replays its log, as opening
    ``PersistentClient`` does, so :mod:`memex_chroma.access` opens it under the folder's
    exclusive lock like any client.
    """

    #: :mod:`memex_chroma.access` replaces a client with this flag before a write.
    reads_only = True

    def __init__(self, folder: Path) -> None:
        import chromadb_rust_bindings as rust

        config = rust.SqliteDBConfig(
            hash_type=rust.MigrationHash.MD5,
            migration_mode=rust.MigrationMode.Apply,
            url=str(folder / DATABASE_FILE),
        )
        # chromadb's own sizing: each HNSW index keeps 5 files open.
        cache_size = resource.getrlimit(resource.RLIMIT_NOFILE)[0] // 5
        self._bindings: Any = rust.Bindings(
            allow_reset=False,
            sqlite_db_config=config,
            persist_path=str(folder),
            hnsw_cache_size=cache_size,
        )

    def get_collection(self, name: str, embedding_function: Any = None) -> ReaderCollection:
        # Listed first: chroma's own "not found" error would import the chromadb package.
        if name not in {model.name for model in self._list()}:
            raise CollectionMissing(f"Collection [{name}] does not exist")
        return ReaderCollection(
            self._bindings, self._bindings.get_collection(name, TENANT, DATABASE)
        )

    def list_collections(self) -> list[ReaderCollection]:
        return [ReaderCollection(self._bindings, model) for model in self._list()]

    def _list(self) -> list[Any]:
        return list(self._bindings.list_collections(None, None, TENANT, DATABASE))

    def get_max_batch_size(self) -> int:
        return int(self._bindings.get_max_batch_size())

    def close(self) -> None:
        """Let chroma's engine go (its SQLite connections and index files)."""
        self._bindings = None


def open_reader(folder: Path) -> FolderReader | None:
    """A :class:`FolderReader` on ``folder``, or None when this chromadb is not one it
    was checked against (or has no Rust bindings): then use ``PersistentClient``."""
    if _chromadb_major() != CHECKED_MAJOR:
        return None
    folder.mkdir(parents=True, exist_ok=True)
    return FolderReader(folder)
