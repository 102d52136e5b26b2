"""Zip archives read safely: a member found without trusting its name, bombs refused.

Archives are read, never extracted, so no member can write anywhere. Member
names that could escape (``../x``, ``/x``, ``C:x``) are ignored; a member that
is a symbolic link, or an archive inside the archive, is refused with a
:class:`SourceError` saying what to extract. A member over the size limit, or
compressed suspiciously well, is refused before a byte is decompressed.
"""

from __future__ import annotations

import math
import re
import stat
import zipfile
import zlib
from pathlib import Path, PurePosixPath

from memex_core.domain import SourceError
from memex_core.sources.limits import DEFAULT_LIMITS, RATIO_CHECK_FROM_BYTES, ExportLimits

#: File names inside an archive that are archives themselves (never opened).
_ARCHIVE_SUFFIXES = (".zip", ".tar", ".tgz", ".gz", ".bz2", ".xz", ".7z", ".rar")

#: What reading a damaged member raises (zipfile, zlib and the file underneath).
CORRUPT_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError)

#: What reading a member can raise: zipfile raises RuntimeError for encrypted members.
READ_ERRORS = (RuntimeError, *CORRUPT_ERRORS)


def is_zip_path(path: str | Path) -> bool:
    """Whether ``path`` should be read as a zip archive (decided by its suffix)."""
    return Path(path).suffix.lower() == ".zip"


def unreadable(path: str | Path, what: str, exc: BaseException) -> SourceError:
    """The :class:`SourceError` for one of :data:`READ_ERRORS` raised while reading ``what``."""
    if isinstance(exc, RuntimeError):  # encrypted, or a compression zipfile cannot read
        reason = f"cannot read {what} ({exc}); extract the archive first"
    else:
        reason = f"{what} is corrupt ({exc}); download the export again"
    return SourceError(path, reason, what)


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


def find_member(archive: zipfile.ZipFile, path: str | Path, member_name: str) -> zipfile.ZipInfo:
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


def check_size(
    path: str | Path, size: int, max_bytes: int, what: str, limits: ExportLimits = DEFAULT_LIMITS
) -> None:
    """Refuse ``what`` (a member, or "the file") when ``size`` is over ``max_bytes``."""
    # For zip members this is the size the archive declares; zipfile never
    # decompresses past it, so a lying header cannot get more bytes through.
    if size > max_bytes:
        raise SourceError(
            path,
            f"{what} is {_human_size(size)} uncompressed, over the {_human_size(max_bytes)} "
            "limit; split the export or ingest a smaller one, or "
            + limits.hint("max_export_bytes", str(size)),
        )


def check_member(path: str | Path, info: zipfile.ZipInfo, limits: ExportLimits) -> None:
    """Refuse a member too large or too compressed (a zip bomb) before decompressing it."""
    check_size(path, info.file_size, limits.max_bytes, info.filename, limits)
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


def open_zip(path: str | Path) -> zipfile.ZipFile:
    """The archive at ``path``, or a :class:`SourceError` saying why it cannot be read."""
    try:
        return zipfile.ZipFile(path)
    except zipfile.BadZipFile as exc:
        raise SourceError(path, f"not a readable zip archive ({exc}); download it again") from exc
    except FileNotFoundError as exc:
        raise SourceError(path, "file not found") from exc
    except (OSError, ValueError, EOFError) as exc:
        raise SourceError(path, f"cannot read the archive ({exc}); download it again") from exc
