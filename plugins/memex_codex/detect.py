"""Decide cheaply whether a file is a Codex rollout, by peeking at its first lines.

``memex ingest`` offers every file of a folder to every source, so this must be
quick and must say no to look-alikes: Claude Code transcripts are JSONL too
(lines with ``sessionId`` and ``type`` user/assistant/progress/...), and so are
many logs. Only the first :data:`PEEK_BYTES` are read. A rollout's first line
(``session_meta``) can be longer than that when it carries the full base
instructions; its opening is then recognised by a pattern, as Codex always
writes ``timestamp``, ``type`` and ``payload`` in that order.
"""

from __future__ import annotations

import json
import re
from enum import Enum
from pathlib import Path

from memex_codex.records import ROLLOUT_TYPES, is_bare_item, is_envelope, is_legacy_header

PEEK_BYTES = 64 * 1024
PEEK_LINES = 3

_TYPES = "|".join(sorted(ROLLOUT_TYPES))
# The opening of an envelope line cut short by the peek.
_ENVELOPE_OPENING = re.compile(
    r'^\s*\{\s*(?:"timestamp"\s*:\s*"[^"\\]*"\s*,\s*)?"type"\s*:\s*"(?:' + _TYPES + r')"\s*,'
    r'\s*"payload"\s*:\s*\{'
)


class _Verdict(Enum):
    YES = "yes"
    NO = "no"
    LEGACY_HEADER = "legacy header"  # an old rollout's line 1: the next line decides


def looks_like_rollout(path: Path) -> bool:
    """True for a ``.jsonl`` file whose first records are Codex rollout records. Never raises."""
    if path.suffix.lower() != ".jsonl" or not path.is_file():
        return False
    try:
        with open(path, "rb") as handle:
            raw = handle.read(PEEK_BYTES)
    except OSError:
        return False
    text = raw.decode("utf-8-sig", errors="ignore")
    whole = len(raw) < PEEK_BYTES or text.endswith("\n")
    lines = [line for line in text.splitlines() if line.strip()][:PEEK_LINES]
    previous: _Verdict | None = None
    for index, line in enumerate(lines):
        cut_short = index == len(lines) - 1 and not whole
        verdict = _classify(line, cut_short, first=index == 0)
        if previous is _Verdict.LEGACY_HEADER:
            # After an old header, only a state marker or a bare item confirms it.
            return verdict is _Verdict.YES or _is_state_marker(line)
        if verdict is not _Verdict.LEGACY_HEADER:
            return verdict is _Verdict.YES
        previous = verdict
    return False


def _classify(line: str, cut_short: bool, first: bool) -> _Verdict:
    if cut_short:
        return _Verdict.YES if _ENVELOPE_OPENING.match(line) else _Verdict.NO
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        return _Verdict.NO
    if not isinstance(record, dict):
        return _Verdict.NO
    if is_envelope(record) or (not first and is_bare_item(record)):
        return _Verdict.YES
    if first and is_legacy_header(record):
        return _Verdict.LEGACY_HEADER
    return _Verdict.NO


def _is_state_marker(line: str) -> bool:
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        return False
    return isinstance(record, dict) and record.get("record_type") == "state"
