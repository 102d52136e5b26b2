"""The catalog contract for a batch of fragments, on every engine (``catalog`` is
parametrized over SQLite and PostgreSQL, tests/support/catalog_fixtures.py).

SQLite stores a batch one ``INSERT`` per row; PostgreSQL by one ``COPY`` of the new rows
(memex_postgres.bulk) with its journal written per statement (its schema 8). These tests
pin down that both store the same thing: rows, positions, insertion order and journal
entries, for batches holding ids stored before, ids twice, and text COPY must escape.
"""

from __future__ import annotations

from typing import Any

from memex_core.catalog import SqlCatalog
from memex_core.domain import Fragment, Provenance


def fragment(fid: str, conversation: str = "c", **fields: Any) -> Fragment:
    timestamp = fields.get("timestamp", 1_700_000_000.5)
    return Fragment(
        id=fid,
        conversation_id=conversation,
        role=fields.get("role", "user"),
        content=fields.get("content", f"text of {fid}"),
        provenance=Provenance("test", fields.get("path", "/x/file.json"), fid, "l", timestamp),
        timestamp=timestamp,
        title=fields.get("title"),
        metadata=fields.get("metadata", {}),
    )


def add(catalog: SqlCatalog, fragments: list[Fragment], path: str) -> list[Fragment]:
    run = catalog.start_run("test")
    return catalog.add_file(
        run_id=run, path=path, sha256=path, size=1, source_kind="test", fragments=fragments
    )


def stored(catalog: SqlCatalog) -> list[tuple[Any, ...]]:
    """(id, conversation, content, position) of every fragment, in insertion order."""
    return catalog.query(
        "SELECT id, conversation_id, content, position FROM fragments ORDER BY seq"
    )[1]


def test_a_batch_with_stored_and_repeated_ids_stores_what_row_by_row_inserts_would(
    catalog: SqlCatalog,
) -> None:
    add(catalog, [fragment("a"), fragment("b"), fragment("c")], "/1")
    # b is stored (its conversation is numbered from 0 again: b moves to 0, x comes after).
    new = add(catalog, [fragment("b", content="changed"), fragment("x")], "/2")
    assert [f.id for f in new] == ["x"]
    # d twice: its first row is stored, at the position of its last.
    batch = [
        fragment("d", "k", content="first d"),
        fragment("e", "k"),
        fragment("d", "k", content="second d"),
    ]
    new = add(catalog, batch, "/3")
    assert [f.id for f in new] == ["d", "e", "d"]
    assert stored(catalog) == [
        ("a", "c", "text of a", 0),
        ("b", "c", "text of b", 0),  # the stored row stays; only its position moved
        ("c", "c", "text of c", 2),
        ("x", "c", "text of x", 1),
        ("d", "k", "first d", 2),
        ("e", "k", "text of e", 1),
    ]
    last, ids = catalog.fragment_changes_since(0)
    assert ids == ["a", "b", "c", "x", "d", "e"]  # added ones only, in insertion order
    assert last == catalog.last_fragment_change()


def test_a_large_batch_comes_back_as_stored_with_its_journal_in_order(
    catalog: SqlCatalog,
) -> None:
    """2,500 fragments in 50 conversations, with text that COPY's format must escape
    (tabs, newlines, backslashes, a literal \\N), NUL, unicode, whole-second and missing
    timestamps, titles, metadata."""
    awkward = ["tab\there", "line\nbreak\r\n", "back\\slash", "\\N", "nul\x00byte", "émoji 🧠"]
    batch = [
        fragment(
            f"f{n:05d}",
            f"conv-{n % 50}",
            role="user" if n % 2 else "assistant",
            content=f"{awkward[n % len(awkward)]} {n}",
            timestamp=(None, 1_700_000_000, 1_700_000_000.25)[n % 3],
            title=None if n % 4 else f"title\t{n}",
            metadata={"n": n, "text": awkward[n % len(awkward)]},
        )
        for n in range(2500)
    ]
    new = add(catalog, batch, "/big")
    assert [f.id for f in new] == [f.id for f in batch]
    got = catalog.get_many([f.id for f in batch])
    for f in batch:
        back = got[f.id]
        # PostgreSQL's text holds no NUL: it is stored as U+FFFD there.
        content = back.content.replace("\ufffd", "\x00")
        metadata = {k: v.replace("\ufffd", "\x00") if isinstance(v, str) else v
                    for k, v in back.metadata.items()}  # fmt: skip
        assert (content, back.timestamp, back.title, metadata, back.role) == (
            f.content,
            f.timestamp,
            f.title,
            f.metadata,
            f.role,
        )
    positions = catalog.query(
        "SELECT conversation_id, position FROM fragments WHERE conversation_id = 'conv-7' "
        "ORDER BY seq"
    )[1]
    assert positions == [("conv-7", p) for p in range(50)]
    last, ids = catalog.fragment_changes_since(0)
    assert ids == [f.id for f in batch]
    assert last == catalog.last_fragment_change()
    # A second batch re-sending half of them adds only the rest, journalled after.
    more = [fragment(f"g{n:05d}", "conv-1") for n in range(10)]
    new = add(catalog, batch[::2] + more, "/big-again")
    assert [f.id for f in new] == [f.id for f in more]
    assert catalog.fragment_changes_since(last)[1] == [f.id for f in more]
    assert catalog.count_fragments() == 2510
