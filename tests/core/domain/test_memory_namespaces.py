"""Collection names: validation, segment-wise covering, expansion and the SQL LIKE pattern."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memex_core.domain.memory.namespaces import (
    InvalidCollection,
    covers,
    expand,
    sql_like_pattern,
    validate_collection,
)
from memex_core.errors import MemexError


@pytest.mark.parametrize(
    "name",
    [
        "",
        "company",
        "company:engineering",
        "company:engineering:alice",
        "a_b.c-d:0",
        "A" * 64,
        ":".join(["x"] * 16),
        "Project-X:v1.2",
    ],
)
def test_valid_names(name: str) -> None:
    assert validate_collection(name) == name


@pytest.mark.parametrize(
    "name",
    [
        ":",
        ":company",
        "company:",
        "company::eng",
        "A" * 65,
        ":".join(["x"] * 17),
        "_hidden",
        ".dot",
        "-dash",
        "with space",
        "slash/inside",
        "percent%",
        "back\\slash",
        "café",
        "a:b\x00",
        " company",
        "company\n",
        "a:%",
    ],
)
def test_invalid_names(name: str) -> None:
    with pytest.raises(InvalidCollection) as info:
        validate_collection(name)
    assert isinstance(info.value, MemexError)
    assert repr(name) in str(info.value)
    assert "company:engineering" in str(info.value)  # the fix shows an example


def test_non_text_is_refused() -> None:
    with pytest.raises(InvalidCollection, match="must be text"):
        validate_collection(None)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("prefix", "name", "expected"),
    [
        ("company:engineering", "company:engineering", True),
        ("company:engineering", "company:engineering:alice", True),
        ("company:engineering", "company:engineering:alice:notes", True),
        ("company:engineering", "company:engineeringx", False),
        ("company:engineering", "company", False),
        ("company:engineering", "company:sales", False),
        ("company:engineering", "", False),
        ("company", "Company", False),  # case matters
        ("", "", True),
        ("", "anything:at:all", True),
        ("company", "bad::name", False),  # an invalid stored name is covered by nothing
    ],
)
def test_covers_segment_wise(prefix: str, name: str, expected: bool) -> None:
    assert covers(prefix, name) is expected


def test_covers_refuses_an_invalid_prefix() -> None:
    with pytest.raises(InvalidCollection):
        covers("company:", "company:x")


def test_expand_sorts_dedupes_and_skips_bad_names() -> None:
    known = [
        "company:engineering:bob",
        "company:engineeringx",
        "company:engineering",
        "company:engineering:alice",
        "company:engineering:bob",
        "company",
        "",
        "company:engineering::broken",
    ]
    assert expand("company:engineering", known) == (
        "company:engineering",
        "company:engineering:alice",
        "company:engineering:bob",
    )
    assert expand("", known) == (
        "",
        "company",
        "company:engineering",
        "company:engineering:alice",
        "company:engineering:bob",
        "company:engineeringx",
    )
    assert expand("nothing", known) == ()
    assert expand("company", iter(["company:a"])) == ("company:a",)  # any iterable


def test_sql_like_pattern_escapes() -> None:
    assert sql_like_pattern("company:engineering") == "company:engineering:%"
    assert sql_like_pattern("my_team") == "my\\_team:%"
    assert sql_like_pattern("") == "%"
    with pytest.raises(InvalidCollection):
        sql_like_pattern("a%b")


def test_sql_like_pattern_in_sqlite() -> None:
    names = [
        "my_team",
        "my_team:a",
        "my_team:a:b",
        "myxteam:a",  # '_' must not act as a wildcard
        "my_teamx:a",
        "other",
        "",
    ]
    db = sqlite3.connect(":memory:")
    db.execute("PRAGMA case_sensitive_like = ON")
    db.execute("CREATE TABLE m (collection TEXT)")
    db.executemany("INSERT INTO m VALUES (?)", [(n,) for n in names])

    def query(prefix: str) -> list[str]:
        rows = db.execute(
            "SELECT collection FROM m WHERE collection = ? OR collection LIKE ? ESCAPE '\\'"
            " ORDER BY collection",
            (prefix, sql_like_pattern(prefix)),
        )
        return [row[0] for row in rows]

    assert query("my_team") == ["my_team", "my_team:a", "my_team:a:b"]
    assert query("my_team") == list(expand("my_team", names))
    assert query("") == sorted(names)


_SEGMENTS = st.from_regex(r"\A[A-Za-z0-9][A-Za-z0-9_.-]{0,5}\Z")
_NAMES = st.lists(_SEGMENTS, min_size=1, max_size=4).map(":".join)


@given(_NAMES, _NAMES)
def test_covers_agrees_with_segments(prefix: str, name: str) -> None:
    expected = name.split(":")[: len(prefix.split(":"))] == prefix.split(":")
    assert covers(prefix, name) is expected
    assert covers(prefix, f"{prefix}:{name}")
    assert covers("", name)
