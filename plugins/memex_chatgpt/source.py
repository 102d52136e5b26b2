"""Read a ChatGPT "Export data" archive (or its ``conversations.json``) into fragments.

What is indexed: the ACTIVE branch of each conversation (the path from
``current_node`` to the root; abandoned edits and regenerations are left out),
one fragment per message, long messages split by ``message_fragments``.
Skipped: empty nodes, messages hidden from the conversation view (the system
prompt, custom instructions) and empty system messages. Tool calls are kept as
``assistant`` fragments with ``metadata["tool_call"] = True``; tool output as
``tool``. The model's private reasoning (``thoughts``, ``reasoning_recap``) is
left out unless the source is built with ``include_thinking=True``.

Errors, decided once: a file that is not valid JSON, or whose top level holds
no conversations, raises :class:`SourceError` (line and column included). A
single conversation that is not a conversation (no ``mapping``, a mapping that
is not an object, or data too odd to read) is skipped with a
:class:`memex_core.source_kit.SkippedItemWarning` naming it, and the rest of
the file is still ingested: one bad entry should not cost the whole history.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memex_chatgpt.content import render_message
from memex_chatgpt.thread import active_path
from memex_core.domain import Fragment
from memex_core.domain.chunking import DEFAULT_MAX_CHARS, message_fragments
from memex_core.source_kit import (
    DEFAULT_LIMITS,
    ExportLimits,
    explain_unreadable_archive,
    fragments_per_conversation,
    json_export_opens_with,
    parse_timestamp,
)

SOURCE_KIND = "chatgpt"
PEEK_BYTES = 64 * 1024

# A "mapping" key whose value is an object of nodes ({"id"/"message"/"parent"/"children": ...}),
# allowing the peeked prefix to end anywhere inside that pattern.
_MAPPING_OPENING = re.compile(
    r'(?<!\\)"mapping"\s*:\s*\{\s*(?:$|\}|"(?:[^"\\]|\\.)*"\s*:\s*'
    r'(?:$|\{\s*(?:$|\}|"(?:id|message|parent|children)"\s*:)))'
)


def _conversation_id(conv: dict[str, Any], key: str | None) -> str:
    for field_name in ("conversation_id", "id"):
        value = conv.get(field_name)
        if isinstance(value, str) and value:
            return value
    if key:
        return key
    # No id at all (hand-made files): derive one that is stable across runs.
    digest = hashlib.blake2b(digest_size=8)
    mapping = conv.get("mapping")
    node_ids = sorted(mapping) if isinstance(mapping, dict) else []
    for part in (str(conv.get("title")), str(conv.get("create_time")), *node_ids):
        digest.update(part.encode("utf-8", "surrogatepass") + b"\x1f")
    return f"chatgpt-{digest.hexdigest()}"


class ChatGPTSource:
    """Source for ChatGPT exports: ``conversations.json`` (any ``*.json`` name) or the ``.zip``."""

    source_kind = SOURCE_KIND

    def __init__(
        self,
        *,
        include_thinking: bool = False,
        max_chars: int = DEFAULT_MAX_CHARS,
        limits: ExportLimits = DEFAULT_LIMITS,
    ) -> None:
        self.include_thinking = include_thinking
        self.max_chars = max_chars
        self.limits = limits

    def can_handle(self, path: Path) -> bool:
        """True for a ``.json``/``.zip`` whose (member) text opens like a ChatGPT export."""
        return json_export_opens_with(path, _MAPPING_OPENING, PEEK_BYTES)

    def explain_unread(self, path: Path) -> str | None:
        """Why an export archive refused by :meth:`can_handle` holds nothing to read."""
        return explain_unreadable_archive(path)

    def ingest(self, path: Path) -> Iterator[Fragment]:
        """Fragments of every conversation's active branch, conversation by conversation."""
        return fragments_per_conversation(
            path,
            "mapping",
            dict,
            _conversation_id,
            lambda conv, cid: self._conversation_fragments(str(path), conv, cid),
            limits=self.limits,
        )

    def _conversation_fragments(
        self, source_path: str, conv: dict[str, Any], conversation_id: str
    ) -> Iterator[Fragment]:
        mapping: dict[str, Any] = conv["mapping"]
        title = conv.get("title") if isinstance(conv.get("title"), str) else None
        conversation_time = parse_timestamp(conv.get("create_time"))
        used_ids: set[str] = set()
        for node_id in active_path(mapping, conv.get("current_node")):
            node = mapping[node_id]
            message = node.get("message") if isinstance(node, dict) else None
            if not isinstance(message, dict):
                continue
            rendered = render_message(message)
            if rendered.hidden or not rendered.text:
                continue
            if rendered.reasoning:
                if not self.include_thinking:
                    continue
                rendered.metadata["reasoning"] = True
            raw_id = message.get("id")
            message_id = raw_id if isinstance(raw_id, str) and raw_id else node_id
            if message_id in used_ids:  # hand-made files reuse message ids; node ids are unique
                message_id = node_id
            used_ids.add(message_id)
            timestamp = parse_timestamp(message.get("create_time"))
            if timestamp is None:
                timestamp = conversation_time
            yield from message_fragments(
                source_kind=SOURCE_KIND,
                source_path=source_path,
                conversation_id=conversation_id,
                message_id=message_id,
                role=rendered.role,
                text=rendered.text,
                timestamp=timestamp,
                title=title,
                metadata=rendered.metadata,
                max_chars=self.max_chars,
            )
