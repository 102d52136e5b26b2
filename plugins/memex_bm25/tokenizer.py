"""Turn text into the terms the BM25 index counts.

Tokens are Unicode word runs (``\\w+``: letters, digits and underscores in any
script), optionally lowercased, with stopwords dropped and the rest stemmed.
Stopwords are matched on the lowercased surface form, before stemming, so the
list stays readable (``having``, not ``have``).

The same :class:`Tokenizer` must tokenize documents and queries, so its
:meth:`Tokenizer.config` is stored with the index and compared on open.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

from memex_bm25 import stopwords as builtin_stopwords
from memex_bm25.errors import BM25SettingError

_WORD = re.compile(r"\w+", re.UNICODE)

#: Spellings a config.toml can use to switch an option off (TOML has no null).
_OFF = frozenset({"", "none", "off", "false", "no"})

StopwordsOption = str | Iterable[str] | None

_STEM_CACHE_SIZE = 500_000


class Tokenizer:
    """Callable text -> list of terms; see the module docstring for the pipeline.

    ``stemmer`` is a Snowball algorithm name known to PyStemmer (``"english"``,
    ``"french"``...) or ``None``. ``stopwords`` is ``"english"`` (the built-in
    list), ``None``, or an explicit collection of words (compared lowercased).
    """

    def __init__(
        self,
        *,
        lowercase: bool = True,
        stemmer: str | None = "english",
        stopwords: StopwordsOption = "english",
    ) -> None:
        self.lowercase = bool(lowercase)
        self.stemmer_name = _normalise_stemmer(stemmer)
        self.stopwords_name, self.stopwords = _normalise_stopwords(stopwords)
        self._stemmer: Any = None
        self._stem_cache: dict[str, str] = {}
        if self.stemmer_name is not None:
            import Stemmer  # PyStemmer (core dependency), imported late to keep import cheap

            self._stemmer = Stemmer.Stemmer(self.stemmer_name)

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> Tokenizer:
        """Build from the tokenizer keys of a ``[keyword.bm25]`` table (missing keys: defaults)."""
        kwargs: dict[str, Any] = {}
        if "lowercase" in settings:
            value = settings["lowercase"]
            if not isinstance(value, bool):
                raise BM25SettingError(
                    f"config.toml [keyword.bm25] lowercase = {value!r}: use true or false."
                )
            kwargs["lowercase"] = value
        if "stemmer" in settings:
            kwargs["stemmer"] = _off_to_none(settings["stemmer"])
        if "stopwords" in settings:
            kwargs["stopwords"] = _off_to_none(settings["stopwords"])
        return cls(**kwargs)

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> Tokenizer | None:
        """The tokenizer a stored :meth:`config` describes, or None if this version can't."""
        stopwords = config.get("stopwords")
        if isinstance(stopwords, str) and stopwords.startswith("english-v"):
            stopwords = "english"
        try:
            tokenizer = cls(
                lowercase=bool(config.get("lowercase", True)),
                stemmer=config.get("stemmer"),
                stopwords=stopwords,
            )
        except BM25SettingError:
            return None
        return tokenizer if tokenizer.config() == dict(config) else None

    def __call__(self, text: str) -> list[str]:
        return self.tokenize(text)

    def tokenize(self, text: str) -> list[str]:
        if self.lowercase:
            text = text.lower()
        tokens = _WORD.findall(text)
        if self.stopwords:
            if self.lowercase:
                tokens = [t for t in tokens if t not in self.stopwords]
            else:
                tokens = [t for t in tokens if t.lower() not in self.stopwords]
        if self._stemmer is not None and tokens:
            tokens = self._stem(tokens)
        return tokens

    def _stem(self, tokens: list[str]) -> list[str]:
        # Chat text repeats the same few thousand words: a plain dict in front of
        # the Snowball stemmer makes indexing several times faster.
        cache = self._stem_cache
        missing = [token for token in tokens if token not in cache]
        if missing:
            if len(cache) > _STEM_CACHE_SIZE:
                cache.clear()
            cache.update(zip(missing, self._stemmer.stemWords(missing), strict=True))
        return [cache[token] for token in tokens]

    def config(self) -> dict[str, Any]:
        """A JSON-serialisable description; two tokenizers agree iff their configs are equal."""
        stopwords: Any
        if self.stopwords_name == "english":
            stopwords = f"english-v{builtin_stopwords.ENGLISH_VERSION}"
        elif self.stopwords_name == "custom":
            stopwords = sorted(self.stopwords)
        else:
            stopwords = None
        return {
            "pattern": _WORD.pattern,
            "lowercase": self.lowercase,
            "stemmer": self.stemmer_name,
            "stopwords": stopwords,
        }

    def describe(self) -> str:
        """Short human-readable summary, for error messages."""
        words = self.stopwords_name or "no"
        return (
            f"lowercase={'on' if self.lowercase else 'off'}, "
            f"stemmer={self.stemmer_name or 'none'}, stopwords={words}"
        )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Tokenizer) and self.config() == other.config()

    def __hash__(self) -> int:
        return hash(repr(self.config()))

    def __repr__(self) -> str:
        return f"Tokenizer({self.describe()})"


def describe_config(config: Mapping[str, Any]) -> str:
    """Summary of a stored tokenizer config, in the words of :meth:`Tokenizer.describe`."""
    stopwords = config.get("stopwords")
    if isinstance(stopwords, str):
        words = stopwords.split("-v")[0]
    else:
        words = "custom" if stopwords else "no"
    return (
        f"lowercase={'on' if config.get('lowercase') else 'off'}, "
        f"stemmer={config.get('stemmer') or 'none'}, stopwords={words}"
    )


def _off_to_none(value: Any) -> Any:
    if value is None or value is False:
        return None
    if isinstance(value, str) and value.strip().lower() in _OFF:
        return None
    return value


def _normalise_stemmer(stemmer: str | None) -> str | None:
    if stemmer is None:
        return None
    import Stemmer

    name = str(stemmer).strip().lower()
    if name not in Stemmer.algorithms():
        known = ", ".join(sorted(Stemmer.algorithms()))
        raise BM25SettingError(
            f"config.toml [keyword.bm25] stemmer = {stemmer!r} is not a known stemmer. "
            f'Use one of: {known}, or "none".'
        )
    return name


def _normalise_stopwords(stopwords: StopwordsOption) -> tuple[str | None, frozenset[str]]:
    if stopwords is None:
        return None, frozenset()
    if isinstance(stopwords, str):
        if stopwords.strip().lower() == "english":
            return "english", builtin_stopwords.ENGLISH
        raise BM25SettingError(
            f"config.toml [keyword.bm25] stopwords = {stopwords!r} is not a built-in list. "
            'Use "english", "none", or a list of words.'
        )
    words = frozenset(str(word).lower() for word in stopwords)
    return ("custom", words) if words else (None, frozenset())
