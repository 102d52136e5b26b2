"""Small helpers for people writing memex sources.

Chat exports arrive either as a bare JSON file or as the ``.zip`` the service
lets you download, with the interesting file (``conversations.json``) at the
root or inside one folder. These helpers hide that difference, read JSON with
errors that say where the file is broken, and turn the timestamp styles seen in
exports into epoch seconds. Everything here is stdlib-only and cheap to import.

Hostile input, decided once:

- Archives are read, never extracted, so no member can write anywhere. Member
  names that could escape (``../x``, ``/x``, ``C:x``) are ignored; a member that
  is a symbolic link, or an archive inside the archive, is refused with a
  :class:`SourceError` saying what to extract.
- Zip bombs: a member larger than ``ExportLimits.max_bytes`` uncompressed, or
  (from 1 MiB up) more than ``ExportLimits.max_ratio`` times its compressed
  size, is refused before a byte is decompressed. Both limits are settings
  (``max_export_bytes``, ``max_compression_ratio`` under ``[source.<name>]``).
- Size: an export's list of conversations is parsed one conversation at a time
  (:func:`iter_export`), so memory follows the largest conversation, not the file.
- Text: exports must be UTF-8. A byte that is not is an error naming its offset
  (the file is damaged, and guessing would index garbage); a JSON escape for
  half a surrogate pair (``"\\ud800"``), which no UTF-8 text can hold, becomes
  U+FFFD so the fragment can be stored.
- Timestamps outside the years 1 to 9999, ``NaN`` and the like read as "no time".
"""

from __future__ import annotations

import codecs
import json
import math
import re
import stat
import warnings
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import IO, Any

from memex_core.domain import Fragment, SkippedItemWarning, SourceError
from memex_core.errors import MemexError

__all__ = [
    "DEFAULT_LIMITS",
    "DEFAULT_MEMBER",
    "MAX_COMPRESSION_RATIO",
    "MAX_MEMBER_BYTES",
    "ExportLimits",
    "ExportSettingError",
    "SURROGATE_ESCAPE",
    "SkippedItemWarning",
    "describe_json_error",
    "explain_unreadable_archive",
    "find_json_key",
    "fragments_per_conversation",
    "is_zip_path",
    "iter_export",
    "iter_records",
    "load_json",
    "open_export_member",
    "parse_timestamp",
    "peek_json_prefix",
    "replace_lone_surrogates",
    "warn_skipped",
]

#: The file chat services put their conversations in.
DEFAULT_MEMBER = "conversations.json"

#: Refuse anything bigger than this (uncompressed), unless the source's settings raise it.
MAX_MEMBER_BYTES = 2 * 1024**3

#: A zip member that decompresses to more than this many times its stored size is refused
#: (exports compress about 3-10:1; a deflate bomb reaches 1000:1).
MAX_COMPRESSION_RATIO = 200.0

#: Below this uncompressed size the ratio is not checked: a small member cannot hurt.
RATIO_CHECK_FROM_BYTES = 1024**2

#: How much of a stream is read at a time while parsing it incrementally.
READ_CHUNK = 1024**2

#: File names inside an archive that are archives themselves (never opened).
_ARCHIVE_SUFFIXES = (".zip", ".tar", ".tgz", ".gz", ".bz2", ".xz", ".7z", ".rar")

# Epoch numbers above this are taken as milliseconds (1e11 seconds is the year 5138).
_MILLISECONDS_THRESHOLD = 1e11

# Seconds since the epoch of 0001-01-01 and 9999-12-31T23:59:59 (UTC): what datetime can show.
_EARLIEST = -62135596800.0
_LATEST = 253402300799.0


class ExportSettingError(MemexError):
    """An export limit in config.toml (``max_export_bytes``, ``max_compression_ratio``) is wrong."""


