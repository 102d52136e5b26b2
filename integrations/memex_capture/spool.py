"""The spool: pointer records that hooks append and the worker drains (standard library only).

A record says *that* something happened in a session and *where* its content
is (the agent's own transcript file); it never holds what was said or what a
tool printed. The content reaches memex only through the worker's ingest of
the transcript, which drops ``<private>`` spans and redacts secrets, so nothing
secret touches memex's disk unredacted, and the captured fragments are, by
construction, those a later ``memex ingest`` of the same file gives.

One record is one JSON object on one line (version 1)::

    {"v": 1,
     "agent": "claude-code" | "codex",
     "event": "SessionStart" | "UserPromptSubmit" | "PostToolUse" | "Stop"
              | "SessionEnd" | "agent-turn-complete" | ...,   # as the agent names it
     "session_id": "...", "transcript_path": "/abs/...jsonl" | null,
     "cwd": "/abs/..." | null,
     "at": 1764120000.123,          # when the hook received it (unix seconds)
     "detail": {...}}               # small non-content fields: source, reason,
                                    # tool_name, tool_use_id, turn_id, ...

Writers append a whole line with one ``os.write`` on an ``O_APPEND`` descriptor,
so concurrent hooks never interleave inside a line. A line that does not parse
(a hook killed mid-write, a disk that filled) is reported by :func:`read_batch`
and skipped; it never stops the lines after it.
"""

from __future__ import annotations

import os
import time

# The hook process imports this module: json's own package costs it a large share of its
# start-up (``re``, ``enum``), jsonlite gives the same values and text without that.
from memex_capture import jsonlite as json

TYPE_CHECKING = False
if TYPE_CHECKING:  # the hook imports this module; keep typing and pathlib out of its path
    from collections.abc import Iterator, Mapping
    from typing import Any

VERSION = 1
#: The fields every record has. ``detail`` holds the rest.
FIELDS = ("v", "agent", "event", "session_id", "transcript_path", "cwd", "at", "detail")
#: Longest line a hook writes; longer details are dropped (a pointer needs little).
MAX_LINE_BYTES = 4000


def make_record(
    agent: str,
    event: str,
    *,
    session_id: str | None,
    transcript_path: str | None,
    cwd: str | None,
    detail: Mapping[str, Any] | None = None,
    at: float | None = None,
) -> dict[str, Any]:
    """A spool record; ``detail`` must hold only small, non-content values."""
    return {
        "v": VERSION,
        "agent": agent,
        "event": event,
        "session_id": session_id,
        "transcript_path": transcript_path,
        "cwd": cwd,
        "at": time.time() if at is None else at,
        "detail": dict(detail or {}),
    }


def encode(record: Mapping[str, Any]) -> bytes:
    """One line of the spool; a detail too big for :data:`MAX_LINE_BYTES` is dropped."""
    line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
    data = line.encode("utf-8", "replace")
    if len(data) > MAX_LINE_BYTES:
        slim = {**record, "detail": {"dropped": "detail too large"}}
        data = (json.dumps(slim, ensure_ascii=False, separators=(",", ":")) + "\n").encode(
            "utf-8", "replace"
        )
    return data


def append(path: str, record: Mapping[str, Any]) -> None:
    """Append ``record`` to the spool file at ``path`` (created 0600 with its folder)."""
    data = encode(record)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    except FileNotFoundError:
        os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


class Batch:
    """What :func:`read_batch` found: the records that parsed and the lines that did not."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []
        #: ``(line number, reason)`` of each line skipped.
        self.bad_lines: list[tuple[int, str]] = []

    def __repr__(self) -> str:
        return f"Batch(records={len(self.records)}, bad_lines={self.bad_lines!r})"


def parse_line(line: bytes) -> dict[str, Any]:
    """One record from one spool line; raises ``ValueError`` saying what is wrong."""
    try:
        record = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"not JSON ({error})") from None
    if not isinstance(record, dict):
        raise ValueError("not a JSON object")
    if record.get("v") != VERSION:
        raise ValueError(f"unknown spool version {record.get('v')!r}")
    for name in ("agent", "event"):
        if not isinstance(record.get(name), str) or not record[name]:
            raise ValueError(f"field {name!r} missing")
    if not isinstance(record.get("detail", {}), dict):
        raise ValueError("field 'detail' is not an object")
    return record


def numbered_lines(path: str | os.PathLike[str]) -> Iterator[tuple[int, bytes]]:
    """The spool file's lines that are not blank, each with its number (from 1)."""
    with open(path, "rb") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                yield number, line


def read_batch(path: str | os.PathLike[str]) -> Batch:
    """Every record in the spool file at ``path``, with the lines that did not parse."""
    batch = Batch()
    for number, line in numbered_lines(path):
        try:
            batch.records.append(parse_line(line))
        except ValueError as error:
            batch.bad_lines.append((number, str(error)))
    return batch
