"""Walk a rollout's records and keep what a person would want to find again.

Kept, in file order: the prompts the user typed (see :mod:`memex_codex.prompts`
for how injected context is left out), the assistant's messages (both the
``commentary`` it writes while working and the ``final_answer``), reasoning
summaries, tool calls of every kind and their outputs (linked by ``call_id``),
and the summary text of a context compaction.

Left out: ``developer``/``system`` messages, the ``event_msg`` copies of
messages and reasoning (each message is indexed once, from its
``response_item``; a ``user_message`` event is used only when no message stands
for it), encrypted reasoning, token counts, turn contexts.

Everything an item says depends only on the lines before it (and, for a user
message, on the event right after it), so a rollout that grows by appended
lines yields the same items for its old part.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memex_codex.content import (
    message_text,
    part_texts,
    reasoning_summary,
    tool_call_body,
    tool_output,
)
from memex_codex.prompts import PromptMatcher, is_injected_context
from memex_codex.records import RolloutRecord
from memex_core.source_kit import warn_skipped

CALL_TYPES = frozenset({"function_call", "custom_tool_call", "local_shell_call", "web_search_call"})
OUTPUT_TYPES = frozenset(
    {"function_call_output", "custom_tool_call_output", "local_shell_call_output"}
)


@dataclass
class Item:
    """One fragment-to-be (before chunking)."""

    line: int
    message_id: str
    role: str
    text: str
    timestamp: float | None
    metadata: dict[str, Any] = field(default_factory=dict)
    tool_output: bool = False


@dataclass
class _Walk:
    matcher: PromptMatcher
    items: list[Item] = field(default_factory=list)
    user_items: dict[int, Item] = field(default_factory=dict)
    tool_names: dict[str, str] = field(default_factory=dict)
    used_ids: set[str] = field(default_factory=set)
    model: str | None = None
    last_time: float | None = None

    def message_id(self, payload: dict[str, Any], line: int) -> str:
        """The item's own id when it has a fresh one, else its line (stable as the file grows)."""
        own = payload.get("id")
        candidate = own.strip() if isinstance(own, str) and own.strip() else f"line-{line}"
        if candidate in self.used_ids:
            candidate = f"{candidate}@line-{line}"
        self.used_ids.add(candidate)
        return candidate

    def add(
        self, record: RolloutRecord, role: str, text: str, metadata: dict[str, Any]
    ) -> Item | None:
        if role != "user":
            self.matcher.model_output()
        if not text.strip():
            return None
        extra = {"line": record.line, **metadata}
        if self.model:
            extra["model"] = self.model
        item = Item(
            line=record.line,
            message_id=self.message_id(record.payload, record.line),
            role=role,
            text=text.strip(),
            timestamp=record.timestamp if record.timestamp is not None else self.last_time,
            metadata=extra,
        )
        self.items.append(item)
        return item


def read_items(records: list[RolloutRecord], path: Path) -> tuple[list[Item], str | None]:
    """The items worth indexing, in file order, and the first prompt's text (for the title)."""
    mirrored = any(
        r.kind == "event_msg" and r.payload.get("type") == "user_message" for r in records
    )
    walk = _Walk(PromptMatcher(mirrored))
    for record in records:
        try:
            _visit(walk, record)
        except (AttributeError, TypeError, ValueError, KeyError, RecursionError) as exc:
            kind = record.payload.get("type") if isinstance(record.payload, dict) else None
            what = f"{record.kind}/{kind}" if kind else record.kind
            warn_skipped(
                path, f"line {record.line}", f"unreadable {what} ({type(exc).__name__}: {exc})"
            )
        if record.timestamp is not None:
            walk.last_time = record.timestamp
    rejected = {
        id(item) for key, item in walk.user_items.items() if key not in walk.matcher.accepted
    }
    items = [item for item in walk.items if id(item) not in rejected]
    first_prompt = next((item.text for item in items if item.role == "user"), None)
    return items, first_prompt


def _visit(walk: _Walk, record: RolloutRecord) -> None:
    payload = record.payload
    if record.kind == "turn_context":
        if isinstance(payload.get("model"), str) and payload["model"]:
            walk.model = payload["model"]
    elif record.kind == "compacted":
        summary = payload.get("message")
        if isinstance(summary, str):
            walk.add(record, "assistant", summary, {"compaction_summary": True})
    elif record.kind == "event_msg" and payload.get("type") == "user_message":
        text = "\n\n".join(part_texts(payload.get("message")))
        if walk.matcher.event(text):
            walk.add(record, "user", text, {"from_event": True})
    elif record.kind == "response_item":
        _response_item(walk, record)


def _response_item(walk: _Walk, record: RolloutRecord) -> None:
    payload = record.payload
    kind = payload.get("type")
    if not isinstance(kind, str):
        return  # an item without a readable type says nothing we could index
    if kind == "message":
        role = payload.get("role")
        if role == "user":
            texts = part_texts(payload.get("content"))
            typed = [text for text in texts if not is_injected_context(text)]
            if len(typed) < len(texts) and all(text == "[image]" for text in typed):
                return  # injected context (with at most an image): nobody typed it
            item = walk.add(record, "user", "\n\n".join(typed), {})
            if item is not None:
                walk.user_items[record.line] = item
                walk.matcher.message(record.line, item.text)
        elif role == "assistant":
            phase = payload.get("phase")
            metadata = {"phase": phase} if isinstance(phase, str) and phase else {}
            walk.add(record, "assistant", message_text(payload), metadata)
    elif kind == "reasoning":
        walk.add(record, "assistant", reasoning_summary(payload), {"reasoning": True})
    elif kind in CALL_TYPES:
        _tool_call(walk, record)
    elif kind in OUTPUT_TYPES:
        _tool_output(walk, record)


def _call_id(payload: dict[str, Any]) -> str | None:
    call_id = payload.get("call_id")
    return call_id if isinstance(call_id, str) and call_id else None


def _tool_call(walk: _Walk, record: RolloutRecord) -> None:
    name, body = tool_call_body(record.payload)
    call_id = _call_id(record.payload)
    metadata: dict[str, Any] = {"tool_call": True, "tool_name": name}
    if call_id:
        metadata["call_id"] = call_id
        walk.tool_names[call_id] = name
    walk.add(record, "assistant", f"[tool call: {name}]\n{body}", metadata)


def _tool_output(walk: _Walk, record: RolloutRecord) -> None:
    """An output, named after its call when the call came earlier in this rollout."""
    call_id = _call_id(record.payload)
    name = walk.tool_names.get(call_id) if call_id else None
    text, exit_code = tool_output(record.payload)
    metadata: dict[str, Any] = {"tool_result": True}
    if name:
        metadata["tool_name"] = name
    if call_id:
        metadata["call_id"] = call_id
    if exit_code is not None:
        metadata["exit_code"] = exit_code
    header = f"[tool result: {name}]" if name else "[tool result]"
    item = walk.add(record, "tool", f"{header}\n{text}", metadata)
    if item is not None:
        item.tool_output = True