@dataclass(frozen=True)
class ExportLimits:
    """How much an export may hold before memex refuses it (the zip-bomb guard).

    ``table`` names the config.toml table the limits come from, so a refusal can
    say which setting to raise.
    """

    max_bytes: int = MAX_MEMBER_BYTES
    max_ratio: float = MAX_COMPRESSION_RATIO
    table: str = ""

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any] | None, table: str) -> ExportLimits:
        """Limits from a source's settings (``max_export_bytes``, ``max_compression_ratio``)."""
        settings = settings or {}
        max_bytes = settings.get("max_export_bytes", MAX_MEMBER_BYTES)
        if isinstance(max_bytes, bool) or not isinstance(max_bytes, int) or max_bytes < 1:
            raise ExportSettingError(
                f"config.toml [{table}] max_export_bytes must be a positive whole number of "
                f"bytes (default {MAX_MEMBER_BYTES}), not {max_bytes!r}."
            )
        ratio = settings.get("max_compression_ratio", MAX_COMPRESSION_RATIO)
        if isinstance(ratio, bool) or not isinstance(ratio, int | float) or not ratio >= 1:
            raise ExportSettingError(
                f"config.toml [{table}] max_compression_ratio must be a number of at least 1 "
                f"(default {MAX_COMPRESSION_RATIO:g}), not {ratio!r}."
            )
        return cls(max_bytes=max_bytes, max_ratio=float(ratio), table=table)

    def hint(self, setting: str, value: str) -> str:
        where = f"under [{self.table}] " if self.table else ""
        return f"if you trust this file, set {setting} = {value} {where}in config.toml"


DEFAULT_LIMITS = ExportLimits()


def warn_skipped(path: str | Path, location: str, reason: str) -> None:
    """Report a skipped item as a :class:`SkippedItemWarning` naming the file and the place."""
    warnings.warn(f"{path} ({location}): skipped, {reason}", SkippedItemWarning, stacklevel=3)


#: Skipped items reported one by one per file; past this, one line says how many more.
MAX_SKIP_WARNINGS = 100


class _Skips:
    """Warns about the first :data:`MAX_SKIP_WARNINGS` skipped items of a file, then counts:
    a file of a million odd entries must not print a million lines."""

    def __init__(self, where: str | Path) -> None:
        self.where = where
        self.count = 0

    def skip(self, location: str, reason: str) -> None:
        self.count += 1
        if self.count <= MAX_SKIP_WARNINGS:
            warnings.warn(
                f"{self.where} ({location}): skipped, {reason}", SkippedItemWarning, stacklevel=3
            )

    def finish(self) -> None:
        if self.count > MAX_SKIP_WARNINGS:
            more = self.count - MAX_SKIP_WARNINGS
            warnings.warn(
                f"{self.where}: skipped {more} more item(s) like the ones above",
                SkippedItemWarning,
                stacklevel=3,
            )


def is_zip_path(path: str | Path) -> bool:
    """Whether ``path`` should be read as a zip archive (decided by its suffix)."""
    return Path(path).suffix.lower() == ".zip"


# -- text hygiene ----------------------------------------------------------------------

