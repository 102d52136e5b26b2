"""memex's domain model: plain data and contracts, no infrastructure."""

from memex_core.domain.contracts import (
    ConsolidationDecision,
    Consolidator,
    Embedder,
    Extractor,
    KeywordStore,
    MemoryFact,
    PluginContext,
    Ranker,
    Source,
    SourceError,
    VectorStore,
)
from memex_core.domain.filters import SearchFilters
from memex_core.domain.fragment import ROLES, Fragment, Provenance, fragment_id
from memex_core.domain.results import (
    KEYWORD,
    SEMANTIC,
    CorpusStats,
    FileOutcome,
    FusedHit,
    IngestReport,
    SearchResult,
    SignalHit,
)

__all__ = [
    "KEYWORD",
    "ROLES",
    "SEMANTIC",
    "ConsolidationDecision",
    "Consolidator",
    "CorpusStats",
    "Embedder",
    "Extractor",
    "FileOutcome",
    "Fragment",
    "FusedHit",
    "IngestReport",
    "KeywordStore",
    "MemoryFact",
    "PluginContext",
    "Provenance",
    "Ranker",
    "SearchFilters",
    "SearchResult",
    "SignalHit",
    "Source",
    "SourceError",
    "VectorStore",
    "fragment_id",
]
