"""The ``chroma`` vector store: memex's embeddings in a chroma collection.

memex computes embeddings itself, so the collection has no embedding function
and chroma never loads (or downloads) a model. Each vector carries the
metadata that search filters need, and filters run inside chroma before top-k.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from memex_chroma.access import FolderAccess
from memex_chroma.connection import (
    ChromaConfigError,
    ChromaLocation,
    Timeouts,
    open_client,
    resolve_location,
)
from memex_chroma.erasure import push_log, vacuum
from memex_chroma.exact import exact_filtered
from memex_chroma.handout import stored_vectors
from memex_chroma.log_tail import unsynced_records
from memex_chroma.metadata import fragment_metadata, passes, where_clause
from memex_chroma.outage import ServerHealth
from memex_chroma.reader import FolderReader, ReaderCollection, is_missing, open_reader
from memex_core.closing import ClosesOnExit
from memex_core.domain import Fragment, PluginContext, SearchFilters, SignalHit
from memex_core.errors import EmbedderMismatchError
from memex_core.settings_table import is_whole_number
from memex_core.vector_rows import query_vector, upsert_rows

if TYPE_CHECKING:
    from chromadb.api import ClientAPI
    from chromadb.api.models.Collection import Collection

    #: What reads take: chromadb's collection, or the reader's (memex_chroma.reader).
    Readable = Collection | ReaderCollection

T = TypeVar("T")

DEFAULT_COLLECTION = "memex_fragments"
#: HNSW search breadth for new collections. chroma's default (100) found only
#: about half of the true top 50 on 10k random 384-d vectors; 400 found 91% of
#: the top 10 at ~10 ms a query, a cost the CLI's start-up budget does not notice.
DEFAULT_EF_SEARCH = 400
#: Collection metadata keys recording what built the vectors.
#: A filtered search first asks chroma, unfiltered, for OVERFETCH times the hits it needs
#: plus OVERFETCH_SLACK, and filters them itself (see ``_filtered_after``). Each hit's
#: metadata costs ~0.05 ms to fetch, so a wider net costs more than most misses save.
OVERFETCH = 2
OVERFETCH_SLACK = 20
DIMENSION_KEY = "dimension"
EMBEDDER_KEY = "embedder"
#: Collection metadata flag, set before the first private vector is stored.
#:
#: Why a flag and not always sending the private exclusion: measured with chroma
#: 1.5.9 embedded on 10k 384-d vectors, an unfiltered query takes ~2 ms but any
#: ``where`` (even ``private $ne True``, which passes every record) ~33 ms, and a
#: ``get(where={"private": True}, limit=1)`` probe ~5 ms. Re-reading the
#: collection's metadata costs ~0.4-0.6 ms (holding the GIL), so a store that has not
#: seen the flag re-reads it before a search that must exclude private vectors only
#: when the folder was written since it last looked (its change token, which every
#: write by any process renews: :mod:`memex_chroma.access`), and on a server before
#: each such search (another client may have stored one since); once seen, it is
#: cached for good.
PRIVATE_KEY = "private_stored"
#: No restriction at all, private vectors included: a ``where``-free chroma query.
UNFILTERED = SearchFilters(include_private=True, named_only=())


def _batches(count: int, size: int) -> Iterator[slice]:
    for start in range(0, count, size):
        yield slice(start, start + size)


def _sync_threshold(collection: Readable) -> int:
    """The collection's ``sync_threshold`` (chroma's default 1,000 when not recorded)."""
    # configuration_json, not configuration: the latter warns about the (absent) embedding function.
    hnsw = (getattr(collection, "configuration_json", None) or {}).get("hnsw") or {}
    value = hnsw.get("sync_threshold") if isinstance(hnsw, dict) else None
    return value if isinstance(value, int) and value > 0 else 1000


def _positive_int(settings: Mapping[str, Any], key: str, default: int) -> int:
    value = settings.get(key, default)
    if not is_whole_number(value) or value <= 0:
        raise ChromaConfigError(
            f"[vector.chroma] {key} in config.toml must be a positive integer, got {value!r}. "
            f"Fix or remove it (the default is {default})."
        )
    return value


class ChromaVectorStore(ClosesOnExit):
    """A :class:`memex_core.domain.VectorStore` backed by one chroma collection.

    The chroma client is created on first use. ``embedder_name``, when known, is
    recorded in the collection metadata with the dimension, and a store refuses to
    mix vectors of another embedder or dimension into the collection.

    Every public method is one *operation*. On a local folder an operation holds the
    folder's lock, shared or exclusive, and the client belongs to the folder (see
    :mod:`memex_chroma.access`: chroma's embedded client is not safe across
    processes). On a server, an operation that cannot reach it raises
    :class:`~memex_chroma.connection.ChromaUnreachableError` (a
    ``VectorStoreUnavailableError``, which searches answer with keyword results),
    and calls in the next few seconds fail at once (see :mod:`memex_chroma.outage`).
    """

    def __init__(
        self,
        location: ChromaLocation,
        *,
        collection_name: str = DEFAULT_COLLECTION,
        embedder_name: str | None = None,
        ef_search: int = DEFAULT_EF_SEARCH,
        timeouts: Timeouts | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.location = location
        self.collection_name = collection_name
        self.embedder_name = embedder_name
        self.ef_search = ef_search
        self.timeouts = timeouts or Timeouts()
        self._client: ClientAPI | FolderReader | None = None
        self._collection: Readable | None = None
        self._max_batch: int | None = None
        # Only ever goes from False to True (until clear()): a stale True costs time, not privacy.
        self._private_stored = False
        # The folder's change token when the collection was last read without the flag.
        self._private_absent_at: str | None = None
        self._access: FolderAccess | None = None  # attached on first use, on a folder
        self._wrote = False  # since the last settle(): see settle()
        self._client_generation = -1
        self.health: ServerHealth | None = None
        if location.server is not None:
            self.health = ServerHealth(location.server, clock=clock)

    @classmethod
    def from_context(cls, context: PluginContext) -> ChromaVectorStore:
        """Build from ``MEMEX_CHROMA_URL`` and the ``[vector.chroma]`` settings table."""
        settings = context.settings
        return cls(
            resolve_location(context.home, settings),
            collection_name=str(settings.get("collection") or DEFAULT_COLLECTION),
            ef_search=_positive_int(settings, "ef_search", DEFAULT_EF_SEARCH),
            timeouts=Timeouts.from_settings(
                settings, table="vector.chroma", error=ChromaConfigError
            ),
        )

    # -- connection -----------------------------------------------------------------

    def _open(self) -> ClientAPI:
        return open_client(self.location, self.timeouts)

    def _open_reader(self) -> ClientAPI | FolderReader:
        """A client for reads on the folder: :class:`~memex_chroma.reader.FolderReader`,
        which spares a cold search the import of the chromadb package."""
        assert self.location.path is not None
        return open_reader(self.location.path) or self._open()

    @contextmanager
    def _operation(self, *, write: bool = False, full: bool = False) -> Iterator[None]:
        """Hold what one public method needs: the folder's lock, or the server's health.
        A read opens a client that only reads unless ``full`` asks for chromadb's own."""
        if self.location.path is not None:
            if self._access is None:
                self._access = FolderAccess.attach(self.location.path)
            reader = None if write or full else self._open_reader
            with self._access.operation(self._open, write=write, reader=reader):
                access = self._access
                if self._client_generation != access.generation:
                    # The folder's client was (re)opened: collections from the old one are stale.
                    self._client, self._collection = access.client, None
                    self._client_generation = access.generation
                yield
            return
        assert self.health is not None
        with self.health.guarded():
            if self._client is None:
                self._client = self._open()
            yield

    @property
    def concurrent_reads(self) -> bool:
        """Whether searches may run on several threads at once (memex_core.threads): on a
        folder, yes (:mod:`memex_chroma.access` shares the client among readers); a
        server's client and its outage bookkeeping are not shared that way, so not."""
        return self.location.path is not None

    @property
    def client(self) -> ClientAPI:
        """chromadb's client, connected on first access (in place of a client that only
        reads, which the store's own reads use).

        For a one-off look (tests): nothing holds the folder's lock while it is used.
        """
        if self._client is None or getattr(self._client, "reads_only", False):
            with self._operation(full=True):
                pass
        assert self._client is not None and not isinstance(self._client, FolderReader)
        return self._client

    @property
    def _chroma(self) -> ClientAPI | FolderReader:
        """The client of the operation under way (connected here outside one, as
        :attr:`client` does, but a client that only reads will do)."""
        if self._client is None:
            with self._operation():
                pass
        assert self._client is not None
        return self._client

    def close(self) -> None:
        """Release the client (and, for a local folder, chroma's hold on its files)."""
        if self._access is not None:
            self._access.detach()
            self._access = None
        else:
            # close() lives on chromadb's Client, not on the ClientAPI interface it returns.
            close = getattr(self._client, "close", None)
            if close is not None:
                close()
        self._client = None
        self._collection = None
        self._max_batch = None

    def max_batch_size(self) -> int:
        """The most records chroma accepts in one call (asked once, then cached)."""
        if self._max_batch is None:
            with self._operation():
                self._max_batch = max(1, int(self._chroma.get_max_batch_size()))
        return self._max_batch

    def _existing_collection(self) -> Readable | None:
        """The collection if it exists; reads on a missing collection find nothing."""
        if self._collection is None:
            try:
                # embedding_function=None: without it chroma attaches its default
                # ONNX embedder, which downloads a model the first time it runs.
                self._collection = self._chroma.get_collection(
                    self.collection_name, embedding_function=None
                )
            except Exception as exc:
                if not is_missing(exc):
                    raise
                return None
        return self._collection

    def _writable_collection(self) -> Collection | None:
        """The collection if it exists, inside a write (which holds chromadb's own client)."""
        collection = self._existing_collection()
        assert not isinstance(collection, ReaderCollection), "a write opens chromadb's client"
        return collection

    def _collection_for(self, dimension: int) -> Collection:
        collection = self._writable_collection()
        if collection is None:
            metadata: dict[str, Any] = {DIMENSION_KEY: dimension}
            if self.embedder_name:
                metadata[EMBEDDER_KEY] = self.embedder_name
            collection = self.client.get_or_create_collection(
                self.collection_name,
                # ef_search applies to collections created from now on; chroma
                # keeps it in the collection, so changing the setting later needs
                # a `memex rebuild --vectors`.
                configuration={"hnsw": {"space": "cosine", "ef_search": self.ef_search}},
                metadata=metadata,
                embedding_function=None,
            )
            self._collection = collection
        self._check_compatible(collection, dimension)
        return collection

    def _check_compatible(self, collection: Readable, dimension: int) -> None:
        recorded = collection.metadata or {}
        stored_dimension = recorded.get(DIMENSION_KEY)
        stored_embedder = recorded.get(EMBEDDER_KEY)
        dimension_differs = stored_dimension is not None and stored_dimension != dimension
        embedder_differs = bool(
            self.embedder_name and stored_embedder and stored_embedder != self.embedder_name
        )
        if dimension_differs or embedder_differs:
            raise EmbedderMismatchError(
                f"The {self.location.describe()} (collection {self.collection_name!r}) holds "
                f"{stored_dimension}-dimensional vectors from embedder "
                f"{stored_embedder or 'unknown'}, but got {dimension}-dimensional vectors "
                f"from embedder {self.embedder_name or 'unknown'}. "
                "Run `memex rebuild --vectors` to re-embed everything with the current embedder."
            )

    def _holds_private(self) -> bool:
        """Whether the collection may hold a private vector (see :data:`PRIVATE_KEY`)."""
        if not self._private_stored:
            token = self._access.token if self._access is not None else None
            if token is not None and token == self._private_absent_at:
                return False  # nothing was written to the folder since it was read
            try:
                fresh = self._chroma.get_collection(self.collection_name, embedding_function=None)
            except Exception as exc:
                if not is_missing(exc):
                    raise
                return False
            self._collection = fresh
            self._private_stored = bool((fresh.metadata or {}).get(PRIVATE_KEY))
            if not self._private_stored:
                self._private_absent_at = token
        return self._private_stored

    def _mark_private_stored(self, collection: Collection) -> None:
        """Set the flag before the first private vector lands, so no reader misses it."""
        if self._private_stored or (collection.metadata or {}).get(PRIVATE_KEY):
            self._private_stored = True
            return
        # modify() replaces the whole metadata, so carry the dimension and embedder over.
        collection.modify(metadata={**(collection.metadata or {}), PRIVATE_KEY: True})
        self._private_stored = True

    def stored_embedding(self) -> tuple[str | None, int | None]:
        """``(embedder name, dimension)`` recorded in the collection, ``(None, None)`` if empty."""
        with self._operation():
            self._collection = None  # read afresh: another store may have rebuilt it
            collection = self._existing_collection()
            recorded = (collection.metadata if collection is not None else None) or {}
            embedder = recorded.get(EMBEDDER_KEY)
            dimension = recorded.get(DIMENSION_KEY)
            return (
                str(embedder) if embedder is not None else None,
                int(dimension) if isinstance(dimension, int) else None,
            )

    # -- VectorStore ------------------------------------------------------------------

    def upsert(
        self, fragments: Sequence[Fragment], vectors: Sequence[Sequence[float]] | np.ndarray
    ) -> None:
        """Add or replace the vectors (and filter metadata) of ``fragments``.

        ``vectors`` may also be a numpy matrix (one row per fragment), which
        avoids a copy through Python floats.
        """
        if not fragments and len(vectors) == 0:
            return
        fragments, matrix = upsert_rows(fragments, vectors)  # the last vector for an id wins
        with self._operation(write=True):
            self._again_if_dropped(lambda: self._upsert(fragments, matrix))

    def _again_if_dropped(self, work: Callable[[], T]) -> T:
        """Run ``work``; when the collection this store cached was deleted meanwhile
        (another store object or another replica on the same server cleared it for a
        rebuild), forget it and run ``work`` once more on what is there now."""
        try:
            return work()
        except Exception as exc:
            if not is_missing(exc) or self._collection is None:
                raise
            self._collection = None
            return work()

    def _upsert(self, fragments: Sequence[Fragment], matrix: np.ndarray) -> None:
        collection = self._collection_for(int(matrix.shape[1]))
        if any(fragment.private for fragment in fragments):
            self._mark_private_stored(collection)
        ids = [fragment.id for fragment in fragments]
        metadatas = [fragment_metadata(fragment) for fragment in fragments]
        self._wrote = True
        for part in _batches(len(ids), self.max_batch_size()):
            collection.upsert(
                ids=ids[part],
                embeddings=matrix[part],
                metadatas=metadatas[part],  # type: ignore[arg-type]  # None deletes a key
            )

    def delete(self, ids: Iterable[str]) -> None:
        """Remove vectors by fragment id; unknown ids are ignored."""
        unique = list(dict.fromkeys(ids))
        if not unique:
            return

        def work() -> None:
            collection = self._writable_collection()
            if collection is None:
                return
            self._wrote = True
            for part in _batches(len(unique), self.max_batch_size()):
                collection.delete(ids=unique[part])

        with self._operation(write=True):
            self._again_if_dropped(work)

    def _filtered_after(
        self,
        collection: Readable,
        query: np.ndarray,
        limit: int,
        filters: SearchFilters,
        private_stored: bool,
    ) -> tuple[list[str], list[float]] | None:
        """The ``limit`` best hits passing ``filters``, from an unfiltered query of about
        :data:`OVERFETCH` times as many, or None when too few of those pass.

        Any ``where`` makes chroma's query far slower (at 100,000 vectors, ~0.7 s instead
        of ~5 ms, measured), and an agent's search always filters by owner once a home holds
        other users' memory, though the corpus it may read is nearly every vector. When at
        least ``limit`` of the wider unfiltered hits pass, they are exactly the filtered
        query's answer (the best passing vectors are among the best vectors); otherwise the
        caller asks chroma with the filter."""
        wide = limit * OVERFETCH + OVERFETCH_SLACK
        result = collection.query(
            query_embeddings=query.reshape(1, -1), n_results=wide, include=["distances"]
        )
        ids = result["ids"][0]
        distances = (result["distances"] or [[]])[0]
        # Metadata costs more than the query itself: read it for the best ``limit`` hits
        # first, and for the rest only if some of those fail the filter.
        kept: list[tuple[str, float]] = []
        start = 0
        while start < len(ids) and len(kept) < limit:
            chunk = ids[start : start + max(limit, 1)] if start == 0 else ids[start:]
            got = collection.get(ids=list(chunk), include=["metadatas"])
            metadata_of = dict(zip(got["ids"], got["metadatas"] or [], strict=True))
            for offset, hit_id in enumerate(chunk):
                if passes(metadata_of.get(hit_id), filters, private_stored=private_stored):
                    kept.append((hit_id, distances[start + offset]))
            start += len(chunk)
        if len(kept) < limit and len(ids) >= wide:
            return None  # the filter is selective here: let chroma apply it
        kept = kept[:limit]
        return [hit_id for hit_id, _ in kept], [distance for _, distance in kept]

    def search(
        self, vector: Sequence[float] | np.ndarray, limit: int, filters: SearchFilters
    ) -> list[SignalHit]:
        """Best ``limit`` fragments passing ``filters`` by cosine similarity, best first."""
        if limit <= 0:
            return []
        query = query_vector(vector)

        def work() -> tuple[list[str], list[float]]:
            collection = self._existing_collection()
            if collection is None:
                return [], []
            self._check_compatible(collection, int(query.shape[0]))
            private_stored = not filters.include_private and self._holds_private()
            collection = self._collection or collection
            where = where_clause(filters, private_stored=private_stored)
            found = None
            if where is not None:  # the wide unfiltered net, then the passing vectors
                found = self._filtered_after(collection, query, limit, filters, private_stored)
                found = found or exact_filtered(collection, query, limit, filters, private_stored)
            if found is None:
                result = collection.query(
                    query_embeddings=query.reshape(1, -1),
                    n_results=limit,
                    where=where,
                    include=["distances"],
                )
                found = (result["ids"][0], list((result["distances"] or [[]])[0]))
            return found

        with self._operation():
            ids, distances = self._again_if_dropped(work)
        # The collection uses cosine distance (1 - cosine similarity). Clamp the
        # float32 rounding that can push a perfect match just past 1.
        hits = [
            SignalHit(id=hit_id, score=min(1.0, max(-1.0, 1.0 - float(distance))))
            for hit_id, distance in zip(ids, distances, strict=True)
        ]
        hits.sort(key=lambda hit: hit.score, reverse=True)  # stable: keeps chroma's tie order
        return hits

    def nearest(self, vector: Sequence[float] | np.ndarray, limit: int) -> list[SignalHit]:
        """The ``limit`` nearest vectors, unfiltered (private ones too), best first: chroma's
        fast query, for memex to filter against its catalog (see the VectorStore contract)."""
        return self.search(vector, limit, UNFILTERED)

    def prepare(self) -> None:
        """Open the client and load the index into memory, so the first search is fast.

        memex calls this on a background thread while it embeds the query: loading
        100,000 vectors takes chroma ~0.2 s, mostly in Rust, which overlaps with the
        embedding. A missing or empty collection needs nothing.
        """
        with self._operation():
            collection = self._existing_collection()
            if collection is None:
                return
            dimension = (collection.metadata or {}).get(DIMENSION_KEY)
            if not isinstance(dimension, int) or dimension < 1:
                return
            probe = np.zeros((1, dimension), dtype=np.float32)
            probe[0, 0] = 1.0  # any unit vector: the answer is thrown away
            collection.query(query_embeddings=probe, n_results=1, include=["distances"])

    def settle(self) -> int:
        """After a bulk write, bring chroma's index files up to its log; returns records re-written.

        Without it, every later process replays up to ``sync_threshold - 1`` logged
        writes into the index before its first search (see :mod:`memex_chroma.log_tail`).
        chroma cannot be told to sync, so this re-writes that many unchanged records
        (same ids, vectors and metadata) to cross the threshold: about as long as one
        replay, paid once by the writer instead of by every reader. Does nothing on a
        server, when this store wrote nothing since it opened, or when the collection
        holds fewer records than the threshold (replaying a small index is cheap).
        """
        if self.location.path is None or not self._wrote:
            return 0
        rewritten = 0
        with self._operation(write=True):
            self._wrote = False
            collection = self._writable_collection()
            if collection is None:
                return 0
            threshold = _sync_threshold(collection)
            for _ in range(3):  # chroma syncs between its own batches: check and go again
                behind = unsynced_records(self.location.path, str(collection.id))
                if not behind:
                    break
                needed = max(1, threshold - behind)
                if collection.count() < threshold:
                    break  # a small index replays in milliseconds
                rows = collection.get(limit=needed, include=["embeddings", "metadatas"])
                ids = list(rows["ids"])
                embeddings = np.asarray(rows["embeddings"], dtype=np.float32)
                metadatas: list[Any] = list(rows["metadatas"] or [])
                for part in _batches(len(ids), self.max_batch_size()):
                    collection.upsert(
                        ids=ids[part],
                        embeddings=embeddings[part],
                        metadatas=metadatas[part] or None,
                    )
                rewritten += len(ids)
        return rewritten

    def compact(self) -> int:
        """After a purge: leave no copy of deleted vectors in chroma's log or free pages
        (see :mod:`memex_chroma.erasure`); returns the placeholder records written to make
        chroma sync. A server: 0."""
        if self.location.path is None:
            return 0
        written = 0
        with self._operation(write=True):
            collection = self._writable_collection()
            dimension = (collection.metadata or {}).get(DIMENSION_KEY) if collection else None
            if collection is not None and isinstance(dimension, int) and dimension > 0:
                threshold = _sync_threshold(collection)
                batch = self.max_batch_size()
                written = push_log(collection, self.location.path, threshold, dimension, batch)
            vacuum(self.location.path)
        return written

    def count(self) -> int:
        def work() -> int:
            collection = self._existing_collection()
            return collection.count() if collection is not None else 0

        with self._operation():
            return self._again_if_dropped(work)

    def ids(self) -> set[str]:
        """Every fragment id with a stored vector (for consistency checks with the catalog)."""

        def work() -> set[str]:
            collection = self._existing_collection()
            if collection is None:
                return set()
            found: set[str] = set()
            page = self.max_batch_size()
            offset = 0
            while True:
                batch = collection.get(include=[], limit=page, offset=offset)["ids"]
                found.update(batch)
                if len(batch) < page:
                    return found
                offset += page

        with self._operation():
            return self._again_if_dropped(work)

    def stored_vectors(self, ids: Sequence[str]) -> dict[str, list[float]]:
        """Those of ``ids`` with a vector, as stored (``memex export --with-vectors``)."""
        with self._operation():
            return self._again_if_dropped(lambda: stored_vectors(self._existing_collection(), ids))

    def clear(self) -> None:
        """Drop every vector (and the recorded embedder); the next upsert starts afresh."""
        with self._operation(write=True):
            if self._existing_collection() is not None:
                self.client.delete_collection(self.collection_name)
            self._collection = None
            self._private_stored = False
            self._private_absent_at = None
