"""Split one turn into segments: the fragments-to-be, each with one role.

Consecutive text blocks form one prose segment. Every ``tool_use`` block is its
own ``assistant`` segment (``metadata["tool_call"] = True``) and every
``tool_result`` its own ``tool`` segment, as in the other chat sources, so role
filters keep prose apart from tool traffic. Output of commands the user ran
(``/mcp``, ``! ls``) is a ``tool`` segment too. Thinking never joins the prose;
it is returned apart for the caller to store or index.

Segment ids: the first segment has the turn's key, the n-th ``<key>/part-n``.
Blocks only ever get appended to a turn, so earlier segments keep their ids.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from memex_claude_code.content import (
    command_output,
    render_input,
    render_result,
    slash_command,
)
from memex_claude_code.turns import ASSISTANT, COMPACTION_SUMMARY, Turn
from memex_core import source_kit


@dataclass
class Segment(source_kit.Segment):
    """One fragment-to-be. ``tool_output`` segments are indexed compacted, never chunked."""

    tool_output: bool = False


@dataclass
class RenderedTurn:
    key: str  # the turn's key: the first segment's id, and the stem of the others
    segments: list[tuple[str, Segment]]  # (segment id, segment)
    thinking: str


def _clean(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


class _Builder:
    def __init__(self, prose_role: str, tool_names: dict[str, str]) -> None:
        self.prose_role = prose_role
        self.tool_names = tool_names
        self.segments: list[Segment] = []
        self.prose: list[str] = []
        self.prose_meta: dict[str, Any] = {}
        self.thinking: list[str] = []

    def close_prose(self) -> None:
        if self.prose:
            text = "\n\n".join(self.prose)
            self.segments.append(Segment(self.prose_role, text, dict(self.prose_meta)))
            self.prose.clear()
            self.prose_meta.clear()

    def add(self, segment: Segment) -> None:
        self.close_prose()
        self.segments.append(segment)

    def text(self, text: str) -> None:
        if self.prose_role != "user":
            if text:
                self.prose.append(text)
            return
        stripped = text.lstrip()
        if stripped.startswith(("<command-", "<bash-input>")):
            command = slash_command(stripped)
            if command is not None:
                self.close_prose()
                self.prose.append(command)
                self.prose_meta["command"] = command.split(" ", 1)[0]
                self.close_prose()
                return
        output = command_output(text)
        if output is not None:
            meta = {"command_output": True, "tool_name": "command"}
            self.add(Segment("tool", f"[command output]\n{output}".strip(), meta, True))
        elif text:
            self.prose.append(text)

    def block(self, block: dict[str, Any]) -> None:
        kind = block.get("type")
        if kind == "text":
            self.text(_clean(block.get("text")))
        elif kind == "thinking":
            if _clean(block.get("thinking")):
                self.thinking.append(_clean(block.get("thinking")))
        elif kind == "redacted_thinking":
            return  # encrypted: nothing readable
        elif kind == "tool_use":
            name = _clean(block.get("name")) or "tool"
            meta: dict[str, Any] = {"tool_call": True, "tool_name": name}
            if _clean(block.get("id")):
                meta["tool_use_id"] = block["id"]
            body = render_input(block.get("input"))
            self.add(Segment("assistant", f"[tool call: {name}]\n{body}".strip(), meta))
        elif kind == "tool_result":
            use_id = _clean(block.get("tool_use_id"))
            name = self.tool_names.get(use_id, "tool")
            meta = {"tool_result": True, "tool_name": name}
            if use_id:
                meta["tool_use_id"] = use_id
            if block.get("is_error"):
                meta["is_error"] = True
            body = render_result(block.get("content"))
            self.add(Segment("tool", f"[tool result: {name}]\n{body}".rstrip(), meta, True))
        else:
            label = str(kind or "unknown")
            self.prose.append(f"[{label}]")
            self.prose_meta.setdefault("non_text_parts", []).append(label)


def render_turn(turn: Turn, tool_names: dict[str, str]) -> RenderedTurn:
    """The turn's segments with their ids, and its thinking (joined, possibly empty)."""
    if turn.kind == COMPACTION_SUMMARY:
        text = "\n\n".join(_clean(b.get("text")) for b in turn.blocks if b.get("type") == "text")
        meta = {"is_compaction_summary": True, **turn.facts}
        segments = [Segment("system", text.strip(), meta)] if text.strip() else []
        thinking = ""
    else:
        builder = _Builder("assistant" if turn.kind == ASSISTANT else "user", tool_names)
        for block in turn.blocks:
            builder.block(block)
        builder.close_prose()
        segments, thinking = builder.segments, "\n\n".join(builder.thinking)
    numbered = [
        (turn.key if n == 0 else f"{turn.key}/part-{n}", segment)
        for n, segment in enumerate(segments)
    ]
    return RenderedTurn(turn.key, numbered, thinking)
