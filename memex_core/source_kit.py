"""Small helpers for people writing memex sources.

Chat exports arrive either as a bare JSON file or as the ``.zip`` the service
lets you download, with the interesting file (``conversations.json``) at the
root or inside one folder. These helpers hide that difference, read JSON with
errors that say where the file is broken, and turn the timestamp styles seen in
exports into epoch seconds. Everything here is stdlib-only and cheap to import.

Reading is always in memory: members are read, never extracted, so a hostile
archive cannot write anywhere; absurdly large members are refused up front.
"""

from __future__ import annotations

import json
import math
import re
import warnings
import zipfile
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from memex_core.domain import Fragment, SourceError

__all__ = [
    "DEFAULT_MEMBER",
    "MAX_MEMBER_BYTES",
    "SkippedItemWarning",
    "fragments_per_conversation",
    "find_json_key",
    "is_zip_path",
    "iter_records",
    "load_json",
    "open_export_member",
    "parse_timestamp",
    "peek_json_prefix",
    "warn_skipped",
]

#: The file chat services put their conversations in.
DEFAULT_MEMBER = "conversations.json"

#: Refuse anything bigger than this (uncompressed): parsing it would need many times as much RAM.
MAX_MEMBER_BYTES = 2 * 1024**3

# Epoch numbers above this are taken as milliseconds (1e11 seconds is the year 5138).
_MILLISECONDS_THRESHOLD = 1e11


class SkippedItemWarning(UserWarning):
    """An item inside an otherwise readable file was skipped (the message says which and why)."""


def warn_skipped(path: str | Path, location: str, reason: str) -> None:
    """Report a skipped item as a :class:`SkippedItemWarning` naming the file and the place."""
    warnings.warn(f"{path} ({location}): skipped, {reason}", SkippedItemWarning, stacklevel=3)


def is_zip_path(path: str | Path) -> bool:
    """Whether ``path`` should be read as a zip archive (decided by its suffix)."""
    return Path(path).suffix.lower() == ".zip"


def _safe_parts(name: str) -> tuple[str, ...] | None:
    """The folder parts of a member name, or ``None`` if the name could escape the archive."""
    normalised = name.replace("\\", "/")
    if normalised.startswith("/") or re.match(r"^[A-Za-z]:", normalised):
        return None
    parts = PurePosixPath(normalised).parts
    if any(part in ("..", "") for part in parts):
        return None
    return parts


def _find_member(archive: zipfile.ZipFile, path: str | Path, member_name: str) -> zipfile.ZipInfo:
    """The member called ``member_name`` at the root, or else in exactly one top-level folder."""
    at_root: list[zipfile.ZipInfo] = []
    in_folder: list[zipfile.ZipInfo] = []
    for info in archive.infolist():
        if info.is_dir():
            continue
        parts = _safe_parts(info.filename)
        if parts is None or parts[-1] != member_name:
            continue
        if len(parts) == 1:
            at_root.append(info)
        elif len(parts) == 2:
            in_folder.append(info)
    if at_root:
        return at_root[0]
    if len(in_folder) == 1:
        return in_folder[0]
    if in_folder:
        names = ", ".join(sorted(info.filename for info in in_folder))
        raise SourceError(
            path,
            f"the archive holds several {member_name} files ({names}); "
            "extract the one you want and ingest it directly",
        )
    raise SourceError(
        path,
        f"no {member_name} at the root of the archive or in a top-level folder; "
        "is this the export archive the service sent you?",
    )


def _human_size(size: int) -> str:
    for unit, factor in (("GB", 1024**3), ("MB", 1024**2), ("kB", 1024)):
        if size >= factor:
            return f"{size / factor:.1f} {unit}"
    return f"{size} bytes"