_SURROGATE = re.compile("[\ud800-\udfff]")
#: A JSON escape that may stand for half a surrogate pair.
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def replace_lone_surrogates(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings (and keys) replaced by U+FFFD.

    JSON can spell half a surrogate pair (``"\\ud800"``); Python keeps it, but no
    UTF-8 text (the catalog, the indexes) can hold it. Containers are rebuilt
    only when something changed.
    """
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value) if _SURROGATE.search(value) else value
    if isinstance(value, list):
        return [replace_lone_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {
            replace_lone_surrogates(key): replace_lone_surrogates(item)
            for key, item in value.items()
        }
    return value


# -- archives ---------------------------------------------------------------------------


def _safe_parts(name: str) -> tuple[str, ...] | None:
    """The folder parts of a member name, or ``None`` if the name could escape the archive."""
    normalised = name.replace("\\", "/")
    if normalised.startswith("/") or re.match(r"^[A-Za-z]:", normalised):
        return None
    parts = PurePosixPath(normalised).parts
    if any(part in ("..", "") for part in parts):
        return None
    return parts


def _is_symlink(info: zipfile.ZipInfo) -> bool:
    """Whether the member was stored as a symbolic link (Unix mode in the high bits)."""
    return stat.S_ISLNK(info.external_attr >> 16)


def _find_member(archive: zipfile.ZipFile, path: str | Path, member_name: str) -> zipfile.ZipInfo:
    """The member called ``member_name`` at the root, or else in exactly one top-level folder."""
    at_root: list[zipfile.ZipInfo] = []
    in_folder: list[zipfile.ZipInfo] = []
    nested: list[str] = []
    unsafe: list[str] = []
    for info in archive.infolist():
        if info.is_dir():
            continue
        parts = _safe_parts(info.filename)
        if parts is None:
            unsafe.append(info.filename)
            continue
        if parts[-1].lower().endswith(_ARCHIVE_SUFFIXES):
            nested.append(info.filename)
        if parts[-1] != member_name:
            continue
        if len(parts) == 1:
            at_root.append(info)
        elif len(parts) == 2:
            in_folder.append(info)
    if at_root:
        found = at_root[0]
    elif len(in_folder) == 1:
        found = in_folder[0]
    elif in_folder:
        names = ", ".join(sorted(info.filename for info in in_folder))
        raise SourceError(
            path,
            f"the archive holds several {member_name} files ({names}); "
            "extract the one you want and ingest it directly",
        )
    elif any(re.split(r"[/\\:]", name)[-1] == member_name for name in unsafe):
        names = ", ".join(sorted(unsafe)[:3]) + (", ..." if len(unsafe) > 3 else "")
        raise SourceError(
            path,
            f"the archive's {member_name} has an unsafe name ({names}) that could write "
            "outside a folder it is extracted to, so memex does not read it; if you trust "
            "the archive, extract the file yourself and ingest it",
        )
    elif nested:
        raise SourceError(
            path,
            f"no {member_name} in the archive, only another archive ({nested[0]}); memex "
            "does not open archives inside archives: extract it and ingest the inner one",
        )
    else:
        raise SourceError(
            path,
            f"no {member_name} at the root of the archive or in a top-level folder; "
            "is this the export archive the service sent you?",
        )
    if _is_symlink(found):
        raise SourceError(
            path,
            f"{found.filename} is a symbolic link inside the archive; memex follows no links "
            "from archives: extract the export and ingest the real file",
            found.filename,
        )
    return found


def _human_size(size: float) -> str:
    for unit, factor in (("GB", 1024**3), ("MB", 1024**2), ("kB", 1024)):
        if size >= factor:
            return f"{size / factor:.1f} {unit}"
    return f"{size:.0f} bytes"


def _check_size(
    path: str | Path, size: int, max_bytes: int, what: str, limits: ExportLimits = DEFAULT_LIMITS
) -> None:
    # For zip members this is the size the archive declares; zipfile never
    # decompresses past it, so a lying header cannot get more bytes through.
    if size > max_bytes:
        raise SourceError(
            path,
            f"{what} is {_human_size(size)} uncompressed, over the {_human_size(max_bytes)} "
            "limit; split the export or ingest a smaller one, or "
            + limits.hint("max_export_bytes", str(size)),
        )


def _check_member(path: str | Path, info: zipfile.ZipInfo, limits: ExportLimits) -> None:
    """Refuse a member too large or too compressed (a zip bomb) before decompressing it."""
    _check_size(path, info.file_size, limits.max_bytes, info.filename, limits)
    if info.file_size < RATIO_CHECK_FROM_BYTES:
        return
    ratio = info.file_size / max(info.compress_size, 1)
    if ratio > limits.max_ratio:
        raise SourceError(
            path,
            # The member is named once, as the error's location.
            f"would expand from {_human_size(info.compress_size)} to "
            f"{_human_size(info.file_size)} ({ratio:.0f}:1, over the {limits.max_ratio:g}:1 "
            "limit); real exports compress far less, so this looks like a zip bomb. "
            "Extract it yourself to check, or "
            + limits.hint("max_compression_ratio", str(math.ceil(ratio))),
            info.filename,
        )


def _open_zip(path: str | Path) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(path)
    except zipfile.BadZipFile as exc:
        raise SourceError(path, f"not a readable zip archive ({exc}); download it again") from exc
    except FileNotFoundError as exc:
        raise SourceError(path, "file not found") from exc
    except (OSError, ValueError, EOFError) as exc:
        raise SourceError(path, f"cannot read the archive ({exc}); download it again") from exc


class _GuardedReader:
    """A binary stream whose read errors become :class:`SourceError` and whose size is capped."""

    def __init__(
        self, handle: IO[bytes], path: str | Path, what: str, limits: ExportLimits
    ) -> None:
        self.handle = handle
        self.path = path
        self.what = what
        self.limits = limits
        self.count = 0

    def read(self, size: int) -> bytes:
        try:
            data = self.handle.read(size)
        except RuntimeError as exc:  # zipfile raises RuntimeError for encrypted members
            reason = f"cannot read {self.what} ({exc}); extract the archive first"
            raise SourceError(self.path, reason, self.what) from exc
        except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as exc:
            reason = f"{self.what} is corrupt ({exc}); download the export again"
            raise SourceError(self.path, reason, self.what) from exc
        self.count += len(data)
        # A file that grows while it is read (or a lying archive) still stops at the limit.
        _check_size(self.path, self.count, self.limits.max_bytes, self.what, self.limits)
        return data


@contextmanager
def _open_stream(
    path: str | Path, member_name: str, limits: ExportLimits
) -> Iterator[tuple[_GuardedReader, str]]:
    """The bytes of the export as a stream, and ``"member, "`` to prefix locations with."""
    if is_zip_path(path):
        with _open_zip(path) as archive:
            info = _find_member(archive, path, member_name)
            _check_member(path, info, limits)
            try:
                handle = archive.open(info)
            except RuntimeError as exc:  # encrypted
                reason = f"cannot read {info.filename} ({exc}); extract the archive first"
                raise SourceError(path, reason, info.filename) from exc
            except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as exc:
                reason = f"{info.filename} is corrupt ({exc}); download the export again"
                raise SourceError(path, reason, info.filename) from exc
            with handle:
                yield _GuardedReader(handle, path, info.filename, limits), f"{member_name}, "
        return
    try:
        _check_size(path, Path(path).stat().st_size, limits.max_bytes, "the file", limits)
        plain = open(path, "rb")  # noqa: SIM115 - closed by the with below
    except FileNotFoundError as exc:
        raise SourceError(path, "file not found") from exc
    except OSError as exc:
        raise SourceError(path, f"cannot read the file ({exc.strerror or exc})") from exc
    with plain:
        yield _GuardedReader(plain, path, "the file", limits), ""


def open_export_member(
    path: str | Path,
    member_name: str = DEFAULT_MEMBER,
    *,
    max_bytes: int = MAX_MEMBER_BYTES,
    limits: ExportLimits | None = None,
) -> bytes:
    """The bytes of ``member_name`` in a zip export, or of ``path`` itself if it is a plain file.

    In a zip the member is looked for at the root first, then in one top-level
    folder. Names that could escape the archive (``../x``, ``/x``) are ignored,
    and members (or files) over ``max_bytes``, or compressed suspiciously well
    (see :class:`ExportLimits`), are refused with a :class:`SourceError`.
    Everything is read into memory: for big exports use :func:`iter_export`.
    """
    limits = limits or ExportLimits(max_bytes=max_bytes)
    with _open_stream(path, member_name, limits) as (reader, _):
        pieces = []
        while piece := reader.read(READ_CHUNK):
            pieces.append(piece)
        return b"".join(pieces)


def _decode(raw: bytes) -> str:
    return raw.decode("utf-8-sig", errors="ignore")


def peek_json_prefix(path: str | Path, n: int = 4096, member_name: str = DEFAULT_MEMBER) -> str:
    """The first ``n`` bytes of a JSON file (or of ``member_name`` in a zip), decoded leniently.

    Meant for ``can_handle``: it never reads more than ``n`` bytes of content,
    drops a UTF-8 byte-order mark and any character cut in half at the end.
    Size limits are not applied here (only ``n`` bytes are read), so an
    oversized export is still recognised and refused at ingest with the reason.
    Raises :class:`SourceError` when the file or archive cannot be read.
    """
    if is_zip_path(path):
        with _open_zip(path) as archive:
            info = _find_member(archive, path, member_name)
            try:
                with archive.open(info) as handle:
                    return _decode(handle.read(n))
            except RuntimeError as exc:
                reason = f"cannot read {info.filename} ({exc}); extract the archive first"
                raise SourceError(path, reason, info.filename) from exc
            except (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError) as exc:
                reason = f"{info.filename} is corrupt ({exc}); download the export again"
                raise SourceError(path, reason, info.filename) from exc
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
    try:
        if Path(path).suffix.lower() not in (".json", ".zip") or not Path(path).is_file():
            return False
        prefix = peek_json_prefix(path, peek_bytes)
    except (SourceError, OSError, ValueError):
        return False
    return prefix.lstrip()[:1] in ("[", "{") and opening.search(prefix) is not None


def explain_unreadable_archive(path: str | Path, member_name: str = DEFAULT_MEMBER) -> str | None:
    """For a source's ``explain_unread``: why a ``.zip`` holds no readable ``member_name``
    (none in it, only at an unsafe name, a corrupt member...), or ``None`` for anything
    else. Cheap like :func:`peek_json_prefix`, and never raises."""
    if not is_zip_path(path):
        return None
    try:
        peek_json_prefix(path, 1, member_name)
    except SourceError as exc:
        return exc.reason
    except (OSError, ValueError):
        return None
    return None


def find_json_key(text: str, key: str) -> int:
    """Offset of ``"key":`` used as an object key in (possibly truncated) JSON text, or -1.

    Occurrences inside string values do not count: there the quotes would be escaped.
    """
    match = re.search(r'(?<!\\)"' + re.escape(key) + r'"\s*:', text)
    return match.start() if match else -1


# -- JSON, whole or one value at a time ------------------------------------------------

_JSON = json.JSONDecoder()
_WHITESPACE = re.compile(r"[ \t\n\r]*")
#: An error this close to the end of what was read may only mean "read more".
_TAIL = 16


def _not_utf8(path: str | Path, inside: str, offset: int) -> SourceError:
    return SourceError(
        path,
        f"not UTF-8 text (bad byte at offset {offset}); exports are UTF-8, "
        "so the file is probably damaged or not an export",
        f"{inside}byte {offset}",
    )


def describe_json_error(message: str) -> str:
    """:class:`json.JSONDecodeError`'s ``msg`` as a phrase that stands alone.

    The decoder's messages expect a position after them ("Unterminated string
    starting at", "Invalid control character at"); memex gives the line and column
    separately, so the dangling words go: "unterminated string".
    """
    phrase = message.removesuffix(" at").removesuffix(" starting").strip()
    return phrase[:1].lower() + phrase[1:]


def _invalid_json(path: str | Path, reason: str, location: str) -> SourceError:
    return SourceError(
        path,
        f"invalid JSON ({reason}); the file may be truncated or edited by hand: "
        "download or extract the export again",
        location,
    )


class _JsonText:
    """The decoded text of a byte stream, read on demand, parsed one JSON value at a time.

    Only the unparsed tail is kept (plus one read), so memory follows the
    largest single value. Line and column are tracked across the dropped text
    so errors point at the file, not the buffer.
    """

    def __init__(self, reader: _GuardedReader, path: str | Path, inside: str) -> None:
        self.reader = reader
        self.path = path
        self.inside = inside
        self.decoder = codecs.getincrementaldecoder("utf-8")("strict")
        self.text = ""
        self.pos = 0
        self.eof = False
        self.bytes_in = 0  # bytes handed to the decoder so far
        self.line = 1  # line of text[0]
        self.column = 0  # characters between the start of that line and text[0]
        self.started = False

    # reading

    def more(self, size: int = READ_CHUNK) -> bool:
        """Read about ``size`` more bytes; False once the stream is exhausted."""
        if self.eof:
            return False
        raw = self.reader.read(size)
        pending = len(self.decoder.getstate()[0])
        try:
            chunk = self.decoder.decode(raw, final=not raw)
        except UnicodeDecodeError as exc:
            raise _not_utf8(self.path, self.inside, self.bytes_in - pending + exc.start) from exc
        self.bytes_in += len(raw)
        if not self.started and (chunk or not raw):
            chunk = chunk.removeprefix("\ufeff")
            self.started = True
        self.text += chunk
        if not raw:
            self.eof = True
        return bool(raw)

    def compact(self) -> None:
        """Drop the parsed text once it is worth the copy."""
        if self.pos < READ_CHUNK:
            return
        newlines = self.text.count("\n", 0, self.pos)
        if newlines:
            self.line += newlines
            self.column = self.pos - (self.text.rfind("\n", 0, self.pos) + 1)
        else:
            self.column += self.pos
        self.text = self.text[self.pos :]
        self.pos = 0

    def location(self, index: int) -> str:
        newlines = self.text.count("\n", 0, index)
        # Columns count from the last line end; on the first line, from the dropped text too.
        line_start = self.text.rfind("\n", 0, index)
        column = index - line_start if newlines else self.column + index + 1
        return f"{self.inside}line {self.line + newlines}, column {column}"

    def error(self, reason: str, index: int, what: str = "") -> SourceError:
        return _invalid_json(
            self.path, reason + (f" in {what}" if what else ""), self.location(index)
        )

    # parsing

    def peek(self) -> str:
        """The next character after whitespace (consumed), or ``""`` at the end."""
        while True:
            self.pos = _WHITESPACE.match(self.text, self.pos).end()  # type: ignore[union-attr]
            if self.pos < len(self.text):
                return self.text[self.pos]
            if not self.more():
                return ""

    def value(self, what: str = "") -> Any:
        """Parse the value at the current position, reading as much as it needs."""
        while True:
            start = self.pos
            try:
                value, end = _JSON.raw_decode(self.text, start)
            except json.JSONDecodeError as exc:
                incomplete = exc.msg.startswith("Unterminated string") or (
                    exc.pos >= len(self.text) - _TAIL
                )
                if incomplete and not self.eof:
                    # Grow geometrically so a huge value is re-parsed O(log n) times.
                    self.more(max(READ_CHUNK, 2 * (len(self.text) - start)))
                    continue
                raise self.error(describe_json_error(exc.msg), exc.pos, what) from exc
            except RecursionError as exc:
                reason = "JSON nested too deeply to be an export" + (f" in {what}" if what else "")
                raise SourceError(self.path, reason, self.location(start)) from exc
            except ValueError as exc:  # e.g. an integer of more than 4300 digits
                raise self.error(str(exc), start, what) from exc
            if isinstance(value, int | float) and end == len(self.text) and not self.eof:
                self.more()  # a number at the end of what was read may go on
                continue
            if SURROGATE_ESCAPE.search(self.text, start, end):
                value = replace_lone_surrogates(value)
            self.pos = end
            return value

    def expect_end(self) -> None:
        """Nothing but whitespace may follow the top-level value."""
        if self.peek():
            raise self.error("extra data after the end of the JSON value", self.pos)


def _iter_top_level(
    path: str | Path, member_name: str, limits: ExportLimits
) -> Iterator[tuple[bool, int, Any]]:
    """``(in_list, index, value)``: each element of a top-level list, read one at a time,
    or the whole top-level value once (``in_list`` False) when it is not a list."""
    with _open_stream(path, member_name, limits) as (reader, inside):
        text = _JsonText(reader, path, inside)
        first = text.peek()
        if first != "[":
            if first == "":
                raise text.error("the file is empty", text.pos)
            yield False, 0, text.value()
            text.expect_end()
            return
        text.pos += 1
        if text.peek() == "]":
            text.pos += 1
            text.expect_end()
            return
        index = 0
        while True:
            what = f"conversation {index + 1}"
            yield True, index, text.value(what)
            index += 1
            following = text.peek()
            if following == ",":
                text.pos += 1
                text.peek()
            elif following == "]":
                text.pos += 1
                break
            elif following == "":
                raise text.error("the file ends inside the list: it was cut short", text.pos)
            else:
                raise text.error("expecting ',' or ']' after a list entry", text.pos, what)
            text.compact()
        text.expect_end()


def load_json(path: str | Path, member: str = DEFAULT_MEMBER) -> Any:
    """Parse a JSON file, or ``member`` inside a zip export, whole.

    Invalid JSON raises :class:`SourceError` whose location gives the line and
    column, so the user can look at the broken spot. For big exports prefer
    :func:`iter_export`, which keeps one conversation in memory at a time.
    """
    entries: list[Any] = []
    for in_list, _, value in _iter_top_level(path, member, DEFAULT_LIMITS):
        if not in_list:
            return value
        entries.append(value)
    return entries


def parse_timestamp(value: object) -> float | None:
    """Seconds since the epoch (UTC) from an export's timestamp, or ``None`` if there is none.

    Accepts epoch numbers (seconds; values too big for seconds are read as
    milliseconds), numeric strings, and ISO 8601 strings with ``Z`` or an offset
    and optional fractions (a string without offset is taken as UTC).
    Anything unreadable, or outside the years 1 to 9999, gives ``None`` rather
    than an error: a missing date should not stop a conversation from being indexed.
    """
    if value is None or isinstance(value, bool):
        return None
    try:
        if isinstance(value, int | float):
            number = float(value)
        elif isinstance(value, str):
            text = value.strip()
            if not text or len(text) > 64:
                return None
            try:
                number = float(text)
            except ValueError:
                return _parse_iso(text)
        else:
            return None
    except OverflowError:  # an integer too large for a float
        return None
    if not math.isfinite(number):
        return None
    seconds = number / 1000.0 if abs(number) >= _MILLISECONDS_THRESHOLD else number
    return seconds if _EARLIEST <= seconds <= _LATEST else None


def _parse_iso(text: str) -> float | None:
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(text)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        seconds = moment.timestamp()
    except (ValueError, OverflowError):
        return None
    return seconds if _EARLIEST <= seconds <= _LATEST else None


# -- conversations ----------------------------------------------------------------------


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
    where = f"{member} in {path}" if is_zip_path(path) else str(path)
    skips = _Skips(where)
    reason = f"not a conversation (no {marker_key!r})"
    for in_list, index, value in _iter_top_level(path, member, limits):
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
        raise SourceError(
            path,
            f"no conversations found: expected a list of objects with {marker_key!r}; "
            "is this the right export file?",
            "top level",
        )


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
    where = f"{DEFAULT_MEMBER} in {path}" if is_zip_path(path) else str(path)
    expected = "an object" if marker_type is dict else f"a {marker_type.__name__}"
    skips = _Skips(where)
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
