"""The bm25 store scores exactly like rank_bm25's BM25Okapi, after adds, deletes and reloads.

Every document's score is compared (np.allclose, rtol 1e-9) with a BM25Okapi
built from scratch on the documents that survive a sequence of incremental
adds, deletes, re-adds, flushes and reopenings.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from memex_bm25.store import BM25Store
from memex_bm25.tokenizer import Tokenizer
from memex_core.domain import Fragment, Provenance, SearchFilters

RTOL = 1e-9
ATOL = 1e-12
EVERYTHING = 10**9
NO_FILTERS = SearchFilters()


def shared_data_root() -> Path:
    default = Path(__file__).resolve().parents[3].parent / "shared" / "data"
    return Path(os.environ.get("MEMEX_TEST_DATA", default))


def fragment(doc_id: str, text: str) -> Fragment:
    return Fragment(
        id=doc_id,
        conversation_id="c",
        role="user",
        content=text,
        provenance=Provenance("test", "corpus", doc_id, doc_id),
    )


def zipf_corpus(rng: np.random.Generator, n_docs: int, vocab: int = 2000) -> list[str]:
    """Documents over a Zipfian vocabulary: the top words occur in most documents."""
    weights = 1.0 / np.arange(1, vocab + 1)
    weights /= weights.sum()
    lengths = rng.integers(0, 45, size=n_docs)
    lengths[rng.random(n_docs) < 0.02] = 0  # some empty documents count in N and avgdl
    return [" ".join(f"w{i}" for i in rng.choice(vocab, size=n, p=weights)) for n in lengths]


def queries(rng: np.random.Generator, vocab: int = 2000, count: int = 60) -> list[str]:
    weights = 1.0 / np.arange(1, vocab + 1)
    weights /= weights.sum()
    found = ["w0", "w0 w0 w1", "w1 w1 w1 w7", "unknownword", "w3 unknownword w3", "w1999"]
    while len(found) < count:
        words = [f"w{i}" for i in rng.choice(vocab, size=rng.integers(1, 7), p=weights)]
        if rng.random() < 0.3:
            words.append(words[0])  # a repeated token counts twice
        if rng.random() < 0.2:
            words.append("neverseen")
        found.append(" ".join(words))
    return found


def assert_matches_okapi(
    store: BM25Store, docs: dict[str, str], tokenizer: Tokenizer, query_list: Sequence[str]
) -> None:
    ids = list(docs)
    assert store.count() == len(ids)
    assert store.ids() == set(ids)
    okapi = BM25Okapi([tokenizer(docs[i]) for i in ids])
    for query in query_list:
        expected = okapi.get_scores(tokenizer(query))
        hits = store.search(query, EVERYTHING, NO_FILTERS)
        got = {hit.id: hit.score for hit in hits}
        ours = np.array([got.get(i, 0.0) for i in ids])
        assert np.allclose(ours, expected, rtol=RTOL, atol=ATOL), query
        # Exactly the documents holding a query word are hits (even at score 0), best first.
        words = set(tokenizer(query))
        assert set(got) == {i for i in ids if words & set(tokenizer(docs[i]))}
        scores = [hit.score for hit in hits]
        assert scores == sorted(scores, reverse=True)
        assert store.search(query, 10, NO_FILTERS) == hits[:10]


def run_incremental_history(
    directory: Path, tokenizer: Tokenizer, texts: list[str], query_list: Sequence[str]
) -> None:
    """Adds, deletes, re-adds, flushes and reopenings, checked against BM25Okapi along the way."""
    rng = np.random.default_rng(7)
    all_docs = {f"d{i}": text for i, text in enumerate(texts)}
    order = list(all_docs)
    live: dict[str, str] = {}

    def add(store: BM25Store, doc_ids: Sequence[str]) -> None:
        new = [i for i in dict.fromkeys(doc_ids) if i not in live]
        batch = [fragment(i, all_docs[i]) for i in doc_ids]
        assert store.add(batch) == len(new)
        live.update((i, all_docs[i]) for i in new)

    def delete(store: BM25Store, doc_ids: Sequence[str]) -> None:
        present = {i for i in doc_ids if i in live}
        assert store.delete(doc_ids) == len(present)
        for i in present:
            del live[i]

    n = len(order)
    first, second, third = order[: n // 2], order[n // 2 : 3 * n // 4], order[3 * n // 4 :]
    store = BM25Store(directory, tokenizer)
    for start in range(0, len(first), 97):
        add(store, first[start : start + 97] + first[max(0, start - 5) : start])  # re-adds: no-ops
    store.flush()
    delete(store, list(rng.choice(first, size=len(first) // 8, replace=False)))
    add(store, second[: len(second) // 2])
    assert_matches_okapi(store, dict(live), tokenizer, query_list[:10])

    # Deletes spanning base and delta, repeated ids, ids never seen; then some come back.
    doomed = list(rng.choice(list(live), size=len(live) // 10, replace=False))
    delete(store, [*doomed, doomed[0], "no-such-id"])
    add(store, doomed[: len(doomed) // 3])
    store.flush()

    store = BM25Store(directory, tokenizer)
    assert_matches_okapi(store, dict(live), tokenizer, query_list[:10])
    add(store, second[len(second) // 2 :])
    add(store, third)
    delete(store, list(rng.choice(list(live), size=len(live) // 20, replace=False)))
    # Unflushed state: buffered adds, tombstones in both segments.
    assert_matches_okapi(store, dict(live), tokenizer, query_list)

    store.flush()
    reopened = BM25Store(directory, tokenizer)
    assert_matches_okapi(reopened, dict(live), tokenizer, query_list)
    assert len(live) >= 1000


def test_zipf_corpus_matches_okapi_after_adds_and_deletes(tmp_path: Path) -> None:
    rng = np.random.default_rng(2024)
    texts = zipf_corpus(rng, 1800)
    tokenizer = Tokenizer(stemmer=None, stopwords=None)
    query_list = queries(rng)
    # Some words really do occur in more than half the documents (negative raw idf).
    df_top = sum("w0" in tokenizer(text) for text in texts)
    assert df_top > len(texts) / 2
    run_incremental_history(tmp_path / "bm25", tokenizer, texts, query_list)


def test_merge_into_base_keeps_scores_exact(tmp_path: Path) -> None:
    """A small merge ratio forces base merges and compaction on almost every flush."""
    rng = np.random.default_rng(11)
    texts = zipf_corpus(rng, 1200)
    tokenizer = Tokenizer(stemmer=None, stopwords=None)
    store = BM25Store(tmp_path / "bm25", tokenizer, merge_ratio=0.01)
    docs = {f"d{i}": t for i, t in enumerate(texts)}
    ids = list(docs)
    for start in range(0, len(ids), 300):
        store.add([fragment(i, docs[i]) for i in ids[start : start + 300]])
        store.flush()
    gone = set(ids[::3])
    store.delete(gone)
    store.flush()
    assert store.stats()["deleted_slots"] == 0  # compacted away
    survivors = {i: t for i, t in docs.items() if i not in gone}
    assert_matches_okapi(store, survivors, tokenizer, queries(rng, count=20))
    assert_matches_okapi(
        BM25Store(tmp_path / "bm25", tokenizer), survivors, tokenizer, queries(rng, count=20)
    )


def scifact_texts() -> list[str]:
    path = shared_data_root() / "beir" / "scifact" / "corpus.jsonl"
    if not path.exists():
        pytest.skip(f"SciFact corpus not found at {path} (set MEMEX_TEST_DATA)")
    texts = []
    with open(path, encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            texts.append(f"{record.get('title', '')} {record.get('text', '')}")
    return texts


@pytest.mark.slow
def test_scifact_matches_okapi_after_adds_and_deletes(tmp_path: Path) -> None:
    texts = scifact_texts()
    tokenizer = Tokenizer()  # the default: stemmed, English stopwords
    query_list = [
        "0-dimensional biomaterials show inductive properties",
        "ALDH1 expression is associated with poorer prognosis for breast cancer",
        "Vitamin D deficiency effects on the risk of cancer cancer",
        "the of and",  # stopwords only
        "protein protein protein interaction networks",
        "blood pressure in older adults",
        "a quick unicode test: café naïve Größe",
        "cells",
        "DNA methylation",
        "unknownzzzword",
        "mortality rates in randomized controlled trials",
        "gene expression",
    ]
    run_incremental_history(tmp_path / "bm25", tokenizer, texts, query_list)