def _check_size(path: str | Path, size: int, max_bytes: int, what: str) -> None:
    # For zip members this is the size the archive declares; zipfile never
    # decompresses past it, so a lying header cannot get more bytes through.
    if size > max_bytes:
        raise SourceError(
            path,
            f"{what} is {_human_size(size)} uncompressed, over the {_human_size(max_bytes)} "
            "limit; split the export or ingest a smaller one",
        )


def _open_zip(path: str | Path) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(path)
    except zipfile.BadZipFile as exc:
        raise SourceError(path, f"not a readable zip archive ({exc}); download it again") from exc
    except FileNotFoundError as exc:
        raise SourceError(path, "file not found") from exc
    except OSError as exc:
        raise SourceError(path, f"cannot read the file ({exc.strerror or exc})") from exc


def _read_member(
    path: str | Path, member_name: str, limit: int | None, max_bytes: int
) -> tuple[bytes, str]:
    """Bytes of the member (all, or the first ``limit``) and the member's name in the archive."""
    with _open_zip(path) as archive:
        info = _find_member(archive, path, member_name)
        _check_size(path, info.file_size, max_bytes, info.filename)
        try:
            with archive.open(info) as handle:
                return (handle.read() if limit is None else handle.read(limit)), info.filename
        except RuntimeError as exc:  # zipfile raises RuntimeError for encrypted members
            reason = f"cannot read {info.filename} ({exc}); extract the archive first"
            raise SourceError(path, reason, info.filename) from exc
        except (zipfile.BadZipFile, EOFError, OSError) as exc:
            reason = f"{info.filename} is corrupt ({exc}); download the export again"
            raise SourceError(path, reason, info.filename) from exc


def open_export_member(
    path: str | Path, member_name: str = DEFAULT_MEMBER, *, max_bytes: int = MAX_MEMBER_BYTES
) -> bytes:
    """The bytes of ``member_name`` in a zip export, or of ``path`` itself if it is a plain file.

    In a zip the member is looked for at the root first, then in one top-level
    folder. Names that could escape the archive (``../x``, ``/x``) are ignored,
    and members (or files) over ``max_bytes`` are refused with a :class:`SourceError`.
    """
    if is_zip_path(path):
        return _read_member(path, member_name, None, max_bytes)[0]
    try:
        _check_size(path, Path(path).stat().st_size, max_bytes, "the file")
        return Path(path).read_bytes()
    except FileNotFoundError as exc:
        raise SourceError(path, "file not found") from exc
    except OSError as exc:
        raise SourceError(path, f"cannot read the file ({exc.strerror or exc})") from exc


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8-sig", errors="ignore")


def peek_json_prefix(path: str | Path, n: int = 4096, member_name: str = DEFAULT_MEMBER) -> str:
    """The first ``n`` bytes of a JSON file (or of ``member_name`` in a zip), decoded leniently.

    Meant for ``can_handle``: it never reads more than ``n`` bytes of content,
    drops a UTF-8 byte-order mark and any character cut in half at the end.
    Raises :class:`SourceError` when the file or archive cannot be read.
    """
    if is_zip_path(path):
        raw, _ = _read_member(path, member_name, n, MAX_MEMBER_BYTES)
        return _decode(raw)
    try:
        with open(path, "rb") as handle:
            return _decode(handle.read(n))
    except OSError as exc:
        raise SourceError(path, f"cannot read the file ({exc.strerror or exc})") from exc


def json_export_opens_with(
    path: str | Path, opening: re.Pattern[str], peek_bytes: int = 64 * 1024
) -> bool:
    """Cheap format check for ``can_handle``: is ``path`` a ``.json`` file (or a ``.zip``
    holding ``conversations.json``) whose first ``peek_bytes`` hold a JSON list or
    object matching ``opening``? Never raises; unreadable input is simply not ours."""
    if Path(path).suffix.lower() not in (".json", ".zip") or not Path(path).is_file():
        return False
    try:
        prefix = peek_json_prefix(path, peek_bytes)
    except (SourceError, OSError):
        return False
    return prefix.lstrip()[:1] in ("[", "{") and opening.search(prefix) is not None


