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

import re
from collections.abc import Iterator
from typing import Any

from memex_chatgpt.content import render_message
from memex_chatgpt.thread import active_path
from memex_core.domain import Fragment
from memex_core.sources.chat_export import (
    ChatExportSource,
    ExportedConversation,
    record_id,
    stable_id,
)

SOURCE_KIND = "chatgpt"


class ChatGPTSource(ChatExportSource):
    """Source for ChatGPT exports: ``conversations.json`` (any ``*.json`` name) or the ``.zip``."""

    source_kind = SOURCE_KIND
    messages_key = "mapping"
    messages_type = dict
    time_key = "create_time"
    # A "mapping" key whose value is an object of nodes ({"id"/"message"/"parent"/"children":
    # ...}), allowing the peeked prefix to end anywhere inside that pattern.
    opening = re.compile(
        r'(?<!\\)"mapping"\s*:\s*\{\s*(?:$|\}|"(?:[^"\\]|\\.)*"\s*:\s*'
        r'(?:$|\{\s*(?:$|\}|"(?:id|message|parent|children)"\s*:)))'
    )

    def conversation_id(self, record: dict[str, Any], key: str | None) -> str:
        found = record_id(record, key, ("conversation_id", "id"))
        if found:
            return found
        mapping = record.get("mapping")
        node_ids = sorted(mapping) if isinstance(mapping, dict) else []
        return stable_id("chatgpt", (record.get("title"), record.get("create_time"), *node_ids))

    def title(self, record: dict[str, Any]) -> str | None:
        return record.get("title") if isinstance(record.get("title"), str) else None

    def conversation_fragments(
        self, record: dict[str, Any], chat: ExportedConversation
    ) -> Iterator[Fragment]:
        """The fragments of the conversation's active branch, message by message."""
        mapping: dict[str, Any] = record["mapping"]
        used_ids: set[str] = set()
        for node_id in active_path(mapping, record.get("current_node")):
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
            yield from chat.fragments(
                message_id=message_id,
                role=rendered.role,
                text=rendered.text,
                timestamp=chat.message_time(message.get("create_time")),
                metadata=rendered.metadata,
            )
