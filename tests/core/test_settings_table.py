"""memex_core.settings_table: the checks every component's config.toml table goes through."""

from __future__ import annotations

import pytest

from memex_core.errors import MemexError
from memex_core.settings_table import (
    SettingsTable,
    is_finite_number,
    is_number,
    is_whole_number,
    unknown_settings,
)

TABLE = SettingsTable(
    "config.toml [ranker.demo]",
    MemexError,
    hints={"k": "a non-negative number", "boost": "a number, 0 or more"},
)


def test_numbers_leave_out_bools() -> None:
    assert [is_number(v) for v in (1, 1.5, True, "1", None)] == [True, True, False, False, False]
    assert [is_finite_number(v) for v in (1, float("nan"), float("inf"))] == [True, False, False]
    assert [is_whole_number(v) for v in (3, 3.0, False)] == [True, False, False]


def test_unknown_keys_are_named_with_the_known_ones() -> None:
    assert unknown_settings({"k": 1}, ("k",)) is None
    assert unknown_settings({"z": 1, "a": 2}, ("k", "b"), known_label="known are") == (
        "unknown setting(s) a, z; known are k, b."
    )
    with pytest.raises(MemexError) as info:
        TABLE.checked({"bost": 1})
    assert str(info.value) == (
        "config.toml [ranker.demo] has unknown setting(s) bost; known settings are: k, boost."
    )


def test_checked_copies_and_takes_none() -> None:
    given = {"k": 1}
    assert TABLE.checked(given) == given and TABLE.checked(given) is not given
    assert TABLE.checked(None) == {}


def test_values_name_the_first_refused_key_in_order() -> None:
    def valid(_key: str, value: object) -> bool:
        return is_number(value) and value >= 0  # type: ignore[operator]

    assert TABLE.values({"k": 2, "boost": 0}, valid) == {"k": 2, "boost": 0}
    bad = {"boost": -1, "k": -2}
    with pytest.raises(MemexError, match=r"^config.toml \[ranker.demo\] boost = -1: use a number"):
        TABLE.values(bad, valid)
    with pytest.raises(MemexError, match=r"k = -2: use a non-negative number\.$"):
        TABLE.values(bad, valid, order=("k", "boost"))
    assert TABLE.values({"k": 1, "boost": "x"}, valid, skip=("boost",)) == {"k": 1}


def test_invalid_takes_its_own_hint() -> None:
    error = TABLE.invalid("k", "ten", "a number, e.g. k = 10")
    assert str(error) == "config.toml [ranker.demo] k = 'ten': use a number, e.g. k = 10."


def test_positive_seconds_names_the_table_and_the_default() -> None:
    from memex_core.settings_table import positive_seconds

    assert positive_seconds({}, "timeout", 10.0, table="vector.x", error=MemexError) == 10.0
    assert positive_seconds({"timeout": 3}, "timeout", 10.0, table="t", error=MemexError) == 3.0
    with pytest.raises(MemexError) as info:
        positive_seconds({"timeout": True}, "timeout", 10.0, table="vector.x", error=MemexError)
    assert str(info.value) == (
        "[vector.x] timeout in config.toml must be a positive number of seconds, got True. "
        "Fix or remove it (the default is 10)."
    )


def test_not_a_table_shows_the_table_to_write() -> None:
    from memex_core.settings_table import not_a_table

    assert not_a_table("/h/config.toml", "capture", "session_start_budget = 2000") == (
        "/h/config.toml: `capture` must be a table, e.g. [capture] session_start_budget = 2000"
    )
