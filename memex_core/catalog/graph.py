"""Reading the link graph and walking fragments in order: what explore, timeline
and context are built from. Mixed into the catalog; read-only."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from memex_core.catalog.dbapi import CatalogPart
from memex_core.catalog.documents import DOCUMENT_COLUMNS, row_to_document
from memex_core.catalog.rows import FRAGMENT_COLUMNS, id_chunks, is_storable, row_to_fragment
from memex_core.domain import DocumentRecord, Fragment, ResolvedLink, SearchFilters
from memex_core.domain.filters import NAMED_ONLY_SOURCES
from memex_core.domain.memory.records import MEMORY_SOURCE
from memex_core.domain.turn_context import DIALOGUE_ROLES, TurnText

_LINK_COLUMNS = (
    "source_document, source_fragment, target, kind, heading, block, display, target_path, "
    "target_document"
)
_ORDER = "ORDER BY position IS NULL, position, seq"
_TURN_ROLES = ",".join(f"'{role}'" for role in DIALOGUE_ROLES)


def _row_to_link(row: Sequence[Any]) -> ResolvedLink:
    return ResolvedLink(*row)


class LinkGraph(CatalogPart):
    """Mixed into :class:`~memex_core.catalog.base.SqlCatalog`; uses its connection."""

    # -- documents ------------------------------------------------------------------

    def document(self, document_id: str) -> DocumentRecord | None:
        row = self._db.execute(
            f"SELECT {DOCUMENT_COLUMNS} FROM documents WHERE id=?", (document_id,)
        ).fetchone()
        return row_to_document(row) if row else None

    def documents(self, document_ids: Sequence[str]) -> dict[str, DocumentRecord]:
        found: dict[str, DocumentRecord] = {}
        for chunk in id_chunks(document_ids):
            marks = ",".join("?" * len(chunk))
            for row in self._db.execute(
                f"SELECT {DOCUMENT_COLUMNS} FROM documents WHERE id IN ({marks})", chunk
            ):
                found[row[0]] = row_to_document(row)
        return found

    def find_documents(self, name: str) -> list[DocumentRecord]:
        """Documents a person might mean by ``name``: an id, a relative path (with or
        without ``.md``), a title or an alias; case-insensitive, exact matches first."""
        wanted = name.strip().replace("\\", "/").lower()
        rows = self._db.execute(f"SELECT {DOCUMENT_COLUMNS} FROM documents ORDER BY path")
        exact: list[DocumentRecord] = []
        loose: list[DocumentRecord] = []
        for row in rows:
            doc = row_to_document(row)
            path = doc.path.lower()
            stem = path[:-3] if path.endswith(".md") else path
            if wanted in (doc.id.lower(), path, stem):
                exact.append(doc)
            elif wanted == doc.title.lower() or wanted in (a.lower() for a in doc.aliases):
                loose.append(doc)
        return exact or sorted(loose, key=lambda d: (len(d.path), d.path))

    def corpus_documents(self, limit: int) -> list[tuple[str, str, str]]:
        """(id, path, title) of the corpus' documents (not memory files, nor a repository's
        code files: those are no notes), by path."""
        hidden = (MEMORY_SOURCE, *NAMED_ONLY_SOURCES)
        rows = self._db.execute(
            "SELECT id, path, title FROM documents "
            f"WHERE source_kind NOT IN ({','.join('?' * len(hidden))}) ORDER BY path LIMIT ?",
            (*hidden, limit),
        )
        return [(str(r[0]), str(r[1]), str(r[2])) for r in rows]

    # -- links ----------------------------------------------------------------------

    def outlinks(self, document_id: str) -> list[ResolvedLink]:
        rows = self._db.execute(
            f"SELECT {_LINK_COLUMNS} FROM links WHERE source_document=? ORDER BY id",
            (document_id,),
        )
        return [_row_to_link(r) for r in rows]

    def backlinks(self, document_id: str) -> list[ResolvedLink]:
        """Links from other documents that resolve to this one."""
        rows = self._db.execute(
            f"SELECT {_LINK_COLUMNS} FROM links WHERE target_document=? "
            "AND source_document != ? ORDER BY source_document, id",
            (document_id, document_id),
        )
        return [_row_to_link(r) for r in rows]

    def backlink_counts(self, fragment_ids: Sequence[str]) -> dict[str, int]:
        """For each fragment id, how many other documents link to its document."""
        counts: dict[str, int] = {i: 0 for i in fragment_ids}
        for chunk in id_chunks(fragment_ids):
            marks = ",".join("?" * len(chunk))
            rows = self._db.execute(
                "SELECT f.id, COUNT(DISTINCT l.source_document) FROM fragments f "
                "JOIN links l ON l.target_document = f.conversation_id "
                f"AND l.source_document != f.conversation_id WHERE f.id IN ({marks}) "
                "GROUP BY f.id",
                chunk,
            )
            counts.update({r[0]: int(r[1]) for r in rows})
        return counts

    def held_source_kinds(self, kinds: Sequence[str]) -> tuple[str, ...]:
        """Which of ``kinds`` (folder sources, such as code) have a document here, in order:
        a probe of the documents table, small next to the fragments."""
        return tuple(
            kind
            for kind in kinds
            if self._db.execute(
                "SELECT 1 FROM documents WHERE source_kind=? LIMIT 1", (kind,)
            ).fetchone()
        )

    def source_counts(self, kind: str) -> dict[str, Any]:
        """What source ``kind`` holds: its folders (``roots``), ``documents``,
        ``conversations``, and fragments by role (``roles``); ``memex corpus`` counts code
        apart with it."""
        documents, roots = self._db.execute(
            "SELECT COUNT(*), COUNT(DISTINCT root) FROM documents WHERE source_kind=?", (kind,)
        ).fetchone()
        conversations = self._db.execute(
            "SELECT COUNT(*) FROM conversations WHERE source_kind=?", (kind,)
        ).fetchone()[0]
        rows = self._db.execute(
            "SELECT role, COUNT(*) FROM fragments WHERE source_kind=? GROUP BY role", (kind,)
        )
        return {
            "roots": int(roots),
            "documents": int(documents),
            "conversations": int(conversations),
            "roles": {str(r[0]): int(r[1]) for r in rows},
        }

    def source_roots(self, kind: str) -> dict[str, int]:
        """The folders source ``kind`` was read from (a repository, for code), each with
        how many documents it holds."""
        rows = self._db.execute(
            "SELECT root, COUNT(*) FROM documents WHERE source_kind=? GROUP BY root", (kind,)
        )
        return {str(r[0]): int(r[1]) for r in rows}

    def count_documents(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM documents").fetchone()[0])

    def count_links(self) -> tuple[int, int]:
        """(all links, unresolved links)."""
        row = self._db.execute(
            "SELECT COUNT(*), COALESCE(SUM(CASE WHEN target_path IS NULL THEN 1 ELSE 0 END), 0) "
            "FROM links"
        ).fetchone()
        return int(row[0]), int(row[1])

    # -- fragments in order ------------------------------------------------------------

    def conversation_fragments(self, conversation_id: str) -> list[Fragment]:
        """A conversation's (or note's) fragments in their order."""
        rows = self._db.execute(
            f"SELECT {FRAGMENT_COLUMNS} FROM fragments WHERE conversation_id=? {_ORDER}",
            (conversation_id,),
        )
        return [row_to_fragment(r) for r in rows]

    def turn_windows(
        self, fragment_ids: Sequence[str], lookback: int | None
    ) -> tuple[dict[str, list[TurnText]], dict[str, int]]:
        """The dialogue turns that context for ``fragment_ids`` can come from, in order.

        For each conversation of those fragments: its turns from ``lookback`` positions
        before the first of them onwards (``None``: all of them), so adding a batch to a
        long conversation reads its end, not all of it. Also returns each window's first
        position (0: the whole conversation), for a caller that finds a window too short
        (a message split into many chunks) to ask again further back.
        """
        first: dict[str, int] = {}
        for chunk in id_chunks([i for i in fragment_ids if is_storable(i)]):
            marks = ",".join("?" * len(chunk))
            for conversation, position in self._db.execute(
                "SELECT conversation_id, MIN(COALESCE(position, 0)) FROM fragments "
                f"WHERE id IN ({marks}) GROUP BY conversation_id",
                chunk,
            ):
                first[conversation] = min(position, first.get(conversation, position))
        starts = {
            conversation: 0 if lookback is None else max(0, at - lookback)
            for conversation, at in first.items()
        }
        return self._turns_from(starts), starts

    def _turns_from(self, starts: dict[str, int]) -> dict[str, list[TurnText]]:
        """Each conversation's dialogue turns from its start position on, in order."""
        whole = sorted(c for c, start in starts.items() if start <= 0)
        windowed = sorted(c for c, start in starts.items() if start > 0)
        found: dict[str, list[TurnText]] = {}
        # Whole conversations by a plain IN (about twice as fast as the join a rebuild
        # would otherwise make), windows by joining each conversation's start.
        for chunk in id_chunks(whole):
            self._collect_turns(
                found, "fragments", f"conversation_id IN ({','.join('?' * len(chunk))})", chunk
            )
        for chunk in id_chunks(windowed):
            source, params = self.dialect.turn_windows([(c, starts[c]) for c in chunk])
            self._collect_turns(found, source, "1=1", params)
        return found

    def _collect_turns(
        self, found: dict[str, list[TurnText]], source: str, where: str, params: list[Any]
    ) -> None:
        rows = self._db.execute(
            f"SELECT conversation_id, id, {self.dialect.json_text('metadata', 'message_id')}, "
            f"COALESCE(index_text, content), seq FROM {source} "
            f"WHERE {where} AND role IN ({_TURN_ROLES}) AND source_kind != ? "
            f"ORDER BY conversation_id, {_ORDER[len('ORDER BY ') :]}",
            (*params, MEMORY_SOURCE),
        )
        for conversation, fid, message, text, seq in rows:
            message = fid if message is None else str(message)
            found.setdefault(conversation, []).append(TurnText(fid, message, text, seq))

    def fragment_positions(self, ids: Sequence[str]) -> dict[str, tuple[str, int]]:
        """(conversation id, position) of each of ``ids`` stored with a position (a rerank
        tells from them which candidates are next to each other), in one query per 500."""
        found: dict[str, tuple[str, int]] = {}
        for chunk in id_chunks([i for i in dict.fromkeys(ids) if is_storable(i)]):
            marks = ",".join("?" * len(chunk))
            for fid, conversation, position in self._db.execute(
                "SELECT id, conversation_id, position FROM fragments "
                f"WHERE id IN ({marks}) AND position IS NOT NULL",
                chunk,
            ):
                found[fid] = (conversation, int(position))
        return found

    def neighbours(self, fragment_id: str, before: int, after: int) -> list[Fragment]:
        """Up to ``before`` fragments preceding ``fragment_id`` in its conversation, the
        fragment itself, and up to ``after`` following it; empty if the id is unknown."""
        if not is_storable(fragment_id):
            return []
        row = self._db.execute(
            "SELECT conversation_id FROM fragments WHERE id=?", (fragment_id,)
        ).fetchone()
        if row is None:
            return []
        ordered = self.conversation_fragments(row[0])
        index = next(i for i, f in enumerate(ordered) if f.id == fragment_id)
        return ordered[max(0, index - before) : index + after + 1]

    def recent_fragments(
        self, limit: int, offset: int = 0, filters: SearchFilters | None = None
    ) -> list[Fragment]:
        """Newest fragments first (by timestamp; undated ones last), ties by insertion order,
        only those passing ``filters`` (same semantics as :meth:`SearchFilters.matches`)."""
        where, params = _filter_sql(filters)
        rows = self._db.execute(
            f"SELECT {FRAGMENT_COLUMNS} FROM fragments {where} "
            "ORDER BY timestamp IS NULL, timestamp DESC, seq DESC LIMIT ? OFFSET ?",
            (*params, limit, offset),
        )
        return [row_to_fragment(r) for r in rows]

    def count_matching(self, filters: SearchFilters) -> tuple[int, int]:
        """How many fragments pass ``filters`` (same semantics as
        :meth:`SearchFilters.matches`), and how many of those have vectors: what
        no-results guidance counts within one caller's reach."""
        where, params = _filter_sql(filters)
        row = self._db.execute(
            f"SELECT COUNT(*), COUNT(embedded_by) FROM fragments {where}", params
        ).fetchone()
        return int(row[0]), int(row[1])

    def fragment_ids_matching(self, filters: SearchFilters, limit: int) -> list[str]:
        """The ids of at most ``limit`` fragments passing ``filters`` (as
        :meth:`count_matching` counts them), in the order they were stored: a memory
        write ranks one owner's few facts by their vectors itself
        (:mod:`memex_core.services.listed_vectors`)."""
        where, params = _filter_sql(filters)
        rows = self._db.execute(
            f"SELECT id FROM fragments {where} ORDER BY seq LIMIT ?", (*params, limit)
        )
        return [str(r[0]) for r in rows]


def _filter_sql(filters: SearchFilters | None) -> tuple[str, list[Any]]:
    filters = filters or SearchFilters()
    clauses: list[str] = [] if filters.include_private else ["private = 0"]
    params: list[Any] = []
    for column, values in filters.value_filters():
        if values:
            clauses.append(f"{column} IN ({','.join('?' * len(values))})")
            params.extend(values)
    hidden = filters.hidden_source_kinds()
    if hidden:
        clauses.append(f"source_kind NOT IN ({','.join('?' * len(hidden))})")
        params.extend(hidden)
    if filters.since is not None:
        clauses.append("timestamp >= ?")
        params.append(filters.since)
    if filters.until is not None:
        clauses.append("timestamp <= ?")
        params.append(filters.until)
    return ("WHERE " + " AND ".join(clauses), params) if clauses else ("", [])
