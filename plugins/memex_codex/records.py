"""Read a Codex rollout file into records, one per JSONL line that matters.

Codex appends one JSON object per line while a session runs. Two layouts exist:

* the envelope (Codex CLI since about 0.30): every line is
  ``{"timestamp", "type", "payload"}`` with ``type`` one of :data:`ROLLOUT_TYPES`;
* the older bare layout (mid 2025): line 1 is a header ``{id, timestamp,
  instructions, git...}``, then ``{"record_type": "state"}`` markers and bare
  Responses-API items (``{"type": "message", ...}``) with no envelope and
  usually no timestamp of their own.

Both become :class:`RolloutRecord` objects, so the rest of the reader sees one
shape. Errors, decided once: a first line that is not a JSON object means the
file is not JSONL (or not a rollout) and raises :class:`SourceError` naming the
line; a later line that cannot be parsed (a crash mid-write, a hand edit) is
skipped with a :class:`~memex_core.source_kit.SkippedItemWarning` naming file
and line, and the rest is still read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memex_core.domain import SourceError
from memex_core.source_kit import (
    SURROGATE_ESCAPE,
    parse_timestamp,
    replace_lone_surrogates,
    warn_skipped,
)

#: The ``type`` of an envelope line.
ROLLOUT_TYPES = frozenset(
    {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
)

#: Responses-API item types seen bare in old rollouts (and in envelopes' payloads).
RESPONSE_ITEM_TYPES = frozenset(
    {
        "message",
        "reasoning",
        "function_call",
        "function_call_output",
        "custom_tool_call",
        "custom_tool_call_output",
        "local_shell_call",
        "local_shell_call_output",
        "web_search_call",
        "tool_search_call",
        "tool_search_output",
        "image_generation_call",
        "ghost_snapshot",
        "compaction",
        "compaction_summary",
        "agent_message",
    }
)


@dataclass(frozen=True)
class RolloutRecord:
    """One line of a rollout: its 1-based line number, kind, payload and time (epoch seconds)."""

    line: int
    kind: str
    payload: dict[str, Any]
    timestamp: float | None


def is_envelope(record: dict[str, Any]) -> bool:
    """A current-layout line: ``type`` is a rollout type and ``payload`` an object."""
    kind = record.get("type")
    return (
        isinstance(kind, str) and kind in ROLLOUT_TYPES and isinstance(record.get("payload"), dict)
    )


def is_legacy_header(record: dict[str, Any]) -> bool:
    """Line 1 of an old rollout: a session id and start time, no ``type``."""
    return (
        "type" not in record
        and "sessionId" not in record
        and isinstance(record.get("id"), str)
        and isinstance(record.get("timestamp"), str)
    )


def is_bare_item(record: dict[str, Any]) -> bool:
    """A Responses-API item written without an envelope (old rollouts)."""
    kind = record.get("type")
    return isinstance(kind, str) and kind in RESPONSE_ITEM_TYPES and "payload" not in record


def _to_record(line: int, record: dict[str, Any], first: bool) -> RolloutRecord | None:
    if is_envelope(record):
        return RolloutRecord(
            line, record["type"], record["payload"], parse_timestamp(record.get("timestamp"))
        )
    if first and is_legacy_header(record):
        return RolloutRecord(line, "session_meta", record, parse_timestamp(record["timestamp"]))
    if is_bare_item(record):
        return RolloutRecord(
            line, "response_item", record, parse_timestamp(record.get("timestamp"))
        )
    return None  # state markers, unknown future lines: nothing to index


def _parse_line(raw: bytes) -> Any:
    """The JSON value of one line; raises ValueError (incl. JSON and UTF-8 errors, and
    nesting too deep to parse)."""
    text = raw.decode("utf-8")
    try:
        value = json.loads(text)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    if SURROGATE_ESCAPE.search(text):
        value = replace_lone_surrogates(value)  # half a surrogate pair: no text can store it
    return value


def read_rollout(path: str | Path) -> list[RolloutRecord]:
    """Every Codex record of the file at ``path``, in file order.

    Raises :class:`SourceError` when the file cannot be read, when its first
    non-blank line is not a JSON object (not JSONL), or when no line is a
    Codex record (some other JSONL, e.g. a Claude Code transcript).
    """
    records: list[RolloutRecord] = []
    first = True
    try:
        with open(path, "rb") as handle:
            for number, raw in enumerate(handle, start=1):
                if first:
                    raw = raw.removeprefix(b"\xef\xbb\xbf")
                if not raw.strip():
                    continue
                try:
                    value = _parse_line(raw)
                except ValueError as exc:
                    if first:
                        raise SourceError(
                            path,
                            f"not JSONL: the line is not JSON ({_short(exc)}); a Codex rollout "
                            "has one JSON object per line (~/.codex/sessions/.../rollout-*.jsonl)",
                            f"line {number}",
                        ) from exc
                    warn_skipped(path, f"line {number}", f"not valid JSON ({_short(exc)})")
                    continue
                if not isinstance(value, dict):
                    if first:
                        raise SourceError(
                            path,
                            f"not a Codex rollout: the line holds a JSON {type(value).__name__}, "
                            "not an object",
                            f"line {number}",
                        )
                    warn_skipped(path, f"line {number}", "not a JSON object")
                    continue
                record = _to_record(number, value, first)
                first = False
                if record is not None:
                    records.append(record)
    except FileNotFoundError as exc:
        raise SourceError(path, "file not found") from exc
    except OSError as exc:
        raise SourceError(path, f"cannot read the file ({exc.strerror or exc})") from exc
    if not first and not records:
        raise SourceError(
            path,
            "no Codex rollout records (session_meta, response_item, event_msg...) in this "
            "JSONL file; is it a Codex session from ~/.codex/sessions?",
        )
    return records


def _short(exc: Exception) -> str:
    text = str(exc)
    return text if len(text) <= 120 else text[:117] + "..."
