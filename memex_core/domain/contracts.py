"""The contracts plugins implement, as structural protocols.

A plugin never subclasses anything from memex: it provides an object with these
methods. Services depend on these protocols only, never on an implementation.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from memex_core.domain.filters import SearchFilters
from memex_core.domain.fragment import Fragment
from memex_core.domain.links import Link
from memex_core.domain.results import FusedHit, SignalHit


@dataclass(frozen=True)
class PluginContext:
    """What a component factory receives when memex builds it.

    ``home`` is the ``MEMEX_HOME`` folder; a component keeps its files under
    ``home / "index" / <its name>`` or similar. ``settings`` is the component's
    own table from ``$MEMEX_HOME/config.toml`` (for example ``[keyword.bm25]``).
    """

    home: Path
    settings: Mapping[str, Any] = field(default_factory=dict)


class SourceError(Exception):
    """A source could not read a file. The message names the file, the place and the fix."""

    def __init__(self, path: str | Path, reason: str, location: str | None = None) -> None:
        self.path = str(path)
        self.reason = reason
        self.location = location
        where = f"{self.path}" + (f" ({location})" if location else "")
        super().__init__(f"{where}: {reason}")


class SkippedItemWarning(UserWarning):
    """An item inside an otherwise readable file was skipped (the message says which and why).

    Sources warn with it; ingest collects these warnings into the file's
    :attr:`~memex_core.domain.FileOutcome.skipped` so they are reported as memex
    reports everything else (the file, the place, the reason), not in Python's
    warning format.
    """


@runtime_checkable
class Source(Protocol):
    """Reads one kind of file (an export, a transcript folder...) into fragments."""

    source_kind: str

    def can_handle(self, path: Path) -> bool:
        """Cheaply decide whether ``path`` is this source's format (peek, don't parse it all)."""
        ...

    def ingest(self, path: Path) -> Iterator[Fragment]:
        """Yield every fragment in ``path``. Raise :class:`SourceError` for unreadable input."""
        ...


#: A :class:`Source` may set ``replace_changed_files = True``: when a file it read
#: before has changed (a transcript that grew), the fragments the earlier version
#: yielded and the new one no longer does are removed. Without it ingest only adds.
REPLACE_CHANGED_FILES = "replace_changed_files"

#: A :class:`FolderSource` may set ``explicit_only = True``: plain ``memex ingest`` never
#: offers it a folder (its ``can_handle_folder`` is not asked); it reads the folders named
#: with ``memex ingest --source <name>`` (the ``code`` source: a notes folder kept in git
#: must still go to its own source).
EXPLICIT_ONLY = "explicit_only"

#: A :class:`Source` may also define ``explain_unread(path) -> str | None``: for a file
#: its ``can_handle`` refused, why, when the source knows the file (``users.json`` of an
#: export it reads, an archive whose members are unsafe). Ingest shows the reason
#: instead of a bare "no source can read this file".
EXPLAIN_UNREAD = "explain_unread"


@dataclass(frozen=True)
class FolderScan:
    """What a folder source found in a folder, cheaply (no parsing).

    ``documents`` are the relative paths (``/``-separated) of the files that
    become documents (the notes); ``files`` are all files links may point at
    (notes and attachments), used to resolve links.

    ``fingerprints`` may give, per document, a digest of its content that the source
    knows without reading it (a git blob hash): sync then compares that to the stored
    one instead of the file's size, time and SHA-256, so an unchanged document is never
    read. Documents it leaves out are compared the usual way.
    """

    documents: list[str]
    files: list[str]
    fingerprints: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ParsedDocument:
    """One document of a folder source, parsed: its fragments and the links it contains.

    ``id`` must be stable for the same folder and relative path, and every
    fragment's ``conversation_id`` must equal it. ``aliases`` are other names
    links may use for it; ``properties`` are extra metadata (frontmatter).
    """

    id: str
    path: str
    title: str
    fragments: list[Fragment]
    links: list[Link] = field(default_factory=list)
    aliases: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    properties: Mapping[str, Any] = field(default_factory=dict)
    timestamp: float | None = None


@runtime_checkable
class FolderSource(Protocol):
    """Reads a folder whose files form one linked whole (an Obsidian vault).

    Unlike a :class:`Source`, which reads one file at a time and only ever adds,
    a folder source is synced: ``memex ingest FOLDER`` parses the documents
    whose content changed, replaces what they held, and removes documents whose
    file is gone. Links are resolved by memex over the whole folder afterwards.
    """

    source_kind: str

    def can_handle_folder(self, folder: Path) -> bool:
        """Cheaply decide whether ``folder`` is one of this source's folders."""
        ...

    def scan(self, folder: Path) -> FolderScan: ...

    def read_document(self, folder: Path, path: str) -> ParsedDocument:
        """Parse the document at relative ``path``. Raise :class:`SourceError` if unreadable."""
        ...


