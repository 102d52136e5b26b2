"""The session-start brief: what memex remembers of earlier work in one project.

``build_brief(mx, project_root, cwd=...)`` assembles a context pack for the project at
``project_root`` (the git repository of the session's folder, else the folder), for a
session starting in ``cwd`` (default: the project's root). A session belongs to the
project when the folder its transcript records (``cwd``) lies at or under the project's
root, as recorded or with symlinks resolved, or lies in the same git repository; the
catalog finds them through its index of session folders (``project_sessions``), and
folders nobody resolved yet are resolved here, on the host that reads them. Notes
belong to it when their vault lies there. Sessions that ran in ``cwd`` itself come
first, newest first, then the project's others, newest first:

1. the last sessions' summaries (reason ``session_summary``, e.g. "last session in
   this project, 2026-02-12 15:05 UTC"): the stored summary fragment when the
   worker wrote one, else the deterministic summary built now from the session's
   fragments and its sub-agents' (its id is then the session's first fragment);
2. hybrid-search hits (reason ``query_match``) for a query built from the project's
   name and its recent sessions' requests, restricted to the project's own
   conversations and notes;
3. recent material (reason ``recency``): the latest prompts of those sessions.

Everything is ordered (sessions by folder, last activity, then id), and times are written
as dates rather than "2 days ago", so the same data gives the same brief whenever
it is built. :meth:`Brief.render` is the text the hook prints at SessionStart,
``session_start_budget`` characters at most, header included.

An empty project (no session and no note under it) gives an empty brief, and
``write_brief`` then writes NO file (removing a stale one): the hook prints a brief
file only if it exists, so "no file" is the one way to say "nothing to tell".
``write_briefs`` writes what the hook may print for a session starting in a folder:
the project's brief, the folder's own when it is not the project's root, and
refreshes the briefs already written for the project's other folders.
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
from memex_capture.summary import session_fragments
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
#: Most folders not resolved on disk yet that one brief resolves (a few syscalls each).
UNRESOLVED_LIMIT = 2000
#: Most briefs of a project's other folders that ``write_briefs`` refreshes.
REFRESH_FOLDERS = 4

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
    #: The folder the session starts in (its sessions first); the root when not given.
    cwd: str = ""
    #: The project's sessions found (newest first) and its notes' count.
    sessions: int = 0
    notes: int = 0

    @property
    def project_name(self) -> str:
        return os.path.basename(self.project_root.rstrip("/\\")) or self.project_root

    @property
    def is_empty(self) -> bool:
        return not self.items

    @property
    def subfolder(self) -> str:
        """The session's folder relative to the project's root ("" at the root)."""
        return _relative(self.cwd or self.project_root, self.project_root)

    def header(self) -> str:
        first = f"; sessions in {self.subfolder} first" if self.subfolder else ""
        return (
            f"# memex: memory of earlier work in {self.project_name} ({self.project_root})"
            f"{first}\n"
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
            "cwd": self.cwd or self.project_root,
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
    #: The folders it ran in: as recorded, and with symlinks resolved.
    folders: set[str] = field(default_factory=set)
    #: Whether it ran in the brief's own folder (those come first).
    here: bool = False


def project_sessions(mx: Memex, project_root: str, cwd: str | None = None) -> list[_Session]:
    """The project's sessions: those whose recorded folder (or its real path) lies at or
    under ``project_root``, or whose repository is ``project_root``. Those that ran in
    ``cwd`` (default: the root) first, then newest first."""
    roots = _variants(project_root)
    here = _variants(cwd or project_root)
    # Folders nobody has resolved yet (ingested, not captured here): resolved now, on
    # this host, and asked for by name when they lie in the project.
    resolved_now = {
        folder: resolved
        for folder in mx.catalog.unresolved_session_folders(UNRESOLVED_LIMIT)
        if (resolved := _realpath(folder)) != folder and _inside(resolved, roots)
    }
    rows = mx.catalog.project_sessions(sorted(roots), sorted(roots), sorted(resolved_now))
    sessions: dict[str, _Session] = {}
    for row in rows:
        entry = sessions.setdefault(row.session_id, _Session(row.session_id, [], None, None))
        if row.conversation_id not in entry.conversations:
            entry.conversations.append(row.conversation_id)
        entry.folders.add(row.cwd)
        real = row.real_path or resolved_now.get(row.cwd)
        if real:
            entry.folders.add(real)
        if row.last_at is not None:
            entry.last = row.last_at if entry.last is None else max(entry.last, row.last_at)
        if row.first_at is not None:
            entry.first = row.first_at if entry.first is None else min(entry.first, row.first_at)
    for entry in sessions.values():
        entry.here = bool(entry.folders & here)
        entry.conversations.sort()
    return sorted(
        sessions.values(),
        key=lambda s: (
            not s.here,
            -(s.last if s.last is not None else float("-inf")),
            s.session_id,
        ),
    )


def project_notes(mx: Memex, project_root: str) -> list[str]:
    """Conversation ids of the notes ingested from a vault at or under ``project_root``."""
    return mx.catalog.notes_in_folder(sorted(_variants(project_root)), os.sep)


def build_brief(
    mx: Memex, project_root: str, *, budget: int | None = None, cwd: str | None = None
) -> Brief:
    """The brief of the project at ``project_root`` for a session starting in ``cwd``
    (default: the root) within ``budget`` characters (default ``[capture]
    session_start_budget``), header included."""
    if budget is None:
        budget = settings_from_config(mx.config).session_start_budget
    if budget < 200:
        raise MemexError(f"The brief's budget must be at least 200 characters, not {budget}.")
    root = _absolute(project_root)
    folder = _absolute(cwd) if cwd else root
    brief = Brief(root, budget, cwd=folder)
    sessions = project_sessions(mx, root, folder)
    notes = project_notes(mx, root)
    brief.sessions, brief.notes = len(sessions), len(notes)
    if not sessions and not notes:
        return brief
    room = budget - len(brief.header()) - 2
    builder = _Builder(brief, room)

    # 1. The last sessions' summaries: this folder's first, newest first.
    recent = sessions[:QUERY_SESSIONS]
    loaded = {s.session_id: mx.conversation(s.session_id) for s in recent}
    summary_room = int(room * SUMMARY_SHARE)
    requests: list[str] = []
    for rank, session in enumerate(recent):
        fragments = loaded[session.session_id]
        own = [f for f in fragments if not is_session_summary(f)]
        if not own:
            continue
        stored = [f for f in fragments if is_session_summary(f)]
        if stored:
            summary = summarize_session(own, session_id=session.session_id)
        else:  # built now, with its sub-agents' work, as the worker would store it
            summary = summarize_session(
                session_fragments(mx, session.session_id), session_id=session.session_id
            )
        if summary.request:
            requests.append(summary.request)
        if rank >= SUMMARY_SESSIONS:
            continue
        when = _date(session.last) if session.last is not None else "undated"
        where = _where(brief, session)
        previous = _where(brief, recent[rank - 1]) if rank else None
        which = "earlier session" if where == previous else "last session"
        if stored:
            item_id, text = stored[-1].id, stored[-1].content
            detail = f"{which} {where}, {when}"
        else:
            item_id, text = own[0].id, summary.render()
            detail = f"{which} {where}, {when}; summary built now"
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


def write_brief(
    mx: Memex, home: str | os.PathLike[str], project_root: str, cwd: str | None = None
) -> str:
    """Build the brief of the project for a session starting in ``cwd`` (default: its
    root) and write it to ``layout.brief_file`` of that folder (atomically: a temporary
    file renamed over it, mode 0600). Returns the path. An empty brief removes the file
    instead: the hook prints nothing when there is none."""
    brief = build_brief(mx, project_root, cwd=cwd)
    path = layout.brief_file(os.fspath(home), brief.cwd or brief.project_root)
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


def write_briefs(mx: Memex, home: str | os.PathLike[str], cwd: str) -> list[str]:
    """Write every brief a session starting in the project of ``cwd`` may be given: the
    project's, the folder's own when ``cwd`` is not the project's root, and (refreshed,
    up to :data:`REFRESH_FOLDERS`, the most recently active first) those already
    written for the project's other folders, which now miss the newest session.
    Returns the paths written (or removed, for an empty brief)."""
    folder, root = layout.folder_and_root(cwd)
    paths = [write_brief(mx, home, root)]
    done = {root}
    if folder != root:
        paths.append(write_brief(mx, home, root, folder))
        done.add(folder)
    others: list[str] = []
    by_activity = sorted(
        project_sessions(mx, root),
        key=lambda s: -(s.last if s.last is not None else float("-inf")),
    )
    for session in by_activity:
        for other in sorted(session.folders):
            if other in done or other in others or not _inside(other, {root}):
                continue
            if os.path.exists(layout.brief_file(os.fspath(home), other)):
                others.append(other)
    for other in others[:REFRESH_FOLDERS]:
        paths.append(write_brief(mx, home, root, other))
    return paths


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


def _absolute(path: str) -> str:
    path = os.path.abspath(os.path.expanduser(path))
    return path.rstrip("/\\") or path


def _realpath(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):  # a loop of links, a NUL in a recorded path
        return path


def _variants(folder: str) -> set[str]:
    """``folder`` as given and with symlinks resolved (the same path twice when none)."""
    folder = folder.rstrip("/\\") or folder
    return {folder, _realpath(folder)}


def _inside(path: str, roots: set[str]) -> bool:
    """Whether ``path`` is one of ``roots`` or lies under one ('/' or '\\' separated)."""
    for root in roots:
        base = root.rstrip("/\\")
        if path == root or any(path.startswith(base + sep) for sep in ("/", "\\")):
            return True
    return False


def _relative(path: str, root: str) -> str:
    """``path`` relative to ``root`` ("" for the root itself, the path when outside it)."""
    if path == root or not _inside(path, {root}):
        return "" if path == root else path
    return path[len(root.rstrip("/\\")) + 1 :]


def _where(brief: Brief, session: _Session) -> str:
    """Where a session ran, said from the brief's folder: "in this folder", "in this
    project" (its root, or one of its folders: named when the brief is not at the root)."""
    if session.here:
        return "in this folder" if brief.subfolder else "in this project"
    inside = sorted(
        _relative(folder, brief.project_root)
        for folder in session.folders
        if _inside(folder, {brief.project_root})
    )
    if not inside or not inside[0]:
        return "in this project"
    return f"in this project ({inside[0]})"


def _one_line(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def _date(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d %H:%M UTC")
