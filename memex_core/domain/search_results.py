"""What a search hands back: its results, best first, and what a user should know about them."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from memex_core.domain.results import SearchResult


@dataclass
class SearchResults:
    """Results, best first, plus notes a user should see (e.g. a signal that was unavailable).

    ``fallback`` is set when the semantic signal failed at query time and these are
    keyword results standing in for it: it holds the reason (also among ``notes``).
    ``floor`` is the relevance floor the search applied (None: none), and
    ``below_floor`` how many candidates it left out for lack of evidence.
    """

    mode: str
    results: list[SearchResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    fallback: str | None = None
    floor: float | None = None
    below_floor: int = 0

    def __iter__(self) -> Iterator[SearchResult]:
        return iter(self.results)

    def __len__(self) -> int:
        return len(self.results)

    def __getitem__(self, index: int) -> SearchResult:
        return self.results[index]
