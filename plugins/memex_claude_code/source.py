"""Read a Claude Code session transcript (``~/.claude/projects/<project>/<session>.jsonl``).

One file is one session; a sub-agent's file (``<session>/subagents/agent-*.jsonl``)
is its own conversation, linked to its session. What becomes fragments, and why:

- Conversation ids: a session's fragments have ``conversation_id`` = its
  ``sessionId``; a sub-agent's have ``<sessionId>:agent-<agentId>``. Every
  fragment's ``Provenance.source_id`` and ``metadata["session_id"]`` is the
  session id (for a sub-agent: its parent session's), so a sub-agent's
  fragments are found from its session and back. Sub-agent fragments carry
  ``metadata["agent_id"]``; the parent's tool result that returned a
  sub-agent's answer carries ``subagent_id`` and ``subagent_conversation``.
  Compaction sub-agents (``agent-acompact-*``) are marked ``is_compaction_agent``.
- Turns (see :mod:`memex_claude_code.turns`): streamed assistant lines that
  share ``message.id`` are one turn; bookkeeping lines are skipped.
- Segments (see :mod:`memex_claude_code.segments`): prose, tool calls (role
  ``assistant``, ``tool_call``) and tool results (role ``tool``). Tool output
  keeps its full text in ``content``; the indexes see
  ``compact_tool_output(content, tool_output_budget)`` through ``index_text``.
  Other segments longer than ``max_chars`` are chunked and linked.
- Compaction: the summary Claude Code writes after ``/compact`` (or when the
  context fills) is a ``system`` fragment with ``is_compaction_summary``, plus
  the boundary's ``compact_trigger`` and ``compact_pre_tokens``. It stays in
  the session's conversation.
- Thinking is kept out of the index: stored in the turn's first fragment's
  ``metadata["thinking"]``, or, with ``include_thinking``, indexed as an
  ``assistant`` fragment marked ``reasoning``.
- Metadata on every fragment: ``session_id``, ``cwd``, ``git_branch`` (when the
  line has them), ``uuid`` (the turn's first line), ``message_id`` (segment id),
  ``model`` on assistant turns.
- Title: the session's ``summary`` line if there is one, else its first prompt
  (first line, shortened). Time: the turn's first line's ``timestamp``.

Fragment ids depend only on a turn's own lines and the session id, so when a
transcript grows, earlier complete turns keep their ids; the source sets
``replace_changed_files`` so memex drops what the grown file no longer yields
(an unfinished turn's old text).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memex_claude_code.lines import looks_like_claude_code, read_records
from memex_claude_code.segments import RenderedTurn, Segment, render_turn
from memex_claude_code.turns import Transcript, Turn, group_turns
from memex_core.domain import Fragment, SourceError
from memex_core.source_kit import parse_timestamp
from memex_core.sources.transcripts import TranscriptSource

SOURCE_KIND = "claude_code"
TITLE_CHARS = 80


def agent_conversation_id(session_id: str, agent_id: str) -> str:
    """The conversation id of a sub-agent of ``session_id``."""
    return f"{session_id}:agent-{agent_id}"


def shorten(text: str, limit: int = TITLE_CHARS) -> str:
    """The first non-empty line of ``text``, whitespace collapsed, cut at a word to ``limit``."""
    line = next((line for line in text.splitlines() if line.strip()), "")
    line = re.sub(r"\s+", " ", line).strip()
    if len(line) <= limit:
        return line
    cut = line[: limit - 1].rsplit(" ", 1)[0] or line[: limit - 1]
    return cut.rstrip() + "…"


@dataclass
class _Rendered:
    turn: Turn
    conversation_id: str
    rendered: RenderedTurn


@dataclass(kw_only=True, eq=False)
class ClaudeCodeSource(TranscriptSource):
    """Source for Claude Code transcripts: ``<session>.jsonl`` and sub-agent ``agent-*.jsonl``."""

    source_kind = SOURCE_KIND

    #: Index Claude's thinking as its own fragments (else it is kept in metadata only).
    include_thinking: bool = False

    def can_handle(self, path: Path) -> bool:
        """True for a ``.jsonl`` file whose first records are Claude Code's (Codex's are not)."""
        return looks_like_claude_code(Path(path))

    def ingest(self, path: Path) -> Iterator[Fragment]:
        """Every fragment of the transcript, turn by turn (the file is read whole first)."""
        path = Path(path)
        transcript = group_turns(path, read_records(path))
        if transcript.records and not transcript.claude_code_records:
            raise SourceError(
                path,
                "no Claude Code records (user, assistant, summary...) in this JSON Lines "
                "file; is it a Claude Code transcript?",
            )
        return iter(self._fragments(str(path), path, transcript))

    def _fragments(self, source_path: str, path: Path, transcript: Transcript) -> list[Fragment]:
        session = transcript.session_id or _session_from_path(path)
        rendered = [
            _Rendered(
                turn,
                session if turn.agent_id is None else agent_conversation_id(session, turn.agent_id),
                render_turn(turn, transcript.tool_names),
            )
            for turn in transcript.turns
        ]
        titles = _titles(rendered, transcript)
        fragments: list[Fragment] = []
        timestamp: float | None = None
        for item in rendered:
            own_time = parse_timestamp(item.turn.first.get("timestamp"))
            timestamp = own_time if own_time is not None else timestamp  # else the one before
            common = _common_metadata(item.turn, session)
            for segment_id, segment in self._with_thinking(item.rendered):
                segment.metadata = {**common, **segment.metadata}
                if "subagent_id" in segment.metadata:
                    segment.metadata["subagent_conversation"] = agent_conversation_id(
                        session, segment.metadata["subagent_id"]
                    )
                fragments.extend(
                    self._segment_fragments(
                        source_path,
                        item.conversation_id,
                        session,
                        segment_id,
                        segment,
                        timestamp,
                        titles.get(item.conversation_id),
                    )
                )
        return fragments

    def _with_thinking(self, rendered: RenderedTurn) -> list[tuple[str, Segment]]:
        numbered = list(rendered.segments)
        if not rendered.thinking:
            return numbered
        if self.include_thinking:
            # Thinking came first, so its fragment does too.
            reasoning = Segment("assistant", rendered.thinking, {"reasoning": True})
            numbered.insert(0, (f"{rendered.key}/thinking", reasoning))
        elif numbered:
            numbered[0][1].metadata["thinking"] = rendered.thinking
        return numbered

    def _segment_fragments(
        self,
        source_path: str,
        conversation_id: str,
        session: str,
        segment_id: str,
        segment: Segment,
        timestamp: float | None,
        title: str | None,
    ) -> list[Fragment]:
        return list(
            self.item_fragments(
                source_path=source_path,
                session_id=session,
                conversation_id=conversation_id,
                message_id=segment_id,
                role=segment.role,
                # Tool output keeps its leading indentation; trailing white space goes.
                text=segment.text.rstrip() if segment.tool_output else segment.text,
                timestamp=timestamp,
                title=title,
                metadata=segment.metadata,
                tool_output=segment.tool_output,
            )
        )


def _session_from_path(path: Path) -> str:
    """Claude Code names a transcript ``<sessionId>.jsonl``; a sub-agent's lives under it."""
    if path.parent.name == "subagents" and path.parent.parent.name:
        return path.parent.parent.name
    return path.stem