def find_json_key(text: str, key: str) -> int:
    """Offset of ``"key":`` used as an object key in (possibly truncated) JSON text, or -1.

    Occurrences inside string values do not count: there the quotes would be escaped.
    """
    match = re.search(r'(?<!\\)"' + re.escape(key) + r'"\s*:', text)
    return match.start() if match else -1


def load_json(path: str | Path, member: str = DEFAULT_MEMBER) -> Any:
    """Parse a JSON file, or ``member`` inside a zip export.

    Invalid JSON raises :class:`SourceError` whose location gives the line and
    column, so the user can look at the broken spot.
    """
    raw = open_export_member(path, member)
    inside = f"{member}, " if is_zip_path(path) else ""
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SourceError(
            path,
            f"not UTF-8 text (bad byte at offset {exc.start}); exports are UTF-8, "
            "so the file is probably damaged or not an export",
            f"{inside}byte {exc.start}",
        ) from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise SourceError(
            path,
            f"invalid JSON ({exc.msg}); the file may be truncated or edited by hand: "
            "download or extract the export again",
            f"{inside}line {exc.lineno}, column {exc.colno}",
        ) from exc
    except RecursionError as exc:
        raise SourceError(path, "JSON nested too deeply to be an export", inside or None) from exc


def parse_timestamp(value: object) -> float | None:
    """Seconds since the epoch (UTC) from an export's timestamp, or ``None`` if there is none.

    Accepts epoch numbers (seconds; values too big for seconds are read as
    milliseconds), numeric strings, and ISO 8601 strings with ``Z`` or an offset
    and optional fractions (a string without offset is taken as UTC).
    Anything unreadable gives ``None`` rather than an error: a missing date
    should not stop a conversation from being indexed.
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        try:
            number = float(text)
        except ValueError:
            return _parse_iso(text)
    else:
        return None
    if not math.isfinite(number):
        return None
    return number / 1000.0 if abs(number) >= _MILLISECONDS_THRESHOLD else number


def _parse_iso(text: str) -> float | None:
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def fragments_per_conversation(
    path: str | Path,
    marker_key: str,
    marker_type: type,
    conversation_id: Callable[[dict[str, Any], str | None], str],
    build: Callable[[dict[str, Any], str], Iterable[Fragment]],
) -> Iterator[Fragment]:
    """Load an export and yield each conversation's fragments, one conversation at a time.

    ``marker_key`` (e.g. ``"mapping"``) must hold a ``marker_type`` value for a record to
    count as a conversation. Each conversation is built completely before any of it is
    yielded, so a conversation that fails half-way is skipped whole, with a
    :class:`SkippedItemWarning` naming it, and the rest of the file is still read.
    """
    data = load_json(path)
    where = f"{DEFAULT_MEMBER} in {path}" if is_zip_path(path) else str(path)
    expected = "an object" if marker_type is dict else f"a {marker_type.__name__}"
    for location, key, record in iter_records(data, marker_key, path):
        cid = conversation_id(record, key)
        label = f"{location} (id {cid})"
        if not isinstance(record.get(marker_key), marker_type):
            warn_skipped(where, label, f"its {marker_key!r} is not {expected}")
            continue
        try:
            fragments = list(build(record, cid))
        except (AttributeError, TypeError, ValueError, KeyError) as exc:
            warn_skipped(where, label, f"unreadable ({type(exc).__name__}: {exc})")
            continue
        yield from fragments


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
        # Nothing here is a conversation: a wrong file (users.json...), not a few odd entries.
        raise SourceError(
            path,
            f"no conversations found: expected a list of objects with {marker_key!r}; "
            "is this the right export file?",
            "top level",
        )
    for location, key, item in entries:
        if is_record(item):
            yield location, key, item
        else:
            warn_skipped(path, location, f"not a conversation (no {marker_key!r})")
