"""A search restricted to owners is scored on those owners' documents alone.

With ``SearchFilters.owners`` the bm25 store must score every document exactly as
rank_bm25's BM25Okapi built on the live documents of those owners (and nothing
else) would: other users' documents must not move a caller's scores, ranks or
hits, or they would tell the caller which words other users' memories hold.
Only the owner set defines the corpus: collection, time and private filters
select hits without changing the statistics. Without an owners filter the whole
index stays the corpus (tests/plugins/bm25/test_bm25_exactness.py).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rank_bm25 import BM25Okapi

from memex_bm25.owner_stats import DocTerms
from memex_bm25.store import BM25Store
from memex_bm25.tokenizer import Tokenizer
from memex_core.domain import Fragment, Provenance, SearchFilters, SignalHit

RTOL = 1e-9
ATOL = 1e-12
EVERYTHING = 10**9
PLAIN = Tokenizer(stemmer=None, stopwords=None)  # as tests/plugins/bm25/test_bm25_exactness.py
OWNERS = ("", "users/alice", "users/bob", "shared", "users/carol")
#: The operator's corpus is most of the index, so its owner set is counted through
#: the complement; the memory owners are small sets, counted directly.
OWNER_WEIGHTS = (0.6, 0.15, 0.13, 0.08, 0.04)
OWNER_SETS: tuple[tuple[str, ...], ...] = (
    ("users/alice",),
    ("users/bob",),
    ("shared",),
    ("",),
    ("users/alice", "shared"),
    ("", "users/bob"),
    OWNERS,
    ("users/carol", "users/nobody"),
    ("users/nobody",),
)


@dataclasses.dataclass(frozen=True)
class Doc:
    text: str
    owner: str
    collection: str = ""
    private: bool = False
    timestamp: float | None = None


def fragment(doc_id: str, doc: Doc) -> Fragment:
    return Fragment(
        id=doc_id,
        conversation_id="c",
        role="user",
        content=doc.text,
        provenance=Provenance("test", "corpus", doc_id, doc_id, doc.timestamp),
        timestamp=doc.timestamp,
        owner=doc.owner,
        collection=doc.collection,
        private=doc.private,
    )


def owned(owners: Sequence[str], **more: object) -> SearchFilters:
    return SearchFilters(owners=tuple(owners), include_private=True, **more)  # type: ignore[arg-type]


def random_docs(rng: np.random.Generator, n_docs: int, vocab: int = 300) -> list[Doc]:
    """Zipfian documents: the top words occur in most documents (negative raw idf)."""
    weights = 1.0 / np.arange(1, vocab + 1)
    weights /= weights.sum()
    lengths = rng.integers(0, 30, size=n_docs)
    lengths[rng.random(n_docs) < 0.03] = 0  # empty documents count in N and avgdl
    owners = rng.choice(len(OWNERS), size=n_docs, p=OWNER_WEIGHTS)
    docs = []
    for n, owner in zip(lengths, owners, strict=True):
        text = " ".join(f"w{i}" for i in rng.choice(vocab, size=n, p=weights))
        docs.append(
            Doc(
                text,
                OWNERS[owner],
                collection=str(rng.choice(["", "notes", "notes:work"])),
                private=bool(rng.random() < 0.15),
                timestamp=float(rng.integers(0, 100)) if rng.random() < 0.8 else None,
            )
        )
    return docs


def random_queries(rng: np.random.Generator, vocab: int = 300, count: int = 12) -> list[str]:
    weights = 1.0 / np.arange(1, vocab + 1)
    weights /= weights.sum()
    found = ["w0", "w0 w0 w1", "w299 w5", "neverseen w2"]
    while len(found) < count:
        words = [f"w{i}" for i in rng.choice(vocab, size=rng.integers(1, 6), p=weights)]
        found.append(" ".join(words))
    return found


def okapi_corpus(live: dict[str, Doc], owners: Iterable[str]) -> dict[str, list[str]]:
    wanted = set(owners)
    return {i: PLAIN(doc.text) for i, doc in live.items() if doc.owner in wanted}


def assert_owner_scores_match_okapi(
    store: BM25Store, live: dict[str, Doc], owners: Sequence[str], queries: Sequence[str]
) -> None:
    """Every document of ``owners`` scores as BM25Okapi on exactly those documents."""
    corpus = okapi_corpus(live, owners)
    if not any(corpus.values()):
        # No document, or only empty ones (BM25Okapi divides by a zero avgdl): no hits.
        for query in queries:
            assert store.search(query, EVERYTHING, owned(owners)) == [], (owners, query)
        return
    ids = list(corpus)
    okapi = BM25Okapi(list(corpus.values()))
    for query in queries:
        expected = okapi.get_scores(PLAIN(query))
        hits = store.search(query, EVERYTHING, owned(owners))
        got = {hit.id: hit.score for hit in hits}
        assert set(got) <= set(ids), (owners, query)
        ours = np.array([got.get(i, 0.0) for i in ids])
        assert np.allclose(ours, expected, rtol=RTOL, atol=ATOL), (owners, query)
        words = set(PLAIN(query))
        assert set(got) == {i for i, doc in corpus.items() if words & set(doc)}
        scores = [hit.score for hit in hits]
        assert scores == sorted(scores, reverse=True)
        assert store.search(query, 5, owned(owners)) == hits[:5]


def assert_all_owner_sets(store: BM25Store, live: dict[str, Doc], queries: Sequence[str]) -> None:
    for owners in OWNER_SETS:
        assert_owner_scores_match_okapi(store, live, owners, queries)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_owner_scores_match_okapi_through_adds_deletes_merges_and_reopens(
    tmp_path: Path, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    docs = {f"d{i}": doc for i, doc in enumerate(random_docs(rng, 900))}
    order = list(docs)
    queries = random_queries(rng)
    live: dict[str, Doc] = {}

    def add(store: BM25Store, ids: Sequence[str]) -> None:
        store.add([fragment(i, docs[i]) for i in ids])
        live.update((i, docs[i]) for i in ids)

    def delete(store: BM25Store, ids: Sequence[str]) -> None:
        store.delete(ids)
        for i in ids:
            live.pop(i, None)

    store = BM25Store(tmp_path / "bm25", PLAIN, merge_ratio=0.3)
    add(store, order[:400])
    store.flush()
    assert_all_owner_sets(store, live, queries)  # everything in the base
    add(store, order[400:480])
    assert_all_owner_sets(store, live, queries)  # base and a delta
    add(store, order[480:520])  # the delta's doc-major view is extended, not rebuilt
    delete(store, list(rng.choice(list(live), size=60, replace=False)))  # base and delta
    assert_all_owner_sets(store, live, queries)
    store.flush()
    add(store, order[520:700])  # past the merge ratio: the next flush merges
    delete(store, list(rng.choice(list(live), size=40, replace=False)))
    store.flush()
    assert store.stats()["deleted_slots"] == 0  # merged and compacted
    assert_all_owner_sets(store, live, queries)

    reopened = BM25Store(tmp_path / "bm25", PLAIN, merge_ratio=0.3)
    assert_all_owner_sets(reopened, live, queries)
    add(reopened, order[700:])
    delete(reopened, list(rng.choice(list(live), size=30, replace=False)))
    assert_all_owner_sets(reopened, live, queries)  # unflushed tombstones and pending adds


def test_other_owners_documents_never_change_a_callers_results(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    queries = random_queries(rng)
    alice = {
        f"a{i}": dataclasses.replace(d, owner="users/alice")
        for i, d in enumerate(random_docs(rng, 60))
    }
    store = BM25Store(tmp_path / "bm25", PLAIN, merge_ratio=0.2)
    store.add([fragment(i, d) for i, d in alice.items()])
    mine = ("users/alice", "users/nobody")

    def results() -> list[list[SignalHit]]:
        return [store.search(q, EVERYTHING, owned(mine)) for q in queries]

    alone = results()
    assert any(alone)
    others = random_docs(rng, 700)
    batches = [others[i : i + 100] for i in range(0, len(others), 100)]
    for number, batch in enumerate(batches):
        # Other owners' documents hold the same words (w0 is in most of them).
        batch = [d for d in batch if d.owner != "users/alice"]
        store.add([fragment(f"o{number}-{i}", d) for i, d in enumerate(batch)])
        assert results() == alone
        if number % 2:
            store.flush()
            assert results() == alone
    store.delete([f"o3-{i}" for i in range(100)])
    assert results() == alone
    store.flush()
    assert results() == alone
    assert (
        BM25Store(tmp_path / "bm25", PLAIN).search(queries[0], EVERYTHING, owned(mine))
        == (alone[0])
    )


def test_brief_reproduction_alices_ranking_ignores_bobs_walrus_notes(tmp_path: Path) -> None:
    store = BM25Store(tmp_path / "bm25", PLAIN)
    store.add(
        [
            fragment(
                "a1", Doc("Alice's walrus figurine, a walrus with a walrus hat", "users/alice")
            ),
            fragment("a2", Doc("Alice's kiwi figurine", "users/alice")),
            fragment("a3", Doc("Alice's teapot", "users/alice")),
        ]
    )
    alice = owned(("users/alice", "shared"))
    alone = store.search("walrus kiwi", 10, alice)
    assert [hit.id for hit in alone] == ["a1", "a2"]
    for n in range(3):
        store.add([fragment(f"b{n}", Doc(f"Bob's walrus note number {n}", "users/bob"))])
        assert store.search("walrus kiwi", 10, alice) == alone
    # The whole index is still the corpus without an owners filter: there bob's notes count.
    unfiltered = store.search("walrus kiwi", 10, SearchFilters())
    assert [hit.id for hit in unfiltered][:2] == ["a2", "a1"]


def test_only_the_owner_set_defines_the_statistics(tmp_path: Path) -> None:
    """Collection, time and private filters pick hits; their scores stay the owner set's."""
    rng = np.random.default_rng(9)
    flushed = {f"d{i}": d for i, d in enumerate(random_docs(rng, 500))}
    pending = {f"x{i}": d for i, d in enumerate(random_docs(rng, 50))}
    store = BM25Store(tmp_path / "bm25", PLAIN)
    store.add([fragment(i, d) for i, d in flushed.items()])
    store.flush()
    store.add([fragment(i, d) for i, d in pending.items()])
    everything = flushed | pending
    for owners in (("users/alice",), ("", "shared"), ("users/bob", "users/carol")):
        for query in random_queries(rng, count=8):
            whole = store.search(query, EVERYTHING, owned(owners))
            for narrower in (
                SearchFilters(owners=owners),  # private left out
                owned(owners, collections=("notes",)),
                owned(owners, collections=("notes:work", "")),
                owned(owners, since=20.0, until=70.0),
                SearchFilters(owners=owners, collections=("notes",), since=50.0),
                owned(owners, roles=("user",), source_kinds=("test",)),
            ):
                kept = [h for h in whole if narrower.matches(fragment(h.id, everything[h.id]))]
                assert store.search(query, EVERYTHING, narrower) == kept, (owners, narrower)