def _common_metadata(turn: Turn, session: str) -> dict[str, Any]:
    first = turn.first
    meta: dict[str, Any] = {"session_id": session}
    for key, name in (("cwd", "cwd"), ("gitBranch", "git_branch"), ("uuid", "uuid")):
        if isinstance(first.get(key), str) and first[key]:
            meta[name] = first[key]
    if turn.agent_id is not None:
        meta["agent_id"] = turn.agent_id
        if turn.agent_id.startswith("acompact"):
            meta["is_compaction_agent"] = True
    return {**meta, **turn.facts}


def _titles(rendered: list[_Rendered], transcript: Transcript) -> dict[str, str]:
    """Per conversation: the summary line (main session only) or the first prompt."""
    titles: dict[str, str] = {}
    for item in rendered:
        if item.conversation_id in titles:
            continue
        for _, segment in item.rendered.segments:
            if segment.role == "user" and segment.text.strip():
                titles[item.conversation_id] = shorten(segment.text)
                break
    summary = _summary_title(transcript)
    if summary is not None:
        main = next((r.conversation_id for r in rendered if r.turn.agent_id is None), None)
        if main is not None:
            titles[main] = summary
    return titles


def _summary_title(transcript: Transcript) -> str | None:
    """A ``summary`` line's text; one whose ``leafUuid`` is in this file wins."""
    if not transcript.summaries:
        return None
    for text, leaf in transcript.summaries:
        if leaf is not None and leaf in transcript.uuids:
            return shorten(text)
    return shorten(transcript.summaries[0][0])
