"""The working folders agent sessions ran in (table ``session_projects``), so a project's
sessions are found through an index instead of by reading every fragment's metadata.

One row per conversation and folder its fragments recorded (metadata ``cwd``: Claude
Code and Codex transcripts; any source that records one), kept at ingest in the same
transaction as the fragments and backfilled by migration 7 for homes built before it.
Only the corpus counts (owner ``''``, not private): agent memory has no working folder.

What a folder *is* on disk (its real path with symlinks resolved, the git repository
it lies in) is not the catalog's to find out: the host that can read the folders (the
capture worker, see ``memex_capture.folders``) records it with
:meth:`SessionFolders.resolve_session_folders`; until then ``real_path`` is NULL.

"At or under a folder" is asked as a range of the column's values (``folder/`` up to
``folder0``, the character after ``/``; the same for ``\\``), so an index answers it on
both engines (PostgreSQL's text columns use the ``"C"`` collation: byte order, as
SQLite's BINARY).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from memex_core.catalog.dbapi import CatalogPart, Connection
from memex_core.domain import Fragment

#: The separators a recorded folder may use (POSIX, Windows).
SEPARATORS = ("/", "\\")
#: Longest list of values sent in one ``IN (...)`` (SQLite's default limit is 32,766).
_CHUNK = 500


class SessionFolder(NamedTuple):
    """One conversation of a session and one folder it recorded."""

    session_id: str
    conversation_id: str
    cwd: str
    real_path: str | None
    repo_root: str | None
    first_at: float | None
    last_at: float | None


def folder_rows(fragments: Iterable[Fragment]) -> list[tuple[str, str, str, str]]:
    """``(conversation, cwd, session, source kind)`` of each conversation and folder the
    corpus fragments among ``fragments`` recorded, once each, in order."""
    rows: dict[tuple[str, str], tuple[str, str, str, str]] = {}
    for fragment in fragments:
        if fragment.owner or fragment.private:
            continue
        cwd = fragment.metadata.get("cwd")
        if not isinstance(cwd, str) or not cwd:
            continue
        key = (fragment.conversation_id, cwd)
        if key not in rows:
            session = fragment.metadata.get("session_id")
            session_id = str(session) if session else fragment.conversation_id
            rows[key] = (fragment.conversation_id, cwd, session_id, fragment.source_kind)
    return list(rows.values())


def upsert_session_folders(db: Connection, fragments: Sequence[Fragment]) -> None:
    """Record the folders ``fragments`` name (inside the caller's transaction). A row kept
    from before stays as it is: a transcript read again names the same folders, and what
    was resolved about them on disk must not be lost."""
    rows = folder_rows(fragments)
    if rows:
        db.executemany(
            "INSERT INTO session_projects (conversation_id, cwd, session_id, source_kind) "
            "VALUES (?, ?, ?, ?) ON CONFLICT (conversation_id, cwd) DO NOTHING",
            rows,
        )


def _at_or_under(column: str, folder: str) -> tuple[str, list[Any]]:
    """``column`` equal to ``folder`` or below it ('/' or '\\' separated), as ranges."""
    base = folder.rstrip("/\\")
    clauses, params = [f"{column} = ?"], [folder]
    if base and base != folder:
        clauses.append(f"{column} = ?")
        params.append(base)
    for sep in SEPARATORS:
        clauses.append(f"({column} >= ? AND {column} < ?)")
        params.extend([base + sep, base + chr(ord(sep) + 1)])
    return " OR ".join(clauses), params


class SessionFolders(CatalogPart):
    """The ``session_projects`` table: which folder each session ran in."""

    def project_sessions(
        self,
        folders: Sequence[str],
        repo_roots: Sequence[str] = (),
        cwds: Sequence[str] = (),
    ) -> list[SessionFolder]:
        """The conversations whose recorded folder lies at or under one of ``folders``
        (as recorded, or resolved), whose repository is one of ``repo_roots``, or whose
        recorded folder is exactly one of ``cwds``; one row per conversation and folder,
        ordered by session, conversation and folder. First and last times are the
        conversation's."""
        clauses: list[str] = []
        params: list[Any] = []
        for folder in dict.fromkeys(folders):
            for column in ("s.cwd", "s.real_path"):
                sql, values = _at_or_under(column, folder)
                clauses.append(sql)
                params.extend(values)
        for column, wanted in (("s.repo_root", repo_roots), ("s.cwd", cwds)):
            unique = list(dict.fromkeys(wanted))
            for start in range(0, len(unique), _CHUNK):
                chunk = unique[start : start + _CHUNK]
                clauses.append(f"{column} IN ({','.join('?' * len(chunk))})")
                params.extend(chunk)
        if not clauses:
            return []
        rows = self._db.execute(
            "SELECT s.session_id, s.conversation_id, s.cwd, s.real_path, s.repo_root, "
            "c.first_at, c.last_at FROM session_projects s "
            "LEFT JOIN conversations c ON c.id = s.conversation_id "
            f"WHERE {' OR '.join(f'({c})' for c in clauses)} "
            "ORDER BY s.session_id, s.conversation_id, s.cwd",
            params,
        )
        return [
            SessionFolder(
                str(r[0]),
                str(r[1]),
                str(r[2]),
                None if r[3] is None else str(r[3]),
                None if r[4] is None else str(r[4]),
                r[5],
                r[6],
            )
            for r in rows
        ]

    def session_conversations(self, session_id: str) -> list[str]:
        """Every conversation of a session that recorded a folder (its own, and its
        sub-agents', whose fragments name the parent session), sorted."""
        rows = self._db.execute(
            "SELECT DISTINCT conversation_id FROM session_projects WHERE session_id = ? "
            "ORDER BY conversation_id",
            (session_id,),
        )
        return [str(r[0]) for r in rows]

    def unresolved_session_folders(self, limit: int = 2000) -> list[str]:
        """Up to ``limit`` recorded folders nobody has resolved on disk yet, sorted."""
        rows = self._db.execute(
            "SELECT DISTINCT cwd FROM session_projects WHERE real_path IS NULL "
            "ORDER BY cwd LIMIT ?",
            (limit,),
        )
        return [str(r[0]) for r in rows]

    def resolve_session_folders(self, resolved: Mapping[str, tuple[str, str | None]]) -> int:
        """Record what each recorded folder is on disk: ``{cwd: (real path, repository
        root or None)}`` (caller holds the write lock). Returns the rows changed."""
        changed = 0
        with self.transaction() as db:
            for cwd, (real_path, repo_root) in resolved.items():
                cursor = db.execute(
                    "UPDATE session_projects SET real_path = ?, repo_root = ? WHERE cwd = ?",
                    (real_path, repo_root, cwd),
                )
                changed += max(cursor.rowcount, 0)
        return changed
