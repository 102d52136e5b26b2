"""Read a Claude.ai "Export data" archive (or its ``conversations.json``) into fragments.

What is indexed: every message of ``chat_messages`` in order (the export is a
flat list), from its ``content`` blocks; see :mod:`memex_claude_ai.content`
for how tool blocks become their own fragments. Attachments' extracted text is
part of the message (under an ``[attachment: name]`` line); attachment and
file names are listed in metadata. ``null`` entries in ``chat_messages`` (seen
in real exports) are skipped. Thinking blocks are kept OUT of the searchable
text: they are stored in ``metadata["thinking"]``, or, with
``include_thinking=True``, indexed as separate ``assistant`` fragments marked
``metadata["reasoning"] = True`` (as ChatGPT's reasoning messages are).

``users.json``, ``projects.json`` and ``memories.json`` from the same export
are not conversations: ``can_handle`` says no to them, and ingest says so
(``explain_unread`` for the files, a skipped item for the archive's members)
rather than leaving them out without a word.

Errors, decided once: a file that is not valid JSON, or whose top level holds
no conversations, raises :class:`SourceError` (line and column included). A
single entry that is not a readable conversation is skipped with a
:class:`memex_core.source_kit.SkippedItemWarning` naming it, and the rest of
the file is still ingested.
"""

from __future__ import annotations

import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memex_claude_ai.content import Segment, file_names, render_message
from memex_core.domain import Fragment, SourceError
from memex_core.source_kit import (
    explain_unreadable_archive,
    find_json_key,
    is_zip_path,
    peek_json_prefix,
    warn_skipped,
)
from memex_core.sources.chat_export import (
    PEEK_BYTES,
    ChatExportSource,
    ExportedConversation,
    record_id,
    stable_id,
)

SOURCE_KIND = "claude_ai"


#: The other files of a Claude.ai export: a key only that file holds, what it is, and why
#: memex does not read it.
_OTHER_FILES = {
    "memories.json": (
        "conversations_memory",
        "Claude.ai's memories of you",
        "memex does not index them yet",
    ),
    "projects.json": (
        "prompt_template",
        "Claude.ai projects",
        "memex does not index project descriptions and documents yet",
    ),
    "users.json": ("email_address", "Claude.ai account details", "nothing in them to index"),
}


def _report_other_members(path: Path) -> None:
    """Name the archive's members that are not conversations, with why they are not read."""
    try:
        with zipfile.ZipFile(path) as archive:
            names = [info.filename for info in archive.infolist() if not info.is_dir()]
    except (zipfile.BadZipFile, OSError, ValueError):
        return  # ingest reports the archive itself
    for name in names:
        known = _OTHER_FILES.get(name.replace("\\", "/").rsplit("/", 1)[-1])
        if known:
            _, what, why = known
            warn_skipped(path, name, f"{what}, not conversations; {why}")


class ClaudeAISource(ChatExportSource):
    """Source for Claude.ai exports: ``conversations.json`` (any ``*.json``) or the ``.zip``."""

    source_kind = SOURCE_KIND
    messages_key = "chat_messages"
    messages_type = list
    time_key = "created_at"
    # A "chat_messages" key opening a list of messages (objects or the nulls real exports
    # contain).
    opening = re.compile(r'(?<!\\)"chat_messages"\s*:\s*\[\s*(?:$|\]|\{|null\b)')

    def explain_unread(self, path: Path) -> str | None:
        """Why a file of a Claude.ai export, or its archive, holds nothing this source reads."""
        if is_zip_path(path):
            return explain_unreadable_archive(path)
        if path.suffix.lower() != ".json":
            return None
        try:
            prefix = peek_json_prefix(path, PEEK_BYTES)
        except SourceError:
            return None
        for file_name, (key, what, why) in _OTHER_FILES.items():
            if find_json_key(prefix, key) >= 0:
                return f"{what} (the export's {file_name}), not conversations; {why}"
        return None

    def ingest(self, path: Path) -> Iterator[Fragment]:
        """Fragments of every conversation, message by message."""
        if is_zip_path(path):
            _report_other_members(path)
        return super().ingest(path)

    def conversation_id(self, record: dict[str, Any], key: str | None) -> str:
        found = record_id(record, key, ("uuid",))
        return found or stable_id("claude", (record.get("name"), record.get("created_at")))

    def title(self, record: dict[str, Any]) -> str | None:
        name = record.get("name")
        return name if isinstance(name, str) and name else None

    def conversation_fragments(
        self, record: dict[str, Any], chat: ExportedConversation
    ) -> Iterator[Fragment]:
        """The fragments of every message of the conversation, in order."""
        used_ids: set[str] = set()
        for index, message in enumerate(record["chat_messages"]):
            if not isinstance(message, dict):
                continue  # real exports contain null entries
            uuid = message.get("uuid")
            message_id = uuid if isinstance(uuid, str) and uuid else f"message-{index}"
            if message_id in used_ids:
                message_id = f"{message_id}@{index}"
            used_ids.add(message_id)
            timestamp = chat.message_time(message.get("created_at"))
            for segment_id, segment in self._segments(message, message_id):
                yield from chat.fragments(
                    message_id=segment_id,
                    role=segment.role,
                    text=segment.text,
                    timestamp=timestamp,
                    metadata=segment.metadata,
                )

    def _segments(self, message: dict[str, Any], message_id: str) -> list[tuple[str, Segment]]:
        """Each segment with its message id: the first keeps the message's own id."""
        rendered = render_message(message)
        attachments, files = file_names(message)
        common: dict[str, Any] = {"sender": str(message.get("sender") or "unknown")}
        if attachments:
            common["attachments"] = attachments
        if files:
            common["files"] = files
        if rendered.non_text_parts:
            common["non_text_parts"] = rendered.non_text_parts
        numbered = [
            (message_id if n == 0 else f"{message_id}/part-{n}", segment)
            for n, segment in enumerate(rendered.segments)
        ]
        for _, segment in numbered:
            segment.metadata = {**common, **segment.metadata}
        thinking = "\n\n".join(rendered.thinking)
        if thinking and self.include_thinking:
            # Thinking came first, so its fragment does too.
            reasoning = Segment("assistant", thinking, {**common, "reasoning": True})
            numbered.insert(0, (f"{message_id}/thinking", reasoning))
        elif thinking and numbered:
            numbered[0][1].metadata["thinking"] = thinking
        return numbered
