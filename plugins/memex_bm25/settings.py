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
from memex_core.settings_table import SettingsTable, is_number

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
_TABLE = SettingsTable(
    "config.toml [keyword.bm25]",
    BM25SettingError,
    hints=dict.fromkeys(_FLOAT_KEYS, "a non-negative number"),
    known=(*TOKENIZER_KEYS, *_FLOAT_KEYS),
)


def parse_settings(settings: Mapping[str, Any] | None) -> StoreOptions:
    settings = _TABLE.checked(settings)
    given = _TABLE.values(settings, _non_negative, order=_FLOAT_KEYS)
    numbers = {key: float(value) for key, value in given.items()}
    if "b" in numbers and numbers["b"] > 1:
        raise BM25SettingError(f"{_TABLE.where} b = {numbers['b']}: b is a share between 0 and 1.")
    merge_ratio = numbers.pop("merge_ratio", StoreOptions.merge_ratio)
    return StoreOptions(
        tokenizer=Tokenizer.from_settings(settings),
        scoring=ScoringParams(**numbers),
        merge_ratio=merge_ratio,
    )


def _non_negative(_key: str, value: Any) -> bool:
    return is_number(value) and not value < 0  # nan is let through, as it always was