@runtime_checkable
class KeywordStore(Protocol):
    """A lexical index over fragment content.

    ``concurrent_reads = True`` (optional, an attribute) says its searches may run on
    several threads at once while nothing writes; memex then lets searches share its call
    lock (:mod:`memex_core.threads`) when every component they use says so, and otherwise
    runs them one at a time. Writes are always alone.
    """

    def add(self, fragments: Sequence[Fragment]) -> int:
        """Index fragments; ids already present are skipped. Returns how many were new."""
        ...

    def delete(self, ids: Iterable[str]) -> int:
        """Remove fragments by id. Returns how many were present."""
        ...

    def search(self, query: str, limit: int, filters: SearchFilters) -> list[SignalHit]:
        """Best ``limit`` hits that pass ``filters``, best first; no zero-score hits."""
        ...

    def count(self) -> int: ...

    def ids(self) -> set[str]: ...

    def flush(self) -> None:
        """Persist pending changes (atomically: readers see the old or the new state)."""
        ...

    def clear(self) -> None: ...


@runtime_checkable
class VectorStore(Protocol):
    """Nearest-neighbour search over fragment embeddings supplied by memex.

    A store may also offer, each optional:

    - ``ids() -> set[str]``, every fragment id holding a vector: ``memex doctor``
      then compares them with the catalog one by one (without it, only the counts);
    - ``prepare() -> None``, open and load what the first search needs. memex calls
      it on a background thread at a process's first semantic search, while the
      query is embedded, so a slow open costs a cold ``memex dig`` less. Errors are
      ignored there: the search that follows meets and reports them;
    - ``settle() -> int``, called after bulk writes (ingest, backfill, rebuild) to
      leave the files ready for the next process to open quickly; returns the
      records it re-wrote. Never after a single small batch such as a memory write;
    - ``nearest(vector, limit) -> list[SignalHit]``, the ``limit`` nearest vectors with
      no filter at all (private ones included), best first: a store whose filtered
      queries are much slower than unfiltered ones offers it, and memex then filters
      a wider unfiltered answer against the catalog itself (see
      ``SearchService._filtered_nearest``) before falling back to ``search``;
    - ``stored_vectors(ids) -> dict[str, list[float]]``, the vectors of those of ``ids``
      that hold one, as their float32 values (ids without one left out), which
      ``memex export --with-vectors`` writes into the archive (without it: refused),
      and which a memory write reads to rank one owner's facts by cosine itself, a
      vector held per process once read (``memex_core.services.listed_vectors``;
      without it the store's filtered ``search`` answers);
    - ``concurrent_reads``, as for :class:`KeywordStore`.
    """

    def upsert(self, fragments: Sequence[Fragment], vectors: Sequence[Sequence[float]]) -> None: ...

    def delete(self, ids: Iterable[str]) -> None: ...

    def search(
        self, vector: Sequence[float], limit: int, filters: SearchFilters
    ) -> list[SignalHit]:
        """Best ``limit`` hits by cosine similarity (score in [-1, 1]), best first."""
        ...

    def count(self) -> int: ...

    def clear(self) -> None: ...


