"""Group a transcript's lines into turns: what one speaker said in one go.

Claude Code streams an API response to the transcript one content block per
line, every line repeating the response's ``message.id``; tool results can
even land between two of those lines. A turn is therefore keyed by
``message.id`` for the assistant, and is one line for anything else. Each turn
remembers its first line (cwd, branch, time) and its blocks in file order.

Kept: ``user`` and ``assistant`` lines, ``summary`` lines (titles) and the
``system``/``compact_boundary`` facts (attached to the summary that follows).
Skipped as bookkeeping: ``progress`` (hook, bash and sub-agent progress echoes),
``file-history-snapshot``, ``queue-operation``, every other ``system`` line
(``local_command`` echoes, ``stop_hook_summary``, ``turn_duration``), user lines
marked ``isMeta`` (injected caveats and skill bodies, never typed by anyone),
"[Request interrupted by user]" markers, a repeated ``uuid``, and any record
type this module does not know (newer Claude Code versions add some).

A turn depends only on its own lines and earlier ones, so a transcript that
grows leaves every completed turn exactly as it was.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memex_claude_code.content import INTERRUPTED, as_blocks
from memex_claude_code.lines import is_claude_code_record
from memex_core.source_kit import warn_skipped

USER = "user"
ASSISTANT = "assistant"
COMPACTION_SUMMARY = "compaction_summary"


@dataclass
class Turn:
    """One user line, one whole assistant response, or one compaction summary."""

    key: str  # message.id for the assistant, the line's uuid otherwise
    kind: str  # USER | ASSISTANT | COMPACTION_SUMMARY
    agent_id: str | None  # set on a sub-agent's (sidechain) lines
    line: int  # where the turn starts, 1-based
    first: dict[str, Any]  # its first record: cwd, gitBranch, timestamp, uuid
    blocks: list[dict[str, Any]] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)  # extra metadata from its lines


@dataclass
class Transcript:
    """Everything the fragments are built from."""

    session_id: str | None = None
    turns: list[Turn] = field(default_factory=list)
    summaries: list[tuple[str, str | None]] = field(default_factory=list)  # (text, leafUuid)
    tool_names: dict[str, str] = field(default_factory=dict)  # tool_use id -> tool name
    uuids: set[str] = field(default_factory=set)
    records: int = 0  # JSON object lines read
    claude_code_records: int = 0  # of those, records shaped like Claude Code's


def _is_ours(record: dict[str, Any]) -> bool:
    """Claude Code's shape; a sub-agent line that lost its ``sessionId`` still counts."""
    if is_claude_code_record(record):
        return True
    return record.get("type") in ("user", "assistant") and isinstance(record.get("uuid"), str)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


class _Grouper:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.transcript = Transcript()
        self.open_responses: dict[tuple[str | None, str], Turn] = {}
        self.pending_boundary: dict[str | None, dict[str, Any]] = {}

    def add(self, number: int, record: dict[str, Any]) -> None:
        kind = record.get("type")
        self.transcript.records += 1
        if not _is_ours(record):
            return  # not a line Claude Code writes (or a kind this module does not know)
        self.transcript.claude_code_records += 1
        if kind == "summary":
            text = _text(record.get("summary"))
            if text:
                self.transcript.summaries.append((text.strip(), _text(record.get("leafUuid"))))
            return
        if kind not in ("user", "assistant", "system"):
            return  # progress, snapshots, queue operations, unknown bookkeeping
        uuid = _text(record.get("uuid"))
        if uuid is not None:
            if uuid in self.transcript.uuids:
                return  # the same line written twice
            self.transcript.uuids.add(uuid)
        if self.transcript.session_id is None:
            self.transcript.session_id = _text(record.get("sessionId"))
        agent = _text(record.get("agentId")) if record.get("isSidechain") else None
        if kind == "system":
            if record.get("subtype") == "compact_boundary":
                self._boundary(agent, record)
            return
        message = record.get("message")
        if not isinstance(message, dict):
            warn_skipped(self.path, f"line {number}", f"a {kind} line without a message object")
            return
        blocks = as_blocks(message.get("content"))
        if kind == "assistant":
            self._assistant(number, record, message, agent, blocks)
        else:
            self._user(number, record, agent, blocks)

    def _boundary(self, agent: str | None, record: dict[str, Any]) -> None:
        meta = record.get("compactMetadata")
        meta = meta if isinstance(meta, dict) else {}
        facts: dict[str, Any] = {}
        if _text(record.get("uuid")):
            facts["compact_boundary_uuid"] = record["uuid"]
        if isinstance(meta.get("trigger"), str):
            facts["compact_trigger"] = meta["trigger"]
        if isinstance(meta.get("preTokens"), int):
            facts["compact_pre_tokens"] = meta["preTokens"]
        self.pending_boundary[agent] = facts

    def _assistant(
        self,
        number: int,
        record: dict[str, Any],
        message: dict[str, Any],
        agent: str | None,
        blocks: list[dict[str, Any]],
    ) -> None:
        for block in blocks:
            if block.get("type") == "tool_use" and _text(block.get("id")):
                self.transcript.tool_names[block["id"]] = _text(block.get("name")) or "tool"
        message_id = _text(message.get("id")) or _text(record.get("uuid")) or f"line-{number}"
        turn = self.open_responses.get((agent, message_id))
        if turn is not None:
            turn.blocks.extend(blocks)
            return
        facts = {"model": message["model"]} if _text(message.get("model")) else {}
        turn = Turn(message_id, ASSISTANT, agent, number, record, list(blocks), facts)
        self.open_responses[(agent, message_id)] = turn
        self.transcript.turns.append(turn)

    def _user(
        self, number: int, record: dict[str, Any], agent: str | None, blocks: list[dict[str, Any]]
    ) -> None:
        if record.get("isMeta"):
            return
        key = _text(record.get("uuid")) or f"line-{number}"
        if record.get("isCompactSummary"):
            boundary = self.pending_boundary.pop(agent, {})
            self.transcript.turns.append(
                Turn(key, COMPACTION_SUMMARY, agent, number, record, blocks, boundary)
            )
            return
        blocks = [block for block in blocks if not _is_interruption(block)]
        if not blocks:
            return
        facts: dict[str, Any] = {}
        result = record.get("toolUseResult")
        if isinstance(result, dict) and _text(result.get("agentId")):
            facts["subagent_id"] = result["agentId"]  # a Task call's answer: link to its agent
        self.transcript.turns.append(Turn(key, USER, agent, number, record, blocks, facts))


def _is_interruption(block: dict[str, Any]) -> bool:
    text = block.get("text")
    return (
        block.get("type") == "text"
        and isinstance(text, str)
        and bool(INTERRUPTED.match(text.strip()))
    )


def group_turns(path: Path, records: Iterable[tuple[int, dict[str, Any]]]) -> Transcript:
    """Turns of a transcript, in the order their first lines appear."""
    grouper = _Grouper(path)
    for number, record in records:
        grouper.add(number, record)
    return grouper.transcript
