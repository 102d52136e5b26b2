"""Files a request hands over: an upload received to disk as it streams in, and an archive
written to disk before it is sent, both under ``<home>/uploads/``.

Nothing is held in memory whole: an upload is written chunk by chunk as it arrives (the
body limit of :mod:`memex_server.limits` cuts it off past ``--max-upload``), and an
export is written by the archive writer to a file that the response then streams and
deletes.
"""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path

from fastapi import Request

from memex_server.errors import ApiError

UPLOADS = "uploads"


def uploads_folder(home: str | Path) -> Path:
    folder = Path(home) / UPLOADS
    folder.mkdir(parents=True, exist_ok=True)
    return folder


async def receive_upload(request: Request, folder: Path, name: str, empty: str) -> Path:
    """Write the request's body to ``folder`` as it streams in, then name the file by its
    content: ``<16 hex digits of its SHA-256>-<name>``. An empty body is refused with
    ``empty`` (what to send instead)."""
    digest = hashlib.sha256()
    size = 0
    with tempfile.NamedTemporaryFile(dir=folder, prefix=".part-", delete=False) as part:
        try:
            async for chunk in request.stream():
                digest.update(chunk)
                size += len(chunk)
                part.write(chunk)
        except BaseException:
            Path(part.name).unlink(missing_ok=True)
            raise
    if size == 0:
        Path(part.name).unlink(missing_ok=True)
        raise ApiError("invalid_request", empty)
    target = folder / f"{digest.hexdigest()[:16]}-{name}"
    try:
        Path(part.name).replace(target)
    finally:
        Path(part.name).unlink(missing_ok=True)  # gone already unless the rename failed
    return target


def export_file(folder: Path) -> Path:
    """A new empty file for an export about to be written (deleted once sent)."""
    with tempfile.NamedTemporaryFile(
        dir=folder, prefix=".export-", suffix=".zip", delete=False
    ) as made:
        return Path(made.name)
