"""A coding agent's session transcript as a source: what the Claude Code and Codex sources share.

A transcript is one JSON Lines file per session, and it grows while the session
runs. Two things follow, the same for every such source:

- Fragment ids depend only on an item's own lines and the session, so older items
  keep their ids when the file grows; :attr:`TranscriptSource.replace_changed_files`
  has memex replace what the file yielded before when it is read again.
- Tool output is one fragment stored whole (its indentation is part of it) and
  indexed compacted to ``tool_output_budget`` characters
  (:func:`memex_core.domain.compaction.compact_tool_output`); anything else is
  chunked like any message (:func:`memex_core.domain.chunking.message_fragments`).
  Every fragment's provenance names the session.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

from memex_core.domain import Fragment
from memex_core.domain.chunking import DEFAULT_MAX_CHARS, message_fragments
from memex_core.domain.compaction import DEFAULT_TOOL_OUTPUT_BUDGET, compact_tool_output


@dataclass(kw_only=True, eq=False)
class TranscriptSource:
    """Base of a source whose files are session transcripts; subclasses set ``source_kind``."""

    source_kind: ClassVar[str]
    #: A transcript grows while its session runs: re-reading it replaces what it held.
    replace_changed_files: ClassVar[bool] = True

    #: Characters of each tool output the indexes see.
    tool_output_budget: int = DEFAULT_TOOL_OUTPUT_BUDGET
    #: Longer text (not tool output) is split into linked chunks.
    max_chars: int = DEFAULT_MAX_CHARS

    def item_fragments(
        self,
        *,
        source_path: str,
        session_id: str,
        conversation_id: str,
        message_id: str,
        role: str,
        text: str,
        timestamp: float | None,
        title: str | None,
        metadata: dict[str, Any],
        tool_output: bool,
    ) -> Iterator[Fragment]:
        """One transcript item's fragments: tool output whole and indexed compacted, any
        other text in linked chunks of at most ``max_chars``."""
        return message_fragments(
            source_kind=self.source_kind,
            source_path=source_path,
            conversation_id=conversation_id,
            message_id=message_id,
            role=role,
            text=text,
            timestamp=timestamp,
            title=title,
            metadata=metadata,
            max_chars=None if tool_output else self.max_chars,
            source_id=session_id,
            index_text=self._compact if tool_output else None,
        )

    def _compact(self, text: str) -> str:
        return compact_tool_output(text, self.tool_output_budget)
