"""How fragments map onto catalog rows (shared by the catalog's modules)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from memex_core.catalog.dbapi import Connection
from memex_core.domain import Fragment, Provenance

FRAGMENT_COLUMNS = (
    "id, conversation_id, role, content, title, timestamp, source_kind, "
    "source_path, source_id, locator, metadata, index_text, owner, collection, private"
)
INSERT_FRAGMENT = (
    f"INSERT INTO fragments ({FRAGMENT_COLUMNS}, ingest_run, position) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT(id) DO UPDATE SET position=excluded.position"
)


def id_chunks(ids: Sequence[str], size: int = 500) -> list[list[str]]:
    """``ids`` without repeats, in pieces of at most ``size``: an ``IN (...)`` list per
    piece stays under both engines' bound on parameters."""
    unique = list(dict.fromkeys(ids))
    return [unique[i : i + size] for i in range(0, len(unique), size)]


def is_storable(text: object) -> bool:
    """Whether ``text`` can be an id or key in the catalog: a string SQLite can bind.

    Ids arrive from agents and tool arguments; one holding half a surrogate pair
    (``"\ud800"``) cannot be encoded as UTF-8, so it names nothing stored. Lookups
    treat it as unknown instead of failing with a UnicodeEncodeError.
    """
    if not isinstance(text, str):
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def fragment_rows(
    fragments: Sequence[Fragment], run_id: int | None, first: Mapping[str, int] | None = None
) -> list[tuple[Any, ...]]:
    """Insert rows for ``INSERT_FRAGMENT``; position counts within each conversation,
    from ``first[conversation]`` (default 0)."""
    positions: dict[str, int] = dict(first or {})
    rows = []
    for f in fragments:
        position = positions.get(f.conversation_id, 0)
        positions[f.conversation_id] = position + 1
        rows.append(
            (
                f.id,
                f.conversation_id,
                f.role,
                f.content,
                f.title,
                f.timestamp,
                f.provenance.source_kind,
                f.provenance.source_path,
                f.provenance.source_id,
                f.provenance.locator,
                json.dumps(f.metadata, ensure_ascii=False, default=str),
                f.index_text,
                f.owner,
                f.collection,
                int(f.private),
                run_id,
                position,
            )
        )
    return rows


def continued_positions(db: Connection, fragments: Sequence[Fragment]) -> dict[str, int]:
    """Where each conversation the batch continues goes on: after its last stored position.

    A conversation continues when it has stored fragments and the batch holds none of
    them (more turns from another file or another ``add_fragments`` call). A batch that
    re-sends stored fragments (a re-read file) numbers its conversation from 0 again,
    as the file did the first time.
    """
    by_conversation: dict[str, list[str]] = {}
    for fragment in fragments:
        by_conversation.setdefault(fragment.conversation_id, []).append(fragment.id)
    stored: set[str] = set()
    ids = [i for i in dict.fromkeys(f.id for f in fragments) if is_storable(i)]
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        marks = ",".join("?" * len(chunk))
        stored.update(
            r[0] for r in db.execute(f"SELECT id FROM fragments WHERE id IN ({marks})", chunk)
        )
    fresh = [c for c, members in by_conversation.items() if stored.isdisjoint(members)]
    first: dict[str, int] = {}
    for start in range(0, len(fresh), 500):
        chunk = fresh[start : start + 500]
        # One MAX per conversation: each is the last entry of the (conversation_id,
        # position) index on both engines, where MAX ... GROUP BY over IN reads every
        # stored row of those conversations, a cost that grew with the catalog.
        values = ",".join("(?)" for _ in chunk)
        for conversation, last in db.execute(
            "SELECT column1, (SELECT MAX(position) FROM fragments WHERE conversation_id = "
            f"column1) FROM (VALUES {values}) AS wanted",
            chunk,
        ):
            if last is not None:
                first[conversation] = int(last) + 1
    return first