@runtime_checkable
class Embedder(Protocol):
    """Turns text into fixed-size vectors; ``name`` and ``dimension`` go in the catalog.

    ``concurrent_reads = True`` (optional) says ``embed_query`` may run on several threads
    at once, as for :class:`KeywordStore`.

    An embedder may also offer, each optional (callers look them up with ``getattr``):

    * ``embed_queries(texts) -> rows``: several queries at once, each row as
      ``embed_query`` would give it up to float32 rounding (``memex serve`` batches the
      queries of concurrent searches through it);
    * ``warm_queries() -> str``: called once at start by a long-lived process that
      answers searches (``memex serve``). The embedder may then load a query engine too
      slow to start for a cold CLI but cheaper per query, and says which (MiniLM: ONNX
      Runtime instead of numpy). It must not change the vectors beyond float32 rounding,
      nor fail where ``embed_query`` would not;
    * ``cold_queries()``: a context manager within which the calling thread's queries are
      embedded exactly as in a cold process (the warm socket answers CLI commands in it,
      whose output must be the bytes they print alone);
    * ``symmetric = True``: ``embed_query(text)`` is ``embed_documents([text])[0]`` up to
      float32 rounding (MiniLM embeds both alike). A memory write may then index a text
      with the vector its candidate search just computed for it, instead of embedding the
      same text twice. An embedder that embeds queries and documents differently (an
      instruction prefix, two towers) must not say so.
    """

    name: str
    dimension: int

    def embed_documents(self, texts: Sequence[str]) -> Sequence[Sequence[float]]:
        """Embed many texts (batched internally), L2-normalised."""
        ...

    def embed_query(self, text: str) -> Sequence[float]:
        """Embed one query, L2-normalised. Must be cheap to start: it is on the CLI's path."""
        ...


@runtime_checkable
class Ranker(Protocol):
    """Fuses ranked lists from several signals into one.

    ``concurrent_reads = True`` (optional) says ``fuse`` may run on several threads at
    once, as for :class:`KeywordStore`.
    """

    def fuse(
        self,
        signals: Mapping[str, Sequence[SignalHit]],
        weights: Mapping[str, float],
        limit: int,
    ) -> list[FusedHit]: ...


@runtime_checkable
class LinkGraphView(Protocol):
    """Read access to the link graph, for rankers that use it."""

    def backlink_counts(self, fragment_ids: Sequence[str]) -> Mapping[str, int]:
        """For each fragment id, how many links from other documents point at its document.

        Ids of fragments whose document nobody links to map to 0.
        """
        ...


@runtime_checkable
class GraphAwareRanker(Ranker, Protocol):
    """A ranker that also reads the link graph; memex calls ``bind_graph`` before searching."""

    def bind_graph(self, graph: LinkGraphView) -> None: ...


@runtime_checkable
class RerankCatalog(Protocol):
    """What a :class:`QueryAwareRanker` may read of the catalog about its candidates."""

    def get_many(self, ids: Sequence[str]) -> Mapping[str, Fragment]: ...

    def fragment_positions(self, ids: Sequence[str]) -> Mapping[str, tuple[str, int]]:
        """(conversation id, position in it) of each id that has a position."""
        ...


@runtime_checkable
class QueryAwareRanker(Ranker, Protocol):
    """A ranker that re-orders the fused candidates knowing the query and the fragments.

    Hybrid search asks :meth:`fuse` for at least ``rerank_depth`` candidates, applies the
    relevance floor, and hands the best ``rerank_depth`` it kept to :meth:`rerank`, which
    returns them in its order; signals it adds to a hit's ``ranks``/``scores`` (by name)
    are shown with the result (the panels, the concise hits' ``why``, JSON), and so are its
    ``reasons`` (why it moved, in words). Give each hit the fused score of the place it
    moves to, so that scores still fall down the page (as ``rerank`` does).
    """

    rerank_depth: int

    def rerank(
        self, query: str, hits: Sequence[FusedHit], catalog: RerankCatalog
    ) -> list[FusedHit]: ...


