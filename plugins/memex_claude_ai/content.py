"""Turn one Claude.ai export message into one or more searchable segments.

A message's ``content`` is a list of blocks. Consecutive ``text`` blocks form
one prose segment with the sender's role; a ``tool_use`` block becomes its own
segment (role ``assistant``, ``metadata["tool_call"] = True``, as for ChatGPT)
and a ``tool_result`` block its own ``tool`` segment, so role filters keep
prose apart from tool traffic. ``thinking`` blocks are never mixed into prose:
they are returned separately for the caller to store or index.

The top-level ``text`` field is NOT used when ``content`` is present: in real
exports it is the thinking glued to the answer with no separator.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from memex_core.source_kit import Segment

_ROLE_MAP = {"human": "user", "user": "user", "assistant": "assistant", "system": "system"}


@dataclass
class RenderedMessage:
    segments: list[Segment]
    thinking: list[str]
    non_text_parts: list[str]


def _as_dict(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _as_list(value: object) -> list[Any]:
    return value if isinstance(value, list) else []


def _clean(value: object) -> str:
    return value.strip() if isinstance(value, str) else ""


def _render_input(value: object) -> str:
    """Tool input as readable text: ``key: value`` lines for flat objects, else JSON."""
    if isinstance(value, dict) and all(isinstance(v, str | int | float) for v in value.values()):
        return "\n".join(f"{key}: {item}" for key, item in value.items())
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, indent=1)


def _render_result_content(value: object) -> str:
    """Tool result content: a string, or blocks of text / search results (title, url, text)."""
    if isinstance(value, str):
        return value.strip()
    pieces = []
    for item in value if isinstance(value, list) else [value]:
        block = _as_dict(item)
        lines = [_clean(block.get(key)) for key in ("title", "url", "text")]
        lines = [line for line in lines if line]
        if lines:
            pieces.append("\n".join(lines))
        elif item is not None and not block:
            pieces.append(json.dumps(item, ensure_ascii=False))
    return "\n\n".join(pieces)


def _attachment_text(attachments: list[Any]) -> tuple[list[str], list[str]]:
    """Text of attachments with extracted content (each under a header) and all their names."""
    pieces, names = [], []
    for item in attachments:
        attachment = _as_dict(item)
        name = _clean(attachment.get("file_name")) or "unnamed attachment"
        names.append(name)
        extracted = _clean(attachment.get("extracted_content"))
        if extracted:
            pieces.append(f"[attachment: {name}]\n{extracted}")
    return pieces, names


def render_message(message: dict[str, Any]) -> RenderedMessage:
    """Split one chat message into segments (never raises on odd shapes)."""
    sender = str(message.get("sender") or "unknown")
    role = _ROLE_MAP.get(sender, "assistant")
    segments: list[Segment] = []
    prose: list[str] = []
    thinking: list[str] = []
    non_text: list[str] = []

    def close_prose() -> None:
        if prose:
            segments.append(Segment(role, "\n\n".join(prose)))
            prose.clear()

    content = message.get("content")
    if isinstance(content, list) and content:
        for item in content:
            if isinstance(item, str):  # not seen in exports, but plainly text
                prose.append(item.strip())
                continue
            if not isinstance(item, dict):
                continue
            block = item
            kind = block.get("type")
            if kind == "text":
                if _clean(block.get("text")):
                    prose.append(_clean(block.get("text")))
            elif kind == "thinking":
                if _clean(block.get("thinking")):
                    thinking.append(_clean(block.get("thinking")))
            elif kind == "tool_use":
                close_prose()
                name = _clean(block.get("name")) or "tool"
                body = _render_input(block.get("input"))
                segments.append(
                    Segment(
                        "assistant",
                        f"[tool call: {name}]\n{body}".strip(),
                        {"tool_call": True, "tool_name": name},
                    )
                )
            elif kind == "tool_result":
                close_prose()
                name = _clean(block.get("name")) or "tool"
                body = _render_result_content(block.get("content"))
                extra: dict[str, Any] = {"tool_result": True, "tool_name": name}
                if block.get("is_error"):
                    extra["is_error"] = True
                segments.append(Segment("tool", f"[tool result: {name}]\n{body}".strip(), extra))
            else:
                label = str(kind or "unknown")
                non_text.append(label)
                prose.append(f"[{label}]")
    else:
        # Older exports have no content blocks; then (and only then) ``text`` is the message.
        if _clean(message.get("text")):
            prose.append(_clean(message.get("text")))

    attachment_pieces, _ = _attachment_text(_as_list(message.get("attachments")))
    prose.extend(attachment_pieces)
    close_prose()
    return RenderedMessage(segments, thinking, non_text)


def file_names(message: dict[str, Any]) -> tuple[list[str], list[str]]:
    """Names of the message's attachments and of its uploaded files."""
    _, attachments = _attachment_text(_as_list(message.get("attachments")))
    files = [
        _clean(_as_dict(item).get("file_name")) or "unnamed file"
        for item in _as_list(message.get("files"))
    ]
    return attachments, files
