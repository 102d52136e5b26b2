"""The ``[keyword.bm25]`` table of config.toml, checked and turned into store options.

Example::

    [keyword.bm25]
    stemmer = "english"     # any Snowball language, or "none"
    stopwords = "english"   # the built-in list, "none", or a list of words
    lowercase = true
    k1 = 1.5                # BM25Okapi parameters; scoring only, no rebuild needed
    b = 0.75
    epsilon = 0.25
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from memex_bm25.errors import BM25SettingError
from memex_bm25.tokenizer import Tokenizer

TOKENIZER_KEYS = ("lowercase", "stemmer", "stopwords")


@dataclass(frozen=True)
class ScoringParams:
    """BM25Okapi's parameters, with rank_bm25's defaults."""

    k1: float = 1.5
    b: float = 0.75
    epsilon: float = 0.25


@dataclass(frozen=True)
class StoreOptions:
    tokenizer: Tokenizer = field(default_factory=Tokenizer)
    scoring: ScoringParams = field(default_factory=ScoringParams)
    #: Merge the delta segment into the base when it outgrows this share of the base.
    merge_ratio: float = 0.15


_FLOAT_KEYS = ("k1", "b", "epsilon", "merge_ratio")


def parse_settings(settings: Mapping[str, Any] | None) -> StoreOptions:
    settings = dict(settings or {})
    unknown = sorted(set(settings) - set(TOKENIZER_KEYS) - set(_FLOAT_KEYS))
    if unknown:
        known = ", ".join((*TOKENIZER_KEYS, *_FLOAT_KEYS))
        raise BM25SettingError(
            f"config.toml [keyword.bm25] has unknown setting(s) {', '.join(unknown)}; "
            f"known settings are: {known}."
        )
    numbers: dict[str, float] = {}
    for key in _FLOAT_KEYS:
        if key not in settings:
            continue
        value = settings[key]
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise BM25SettingError(
                f"config.toml [keyword.bm25] {key} = {value!r}: use a non-negative number."
            )
        numbers[key] = float(value)
    if "b" in numbers and numbers["b"] > 1:
        raise BM25SettingError(
            f"config.toml [keyword.bm25] b = {numbers['b']}: b is a share between 0 and 1."
        )
    merge_ratio = numbers.pop("merge_ratio", StoreOptions.merge_ratio)
    return StoreOptions(
        tokenizer=Tokenizer.from_settings(settings),
        scoring=ScoringParams(**numbers),
        merge_ratio=merge_ratio,
    )
