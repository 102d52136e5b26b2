"""The conversations of a chat export, streamed one at a time.

Exports come as a list of conversation records (the norm), a single record, or
an object whose values are records; entries that are not records are skipped
with a :class:`SkippedItemWarning`, and a file where nothing is a record (a
wrong file, like ``users.json``) is refused with a :class:`SourceError`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from memex_core.domain import Fragment, SourceError
from memex_core.sources.archives import is_zip_path
from memex_core.sources.json_stream import iter_top_level
from memex_core.sources.limits import DEFAULT_LIMITS, DEFAULT_MEMBER, ExportLimits
from memex_core.sources.skips import MAX_SKIP_WARNINGS, Skips, warn_skipped


def _where(path: str | Path, member: str) -> str:
    """How messages name the file read: the member inside a zip, else the path."""
    return f"{member} in {path}" if is_zip_path(path) else str(path)


def _no_conversations(path: str | Path, marker_key: str) -> SourceError:
    # Nothing here is a conversation: a wrong file (users.json...), not a few odd entries.
    return SourceError(
        path,
        f"no conversations found: expected a list of objects with {marker_key!r}; "
        "is this the right export file?",
        "top level",
    )


def iter_export(
    path: str | Path,
    marker_key: str,
    *,
    member: str = DEFAULT_MEMBER,
    limits: ExportLimits = DEFAULT_LIMITS,
) -> Iterator[tuple[str, str | None, dict[str, Any]]]:
    """Conversations of an export file or zip, as :func:`iter_records` gives them, streamed.

    A top-level list (every real export) is parsed one entry at a time, so an
    export far larger than memory can be read; any other top level is parsed
    whole and handed to :func:`iter_records`. Entries that are not records are
    skipped with a warning, but only once a record has been seen: a list with
    no record at all (``users.json``) raises :class:`SourceError` instead.
    Errors (broken JSON, bad bytes, limits) are raised when reached, so a caller
    must finish the iteration before trusting what it got.
    """
    pending: list[str] = []  # entries skipped before the first record, reported after it
    seen_record = False
    entries = 0
    where = _where(path, member)
    skips = Skips(where)
    reason = f"not a conversation (no {marker_key!r})"
    for in_list, index, value in iter_top_level(path, member, limits):
        if not in_list:
            yield from iter_records(value, marker_key, path)
            return
        entries += 1
        location = f"conversation {index + 1}"
        if isinstance(value, dict) and marker_key in value:
            if not seen_record:
                seen_record = True
                for skipped in pending:
                    skips.skip(skipped, reason)
                pending.clear()
            yield location, None, value
        elif seen_record:
            skips.skip(location, reason)
        elif len(pending) < MAX_SKIP_WARNINGS:
            pending.append(location)
        else:
            skips.count += 1  # reported in the total once a record shows up
    skips.finish()
    if entries and not seen_record:
        raise _no_conversations(path, marker_key)


def fragments_per_conversation(
    path: str | Path,
    marker_key: str,
    marker_type: type,
    conversation_id: Callable[[dict[str, Any], str | None], str],
    build: Callable[[dict[str, Any], str], Iterable[Fragment]],
    *,
    limits: ExportLimits = DEFAULT_LIMITS,
) -> Iterator[Fragment]:
    """Stream an export and yield each conversation's fragments, one conversation at a time.

    ``marker_key`` (e.g. ``"mapping"``) must hold a ``marker_type`` value for a record to
    count as a conversation. Each conversation is built completely before any of it is
    yielded, so a conversation that fails half-way is skipped whole, with a
    :class:`SkippedItemWarning` naming it, and the rest of the file is still read.
    """
    where = _where(path, DEFAULT_MEMBER)
    expected = "an object" if marker_type is dict else f"a {marker_type.__name__}"
    skips = Skips(where)
    for location, key, record in iter_export(path, marker_key, limits=limits):
        try:
            cid = conversation_id(record, key)
        except (AttributeError, TypeError, ValueError, KeyError) as exc:
            skips.skip(location, f"unreadable id ({type(exc).__name__}: {exc})")
            continue
        label = f"{location} (id {cid})"
        if not isinstance(record.get(marker_key), marker_type):
            skips.skip(label, f"its {marker_key!r} is not {expected}")
            continue
        try:
            fragments = list(build(record, cid))
        except (AttributeError, TypeError, ValueError, KeyError, RecursionError) as exc:
            skips.skip(label, f"unreadable ({type(exc).__name__}: {str(exc)[:200]})")
            continue
        yield from fragments
    skips.finish()


def iter_records(
    data: Any, marker_key: str, path: str | Path
) -> Iterator[tuple[str, str | None, dict[str, Any]]]:
    """Conversations in a parsed export, as ``(location, key, record)`` triples.

    Exports come in three shapes, all accepted: a list of records (the norm), a
    single record (an object with ``marker_key``), or an object whose values are
    records (test-fixture style; ``key`` is then the record's key, else ``None``).
    ``location`` reads like ``conversation 3`` and is meant for messages.
    Entries that are not objects with ``marker_key`` are skipped with a
    :class:`SkippedItemWarning`. A top level of any other shape, or one where no
    entry is a record, raises :class:`SourceError`; an empty list is fine.
    """

    def is_record(item: object) -> bool:
        return isinstance(item, dict) and marker_key in item

    entries: list[tuple[str, str | None, Any]] = []
    if isinstance(data, list):
        entries = [(f"conversation {i + 1}", None, item) for i, item in enumerate(data)]
    elif is_record(data):
        entries = [("conversation 1", None, data)]
    elif isinstance(data, dict):
        entries = [(f"conversation {key!r}", str(key), value) for key, value in data.items()]
    if not any(is_record(item) for _, _, item in entries) and data != []:
        raise _no_conversations(path, marker_key)
    for location, key, item in entries:
        if is_record(item):
            yield location, key, item
        else:
            warn_skipped(path, location, f"not a conversation (no {marker_key!r})")
