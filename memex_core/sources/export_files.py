"""An export (a plain file, or its member inside a zip) as bytes that stop at the limits.

Everything that reads an export's bytes goes through :func:`open_stream`: whole
(:func:`open_export_member`), a peek for ``can_handle`` (:func:`peek_json_prefix`),
or streamed by :mod:`memex_core.sources.json_stream`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from memex_core.domain import SourceError
from memex_core.sources.archives import (
    READ_ERRORS,
    check_member,
    check_size,
    find_member,
    is_zip_path,
    open_zip,
    unreadable,
)
from memex_core.sources.limits import DEFAULT_MEMBER, MAX_MEMBER_BYTES, ExportLimits

#: How much of a stream is read at a time while parsing it incrementally.
READ_CHUNK = 1024**2


@dataclass(eq=False)  # a stream: compared by identity
class GuardedReader:
    """A binary stream whose read errors become :class:`SourceError` and whose size is capped."""

    handle: IO[bytes]
    path: str | Path
    what: str
    limits: ExportLimits
    count: int = field(default=0, init=False)  # bytes read so far

    def read(self, size: int) -> bytes:
        try:
            data = self.handle.read(size)
        except READ_ERRORS as exc:
            raise unreadable(self.path, self.what, exc) from exc
        self.count += len(data)
        # A file that grows while it is read (or a lying archive) still stops at the limit.
        check_size(self.path, self.count, self.limits.max_bytes, self.what, self.limits)
        return data


@contextmanager
def open_stream(
    path: str | Path, member_name: str, limits: ExportLimits
) -> Iterator[tuple[GuardedReader, str]]:
    """The bytes of the export as a stream, and ``"member, "`` to prefix locations with."""
    if is_zip_path(path):
        with open_zip(path) as archive:
            info = find_member(archive, path, member_name)
            check_member(path, info, limits)
            try:
                handle = archive.open(info)
            except READ_ERRORS as exc:
                raise unreadable(path, info.filename, exc) from exc
            with handle:
                yield GuardedReader(handle, path, info.filename, limits), f"{member_name}, "
        return
    try:
        check_size(path, Path(path).stat().st_size, limits.max_bytes, "the file", limits)
        plain = open(path, "rb")  # noqa: SIM115 - closed by the with below
    except FileNotFoundError as exc:
        raise SourceError(path, "file not found") from exc
    except OSError as exc:
        raise SourceError(path, f"cannot read the file ({exc.strerror or exc})") from exc
    with plain:
        yield GuardedReader(plain, path, "the file", limits), ""


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
    with open_stream(path, member_name, limits) as (reader, _):
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
        with open_zip(path) as archive:
            info = find_member(archive, path, member_name)
            try:
                with archive.open(info) as handle:
                    return _decode(handle.read(n))
            except READ_ERRORS as exc:
                raise unreadable(path, info.filename, exc) from exc
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
