"""Build small synthetic Claude Code transcripts, line by line, shaped like the real ones.

The shapes follow the real transcripts in ../shared/data/exports/claude_code
(CLI 2.1.x): every conversation line repeats ``sessionId``, ``cwd``, ``gitBranch``;
an assistant response is written one content block per line, all lines sharing
``message.id``; tool results are ``user`` lines. Ids and times are deterministic.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

SESSION = "5e55a000-0000-4000-8000-000000000001"
CWD = "/home/dev/projects/shop"
BRANCH = "feature/csv-import"
T0 = datetime(2026, 2, 10, 21, 0, 0, tzinfo=UTC)


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def thinking(value: str) -> dict[str, Any]:
    return {"type": "thinking", "thinking": value, "signature": "c2lnbmF0dXJl"}


def tool_use(use_id: str, name: str, **inputs: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": use_id, "name": name, "input": inputs}


class Transcript:
    """Records of one transcript file, appended in the order Claude Code writes them."""

    def __init__(
        self,
        session: str = SESSION,
        *,
        cwd: str = CWD,
        branch: str = BRANCH,
        agent_id: str | None = None,
    ) -> None:
        self.session = session
        self.cwd = cwd
        self.branch = branch
        self.agent_id = agent_id
        self.records: list[dict[str, Any]] = []
        self._count = 0
        self._last_uuid: str | None = None

    # --- helpers -------------------------------------------------------------------------

    def _next(self) -> tuple[str, str]:
        self._count += 1
        prefix = "a" if self.agent_id else "0"
        uuid = f"{prefix}0000000-0000-4000-8000-{self._count:012d}"
        moment = T0 + timedelta(seconds=self._count)
        return uuid, moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")

    def _line(self, kind: str, **fields: Any) -> dict[str, Any]:
        uuid, stamp = self._next()
        record: dict[str, Any] = {
            "parentUuid": self._last_uuid,
            "isSidechain": self.agent_id is not None,
            "userType": "external",
            "cwd": self.cwd,
            "sessionId": self.session,
            "version": "2.1.39",
            "gitBranch": self.branch,
        }
        if self.agent_id is not None:
            record["agentId"] = self.agent_id
        record.update(type=kind, uuid=uuid, timestamp=stamp)
        record.update(fields)
        self._last_uuid = uuid
        self.records.append(record)
        return record

    # --- conversation lines --------------------------------------------------------------

    def user(self, content: str | list[Any], **extra: Any) -> dict[str, Any]:
        return self._line("user", message={"role": "user", "content": content}, **extra)

    def assistant(
        self, message_id: str, *blocks: dict[str, Any], model: str = "claude-opus-4-6"
    ) -> list[dict[str, Any]]:
        """One line per block, as Claude Code streams a response."""
        return [
            self._line(
                "assistant",
                message={
                    "model": model,
                    "id": message_id,
                    "type": "message",
                    "role": "assistant",
                    "content": [block],
                    "stop_reason": None,
                },
                requestId=f"req_{message_id}",
            )
            for block in blocks
        ]

    def tool_result(
        self,
        use_id: str,
        content: str | list[dict[str, Any]],
        *,
        is_error: bool = False,
        result: Any = None,
    ) -> dict[str, Any]:
        block: dict[str, Any] = {"tool_use_id": use_id, "type": "tool_result", "content": content}
        if is_error:
            block["is_error"] = True
        return self.user([block], toolUseResult=result if result is not None else {"stdout": ""})

    # --- bookkeeping lines ---------------------------------------------------------------

    def progress(self, command: str = "bd prime") -> dict[str, Any]:
        data = {"type": "hook_progress", "hookEvent": "PreToolUse", "command": command}
        return self._line("progress", data=data, toolUseID="toolu_x", parentToolUseID="toolu_x")

    def snapshot(self) -> dict[str, Any]:
        record = {
            "type": "file-history-snapshot",
            "messageId": "m",
            "snapshot": {"messageId": "m", "trackedFileBackups": {}, "timestamp": "x"},
            "isSnapshotUpdate": False,
        }
        self.records.append(record)
        return record

    def queue(self, content: str = "/mcp") -> dict[str, Any]:
        record = {
            "type": "queue-operation",
            "operation": "enqueue",
            "timestamp": "2026-02-10T21:00:00.000Z",
            "sessionId": self.session,
            "content": content,
        }
        self.records.append(record)
        return record

    def system(self, subtype: str, **fields: Any) -> dict[str, Any]:
        return self._line("system", subtype=subtype, level="info", isMeta=False, **fields)

    def compaction(self, summary: str, trigger: str = "auto", pre_tokens: int = 150_000) -> None:
        """A compact boundary (a second root) and the summary user line after it."""
        previous = self._last_uuid
        self._last_uuid = None
        self.system(
            "compact_boundary",
            content="Conversation compacted",
            logicalParentUuid=previous,
            compactMetadata={"trigger": trigger, "preTokens": pre_tokens},
        )
        self.user(
            "This session is being continued from a previous conversation that ran out "
            f"of context. The summary below covers the earlier portion.\n\n{summary}",
            isCompactSummary=True,
            isVisibleInTranscriptOnly=True,
        )

    def summary(self, value: str, leaf: str | None = None) -> dict[str, Any]:
        record = {"type": "summary", "summary": value, "leafUuid": leaf or "none"}
        self.records.append(record)
        return record

    # --- output --------------------------------------------------------------------------

    def lines(self) -> list[str]:
        return [json.dumps(record) + "\n" for record in self.records]

    def write(self, path: Path) -> Path:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(self.lines()), encoding="utf-8")
        return path


def codex_rollout(path: Path) -> Path:
    """A minimal Codex CLI rollout (``{timestamp, type, payload}`` lines)."""
    stamp = "2026-02-23T10:00:00.000Z"
    records = [
        {
            "timestamp": stamp,
            "type": "session_meta",
            "payload": {"id": "019c-codex", "timestamp": stamp, "cwd": CWD, "cli_version": "0.104"},
        },
        {
            "timestamp": stamp,
            "type": "response_item",
            "payload": {
                "type": "message",
                "role": "user",
                "content": [{"type": "input_text", "text": "fix the csv import"}],
            },
        },
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path