def row_to_fragment(row: Sequence[Any]) -> Fragment:
    (fid, conv, role, content, title, ts, kind, path, source_id, locator, meta, index_text) = row[
        :12
    ]
    owner, collection, private = row[12:15]
    return Fragment(
        id=fid,
        conversation_id=conv,
        role=role,
        content=content,
        provenance=Provenance(
            source_kind=kind,
            source_path=path,
            source_id=source_id,
            locator=locator,
            timestamp=ts,
        ),
        timestamp=ts,
        title=title,
        metadata=json.loads(meta) if meta else {},
        index_text=index_text,
        owner=owner,
        collection=collection,
        private=bool(private),
    )


def delete_fragments(db: Connection, ids: Sequence[str]) -> None:
    """Delete fragments and their links; queue their vectors for deletion."""
    for start in range(0, len(ids), 500):
        chunk = list(ids[start : start + 500])
        marks = ",".join("?" * len(chunk))
        db.execute(f"DELETE FROM fragments WHERE id IN ({marks})", chunk)
        db.execute(f"DELETE FROM links WHERE source_fragment IN ({marks})", chunk)
        db.executemany(
            "INSERT INTO pending_vector_deletes (id) VALUES (?) ON CONFLICT (id) DO NOTHING",
            [(i,) for i in chunk],
        )


def drop_unkept(
    db: Connection, column: str, value: str, fragments: Sequence[Fragment]
) -> list[str]:
    """Delete the fragments whose ``column`` is ``value`` that ``fragments`` no longer
    yields (an earlier version of the same file, document or memory); returns their ids."""
    keep = {f.id for f in fragments}
    previous = [r[0] for r in db.execute(f"SELECT id FROM fragments WHERE {column}=?", (value,))]
    removed = [i for i in previous if i not in keep]
    delete_fragments(db, removed)
    return removed


def last_seq(db: Connection) -> Any:
    """The newest fragment's ``seq`` (0 when there is none): what :func:`added_since` takes."""
    return db.execute("SELECT COALESCE(MAX(seq), 0) FROM fragments").fetchone()[0]


def added_since(db: Connection, before: Any, fragments: Sequence[Fragment]) -> list[Fragment]:
    """Those of ``fragments`` that were inserted after ``seq`` ``before`` (not there already)."""
    new_ids = {r[0] for r in db.execute("SELECT id FROM fragments WHERE seq > ?", (before,))}
    return [f for f in fragments if f.id in new_ids]


def _earliest(column: str) -> str:
    """The earlier of the stored and the incoming ``column`` (either may be NULL); a CASE,
    since SQLite's two-argument MIN is LEAST elsewhere."""
    old, new = f"conversations.{column}", f"excluded.{column}"
    return f"CASE WHEN {old} IS NULL OR {new} < {old} THEN {new} ELSE {old} END"


def _latest(column: str) -> str:
    """The later of the stored and the incoming ``column`` (either may be NULL)."""
    old, new = f"conversations.{column}", f"excluded.{column}"
    return f"CASE WHEN {old} IS NULL OR {new} > {old} THEN {new} ELSE {old} END"


def upsert_conversations(db: Connection, fragments: Sequence[Fragment]) -> None:
    spans: dict[str, list[Any]] = {}
    for f in fragments:
        span = spans.setdefault(
            f.conversation_id,
            [f.source_kind, f.title, None, None, f.provenance.source_path],
        )
        if f.timestamp is not None:
            span[2] = f.timestamp if span[2] is None else min(span[2], f.timestamp)
            span[3] = f.timestamp if span[3] is None else max(span[3], f.timestamp)
    db.executemany(
        "INSERT INTO conversations (id, source_kind, title, first_at, last_at, source_path) "
        "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO UPDATE SET "
        "title=COALESCE(excluded.title, conversations.title), "
        f"first_at={_earliest('first_at')}, last_at={_latest('last_at')}",
        [(cid, *span) for cid, span in spans.items()],
    )
