"""Codex rollouts the source tests read: the shared ones, and how to count what a rollout gives."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memex_codex.source import CodexSource
from memex_core.domain import Fragment
from tests.support._data import shared_data_root

CODEX = ("exports", "codex")
MADSHN = "madshn_localpush/raw/sessions"
LIFECYCLE = "12ziyad_universal-memory-engine/0.146.0-alpha.9.2-lifecycle.jsonl"


def shared_rollouts() -> list[Any]:
    """One parameter per ``*.jsonl`` under exports/codex (or one skipped parameter)."""
    folder = shared_data_root().joinpath(*CODEX)
    if not folder.is_dir():
        reason = f"shared test data not found at {folder} (set MEMEX_TEST_DATA)"
        return [pytest.param(None, id="no-shared-data", marks=pytest.mark.skip(reason))]
    return [pytest.param(p, id=p.name) for p in sorted(folder.rglob("*.jsonl"))]


def ingest(path: Path, **options: Any) -> list[Fragment]:
    source = CodexSource(**options)
    assert source.can_handle(path), f"can_handle refused {path}"
    return list(source.ingest(path))


def kinds(fragments: list[Fragment]) -> Counter[str]:
    """How many fragments of each kind: user, assistant, reasoning, call, output."""

    def kind(f: Fragment) -> str:
        if f.role == "tool":
            return "output"
        if f.metadata.get("tool_call"):
            return "call"
        if f.metadata.get("reasoning"):
            return "reasoning"
        return f.role

    return Counter(kind(f) for f in fragments)


def iso(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC).timestamp()


# Counted from the files (response_item messages by role, reasoning items with a
# summary, calls, outputs); user = prompts only, not the injected context.
EXPECTED = {
    "rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl": {
        "user": 1, "assistant": 17, "reasoning": 26, "call": 118, "output": 118,
    },
    "rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl": {
        "user": 1, "assistant": 1, "reasoning": 1, "call": 1,
    },
    "rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl": {
        "user": 1, "assistant": 6, "reasoning": 6, "call": 5, "output": 5,
    },
    "0.146.0-alpha.9.2-lifecycle.jsonl": {
        "user": 1, "assistant": 2, "reasoning": 1, "call": 2, "output": 3,
    },
}  # fmt: skip