def test_every_owner_at_once_scores_like_no_owner_filter(tmp_path: Path) -> None:
    rng = np.random.default_rng(3)
    store = BM25Store(tmp_path / "bm25", PLAIN)
    store.add([fragment(f"d{i}", d) for i, d in enumerate(random_docs(rng, 400))])
    store.flush()
    store.delete([f"d{i}" for i in range(0, 400, 7)])
    every = owned((*OWNERS, "users/nobody"))
    for query in random_queries(rng):
        assert store.search(query, EVERYTHING, every) == store.search(
            query, EVERYTHING, SearchFilters(include_private=True)
        )


def test_unknown_and_emptied_owners_find_nothing(tmp_path: Path) -> None:
    store = BM25Store(tmp_path / "bm25", PLAIN)
    store.add(
        [
            fragment("a", Doc("walrus kiwi", "users/alice")),
            fragment("e", Doc("", "users/erin")),
            fragment("o", Doc("walrus", "")),
        ]
    )
    assert store.search("walrus", 10, owned(("users/nobody",))) == []
    assert store.search("walrus", 10, owned(("users/erin",))) == []  # only an empty document
    assert [h.id for h in store.search("walrus", 10, owned(("users/alice",)))] == ["a"]
    store.delete(["a"])
    assert store.search("walrus", 10, owned(("users/alice",))) == []
    assert [h.id for h in store.search("walrus", 10, owned(("users/alice", "")))] == ["o"]


