"""Read a Claude Code transcript as JSON Lines, and recognise one cheaply.

A transcript is written while the session runs, one JSON object per line, so a
file read mid-write can end in half a line, and a crash can leave a damaged
line in the middle. Such lines are skipped with a warning naming the line; only
a file whose first line is not a JSON object at all is refused, because then it
is not a transcript.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memex_core.domain import SourceError
from memex_core.source_kit import (
    SURROGATE_ESCAPE,
    describe_json_error,
    find_json_key,
    replace_lone_surrogates,
    warn_skipped,
)

#: Record types only Claude Code writes: a conversation line carries ``sessionId``
#: and ``uuid``; the bookkeeping kinds carry the field named here.
_CONVERSATION_TYPES = frozenset({"user", "assistant", "system", "progress"})
_BOOKKEEPING_MARKERS = {
    "summary": "leafUuid",
    "file-history-snapshot": "snapshot",
    "queue-operation": "operation",
}
#: Codex CLI rollouts are JSONL too: every line is ``{timestamp, type, payload}``.
_CODEX_TYPES = frozenset(
    {"session_meta", "response_item", "event_msg", "turn_context", "compacted"}
)

PEEK_BYTES = 256 * 1024
PEEK_LINES = 25


def is_claude_code_record(record: object) -> bool:
    """Whether one parsed line has a shape only Claude Code transcripts use."""
    if not isinstance(record, dict):
        return False
    kind = record.get("type")
    if not isinstance(kind, str):  # a list or object here would not even hash
        return False
    if kind in _CONVERSATION_TYPES:
        return isinstance(record.get("sessionId"), str) and "uuid" in record
    marker = _BOOKKEEPING_MARKERS.get(kind)
    return marker is not None and marker in record


def _is_codex_record(record: object) -> bool:
    if not isinstance(record, dict) or "payload" not in record:
        return False
    kind = record.get("type")
    return isinstance(kind, str) and kind in _CODEX_TYPES


def looks_like_claude_code(path: Path) -> bool:
    """A ``.jsonl`` file whose first records are Claude Code's.

    Reads line by line, at most ``PEEK_LINES`` lines and ``PEEK_BYTES`` bytes.
    Never raises: an unreadable file, or one whose first lines are not JSON, is not ours.
    """
    if path.suffix.lower() != ".jsonl" or not path.is_file():
        return False
    try:
        lines = _peek_lines(path)
    except OSError:
        return False
    for index, (raw, cut) in enumerate(lines):
        text = raw.decode("utf-8-sig" if index == 0 else "utf-8", errors="ignore")
        if cut:  # longer than the peek: only a first line can still be judged, by its keys
            return index == 0 and _opening_looks_like_claude_code(text)
        try:
            record = json.loads(text)
        except (ValueError, RecursionError):
            return False
        if _is_codex_record(record):
            return False
        if is_claude_code_record(record):
            return True
    return False


def _peek_lines(path: Path) -> list[tuple[bytes, bool]]:
    """The first non-blank lines, each with whether the byte budget cut it short."""
    budget = PEEK_BYTES
    lines: list[tuple[bytes, bool]] = []
    with path.open("rb") as handle:
        while budget > 0 and len(lines) < PEEK_LINES:
            raw = handle.readline(budget)
            if not raw:
                break
            budget -= len(raw)
            if raw.strip():
                lines.append((raw, budget == 0 and not raw.endswith(b"\n")))
    return lines


_BOOKKEEPING_OPENING = re.compile(r'^\s*\{\s*"type"\s*:\s*"(?:file-history-snapshot|summary)"')


def _opening_looks_like_claude_code(opening: str) -> bool:
    """For a first line longer than the peek (a huge pasted prompt, a big snapshot)."""
    if _BOOKKEEPING_OPENING.match(opening):
        return True
    return (
        opening.lstrip().startswith("{")
        and find_json_key(opening, "sessionId") >= 0
        and find_json_key(opening, "parentUuid") >= 0
        and find_json_key(opening, "payload") < 0
    )


def read_records(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(line number, record)`` for each JSON object line of ``path``, 1-based.

    Blank lines are ignored. A first line that is not a JSON object raises
    :class:`SourceError` naming it; a later bad line is skipped with a
    :class:`memex_core.source_kit.SkippedItemWarning` naming it.
    """
    first = True
    try:
        handle = path.open("rb")
    except FileNotFoundError as exc:
        raise SourceError(path, "file not found") from exc
    except OSError as exc:
        raise SourceError(path, f"cannot read the file ({exc.strerror or exc})") from exc
    with handle:
        for number, raw in enumerate(handle, start=1):
            if not raw.strip():
                continue
            record, problem = _parse_line(raw, strip_bom=first)
            if problem is None and not isinstance(record, dict):
                problem = f"a JSON {type(record).__name__}, not an object"
            if problem is not None and not raw.endswith(b"\n"):
                problem += " (the last line has no line end: was the file still being written?)"
            if problem is not None:
                if first:
                    raise SourceError(
                        path,
                        f"not a Claude Code transcript: the first line is {problem}; "
                        "transcripts are JSON Lines, one object per line "
                        "(~/.claude/projects/<project>/<session>.jsonl)",
                        f"line {number}",
                    )
                warn_skipped(path, f"line {number}", problem)
                continue
            first = False
            assert isinstance(record, dict)
            yield number, record


def _parse_line(raw: bytes, *, strip_bom: bool) -> tuple[Any, str | None]:
    try:
        text = raw.decode("utf-8-sig" if strip_bom else "utf-8")
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 text (bad byte at column {exc.start + 1})"
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        return None, f"not valid JSON ({describe_json_error(exc.msg)} at column {exc.colno})"
    except RecursionError:
        return None, "JSON nested too deeply"
    except ValueError as exc:  # an integer of more than 4300 digits, say
        return None, f"not valid JSON ({exc})"
    if SURROGATE_ESCAPE.search(text):
        value = replace_lone_surrogates(value)  # half a surrogate pair: no text can store it
    return value, None
