"""Collection names: hierarchical labels such as ``company:engineering:alice``.

A name is 1-16 ``:``-separated segments, each 1-64 characters of ASCII letters,
digits, ``_``, ``.`` and ``-`` starting with a letter or digit. ``""`` means no
collection. Names are compared exactly (case matters).

A prefix *covers* a name segment by segment: ``company:engineering`` covers
itself and ``company:engineering:alice``, but not ``company:engineeringx``; the
empty prefix covers every name, including ``""``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from memex_core.errors import RefusedValue

SEPARATOR = ":"
MAX_SEGMENTS = 16
MAX_SEGMENT_CHARS = 64

_SEGMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


#: What a collection name may be, as an error about one says it.
COLLECTION_RULE = (
    f"A collection is up to {MAX_SEGMENTS} ':'-separated segments of 1-{MAX_SEGMENT_CHARS} "
    "ASCII letters, digits, '_', '.' or '-', each starting with a letter or digit (e.g. "
    "'company:engineering'), or '' for none."
)


class InvalidCollection(RefusedValue):
    """A collection name memex refuses; the message names it, why and the fix."""

    def __init__(self, name: object, reason: str) -> None:
        self.name = name
        super().__init__("collection", name, reason, COLLECTION_RULE)


def validate_collection(name: str) -> str:
    """Return ``name`` unchanged if it is a valid collection name (or ``""``)."""
    if not isinstance(name, str):
        raise InvalidCollection(name, f"must be text, not {type(name).__name__}")
    if name == "":
        return name
    segments = name.split(SEPARATOR)
    if len(segments) > MAX_SEGMENTS:
        raise InvalidCollection(name, f"has {len(segments)} segments")
    for segment in segments:
        if not segment:
            raise InvalidCollection(
                name, "has an empty segment (a leading, trailing or double ':')"
            )
        if len(segment) > MAX_SEGMENT_CHARS:
            raise InvalidCollection(name, f"segment {segment[:20]!r}... is {len(segment)} long")
        if not _SEGMENT.fullmatch(segment):
            raise InvalidCollection(
                name, f"segment {segment!r} has a character that is not allowed"
            )
    return name


def covers(prefix: str, name: str) -> bool:
    """Whether ``prefix`` is ``name`` or one of its ancestors (``""`` covers everything).

    An invalid ``prefix`` raises :class:`InvalidCollection` (it comes from a
    caller); an invalid ``name`` is covered by nothing (it comes from storage).
    """
    validate_collection(prefix)
    return isinstance(name, str) and _is_valid(name) and _covers(prefix, name)


def expand(prefix: str, known: Iterable[str]) -> tuple[str, ...]:
    """The names in ``known`` that ``prefix`` covers, sorted and without duplicates.

    Invalid names in ``known`` are skipped rather than raised: ``known`` is
    what is stored, and a bad stored value should not break every search.
    """
    validate_collection(prefix)
    found = set()
    for name in known:
        if isinstance(name, str) and _is_valid(name) and _covers(prefix, name):
            found.add(name)
    return tuple(sorted(found))


def sql_like_pattern(prefix: str) -> str:
    """A LIKE pattern for the names strictly below ``prefix`` (``prefix:%``), ESCAPE ``'\\'``.

    Use it as ``collection = :prefix OR collection LIKE :pattern ESCAPE '\\'``
    (the pattern does not match ``prefix`` itself). ``%``, ``_`` and ``\\`` in
    the prefix are escaped, so ``_`` in a name is literal. The empty prefix gives
    ``%`` (everything). SQLite's LIKE ignores ASCII case unless
    ``PRAGMA case_sensitive_like = ON``; filter the rows with :func:`covers`
    (or use GLOB) where case matters.
    """
    validate_collection(prefix)
    if prefix == "":
        return "%"
    escaped = prefix.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"{escaped}{SEPARATOR}%"


def _covers(prefix: str, name: str) -> bool:
    return prefix == "" or name == prefix or name.startswith(prefix + SEPARATOR)


def _is_valid(name: str) -> bool:
    try:
        validate_collection(name)
    except InvalidCollection:
        return False
    return True
