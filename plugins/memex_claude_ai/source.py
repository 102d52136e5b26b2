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

import hashlib
import re
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from memex_claude_ai.content import Segment, file_names, render_message
from memex_core.domain import Fragment, SourceError
from memex_core.domain.chunking import DEFAULT_MAX_CHARS, message_fragments
from memex_core.source_kit import (
    DEFAULT_LIMITS,
    ExportLimits,
    explain_unreadable_archive,
    find_json_key,
    fragments_per_conversation,
    is_zip_path,
    json_export_opens_with,
    parse_timestamp,
    peek_json_prefix,
    warn_skipped,
)

SOURCE_KIND = "claude_ai"
PEEK_BYTES = 64 * 1024

# A "chat_messages" key opening a list of messages (objects or the nulls real exports contain).
_CHAT_MESSAGES_OPENING = re.compile(r'(?<!\\)"chat_messages"\s*:\s*\[\s*(?:$|\]|\{|null\b)')


def _conversation_id(conv: dict[str, Any], key: str | None) -> str:
    uuid = conv.get("uuid")
    if isinstance(uuid, str) and uuid:
        return uuid
    if key:
        return key
    digest = hashlib.blake2b(digest_size=8)
    for part in (str(conv.get("name")), str(conv.get("created_at"))):
        digest.update(part.encode("utf-8", "surrogatepass") + b"\x1f")
    return f"claude-{digest.hexdigest()}"


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


class ClaudeAISource:
    """Source for Claude.ai exports: ``conversations.json`` (any ``*.json``) or the ``.zip``."""

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
        """True for a ``.json``/``.zip`` whose (member) text opens like Claude.ai conversations."""
        return json_export_opens_with(path, _CHAT_MESSAGES_OPENING, PEEK_BYTES)

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
        return fragments_per_conversation(
            path,
            "chat_messages",
            list,
            _conversation_id,
            lambda conv, cid: self._conversation_fragments(str(path), conv, cid),
            limits=self.limits,
        )

    def _conversation_fragments(
        self, source_path: str, conv: dict[str, Any], conversation_id: str
    ) -> Iterator[Fragment]:
        title = conv.get("name") if isinstance(conv.get("name"), str) and conv["name"] else None
        conversation_time = parse_timestamp(conv.get("created_at"))
        used_ids: set[str] = set()
        for index, message in enumerate(conv["chat_messages"]):
            if not isinstance(message, dict):
                continue  # real exports contain null entries
            uuid = message.get("uuid")
            message_id = uuid if isinstance(uuid, str) and uuid else f"message-{index}"
            if message_id in used_ids:
                message_id = f"{message_id}@{index}"
            used_ids.add(message_id)
            timestamp = parse_timestamp(message.get("created_at"))
            if timestamp is None:
                timestamp = conversation_time
            for segment_id, segment in self._segments(message, message_id):
                yield from message_fragments(
                    source_kind=SOURCE_KIND,
                    source_path=source_path,
                    conversation_id=conversation_id,
                    message_id=segment_id,
                    role=segment.role,
                    text=segment.text,
                    timestamp=timestamp,
                    title=title,
                    metadata=segment.metadata,
                    max_chars=self.max_chars,
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
