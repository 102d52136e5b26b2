"""Values that services hand back: signal hits, fused hits, search results, reports."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from memex_core.domain.fragment import Fragment

#: Names of the retrieval signals that hybrid search fuses.
KEYWORD = "keyword"
SEMANTIC = "semantic"


@dataclass(frozen=True)
class SignalHit:
    """One candidate from one signal: a fragment id and that signal's raw score.

    Lists of hits are ordered best first; rank is position + 1.
    """

    id: str
    score: float


@dataclass(frozen=True)
class FusedHit:
    """One fused candidate: its fused score and, per signal, its rank and raw score.

    A signal that did not return the fragment has ``None`` for both. ``reasons``: what a
    ranker that re-orders says moved it, in words (the rerank: the features that raised it
    most, "keyword score", "neighbours"); empty otherwise.
    """

    id: str
    score: float
    ranks: dict[str, int | None]
    scores: dict[str, float | None]
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True)
class SearchResult:
    """A fragment found by a search, with the evidence for why it was found.

    ``evidence`` says what kept it (see :mod:`memex_core.domain.relevance`):
    ``"keyword"``, ``"semantic"`` (kept on meaning alone: it shares too few of the
    query's words to count) or ``"both"``; ``"chain"`` for a current memory fact shown in
    the place of the closed fact it replaced, which the search found
    (:mod:`memex_core.services.chain_successor`); None where a caller built it by hand.
    ``reasons``: why the ranker put it where it is, in words (the default ``rerank``: the
    features of its model that raised it most against the other candidates); empty when
    the ranker did not re-order it.
    """

    fragment: Fragment
    score: float
    ranks: dict[str, int | None]
    scores: dict[str, float | None]
    evidence: str | None = None
    reasons: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        return self.fragment.id


@dataclass
class FileOutcome:
    """What happened to one input file during ingest."""

    path: str
    # "new" | "updated" | "unchanged" | "removed" | "failed", or "skipped": a file met
    # inside a folder that no source reads (``error`` says why).
    status: str
    source_kind: str | None = None
    fragments_added: int = 0
    fragments_seen: int = 0
    error: str | None = None
    fragments_removed: int = 0


@dataclass
class IngestReport:
    """The outcome of one ``ingest`` call across all the files it was given."""

    files: list[FileOutcome] = field(default_factory=list)
    embedded: int = 0
    embedding_skipped_reason: str | None = None
    removed_ids: list[str] = field(default_factory=list)
    #: Items skipped inside files and folders that were read otherwise (an entry that is
    #: not a conversation, a note's broken frontmatter), each "path (place): skipped, reason".
    skipped: list[str] = field(default_factory=list)
    #: ``<private>`` spans dropped and secrets redacted (by kind) before anything was stored.
    private_spans_removed: int = 0
    secrets_redacted: Counter[str] = field(default_factory=Counter)
    #: Why secrets were not redacted though ``[ingest] redact_secrets`` is on.
    redaction_skipped_reason: str | None = None

    def count(self, status: str) -> int:
        return sum(1 for f in self.files if f.status == status)

    @property
    def fragments_added(self) -> int:
        return sum(f.fragments_added for f in self.files)

    @property
    def fragments_removed(self) -> int:
        return len(self.removed_ids)

    @property
    def failed(self) -> list[FileOutcome]:
        return [f for f in self.files if f.status == "failed"]

    @property
    def nothing_read(self) -> bool:
        """No file was read or found current: every one failed or was skipped."""
        return not any(f.status not in ("failed", "skipped") for f in self.files)


@dataclass(frozen=True)
class CorpusStats:
    """Counts that describe what memex holds."""

    fragments: int
    conversations: int
    embedded: int
    keyword_indexed: int
    by_source: dict[str, int]
    by_role: dict[str, int]
    embedder: str | None
    dimension: int | None
    first_timestamp: float | None
    last_timestamp: float | None
    documents: int = 0  # notes of synced folders (vaults); code files are counted in ``code``
    links: int = 0
    unresolved_links: int = 0
    #: A repository's code (``memex ask``, ``ingest --source code``), counted apart from the
    #: conversations, notes and roles above: ``repositories``, ``files`` and ``fragments``.
    code: dict[str, int] = field(default_factory=dict)
