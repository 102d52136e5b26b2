"""Claude Code transcripts the source tests read: the shared ones, and how to read what a
transcript gives."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from memex_claude_code.source import ClaudeCodeSource
from memex_core.domain import Fragment
from tests.support._data import shared_data_root

FULL = "ae4a77f8-aedd-4bc1-888f-c94edc91af04"
AGENT = "aac57f5"
COMPACT_AGENT = "acompact-946d2b"
FULL_CWD = "/home/USER/projects/spotter-worktrees/spotter-4te"


def claude_code_root() -> Path:
    return shared_data_root() / "exports" / "claude_code" / "marot_spotter"


def transcript_params() -> list[Any]:
    """Every transcript in the shared folder, sub-agents included (skipped when absent)."""
    root = claude_code_root()
    if not root.is_dir():
        reason = f"shared test data not found at {root} (set MEMEX_TEST_DATA)"
        return [pytest.param(None, id="no-shared-data", marks=pytest.mark.skip(reason))]
    return [
        pytest.param(path, id=str(path.relative_to(root))) for path in sorted(root.rglob("*.jsonl"))
    ]


def ingest(path: Path, **options: Any) -> list[Fragment]:
    source = ClaudeCodeSource(**options)
    assert source.can_handle(path), f"can_handle refused {path}"
    return list(source.ingest(path))


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def turn_key(fragment: Fragment) -> str:
    """The turn a fragment came from: message.id for the assistant, the line's uuid else."""
    return str(fragment.metadata["message_id"]).split("/", 1)[0]


# Counted by hand from the files (distinct message.id of assistant lines; tool_use and
# tool_result blocks): (assistant turns, tool calls, tool results).
MANUAL_COUNTS = {
    f"{FULL}.jsonl": (217, 242, 242),
    f"{FULL}/subagents/agent-{AGENT}.jsonl": (3, 12, 12),
    f"{FULL}/subagents/agent-{COMPACT_AGENT}.jsonl": (1, 0, 0),
    "short.jsonl": (1, 2, 2),
    "subagent.jsonl": (12, 16, 16),
    "tool_heavy.jsonl": (4, 6, 6),
}
SKIPPED_TYPES = {"progress", "file-history-snapshot", "queue-operation", "system", "summary"}