@dataclass(frozen=True)
class FactType:
    """A kind of fact an extractor looks for (mem0's seven are the defaults).

    ``description`` tells a model (or a reader) what belongs in it; ``examples``
    are short sample facts. Custom types come from a YAML or TOML file.
    """

    name: str
    description: str
    examples: tuple[str, ...] = ()


@dataclass(frozen=True)
class MemoryFact:
    """A fact extracted from a conversation, before consolidation decides its fate.

    ``kind`` is a :class:`FactType` name; ``source_fragment_ids`` are the
    fragments (turns) it was read from, kept as the memory's provenance.
    """

    text: str
    kind: str = "fact"
    source_fragment_ids: tuple[str, ...] = ()


@dataclass(frozen=True)
class SimilarMemory:
    """An existing memory close to a new fact: what a consolidator weighs it against."""

    memory_id: str
    text: str
    similarity: float  # cosine in [-1, 1]
    kind: str = "fact"


#: The four consolidation actions, as mem0 names them.
ADD, UPDATE, DELETE, NONE = "ADD", "UPDATE", "DELETE", "NONE"
CONSOLIDATION_ACTIONS = (ADD, UPDATE, DELETE, NONE)


@dataclass(frozen=True)
class ConsolidationDecision:
    """What to do with a new fact given similar existing memories.

    - ``ADD``: store the fact as a new memory.
    - ``UPDATE``: give memory ``target_id`` a new revision whose text is ``text``
      (the merged statement; defaults to the fact's text).
    - ``DELETE``: the fact contradicts memory ``target_id``, which is invalidated
      (a revision, never a hard delete); the fact itself is added when ``text``
      is not empty.
    - ``NONE``: the fact is already known (``target_id`` says where); nothing changes.

    ``reason`` is shown by ``memex dream --dry-run``.
    """

    action: str
    fact: MemoryFact
    target_id: str | None = None
    reason: str = ""
    text: str | None = None

    def __post_init__(self) -> None:
        if self.action not in CONSOLIDATION_ACTIONS:
            raise ValueError(
                f"consolidation action must be one of {', '.join(CONSOLIDATION_ACTIONS)}, "
                f"not {self.action!r}"
            )
        if self.action in (UPDATE, DELETE) and not self.target_id:
            raise ValueError(f"{self.action} needs the target_id of the memory it changes")

    @property
    def new_text(self) -> str:
        """The text an ADD stores or an UPDATE writes."""
        return self.text if self.text is not None else self.fact.text


@runtime_checkable
class Extractor(Protocol):
    """Turns a conversation (its fragments, in order) into facts worth remembering."""

    def extract(
        self, fragments: Sequence[Fragment], fact_types: Sequence[FactType]
    ) -> list[MemoryFact]:
        """Facts found in ``fragments``, each of one of ``fact_types``; may be empty."""
        ...


@runtime_checkable
class Consolidator(Protocol):
    """Decides ADD, UPDATE, DELETE or NONE for a new fact against similar memories."""

    def decide(self, fact: MemoryFact, similar: Sequence[SimilarMemory]) -> ConsolidationDecision:
        """``similar`` holds the closest existing memories in the same scope, most similar
        first, already cut at the similarity threshold (default 0.5); it may be empty."""
        ...


@dataclass(frozen=True)
class Redaction:
    """Text with likely secrets replaced, and what was found (types only, never values)."""

    text: str
    found: tuple[str, ...] = ()


@runtime_checkable
class Redactor(Protocol):
    """Replaces likely secrets (API keys, tokens, passwords, private keys) in text."""

    def redact(self, text: str) -> Redaction: ...


@runtime_checkable
class ChatModel(Protocol):
    """A chat model that answers a question from a prompt: ``memex ask`` hands it the
    numbered context pack and checks the citations in its reply.

    ``label`` names the model in notes and in the answer (``"ChatOpenAI (gpt-4o-mini)"``);
    ``reply`` sends one system instruction and one user prompt and returns the reply's text.
    """

    @property
    def label(self) -> str: ...

    def reply(self, system: str, prompt: str) -> str: ...