def test_doc_terms_hold_each_slots_distinct_terms(tmp_path: Path) -> None:
    rng = np.random.default_rng(1)
    texts = [d.text for d in random_docs(rng, 120)]
    store = BM25Store(tmp_path / "bm25", PLAIN)
    store.add([fragment(f"d{i}", Doc(t, "")) for i, t in enumerate(texts[:80])])
    store.flush()
    store.add([fragment(f"d{i}", Doc(t, "")) for i, t in enumerate(texts[80:], 80)])
    store._materialise()
    vocab = store._index.vocab.index
    for segment, first in ((store._index.base, 0), (store._index.delta, 80)):
        view = DocTerms.of(segment)
        assert view.n_docs == segment.n_docs
        for slot in range(segment.n_docs):
            terms = view.terms[view.offsets[slot] : view.offsets[slot + 1]]
            assert sorted(terms.tolist()) == sorted({vocab[w] for w in PLAIN(texts[first + slot])})
        every = np.arange(segment.n_docs)
        assert (
            view.document_frequencies(every, len(vocab)) == segment.document_frequencies(len(vocab))
        ).all()
    joined = DocTerms.concat(DocTerms.of(store._index.base), DocTerms.of(store._index.delta))
    assert joined.n_docs == 120
    assert joined.offsets[-1] == len(joined.terms)


