"""Scope filters (owners, collections, private) inside every index, before top-k.

Each store must reproduce :meth:`SearchFilters.matches` exactly: the bm25
keyword store, the chroma vector store (a real PersistentClient in tmp_path)
and the in-memory vector store the fast API tests use.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memex_bm25 import generations as bm25_generations
from memex_bm25 import scoring as bm25_scoring
from memex_bm25.store import BM25Store
from memex_bm25.tokenizer import Tokenizer
from memex_core.domain import Fragment, SearchFilters
from tests.support.component_doubles import MemoryVectorStore
from tests.support.scope_builders import (
    COLLECTIONS,
    OWNERS,
    ROLES,
    SOURCES,
    T0,
    make_fragment,
    random_filters,
    random_fragments,
)

if TYPE_CHECKING:
    from memex_chroma.store import ChromaVectorStore

DIM = 16
PLAIN = Tokenizer(stemmer=None, stopwords=None)


# -- one interface over the three stores ---------------------------------------------------


class Harness(Protocol):
    def add(self, fragments: Sequence[Fragment]) -> None: ...

    def search(self, target: Fragment | None, limit: int, filters: SearchFilters) -> list[str]:
        """Ids found for a query aimed at ``target`` (``None``: a query every fragment fits)."""
        ...

    def expected(
        self, fragments: Sequence[Fragment], target: Fragment | None, limit: int, f: SearchFilters
    ) -> list[str] | set[str]:
        """What the search must return: a ranked list, or a set when ranks tie."""
        ...


class BM25Harness:
    def __init__(self, directory: Path) -> None:
        self.store = BM25Store(directory, PLAIN)

    def add(self, fragments: Sequence[Fragment]) -> None:
        self.store.add(fragments)
        # Searching turns the buffered fragments into a segment: later adds land in another.
        self.store.search("common", 1, SearchFilters(include_private=True))

    def search(self, target: Fragment | None, limit: int, filters: SearchFilters) -> list[str]:
        query = "common" if target is None else target.content.split()[1]
        return [hit.id for hit in self.store.search(query, limit, filters)]

    def expected(
        self, fragments: Sequence[Fragment], target: Fragment | None, limit: int, f: SearchFilters
    ) -> list[str] | set[str]:
        assert target is None and limit >= len(fragments)  # every fragment scores alike
        return {fragment.id for fragment in fragments if f.matches(fragment)}


class VectorHarness:
    """Chroma or the in-memory double; vectors are random unit vectors per fragment."""

    def __init__(self, store: object) -> None:
        self.store = store
        self.vectors: dict[str, np.ndarray] = {}
        self.rng = np.random.default_rng(3)
        self.neutral = self._unit()

    def _unit(self) -> np.ndarray:
        vector = self.rng.normal(size=DIM).astype(np.float32)
        return vector / np.linalg.norm(vector)

    def add(self, fragments: Sequence[Fragment]) -> None:
        vectors = np.stack([self._unit() for _ in fragments])
        for fragment, vector in zip(fragments, vectors, strict=True):
            self.vectors[fragment.id] = vector
        self.store.upsert(fragments, vectors)  # type: ignore[attr-defined]

    def _query(self, target: Fragment | None) -> np.ndarray:
        return self.neutral if target is None else self.vectors[target.id]

    def search(self, target: Fragment | None, limit: int, filters: SearchFilters) -> list[str]:
        hits = self.store.search(self._query(target), limit, filters)  # type: ignore[attr-defined]
        return [hit.id for hit in hits]

    def expected(
        self, fragments: Sequence[Fragment], target: Fragment | None, limit: int, f: SearchFilters
    ) -> list[str] | set[str]:
        query = self._query(target)
        allowed = [fragment.id for fragment in fragments if f.matches(fragment)]
        scores = {fid: float(self.vectors[fid] @ query) for fid in allowed}
        return sorted(allowed, key=lambda fid: (-scores[fid], fid))[:limit]


@pytest.fixture(params=["bm25", "chroma", "memory"])
def harness(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Harness]:
    if request.param == "bm25":
        yield BM25Harness(tmp_path / "bm25")
    elif request.param == "memory":
        yield VectorHarness(MemoryVectorStore())
    else:
        pytest.importorskip("chromadb", reason="chromadb is not installed")
        from memex_chroma.connection import ChromaLocation
        from memex_chroma.store import ChromaVectorStore as Chroma

        with Chroma(ChromaLocation(path=tmp_path / "chroma")) as chroma:
            yield VectorHarness(chroma)


def check(
    harness: Harness,
    fragments: Sequence[Fragment],
    target: Fragment | None,
    limit: int,
    filters: SearchFilters,
) -> list[str]:
    found = harness.search(target, limit, filters)
    expected = harness.expected(fragments, target, limit, filters)
    if isinstance(expected, set):
        assert set(found) == expected and len(found) == len(expected), filters
    else:
        assert found == expected, filters
    return found


# -- every store against SearchFilters.matches ---------------------------------------------


def test_random_scope_filters_match_the_reference(harness: Harness) -> None:
    rng = random.Random(11)
    fragments = random_fragments(rng, 90)
    harness.add(fragments[:50])
    harness.add(fragments[50:])
    fixed = [SearchFilters(), SearchFilters(owners=("users/carol",))]
    seen_empty = seen_private = 0
    for round_ in range(60):
        filters = fixed[round_] if round_ < len(fixed) else random_filters(rng)
        found = check(harness, fragments, None, len(fragments), filters)
        if isinstance(harness, VectorHarness):
            # Filters apply before top-k: a small limit is the best of the allowed ones.
            check(harness, fragments, rng.choice(fragments), rng.choice([1, 3, 10]), filters)
        seen_empty += not found
        seen_private += filters.include_private and any(
            fragment.private for fragment in fragments if fragment.id in found
        )
    assert seen_empty and seen_private  # both cases were exercised


def test_owners_filter_never_returns_another_owners_fragment(harness: Harness) -> None:
    alice = make_fragment(0, owner="users/alice", extra="needle")
    bobs = [make_fragment(i, owner="users/bob") for i in range(1, 6)]
    harness.add([alice, *bobs])
    only_bob = SearchFilters(owners=("users/bob",))
    # The query is aimed at alice's fragment alone (its unique word, its own vector).
    found = harness.search(alice, 10, only_bob)
    assert alice.id not in found
    assert set(found) <= {fragment.id for fragment in bobs}
    assert harness.search(alice, 10, SearchFilters(owners=("users/carol",))) == []
    assert harness.search(alice, 10, SearchFilters(owners=("users/alice",)))[0] == alice.id


def test_private_fragments_are_excluded_by_default_and_included_on_request(
    harness: Harness,
) -> None:
    secret = make_fragment(0, owner="users/alice", private=True)
    public = make_fragment(1, owner="users/alice")
    corpus = make_fragment(2)
    other = make_fragment(3, owner="users/alice")  # on alice's 2 alone, "unique0" has idf 0
    fragments = [secret, public, corpus, other]
    harness.add(fragments)
    every = [None, secret]
    for target in every:
        for filters in (SearchFilters(), SearchFilters(owners=("users/alice",))):
            assert secret.id not in harness.search(target, 10, filters)
            check(harness, fragments, None, 10, filters)
            with_private = SearchFilters(
                owners=filters.owners, collections=filters.collections, include_private=True
            )
            assert secret.id in harness.search(target, 10, with_private)
            check(harness, fragments, None, 10, with_private)


def test_owners_alice_and_shared(harness: Harness) -> None:
    fragments = [
        make_fragment(0, owner="users/alice", collection="a"),
        make_fragment(1, owner="shared", collection="a:b"),
        make_fragment(2, owner="users/bob", collection="a"),
        make_fragment(3, owner=""),
        make_fragment(4, owner="shared", private=True),
        make_fragment(5, owner="users/alice", collection="a:b:c"),
    ]
    harness.add(fragments)
    filters = SearchFilters(owners=("users/alice", "shared"))
    assert set(harness.search(None, 10, filters)) == {"frag-0000", "frag-0001", "frag-0005"}
    in_a = SearchFilters(owners=("users/alice", "shared"), collections=("a", "a:b"))
    assert set(harness.search(None, 10, in_a)) == {"frag-0000", "frag-0001"}
    everything = SearchFilters(owners=("users/alice", "shared"), include_private=True)
    assert set(harness.search(None, 10, everything)) == {
        "frag-0000",
        "frag-0001",
        "frag-0004",
        "frag-0005",
    }


def test_scope_filters_apply_before_top_k(harness: Harness) -> None:
    # Alice's fragments are the best matches for the query; bob's must still fill the limit.
    target = make_fragment(0, owner="users/alice", extra="needle needle needle")
    alices = [make_fragment(i, owner="users/alice", extra="needle needle") for i in range(1, 30)]
    bobs = [make_fragment(i, owner="users/bob", extra="needle") for i in range(30, 35)]
    privates = [make_fragment(i, owner="users/bob", private=True) for i in range(35, 60)]
    harness.add([target, *alices, *bobs, *privates])
    if isinstance(harness, BM25Harness):
        hits = harness.store.search("needle", 3, SearchFilters(owners=("users/bob",)))
        found = [hit.id for hit in hits]
    else:
        found = harness.search(target, 3, SearchFilters(owners=("users/bob",)))
    assert len(found) == 3
    assert set(found) <= {fragment.id for fragment in bobs}


# -- bm25 -------------------------------------------------------------------------------------

scope_specs = st.lists(
    st.tuples(
        st.sampled_from(OWNERS),
        st.sampled_from(COLLECTIONS),
        st.booleans(),
        st.sampled_from(SOURCES),
        st.sampled_from(ROLES),
        st.one_of(st.none(), st.sampled_from([T0, T0 + 1, math.nan])),
    ),
    min_size=1,
    max_size=30,
)
scope_filters = st.builds(
    SearchFilters,
    source_kinds=st.lists(st.sampled_from((*SOURCES, "unknown")), max_size=2).map(tuple),
    roles=st.lists(st.sampled_from(ROLES), max_size=2).map(tuple),
    since=st.one_of(st.none(), st.just(T0 + 0.5)),
    owners=st.lists(st.sampled_from((*OWNERS, "users/carol"))).map(tuple),
    collections=st.lists(st.sampled_from((*COLLECTIONS, "a:x"))).map(tuple),
    include_private=st.booleans(),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(specs=scope_specs, filters=scope_filters, split=st.integers(min_value=0, max_value=30))
def test_bm25_scope_filters_match_the_reference(
    specs: list[tuple[str, str, bool, str, str, float | None]], filters: SearchFilters, split: int
) -> None:
    fragments = [
        make_fragment(
            i,
            owner=owner,
            collection=collection,
            private=private,
            source_kind=source,
            role=role,
            timestamp=timestamp,
        )
        for i, (owner, collection, private, source, role, timestamp) in enumerate(specs)
    ]
    store = BM25Store(Path("/nonexistent/memex-bm25-scope-test"), PLAIN)  # never flushed
    store.add(fragments[:split])
    store.search("common", 1, SearchFilters())
    store.add(fragments[split:])
    hits = store.search("common", len(fragments), filters)
    assert {hit.id for hit in hits} == {f.id for f in fragments if filters.matches(f)}


def test_bm25_scope_columns_survive_flush_merge_and_reopen(tmp_path: Path) -> None:
    rng = random.Random(5)
    fragments = random_fragments(rng, 120)
    root = tmp_path / "bm25"
    store = BM25Store(root, PLAIN)
    store.add(fragments[:110])
    store.flush()  # first flush: everything merged into the base
    store.add(fragments[110:])
    gone = {fragments[0].id, fragments[111].id}
    store.delete(gone)
    store.flush()  # small delta: stays a separate segment
    live = [f for f in fragments if f.id not in gone]
    reopened = BM25Store(root, PLAIN)
    assert reopened.stats()["delta_documents"] > 0
    for _ in range(40):
        filters = random_filters(rng)
        hits = reopened.search("common", len(fragments), filters)
        assert {hit.id for hit in hits} == {f.id for f in live if filters.matches(f)}, filters


def _downgrade_to_version_1(root: Path) -> None:
    """Rewrite a flushed index as the previous format wrote it: no scope columns or tables."""
    manifest_path = root / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    for folder in (manifest["base"], manifest["delta"]):
        for column in ("owner", "collection", "private"):
            (root / folder / f"doc_{column}.npy").unlink()
        tables_path = root / folder / "tables.json"
        tables = json.loads(tables_path.read_text())
        tables_path.write_text(
            json.dumps({name: tables[name] for name in ("source", "role", "conversation")})
        )
    manifest["version"] = 1
    manifest_path.write_text(json.dumps(manifest))


def test_bm25_reads_a_version_1_index_as_the_operators_corpus(tmp_path: Path) -> None:
    root = tmp_path / "bm25"
    old = [make_fragment(i, conversation_id=f"c{i % 3}") for i in range(40)]
    store = BM25Store(root, PLAIN)
    store.add(old[:38])
    store.flush()
    store.add(old[38:])
    store.flush()
    assert store.stats()["delta_documents"] == 2  # both folders are exercised
    _downgrade_to_version_1(root)

    reopened = BM25Store(root, PLAIN)
    everything = {fragment.id for fragment in old}
    assert {h.id for h in reopened.search("common", 100, SearchFilters())} == everything
    as_corpus = SearchFilters(owners=("",), collections=("",))
    assert {h.id for h in reopened.search("common", 100, as_corpus)} == everything
    assert reopened.search("common", 100, SearchFilters(owners=("users/alice",))) == []
    assert reopened.search("common", 100, SearchFilters(collections=("a",))) == []
    by_conversation = SearchFilters(conversation_ids=("c1",), owners=("",))
    assert {h.id for h in reopened.search("common", 100, by_conversation)} == {
        f.id for f in old if f.conversation_id == "c1"
    }

    # The next write upgrades the index: version 2, every folder with the scope columns.
    memory = [
        make_fragment(100, owner="users/alice", collection="a", private=True),
        make_fragment(101, owner="shared", collection="a:b"),
    ]
    reopened.add(memory)
    reopened.flush()
    manifest = json.loads((root / "manifest.json").read_text())
    assert manifest["version"] == bm25_generations.FORMAT_VERSION == 2
    for folder in (manifest["base"], manifest["delta"]):
        assert (root / folder / "doc_owner.npy").exists()
    upgraded = BM25Store(root, PLAIN)
    fragments = old + memory
    rng = random.Random(2)
    for _ in range(30):
        filters = random_filters(rng)
        hits = upgraded.search("common", 100, filters)
        assert {hit.id for hit in hits} == {f.id for f in fragments if filters.matches(f)}, filters


def test_bm25_unfiltered_search_skips_the_mask_until_a_private_fragment_exists(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_mask = bm25_scoring.filter_mask
    calls: list[SearchFilters] = []

    def counting_mask(filters: SearchFilters, *args: object) -> np.ndarray:
        calls.append(filters)
        return real_mask(filters, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(bm25_scoring, "filter_mask", counting_mask)
    root = tmp_path / "bm25"
    store = BM25Store(root, PLAIN)
    store.add([make_fragment(i, owner="users/alice") for i in range(20)])
    assert len(store.search("common", 50, SearchFilters())) == 20
    assert calls == []  # the fast path: no private fragment, nothing to mask

    store.add([make_fragment(20, owner="users/alice", private=True)])
    assert len(store.search("common", 50, SearchFilters())) == 20
    assert len(calls) == 1
    assert len(store.search("common", 50, SearchFilters(include_private=True))) == 21
    assert len(calls) == 1  # nothing restricts: the mask is skipped again
    store.flush()
    assert len(BM25Store(root, PLAIN).search("common", 50, SearchFilters())) == 20
    assert len(calls) == 2  # the private count is rebuilt on load

    # Once the private fragment is deleted and merged away, the fast path returns.
    store.delete(["frag-0020", *[f"frag-{i:04d}" for i in range(10)]])
    store.flush()  # many deletions: merged into a new base
    calls.clear()
    assert len(store.search("common", 50, SearchFilters())) == 10
    assert len(BM25Store(root, PLAIN).search("common", 50, SearchFilters())) == 10
    assert calls == []


# -- chroma -----------------------------------------------------------------------------------


def test_where_clause_scope_and_private() -> None:
    from memex_chroma.metadata import where_clause

    # named_only=(): a home without code (the reader says so); code's own clause is tested
    # in tests/core/search/test_code_named_only.py.
    not_private = {"private": {"$ne": True}}
    assert where_clause(SearchFilters(named_only=())) == not_private
    assert where_clause(SearchFilters(include_private=True, named_only=())) is None
    assert where_clause(SearchFilters(named_only=()), private_stored=False) is None
    assert where_clause(
        SearchFilters(owners=("users/alice", "shared"), named_only=()), private_stored=False
    ) == {"owner": {"$in": ["users/alice", "shared"]}}
    assert where_clause(SearchFilters(owners=("shared",), collections=("a:b",), named_only=())) == {
        "$and": [{"owner": {"$in": ["shared"]}}, {"collection": {"$in": ["a:b"]}}, not_private]
    }


def test_fragment_metadata_carries_the_scope() -> None:
    from memex_chroma.metadata import fragment_metadata

    metadata = fragment_metadata(make_fragment(0, owner="shared", collection="a:b", private=True))
    assert metadata["owner"] == "shared"
    assert metadata["collection"] == "a:b"
    assert metadata["private"] is True
    assert fragment_metadata(make_fragment(1))["private"] is False


@pytest.fixture
def chroma_path(tmp_path: Path) -> Path:
    pytest.importorskip("chromadb", reason="chromadb is not installed")
    return tmp_path / "chroma"


def _chroma(path: Path) -> ChromaVectorStore:
    from memex_chroma.connection import ChromaLocation
    from memex_chroma.store import ChromaVectorStore

    return ChromaVectorStore(ChromaLocation(path=path))


def test_chroma_vectors_stored_before_the_scope_keys_are_the_operators(chroma_path: Path) -> None:
    with _chroma(chroma_path) as store:
        harness = VectorHarness(store)
        legacy = [make_fragment(i) for i in range(3)]
        harness.add(legacy)
        # Strip the new keys, as the previous version stored them (None deletes a key).
        assert store._collection is not None
        store._collection.update(
            ids=[f.id for f in legacy],
            metadatas=[{"owner": None, "collection": None, "private": None}] * 3,
        )
        stored = store._collection.get(ids=[legacy[0].id])["metadatas"]
        assert stored is not None and "private" not in stored[0]
        harness.add([make_fragment(10, owner="users/alice", private=True)])
        ids = {f.id for f in legacy}
        assert set(harness.search(None, 10, SearchFilters())) == ids
        assert set(harness.search(None, 10, SearchFilters(include_private=True))) == {
            *ids,
            "frag-0010",
        }
        assert harness.search(None, 10, SearchFilters(owners=("users/alice",))) == []


def test_chroma_private_exclusion_holds_across_store_instances(chroma_path: Path) -> None:
    with _chroma(chroma_path) as reader, _chroma(chroma_path) as writer:
        vectors = np.eye(DIM, dtype=np.float32)
        writer.upsert([make_fragment(0)], vectors[:1])
        # The reader searches first (and sees no private vector), then the writer adds one.
        assert [h.id for h in reader.search(vectors[1], 5, SearchFilters())] == ["frag-0000"]
        writer.upsert([make_fragment(1, owner="users/bob", private=True)], vectors[1:2])
        assert [h.id for h in reader.search(vectors[1], 5, SearchFilters())] == ["frag-0000"]
        found = reader.search(vectors[1], 5, SearchFilters(include_private=True))
        assert [h.id for h in found] == ["frag-0001", "frag-0000"]
    with _chroma(chroma_path) as reopened:
        assert [h.id for h in reopened.search(vectors[1], 5, SearchFilters())] == ["frag-0000"]
        assert reopened.stored_embedding() == (None, DIM)  # the flag kept the metadata


def test_chroma_fragment_that_stops_being_private_is_found_again(chroma_path: Path) -> None:
    with _chroma(chroma_path) as store:
        vector = np.eye(DIM, dtype=np.float32)[:1]
        store.upsert([make_fragment(0, private=True)], vector)
        assert store.search(vector[0], 5, SearchFilters()) == []
        store.upsert([make_fragment(0, private=False)], vector)
        assert [h.id for h in store.search(vector[0], 5, SearchFilters())] == ["frag-0000"]
        store.clear()
        store.upsert([make_fragment(1)], vector)
        assert [h.id for h in store.search(vector[0], 5, SearchFilters())] == ["frag-0001"]
