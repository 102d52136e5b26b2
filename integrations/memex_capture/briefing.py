"""The session-start brief: what memex remembers of earlier work in one project.

``build_brief(mx, project_root)`` assembles a context pack for the project at
``project_root`` (a session belongs to it when the ``cwd`` its transcript records
lies at or under that folder; notes belong to it when their vault lies there):

1. the last sessions' summaries (reason ``session_summary``, e.g. "last session in
   this project, 2026-02-12 15:05 UTC"): the stored summary fragment when the
   worker wrote one, else the deterministic summary built now from the session's
   fragments (its id is then the session's first fragment);
2. hybrid-search hits (reason ``query_match``) for a query built from the project's
   name and its recent sessions' requests, restricted to the project's own
   conversations and notes;
3. recent material (reason ``recency``): the latest prompts of those sessions.

Everything is ordered (sessions by last activity, then id), and times are written
as dates rather than "2 days ago", so the same data gives the same brief whenever
it is built. :meth:`Brief.render` is the text the hook prints at SessionStart,
``session_start_budget`` characters at most, header included.

An empty project (no session and no note under it) gives an empty brief, and
``write_brief`` then writes NO file (removing a stale one): the hook prints a brief
file only if it exists, so "no file" is the one way to say "nothing to tell".
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from memex_capture import layout
from memex_capture.settings import settings_from_config
from memex_core.domain import Fragment
from memex_core.domain.disclosure import QUERY_MATCH, RECENCY, ContextItem, label_of, snippet
from memex_core.domain.session_summary import (
    is_session_summary,
    summarize_session,
)
from memex_core.errors import MemexError

if TYPE_CHECKING:
    from memex_core.api import Memex

#: Reason of an item that summarizes one of the project's sessions.
SESSION_SUMMARY = "session_summary"
#: How many of the project's latest sessions are summarized.
SUMMARY_SESSIONS = 3
#: How many recent sessions' requests go into the search query.
QUERY_SESSIONS = 5
SEARCH_LIMIT = 12
#: Share of the items' room the summaries may take (the first one takes the most).
SUMMARY_SHARE = 0.6
#: Longest single item text, and the shortest worth adding.
ITEM_CHARS = 700
MIN_ITEM_CHARS = 60

_REASON_LABELS = {
    SESSION_SUMMARY: "summary",
    QUERY_MATCH: "search hit",
    RECENCY: "recent",
}


@dataclass
class Brief:
    """The brief of one project: its items, in the order they are printed."""

    project_root: str
    budget: int
    items: list[ContextItem] = field(default_factory=list)
    #: The project's sessions found (newest first) and its notes' count.
    sessions: int = 0
    notes: int = 0

    @property
    def project_name(self) -> str:
        return os.path.basename(self.project_root.rstrip("/\\")) or self.project_root

    @property
    def is_empty(self) -> bool:
        return not self.items

    def header(self) -> str:
        return (
            f"# memex: memory of earlier work in {self.project_name} ({self.project_root})\n"
            "Each item says why it is here, when, and its id. Full text: `memex get <id>` "
            "(or the MCP `get` tool); what surrounds it: `memex timeline <id>`; more: "
            '`memex dig "<words>"`.'
        )

    def render(self) -> str:
        """The text the SessionStart hook prints ("" for an empty brief)."""
        if self.is_empty:
            return ""
        blocks = [self.header()]
        blocks.extend(render_item(item) for item in self.items)
        return "\n\n".join(blocks) + "\n"

    def to_dict(self) -> dict[str, Any]:
        return {
            "project_root": self.project_root,
            "budget": self.budget,
            "sessions": self.sessions,
            "notes": self.notes,
            "used_chars": len(self.render()),
            "items": [item.to_dict() for item in self.items],
        }


def render_item(item: ContextItem) -> str:
    label = _REASON_LABELS.get(item.reason, item.reason)
    head = [item.detail or label]
    if item.timestamp is not None and item.reason != SESSION_SUMMARY:
        head.append(_date(item.timestamp))
    head.append(f"id {item.id}")
    return f"## {item.title}\n[{' · '.join(head)}]\n{item.text}"


@dataclass
class _Session:
    session_id: str
    conversations: list[str]
    last: float | None
    first: float | None


def project_sessions(mx: Memex, project_root: str) -> list[_Session]:
    """The sessions whose recorded ``cwd`` lies at or under ``project_root``, newest first."""
    rows = mx.catalog.conversations_in_folder(_roots(project_root))
    sessions: dict[str, _Session] = {}
    for session_id, conversation, first, last in rows:
        entry = sessions.setdefault(str(session_id), _Session(str(session_id), [], None, None))
        entry.conversations.append(str(conversation))
        if last is not None:
            entry.last = last if entry.last is None else max(entry.last, last)
        if first is not None:
            entry.first = first if entry.first is None else min(entry.first, first)
    ordered = sorted(
        sessions.values(),
        key=lambda s: (-(s.last if s.last is not None else float("-inf")), s.session_id),
    )
    for entry in ordered:
        entry.conversations.sort()
    return ordered


def project_notes(mx: Memex, project_root: str) -> list[str]:
    """Conversation ids of the notes ingested from a vault at or under ``project_root``."""
    return mx.catalog.notes_in_folder(_roots(project_root), os.sep)


def build_brief(mx: Memex, project_root: str, *, budget: int | None = None) -> Brief:
    """The brief of the project at ``project_root`` within ``budget`` characters
    (default ``[capture] session_start_budget``), header included."""
    if budget is None:
        budget = settings_from_config(mx.config).session_start_budget
    if budget < 200:
        raise MemexError(f"The brief's budget must be at least 200 characters, not {budget}.")
    root = os.path.abspath(os.path.expanduser(project_root))
    brief = Brief(root, budget)
    sessions = project_sessions(mx, root)
    notes = project_notes(mx, root)
    brief.sessions, brief.notes = len(sessions), len(notes)
    if not sessions and not notes:
        return brief
    room = budget - len(brief.header()) - 2
    builder = _Builder(brief, room)

    # 1. The last sessions' summaries, newest first.
    recent = sessions[:QUERY_SESSIONS]
    loaded = {s.session_id: mx.conversation(s.session_id) for s in recent}
    summary_room = int(room * SUMMARY_SHARE)
    requests: list[str] = []
    for rank, session in enumerate(recent):
        fragments = loaded[session.session_id]
        own = [f for f in fragments if not is_session_summary(f)]
        if not own:
            continue
        summary = summarize_session(own, session_id=session.session_id)
        if summary.request:
            requests.append(summary.request)
        if rank >= SUMMARY_SESSIONS:
            continue
        stored = [f for f in fragments if is_session_summary(f)]
        when = _date(session.last) if session.last is not None else "undated"
        which = "last session" if rank == 0 else "earlier session"
        if stored:
            item_id, text = stored[-1].id, stored[-1].content
            detail = f"{which} in this project, {when}"
        else:
            item_id, text = own[0].id, summary.render()
            detail = f"{which} in this project, {when}; summary built now"
        limit = summary_room - builder.used if rank == 0 else (summary_room - builder.used) // 2
        builder.add(
            item_id,
            SESSION_SUMMARY,
            label_of(own[0]),
            _summary_body(text, label_of(own[0])),
            session.last,
            detail,
            min(ITEM_CHARS, max(limit, MIN_ITEM_CHARS)),
            by_lines=True,
        )

    # 2. Search hits for the project's recent work, in the project's conversations.
    conversations = sorted({c for s in sessions for c in s.conversations} | set(notes))
    query = _query(brief.project_name, requests)
    if query and builder.room() >= MIN_ITEM_CHARS:
        summarized = {s.session_id for s in recent[:SUMMARY_SESSIONS]}
        hits = _search(mx, query, conversations)
        # What the summaries do not already cover comes first (a stable sort keeps rank).
        hits.sort(key=lambda f: f.metadata.get("session_id", f.conversation_id) in summarized)
        for fragment in hits:
            if builder.room() < MIN_ITEM_CHARS:
                break
            meta = fragment.metadata
            if is_session_summary(fragment) or meta.get("tool_call") or meta.get("command"):
                continue
            if _one_line(fragment.content, 200) == _one_line(label_of(fragment), 200):
                continue  # the session's first prompt: its title already says it
            if builder.covers(fragment.content):
                continue  # a summary above already says it (its outcome, say)
            builder.add(
                fragment.id,
                QUERY_MATCH,
                label_of(fragment),
                fragment.content,
                fragment.timestamp,
                f"search hit ({fragment.role})",
                min(ITEM_CHARS // 2, builder.room()),
                terms=query,
            )

    # 3. Recent prompts of the latest sessions.
    for session in recent:
        if builder.room() < MIN_ITEM_CHARS:
            break
        prompts = [
            f
            for f in loaded[session.session_id]
            if f.role == "user" and not f.metadata.get("command")
        ]
        for fragment in reversed(prompts[-2:]):
            if builder.covers(fragment.content) or _one_line(fragment.content, 200) == _one_line(
                label_of(fragment), 200
            ):
                continue  # said above, or the session's title already says it
            builder.add(
                fragment.id,
                RECENCY,
                label_of(fragment),
                fragment.content,
                fragment.timestamp,
                "recent prompt in this project",
                min(ITEM_CHARS // 3, builder.room()),
            )
    return brief


def write_brief(mx: Memex, home: str | os.PathLike[str], project_root: str) -> str:
    """Build the project's brief and write it to ``layout.brief_file`` (atomically: a
    temporary file renamed over it, mode 0600). Returns the path. An empty brief
    removes the file instead: the hook prints nothing when there is none."""
    brief = build_brief(mx, project_root)
    path = layout.brief_file(os.fspath(home), brief.project_root)
    text = brief.render()
    if not text:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        return path
    folder = os.path.dirname(path)
    os.makedirs(folder, mode=0o700, exist_ok=True)
    fd, temporary = tempfile.mkstemp(prefix=".brief-", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(temporary, 0o600)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        raise
    return path


class _Builder:
    """Adds items while the rendered brief stays within its room."""

    def __init__(self, brief: Brief, room: int) -> None:
        self.brief = brief
        self.limit = room
        self.used = 0
        self.taken: set[str] = set()

    def room(self) -> int:
        return self.limit - self.used

    def covers(self, text: str) -> bool:
        """Whether an item already added holds ``text`` (flattened, a line of it at least)."""
        flat = " ".join(text.split())[:200]
        return bool(flat) and any(flat in " ".join(item.text.split()) for item in self.brief.items)

    def add(
        self,
        item_id: str,
        reason: str,
        title: str,
        text: str,
        timestamp: float | None,
        detail: str,
        limit: int,
        *,
        by_lines: bool = False,
        terms: str = "",
    ) -> bool:
        if item_id in self.taken:
            return False
        probe = ContextItem(item_id, reason, _one_line(title, 80), "", False, timestamp, detail)
        overhead = len(render_item(probe)) + 2  # the blank line before it
        width = min(limit, self.room()) - overhead
        if width < MIN_ITEM_CHARS:
            return False
        body, cut = _fit(text, width, by_lines=by_lines, terms=terms)
        if not body:
            return False
        item = ContextItem(item_id, reason, probe.title, body, cut, timestamp, detail)
        self.brief.items.append(item)
        self.taken.add(item_id)
        self.used += len(render_item(item)) + 2
        return True


def _fit(text: str, width: int, *, by_lines: bool, terms: str) -> tuple[str, bool]:
    """``text`` within ``width`` characters: whole lines first (summaries), else a snippet."""
    text = text.strip()
    if len(text) <= width:
        return text, False
    if not by_lines:
        words = re.findall(r"\w+", terms.lower())
        return snippet(text, words, width - 2), True
    kept: list[str] = []
    used = 0
    for line in text.splitlines():
        cost = len(line) + (1 if kept else 0)
        if used + cost <= width:
            kept.append(line)
            used += cost
            continue
        rest = width - used - (1 if kept else 0)
        if rest >= 30:
            kept.append(line[: rest - 1].rstrip() + "…")
        break
    return "\n".join(kept), True


#: The order a deterministic summary's lines are shown in a brief, where the budget may
#: cut the last ones: what was asked and how it ended matter most at the next start.
_LINE_ORDER = ("Request:", "Outcome:", "Files changed", "Errors", "Commands:", "Files read")


def _summary_body(text: str, title: str) -> str:
    """A summary for the brief: without its header line and folder (the item's own
    header says them), the request only when the title does not already say it,
    and the lines that matter most first."""
    lines = text.strip().splitlines()
    if lines and lines[0].startswith("Session summary ("):
        lines = lines[1:]
    lines = [
        line for line in lines if not line.startswith("Folder: ") and line != f"Request: {title}"
    ]

    def rank(line: str) -> int:
        for index, prefix in enumerate(_LINE_ORDER):
            if line.startswith(prefix):
                return index
        return len(_LINE_ORDER)  # an LLM summary's own lines keep their order, last

    if any(line.startswith(_LINE_ORDER) for line in lines):
        lines = sorted(lines, key=rank)
    return "\n".join(lines)


def _query(project_name: str, requests: Sequence[str]) -> str:
    """Words to search the project's memory for: its name and its recent requests."""
    words: list[str] = []
    for text in (project_name, *requests):
        for word in re.findall(r"[A-Za-z][\w.-]{2,}", text):
            if word.lower() not in (w.lower() for w in words):
                words.append(word)
    return " ".join(words[:40])


def _search(mx: Memex, query: str, conversations: Sequence[str]) -> list[Fragment]:
    mode = "hybrid" if mx.semantic_unavailable_reason() is None else "keyword"
    try:
        found = mx.search(
            query,
            mode=mode,
            limit=SEARCH_LIMIT,
            conversation=list(conversations),
            role=["user", "assistant", "note"],
            time_phrases=False,
        )
    except MemexError:
        return []  # a brief without search hits is still a brief
    return [result.fragment for result in found]


def _roots(project_root: str) -> list[str]:
    root = project_root.rstrip("/\\") or project_root
    real = os.path.realpath(root)
    return [root] if real == root else [root, real]


def _one_line(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def _date(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d %H:%M UTC")
