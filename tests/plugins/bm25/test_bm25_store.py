"""BM25Store behaviour: the KeywordStore contract, empty and tiny corpora, plugin wiring."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pluggy
import pytest
from rank_bm25 import BM25Okapi

import memex_bm25
from memex_bm25.store import BM25Store
from memex_bm25.tokenizer import Tokenizer
from memex_core import hookspecs
from memex_core.domain import KeywordStore, PluginContext, SearchFilters
from memex_core.plugins import PluginRegistry
from tests.support.catalog_builders import text_fragment

NO_FILTERS = SearchFilters()

PLAIN = Tokenizer(stemmer=None, stopwords=None)


def store_with(tmp_path: Path, *texts: str, tokenizer: Tokenizer = PLAIN) -> BM25Store:
    store = BM25Store(tmp_path / "bm25", tokenizer)
    store.add([text_fragment(f"d{i}", text) for i, text in enumerate(texts)])
    return store


def okapi_scores(texts: list[str], query: str) -> np.ndarray:
    return np.asarray(BM25Okapi([PLAIN(t) for t in texts]).get_scores(PLAIN(query)))


def test_implements_the_keyword_store_protocol(tmp_path: Path) -> None:
    assert isinstance(BM25Store(tmp_path / "bm25"), KeywordStore)


def test_empty_store_answers_without_error(tmp_path: Path) -> None:
    store = BM25Store(tmp_path / "bm25")
    assert store.search("anything", 10, NO_FILTERS) == []
    assert store.count() == 0
    assert store.ids() == set()
    assert store.delete(["nope"]) == 0
    store.flush()
    assert BM25Store(tmp_path / "bm25").count() == 0


def test_single_document_is_found_despite_negative_idf(tmp_path: Path) -> None:
    # With N=1 every idf is log(0.5/1.5) < 0 and so is the epsilon floor:
    # BM25Okapi scores the only document negatively, and it must still be found.
    store = store_with(tmp_path, "hello world")
    hits = store.search("hello", 5, NO_FILTERS)
    assert [hit.id for hit in hits] == ["d0"]
    assert hits[0].score < 0
    assert np.isclose(hits[0].score, okapi_scores(["hello world"], "hello")[0], rtol=1e-12)


def test_two_documents_match_okapi_including_zero_and_negative_scores(tmp_path: Path) -> None:
    texts = ["apple banana", "apple cherry cherry"]
    store = store_with(tmp_path, *texts)
    for query in ["apple", "banana", "cherry", "apple cherry", "banana banana apple", "durian"]:
        expected = okapi_scores(texts, query)
        got = {hit.id: hit.score for hit in store.search(query, 10, NO_FILTERS)}
        assert np.allclose([got.get("d0", 0.0), got.get("d1", 0.0)], expected, rtol=1e-12)
        words = set(query.split())
        assert set(got) == {f"d{i}" for i, text in enumerate(texts) if words & set(text.split())}


def test_zero_score_matches_are_kept(tmp_path: Path) -> None:
    # "cat" is in exactly half of four documents: idf = log(2.5) - log(2.5) = 0. The
    # documents still hold the word, and a user with two memories hits this all the time.
    store = store_with(tmp_path, "cat one", "cat two", "dog three", "bird four")
    assert okapi_scores(["cat one", "cat two", "dog three", "bird four"], "cat").tolist() == [0] * 4
    hits = store.search("cat", 10, NO_FILTERS)
    assert [(hit.id, hit.score) for hit in hits] == [("d0", 0.0), ("d1", 0.0)]
    assert [hit.id for hit in store.search("cat dog", 10, NO_FILTERS)] == ["d2", "d0", "d1"]
    assert [hit.id for hit in store.search("cat dog", 1, NO_FILTERS)] == ["d2"]


def test_queries_without_usable_terms_return_nothing(tmp_path: Path) -> None:
    store = store_with(tmp_path, "the quick brown fox", "a lazy dog", tokenizer=Tokenizer())
    assert store.search("", 10, NO_FILTERS) == []
    assert store.search("   ...!?  ", 10, NO_FILTERS) == []
    assert store.search("the and of a", 10, NO_FILTERS) == []  # only stopwords
    assert store.search("zebra", 10, NO_FILTERS) == []  # unknown word
    assert store.search("fox", 0, NO_FILTERS) == []


def test_documents_without_words_count_but_never_match(tmp_path: Path) -> None:
    store = store_with(tmp_path, "", "!!!", "real words here")
    assert store.count() == 3
    assert [hit.id for hit in store.search("words", 10, NO_FILTERS)] == ["d2"]
    only_empty = store_with(tmp_path / "other", "", "...")
    assert only_empty.search("anything", 10, NO_FILTERS) == []


def test_add_is_idempotent_by_id_and_delete_reports_what_was_present(tmp_path: Path) -> None:
    store = BM25Store(tmp_path / "bm25", PLAIN)
    batch = [
        text_fragment("a", "alpha"),
        text_fragment("b", "beta"),
        text_fragment("a", "alpha again"),
    ]
    assert store.add(batch) == 2
    assert store.add([text_fragment("a", "alpha"), text_fragment("c", "gamma")]) == 1
    assert store.count() == 3
    assert store.ids() == {"a", "b", "c"}
    assert store.delete(["a", "a", "zzz"]) == 1
    assert store.delete(["a"]) == 0
    assert store.ids() == {"b", "c"}
    assert store.search("alpha", 10, NO_FILTERS) == []
    assert store.add([text_fragment("a", "alpha returns")]) == 1
    assert [hit.id for hit in store.search("returns", 10, NO_FILTERS)] == ["a"]


def test_deleting_buffered_documents_before_any_search(tmp_path: Path) -> None:
    store = store_with(tmp_path, "alpha beta", "beta gamma", "gamma delta")
    assert store.delete(["d1"]) == 1
    texts = ["alpha beta", "gamma delta"]
    got = {hit.id: hit.score for hit in store.search("beta gamma", 10, NO_FILTERS)}
    expected = okapi_scores(texts, "beta gamma")
    assert np.allclose([got.get("d0", 0.0), got.get("d2", 0.0)], expected, rtol=1e-12)


def test_ties_break_in_insertion_order_and_limit_cuts_after_ordering(tmp_path: Path) -> None:
    texts = [f"shared filler{i}" for i in range(30)] + ["other words"] * 10
    store = BM25Store(tmp_path / "bm25", PLAIN)
    # Insert in a scrambled id order: insertion order, not id order, breaks ties.
    ids = [f"x{(i * 7) % 40:02d}" for i in range(40)]
    store.add([text_fragment(doc_id, text) for doc_id, text in zip(ids, texts, strict=True)])
    hits = store.search("shared", 5, NO_FILTERS)
    assert [hit.id for hit in hits] == ids[:5]
    assert len({hit.score for hit in hits}) == 1
    assert [hit.id for hit in store.search("shared", 30, NO_FILTERS)] == ids[:30]


def test_top_k_prefers_higher_scores(tmp_path: Path) -> None:
    store = store_with(tmp_path, "rare word", "common", "common", "common rare rare", "x")
    assert [hit.id for hit in store.search("rare", 1, NO_FILTERS)] == ["d3"]


def test_stats_describe_the_index(tmp_path: Path) -> None:
    store = store_with(tmp_path, "alpha beta", "beta gamma")
    store.delete(["d0"])
    stats = store.stats()
    assert stats["documents"] == 1
    assert stats["deleted_slots"] == 1
    assert stats["vocabulary"] == 2  # alpha no longer occurs anywhere


def test_plugin_registers_the_bm25_keyword_store(tmp_path: Path) -> None:
    manager = pluggy.PluginManager("memex")
    manager.add_hookspecs(hookspecs)
    registry = PluginRegistry(manager)
    registry.register_plugin(memex_bm25, name="bm25")
    registration = registry.get("keyword_store", "bm25")
    assert registration.available
    context = PluginContext(home=tmp_path, settings={"stemmer": "none"})
    store = registry.build("keyword_store", "bm25", context)
    assert isinstance(store, BM25Store)
    assert store.directory == tmp_path / "index" / "bm25"
    assert store.tokenizer == Tokenizer(stemmer=None)
    store.add([text_fragment("a", "running dogs")])
    store.flush()
    assert (tmp_path / "index" / "bm25" / "manifest.json").exists()


def test_unknown_setting_is_reported_with_its_name(tmp_path: Path) -> None:
    from memex_bm25.errors import BM25SettingError

    with pytest.raises(BM25SettingError, match="stemer"):
        BM25Store.open(tmp_path / "bm25", {"stemer": "english"})
    with pytest.raises(BM25SettingError, match="k1"):
        BM25Store.open(tmp_path / "bm25", {"k1": "high"})


def test_scoring_parameters_come_from_settings(tmp_path: Path) -> None:
    texts = ["apple banana apple", "banana cherry", "cherry durian", "egg"]
    store = BM25Store.open(
        tmp_path / "bm25", {"k1": 1.2, "b": 0.5, "epsilon": 0.1, "stemmer": "none"}
    )
    store.add([text_fragment(f"d{i}", t) for i, t in enumerate(texts)])
    okapi = BM25Okapi([PLAIN(t) for t in texts], k1=1.2, b=0.5, epsilon=0.1)
    got = {hit.id: hit.score for hit in store.search("apple banana", 10, NO_FILTERS)}
    expected = okapi.get_scores(["apple", "banana"])
    assert np.allclose([got.get(f"d{i}", 0.0) for i in range(4)], expected, rtol=1e-12)


def test_importing_the_plugin_does_not_import_numpy() -> None:
    code = "import sys, memex_bm25; assert 'numpy' not in sys.modules, 'numpy imported'"
    subprocess.run([sys.executable, "-c", code], check=True)
