"""A chat service's "Export data" read as a source: what the ChatGPT and Claude.ai sources share.

Both exports are a ``conversations.json`` (any ``*.json`` name) or the ``.zip`` it
comes in: a list of conversation records, each holding its messages under one key
(``mapping``, ``chat_messages``). :class:`ChatExportSource` does everything but
reading one conversation: recognising the file by how its text opens, saying why
an archive holds nothing to read, and streaming the conversations one at a time
with a bad one skipped whole (:func:`~memex_core.sources.conversations.fragments_per_conversation`).
A subclass says what differs::

    class ChatGPTSource(ChatExportSource):
        source_kind = "chatgpt"
        messages_key, messages_type = "mapping", dict
        opening = re.compile(r'"mapping"\\s*:\\s*\\{')        # how a conversation opens
        time_key = "create_time"                             # the conversation's time

        def conversation_id(self, record, key): ...
        def title(self, record): ...
        def conversation_fragments(self, record, chat):      # chat: ExportedConversation
            for message in ...:
                yield from chat.fragments(message_id=..., role=..., text=...,
                                          timestamp=chat.message_time(message["create_time"]))
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Self

from memex_core.domain import Fragment
from memex_core.domain.chunking import DEFAULT_MAX_CHARS, message_fragments
from memex_core.sources.conversations import fragments_per_conversation
from memex_core.sources.export_files import explain_unreadable_archive, json_export_opens_with
from memex_core.sources.limits import DEFAULT_LIMITS, ExportLimits
from memex_core.sources.timestamps import parse_timestamp

#: How much of a file :meth:`ChatExportSource.can_handle` reads to recognise it.
PEEK_BYTES = 64 * 1024


def record_id(record: dict[str, Any], key: str | None, fields: Iterable[str]) -> str | None:
    """The first non-empty string among ``record``'s ``fields``, else ``key`` (its key in an
    object of records), else None."""
    for name in fields:
        value = record.get(name)
        if isinstance(value, str) and value:
            return value
    return key or None


def stable_id(prefix: str, parts: Iterable[object]) -> str:
    """``<prefix>-<hash of parts>``: an id for a record that has none (hand-made files), the
    same on every run."""
    digest = hashlib.blake2b(digest_size=8)
    for part in parts:
        digest.update(str(part).encode("utf-8", "surrogatepass") + b"\x1f")
    return f"{prefix}-{digest.hexdigest()}"


@dataclass(frozen=True)
class ExportedConversation:
    """One conversation being read: what every fragment of it carries."""

    source_kind: str
    source_path: str
    conversation_id: str
    title: str | None
    #: The conversation's own time: a message without one gets it.
    time: float | None
    max_chars: int

    def message_time(self, value: object) -> float | None:
        """A message's time as the export wrote it, or the conversation's when it has none."""
        timestamp = parse_timestamp(value)
        return self.time if timestamp is None else timestamp

    def fragments(
        self,
        *,
        message_id: str,
        role: str,
        text: str,
        timestamp: float | None,
        metadata: dict[str, Any],
    ) -> Iterator[Fragment]:
        """One message's fragments (several linked chunks when it is long)."""
        return message_fragments(
            source_kind=self.source_kind,
            source_path=self.source_path,
            conversation_id=self.conversation_id,
            message_id=message_id,
            role=role,
            text=text,
            timestamp=timestamp,
            title=self.title,
            metadata=metadata,
            max_chars=self.max_chars,
        )


@dataclass(kw_only=True, eq=False)
class ChatExportSource:
    """A source for a chat service's export; subclasses set the class attributes below and
    write :meth:`conversation_id`, :meth:`title` and :meth:`conversation_fragments`."""

    source_kind: ClassVar[str]
    #: The key of a conversation record that holds its messages, and that value's type.
    messages_key: ClassVar[str]
    messages_type: ClassVar[type]
    #: Matches the text of an export near the start of a conversation record.
    opening: ClassVar[re.Pattern[str]]
    #: The record key of the conversation's time.
    time_key: ClassVar[str]

    #: Index the model's reasoning (ChatGPT) or thinking (Claude.ai) too.
    include_thinking: bool = False
    #: Longer messages are split into linked chunks.
    max_chars: int = DEFAULT_MAX_CHARS
    #: The zip-bomb guard's limits.
    limits: ExportLimits = DEFAULT_LIMITS

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> Self:
        """The source as ``[source.<source_kind>]`` of config.toml sets it up:
        ``include_thinking`` and the export limits (``max_export_bytes``,
        ``max_compression_ratio``)."""
        return cls(
            include_thinking=bool(settings.get("include_thinking", False)),
            limits=ExportLimits.from_settings(settings, f"source.{cls.source_kind}"),
        )

    def can_handle(self, path: Path) -> bool:
        """True for a ``.json``/``.zip`` whose (member) text opens like this service's export."""
        return json_export_opens_with(path, self.opening, PEEK_BYTES)

    def explain_unread(self, path: Path) -> str | None:
        """Why an export archive refused by :meth:`can_handle` holds nothing to read."""
        return explain_unreadable_archive(path)

    def ingest(self, path: Path) -> Iterator[Fragment]:
        """Fragments of every conversation, conversation by conversation."""
        source_path = str(path)
        return fragments_per_conversation(
            path,
            self.messages_key,
            self.messages_type,
            self.conversation_id,
            lambda record, cid: self.conversation_fragments(
                record, self._conversation(source_path, record, cid)
            ),
            limits=self.limits,
        )

    def _conversation(
        self, source_path: str, record: dict[str, Any], conversation_id: str
    ) -> ExportedConversation:
        return ExportedConversation(
            source_kind=self.source_kind,
            source_path=source_path,
            conversation_id=conversation_id,
            title=self.title(record),
            time=parse_timestamp(record.get(self.time_key)),
            max_chars=self.max_chars,
        )

    def conversation_id(self, record: dict[str, Any], key: str | None) -> str:
        """The conversation's id (``key``: its key when the export is an object of records)."""
        raise NotImplementedError

    def title(self, record: dict[str, Any]) -> str | None:
        """The conversation's title, or None."""
        raise NotImplementedError

    def conversation_fragments(
        self, record: dict[str, Any], chat: ExportedConversation
    ) -> Iterator[Fragment]:
        """The fragments of one conversation record (whose messages are of the right type)."""
        raise NotImplementedError
