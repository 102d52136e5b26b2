"""A home for checking ``memex doctor`` and archives against: what it holds (two chat
exports, a small vault, agent memories), the queries its searches are compared on, and a
vector store that can list and lose its vectors."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from memex_core.api import Memex
from memex_core.domain import SearchFilters
from tests.support import component_doubles
from tests.support.component_doubles import MemoryVectorStore, fast_memex

QUERIES = (
    "kubernetes pod restarting",
    "sqlite database is locked",
    "sourdough starter",
    "mortgage payment",
    "postgres slow query",
    "garden tomatoes watering",
    "espresso grinder",
    "prefers green tea",
    "alice lives in lisbon",
)
EVERYTHING = SearchFilters(include_private=True)

NOTES = {
    "Garden.md": "# Garden\n\nWater the tomatoes every morning. See [[Compost]].\n\n"
    "## Beds\n\nRaised beds need less weeding.\n",
    "Compost.md": "# Compost\n\nGreens and browns in equal parts. Back to [[Garden#Beds]].\n",
    "Coffee/Espresso.md": "# Espresso\n\nA fine grinder matters more than the machine.\n"
    "Links to [[Missing note]].\n",
    "Coffee/Pour over.md": "---\naliases: [filter coffee]\n---\n# Pour over\n\n"
    "Bloom for thirty seconds, then pour slowly. Unlike [[Espresso]].\n",
}


class ListingVectorStore(MemoryVectorStore):
    """The in-memory double, able to list its ids like the chroma store does. ``broken``
    makes every read fail (a damaged store) until :meth:`clear`, or for good with
    ``"unreachable"`` (a server that is down)."""

    broken: bool | str = False

    def _check(self) -> None:
        if self.broken:
            raise RuntimeError(f"vector store {self.broken}: cannot read the collection")

    def ids(self) -> set[str]:
        self._check()
        return set(self.vectors)

    def count(self) -> int:
        self._check()
        return super().count()

    def clear(self) -> None:
        if self.broken == "unreachable":
            self._check()
        self.broken = False
        super().clear()

    def clone(self) -> ListingVectorStore:
        copy = ListingVectorStore()
        copy.vectors = {k: v.copy() for k, v in self.vectors.items()}
        copy.fragments = dict(self.fragments)
        return copy


def write_vault(folder: Path) -> Path:
    (folder / ".obsidian").mkdir(parents=True)
    for rel, text in NOTES.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")
    return folder


def stored(home: Path) -> ListingVectorStore:
    """The vector store double of ``home``."""
    store = component_doubles._STORES[home]
    assert isinstance(store, ListingVectorStore)
    return store


def doctor_memex(home: Path, store: ListingVectorStore | None = None) -> Memex:
    """``fast_memex`` whose vector store can list ids (the doctor compares them by id)."""
    component_doubles._STORES[home] = store or ListingVectorStore()
    return fast_memex(home)


def search_results(mx: Memex) -> dict[str, dict[str, float]]:
    """Every hit of every query in both modes: (mode, query) -> {id: score}."""
    out: dict[str, dict[str, float]] = {}
    for query in QUERIES:
        for mode in ("keyword", "semantic"):
            found = mx.search(query, mode=mode, limit=1000, filters=EVERYTHING, time_phrases=False)
            out[f"{mode}:{query}"] = {r.fragment.id: round(r.score, 6) for r in found}
    return out


@dataclass
class Template:
    home: Path
    store: ListingVectorStore
    results: dict[str, dict[str, float]]
    forgotten: str  # a deleted memory's id
    private_memory: str  # a private memory's id
