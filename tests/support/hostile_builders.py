"""Hostile inputs for memex's parsers: valid files bent out of shape, and broken bytes.

The strategies start from files the sources read correctly (the fixtures and
the transcript builders) and mutate them: a value replaced by one of the wrong
type or an odd one (NaN, huge numbers, lone surrogates, NUL bytes, dates in the
year 0), a key removed, a value nested thousands of levels deep, a string made
huge; then, at the byte level, the file truncated, invalid UTF-8 or NUL bytes
spliced in, a range dropped or repeated.

:func:`check_storable` says whether fragments could be written to the catalog
and shown (UTF-8 text, JSON metadata, a real time). :func:`tally` counts every
input tried per family for ``docs/reliability.md`` (see :func:`write_tallies`).

Example counts are modest so the suite stays fast; ``HYPOTHESIS_PROFILE=hostile``
runs ten times as many.
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from memex_core.domain import Fragment, SourceError
from memex_core.source_kit import SkippedItemWarning

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures"

# -- example counts ---------------------------------------------------------------------

#: The bigger run: ``HYPOTHESIS_PROFILE=hostile python -m pytest tests/test_hostile_*``.
PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "")
SCALE = 10 if PROFILE == "hostile" else 1


def examples(n: int) -> settings:
    """Hypothesis settings for a hostile test: ``n`` examples (times ten in the big profile),
    no deadline (the machine is shared), no health check on slow data generation."""
    return settings(
        max_examples=n * SCALE,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        derandomize=PROFILE != "hostile",
    )


# -- tallies for docs/reliability.md ----------------------------------------------------

#: Inputs tried per family in this process; ``escapes`` stays 0 or a test fails.
TALLIES: Counter[str] = Counter()


def tally(family: str, count: int = 1) -> None:
    TALLIES[family] += count


def write_tallies() -> None:
    """Add this process's counts to the JSON file named by ``MEMEX_RELIABILITY_COUNTS``."""
    target = os.environ.get("MEMEX_RELIABILITY_COUNTS")
    if not target or not TALLIES:
        return
    path = Path(target)
    # pytest-xdist workers add their counts to the same file: one at a time.
    with path.with_suffix(path.suffix + ".lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        known: dict[str, int] = json.loads(path.read_text()) if path.exists() else {}
        for family, count in TALLIES.items():
            known[family] = known.get(family, 0) + count
        path.write_text(json.dumps(known, indent=2, sort_keys=True) + "\n")
    TALLIES.clear()


# -- values ----------------------------------------------------------------------------

ODD_STRINGS = [
    "",
    " ",
    "\x00",
    "a\x00b",
    "\ud800",
    "x\udfffy",
    "\ufeff",
    "\u202eevil",
    "9" * 400,
    "1e309",
    "-1e309",
    "NaN",
    "2024-13-45T99:99:99",
    "0001-01-01T00:00:00+01:00",
    "9999-12-31T23:59:59-01:00",
    "0000-00-00",
    "\n\n\n",
    "../../etc/passwd",
    "<command-name>/x</command-name>",
    "<local-command-stdout>\x1b[31mred\x1b[0m</local-command-stdout>",
]

ODD_NUMBERS = [
    0,
    -1,
    2**63,
    -(2**63) - 1,
    10**300,
    10**4000,  # 4001 digits: just under Python's 4300-digit limit (see BIG_INT)
    1e308,
    -1e308,
    float("nan"),
    float("inf"),
    float("-inf"),
    5e-324,
    253402300800,  # one second past 9999-12-31
    -62135596801,  # one second before 0001-01-01
    1e15,  # milliseconds of the year 33658
]

#: Placeholder replaced, after serialising, by JSON nested this many levels deep.
DEEP = "__memex_deep__"
#: Placeholder replaced by an integer of 5000 digits, past what Python's int() parses.
BIG_INT = "__memex_big_int__"
DEPTHS = [50, 900, 5000, 100_000]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=30),
    st.sampled_from(ODD_STRINGS),
    st.sampled_from(ODD_NUMBERS),
)

json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)

replacements = st.one_of(
    json_values,
    st.just(DEEP),
    st.just(BIG_INT),
    st.integers(min_value=10_000, max_value=300_000).map(lambda n: "w " * n),  # huge text
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*prefix, index))


def _apply(value: Any, path: tuple[Any, ...], action: str, new: Any) -> Any:
    if not path:
        return new if action != "delete" else None
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        copy = dict(value)
        if not rest and action == "delete":
            copy.pop(head, None)
        else:
            copy[head] = _apply(value[head], rest, action, new)
        return copy
    copy_list = list(value)
    if not rest and action == "delete":
        del copy_list[head]
    else:
        copy_list[head] = _apply(value[head], rest, action, new)
    return copy_list


@st.composite
def mutated(draw: st.DrawFn, base: Any, most: int = 4) -> Any:
    """``base`` with up to ``most`` values replaced, deleted, wrapped or emptied."""
    value = base
    for _ in range(draw(st.integers(min_value=1, max_value=most))):
        paths = list(_paths(value))
        path = draw(st.sampled_from(paths))
        action = draw(st.sampled_from(["replace", "replace", "delete", "wrap", "empty"]))
        target = value
        for step in path:
            target = target[step]
        if action == "replace":
            value = _apply(value, path, action, draw(replacements))
        elif action == "wrap":
            value = _apply(value, path, action, [target])
        elif action == "empty":
            value = _apply(value, path, action, type(target)() if target is not None else {})
        else:
            value = _apply(value, path, action, None)
    return value


