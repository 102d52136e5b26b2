"""Archives through ``memex serve``: an export downloaded as it streams, an archive uploaded
for import (docs/archives.md). The operator reaches ``/v1/admin/export`` (the whole memex
or one user's part) and ``/v1/admin/import``; an agent key ``/v1/export``, its own user's
memory only."""

from __future__ import annotations

from contextlib import ExitStack
from pathlib import Path
from typing import IO, Any

from memex_client.transport import Transport


def _seconds(value: Any) -> float | None:
    """A time bound as epoch seconds (a datetime or a number)."""
    if value is None:
        return None
    timestamp = getattr(value, "timestamp", None)
    return float(timestamp() if callable(timestamp) else value)


def download_archive(
    transport: Transport,
    target: str | Path | IO[bytes],
    *,
    operator: bool,
    with_log: bool = True,
    filters: dict[str, Any] | None = None,
) -> int:
    """Write the server's archive to ``target`` (a path or a binary file); returns its size
    in bytes. ``filters`` (the operator's only: user, collection, source, since, until)
    become the query; an agent key's user is the key's."""
    params: dict[str, Any] = {"with_log": "true" if with_log else "false"}
    for name, value in (filters or {}).items():
        if value is not None:
            params[name] = _seconds(value) if name in ("since", "until") else value
    path = "/v1/admin/export" if operator else "/v1/export"
    with ExitStack() as stack:
        if isinstance(target, str | Path):
            out: IO[bytes] = stack.enter_context(Path(target).open("wb"))
        else:
            out = target
        return transport.download(path, out, params)


def upload_archive(
    transport: Transport, source: str | Path | IO[bytes], *, dry_run: bool = False
) -> dict[str, Any]:
    """Send an archive to ``/v1/admin/import``; returns the import's report (as
    ``memex import --format json`` gives it)."""
    params = {"dry_run": "true" if dry_run else "false"}
    with ExitStack() as stack:
        if isinstance(source, str | Path):
            data: IO[bytes] = stack.enter_context(Path(source).open("rb"))
        else:
            data = source
        found = transport.request("POST", "/v1/admin/import", params=params, content=data)
    return dict(found)
