"""The bm25 tokenizer: options, settings, and refusing an index built with another tokenizer."""

from __future__ import annotations

from pathlib import Path

import pytest

from memex_bm25.errors import BM25SettingError, TokenizerMismatchError
from memex_bm25.store import BM25Store
from memex_bm25.tokenizer import Tokenizer
from memex_core.domain import SearchFilters
from tests.support.catalog_builders import text_fragment

NO_FILTERS = SearchFilters()


def test_default_lowercases_drops_stopwords_and_stems() -> None:
    tokens = Tokenizer()("The Running dogs were JUMPING over the fences")
    assert tokens == ["run", "dog", "jump", "fenc"]


def test_plain_tokenizer_keeps_every_word_lowercased() -> None:
    plain = Tokenizer(stemmer=None, stopwords=None)
    assert plain("The Running dogs, don't!") == ["the", "running", "dogs", "don", "t"]


def test_words_in_any_script_and_digits_are_tokens() -> None:
    plain = Tokenizer(stemmer=None, stopwords=None)
    assert plain("Café naïve Größe 東京 Привет мир x86_64 42") == [
        "café",
        "naïve",
        "größe",
        "東京",
        "привет",
        "мир",
        "x86_64",
        "42",
    ]


def test_lowercase_off_keeps_case_but_stopwords_still_match() -> None:
    tokenizer = Tokenizer(lowercase=False, stemmer=None, stopwords="english")
    assert tokenizer("The API of NumPy") == ["API", "NumPy"]


def test_custom_stopwords_and_another_stemmer() -> None:
    tokenizer = Tokenizer(stemmer="french", stopwords=["le", "LA"])
    assert tokenizer("La maison et le jardin") == tokenizer("maison et jardin")
    assert tokenizer("maisons") == tokenizer("maison")


def test_settings_switch_options_off_in_toml_spellings() -> None:
    assert Tokenizer.from_settings({}) == Tokenizer()
    off = Tokenizer.from_settings({"stemmer": "none", "stopwords": False})
    assert off == Tokenizer(stemmer=None, stopwords=None)
    listed = Tokenizer.from_settings({"stopwords": ["foo", "bar"], "lowercase": False})
    assert listed("Foo Baz BAR") == ["Baz"]


@pytest.mark.parametrize(
    "settings",
    [{"stemmer": "klingon"}, {"stopwords": "german"}, {"lowercase": "yes"}],
)
def test_bad_settings_name_the_setting(settings: dict[str, object]) -> None:
    key = next(iter(settings))
    with pytest.raises(BM25SettingError, match=rf"\[keyword.bm25\] {key}"):
        Tokenizer.from_settings(settings)


def test_config_round_trips() -> None:
    for tokenizer in (
        Tokenizer(),
        Tokenizer(stemmer=None, stopwords=None),
        Tokenizer(lowercase=False, stemmer="german", stopwords=["der", "die"]),
    ):
        assert Tokenizer.from_config(tokenizer.config()) == tokenizer
    assert Tokenizer.from_config({**Tokenizer().config(), "stopwords": "english-v999"}) is None


def test_index_built_with_another_tokenizer_asks_for_rebuild(tmp_path: Path) -> None:
    root = tmp_path / "bm25"
    built = BM25Store(root, Tokenizer())
    built.add([text_fragment("a", "running dogs")])
    built.flush()

    other = BM25Store.open(root, {"stemmer": "none"})
    for call in (
        lambda: other.search("dogs", 5, NO_FILTERS),
        other.count,
        other.ids,
        lambda: other.add([text_fragment("b", "x")]),
        lambda: other.delete(["a"]),
        other.flush,
    ):
        with pytest.raises(TokenizerMismatchError, match="memex rebuild") as caught:
            call()
        assert str(root) in str(caught.value)
        assert "stemmer=english" in str(caught.value)
        assert "stemmer=none" in str(caught.value)

    # What `memex rebuild` does: clear, re-add, flush, now with the configured tokenizer.
    other.clear()
    other.add([text_fragment("a", "running dogs")])
    other.flush()
    assert [hit.id for hit in other.search("running", 5, NO_FILTERS)] == ["a"]
    with pytest.raises(TokenizerMismatchError):
        BM25Store(root, Tokenizer()).count()


def test_store_without_a_tokenizer_adopts_the_stored_one(tmp_path: Path) -> None:
    root = tmp_path / "bm25"
    built = BM25Store(root, Tokenizer(stemmer=None, stopwords=["dogs"]))
    built.add([text_fragment("a", "running dogs")])
    built.flush()
    adopted = BM25Store(root)
    assert adopted.tokenizer == built.tokenizer
    assert [hit.id for hit in adopted.search("running", 5, NO_FILTERS)] == ["a"]
    assert adopted.search("run dogs", 5, NO_FILTERS) == []


def test_scoring_settings_need_no_rebuild(tmp_path: Path) -> None:
    root = tmp_path / "bm25"
    built = BM25Store.open(root, {})
    built.add([text_fragment("a", "running dogs"), text_fragment("b", "cats")])
    built.flush()
    assert BM25Store.open(root, {"k1": 0.9, "b": 0.4}).count() == 2
