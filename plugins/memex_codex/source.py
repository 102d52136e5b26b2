"""The ``codex`` source: Codex CLI rollouts (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``).

One rollout is one conversation, identified by its session id. What is kept
is described in :mod:`memex_codex.items`; every fragment's metadata carries the
session facts (``session_id``, ``cwd``, ``git_branch``, ``git_commit``,
``cli_version``), the rollout ``line`` and, once known, the ``model``.

Fragments:

* messages, reasoning summaries and tool calls are split into linked chunks
  like every other source (:func:`memex_core.domain.chunking.message_fragments`);
* a tool output is ONE fragment of role ``tool`` whose ``content`` keeps the
  whole output and whose ``index_text`` is the compacted version
  (:func:`memex_core.domain.compaction.compact_tool_output`), so a long log is
  stored for reading but indexed by its head, trouble lines and tail. Its
  metadata links it to the call (``call_id``, ``tool_name`` and the call
  fragment's id as ``call_fragment_id``).

Ids: ``fragment_id(kind, session id, session/message id, text)`` where the
message id is the item's own id or its line number; nothing depends on later
lines, so a rollout that grew keeps the ids of its older fragments and
``replace_changed_files`` lets memex replace the file's fragments on re-ingest.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from memex_codex.content import short_title
from memex_codex.detect import looks_like_rollout
from memex_codex.items import Item, read_items
from memex_codex.records import read_rollout
from memex_codex.session import SessionInfo, session_info
from memex_core.domain import Fragment
from memex_core.sources.transcripts import TranscriptSource

SOURCE_KIND = "codex"


class CodexSource(TranscriptSource):
    """Source for Codex CLI rollouts (``*.jsonl``); a rollout grows while its session runs."""

    source_kind = SOURCE_KIND

    def can_handle(self, path: Path) -> bool:
        """True for a ``.jsonl`` file whose first lines are Codex rollout records (a peek)."""
        return looks_like_rollout(Path(path))

    def ingest(self, path: Path) -> Iterator[Fragment]:
        """Every fragment of the rollout, in file order. Raises SourceError if unreadable."""
        path = Path(path)
        records = read_rollout(path)
        session = session_info(records, path)
        items, first_prompt = read_items(records, path)
        title = short_title(first_prompt) if first_prompt else None
        return iter(list(self._fragments(str(path), session, items, title)))

    def _fragments(
        self, source_path: str, session: SessionInfo, items: list[Item], title: str | None
    ) -> Iterator[Fragment]:
        common = session.metadata()
        call_fragments: dict[str, str] = {}
        for item in items:
            metadata = {**common, **item.metadata}
            timestamp = item.timestamp if item.timestamp is not None else session.timestamp
            call_id = metadata.get("call_id")
            if item.tool_output and isinstance(call_id, str) and call_id in call_fragments:
                metadata["call_fragment_id"] = call_fragments[call_id]
            pieces = list(
                self.item_fragments(
                    source_path=source_path,
                    session_id=session.session_id,
                    conversation_id=session.session_id,
                    message_id=item.message_id,
                    role="tool" if item.tool_output else item.role,
                    text=item.text,
                    timestamp=timestamp,
                    title=title,
                    metadata=metadata,
                    tool_output=item.tool_output,
                )
            )
            if pieces and metadata.get("tool_call") and isinstance(call_id, str):
                call_fragments[call_id] = pieces[0].id
            yield from pieces