def dumps(value: Any, depth: int) -> str:
    """JSON text of ``value``: each :data:`DEEP` placeholder nested ``depth`` levels deep,
    each :data:`BIG_INT` a 5000-digit integer."""
    text = json.dumps(value, allow_nan=True)
    text = text.replace(json.dumps(BIG_INT), "9" * 5000)
    return text.replace(json.dumps(DEEP), "[" * depth + "1" + "]" * depth)


# -- bytes -----------------------------------------------------------------------------

BAD_BYTES = [b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\x00", b"\x00" * 64, b"\r"]


@st.composite
def corrupted(draw: st.DrawFn, data: bytes) -> bytes:
    """``data`` truncated, with bad bytes spliced in, a range dropped or repeated."""
    action = draw(st.sampled_from(["truncate", "splice", "drop", "repeat", "bom", "keep"]))
    size = len(data)
    at = draw(st.integers(min_value=0, max_value=size))
    if action == "truncate":
        return data[:at]
    if action == "splice":
        return data[:at] + draw(st.sampled_from(BAD_BYTES)) + data[at:]
    if action == "drop":
        end = draw(st.integers(min_value=at, max_value=min(size, at + 64)))
        return data[:at] + data[end:]
    if action == "repeat":
        end = draw(st.integers(min_value=at, max_value=min(size, at + 64)))
        return data[:end] + data[at:end] + data[end:]
    if action == "bom":
        return b"\xef\xbb\xbf" + data
    return data


# -- what a parser may do ------------------------------------------------------------

#: The earliest and latest times memex can show (datetime's years 1 to 9999).
EARLIEST, LATEST = -62135596800.0, 253402300799.0


def _utf8(text: object, what: str) -> None:
    assert isinstance(text, str), f"{what} is {type(text).__name__}, not text"
    text.encode("utf-8")  # raises on a lone surrogate: the catalog could not store it


def check_storable(fragment: Fragment) -> None:
    """Fail unless the catalog could store ``fragment`` and a person could read it back."""
    for what, text in (
        ("id", fragment.id),
        ("conversation_id", fragment.conversation_id),
        ("role", fragment.role),
        ("content", fragment.content),
        ("source_path", fragment.provenance.source_path),
        ("source_id", fragment.provenance.source_id),
        ("locator", fragment.provenance.locator),
    ):
        _utf8(text, what)
    if fragment.title is not None:
        _utf8(fragment.title, "title")
    if fragment.index_text is not None:
        _utf8(fragment.index_text, "index_text")
    _utf8(json.dumps(fragment.metadata, ensure_ascii=False, default=str), "metadata")
    assert fragment.content.strip(), "an empty fragment"
    for stamp in (fragment.timestamp, fragment.provenance.timestamp):
        if stamp is not None:
            assert math.isfinite(stamp) and EARLIEST <= stamp <= LATEST, f"timestamp {stamp}"


@contextmanager
def only_skip_warnings() -> Iterator[list[warnings.WarningMessage]]:
    """Collect warnings; any other than :class:`SkippedItemWarning` fails the test."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield caught
    others = [
        w for w in caught if not issubclass(w.category, SkippedItemWarning) and not _foreign(w)
    ]
    assert not others, [str(w.message) for w in others]


def _foreign(caught: warnings.WarningMessage) -> bool:
    """A socket another test on this worker left to the garbage collector: a deep hostile
    input can trigger that collection in here (seen once in the whole suite). The parsers
    read files and open no socket, so the warning is never theirs; an unclosed file still
    fails the test."""
    return issubclass(caught.category, ResourceWarning) and str(caught.message).startswith(
        "unclosed <socket"
    )


def read_or_refuse(read: Callable[[], list[Fragment]], path: Path) -> list[Fragment] | None:
    """Run a parser: its fragments (each storable), or ``None`` after a :class:`SourceError`
    that names ``path``. Any other exception escapes and fails the test."""
    with only_skip_warnings():
        try:
            fragments = read()
        except SourceError as exc:
            assert str(path) in str(exc) or exc.path == str(path), str(exc)
            assert exc.reason, "an error without a reason"
            return None
    for fragment in fragments:
        check_storable(fragment)
    return fragments


# -- catalog snapshots -------------------------------------------------------------------


def catalog_state(mx: Any) -> tuple[Any, ...]:
    """What a failed file must leave exactly as it was: fragment ids, conversations, files."""
    _, fragments = mx.query("SELECT id FROM fragments ORDER BY id")
    _, conversations = mx.query("SELECT COUNT(*) FROM conversations")
    _, files = mx.query("SELECT path, sha256 FROM ingested_files ORDER BY path")
    return tuple(r[0] for r in fragments), conversations[0][0], tuple(files)


def fixture_json(name: str) -> Any:
    return json.loads((FIXTURES / name / "conversations.json").read_text())