words = st.sampled_from(["walrus", "kiwi", "hat", "note", "figurine"])
small_docs = st.lists(
    st.tuples(st.sampled_from(OWNERS[1:4]), st.lists(words, max_size=5)),
    min_size=1,
    max_size=14,
)


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    specs=small_docs,
    gone=st.sets(st.integers(0, 13)),
    flush_at=st.integers(0, 14),
    owners=st.lists(st.sampled_from(OWNERS[1:4]), min_size=1, max_size=3, unique=True),
)
def test_tiny_owner_sets_match_okapi(
    tmp_path_factory: pytest.TempPathFactory,
    specs: list[tuple[str, list[str]]],
    gone: set[int],
    flush_at: int,
    owners: list[str],
) -> None:
    """Tiny N, words in every document (negative idf floors), tombstones, base and delta."""
    store = BM25Store(tmp_path_factory.mktemp("bm25"), PLAIN)
    live = {f"d{i}": Doc(" ".join(ws), owner) for i, (owner, ws) in enumerate(specs)}
    items = list(live.items())
    store.add([fragment(i, d) for i, d in items[:flush_at]])
    store.flush()
    store.add([fragment(i, d) for i, d in items[flush_at:]])
    doomed = [f"d{i}" for i in gone]
    store.delete(doomed)
    for i in doomed:
        live.pop(i, None)
    queries = ["walrus", "kiwi walrus", "hat hat note", "figurine kiwi note walrus"]
    assert_owner_scores_match_okapi(store, live, owners, queries)
