"""A catalog as memex wrote it before facts had validity (schema 8), holding one fact,
for the migration tests of both engines."""

from __future__ import annotations

from memex_core.catalog.base import SqlCatalog
from memex_core.domain.memory.records import OPERATOR, Actor, Scope

OPERATOR_SCOPE = Scope(Actor(OPERATOR, "operator"), None, None)
CREATED = 1_700_000_000.0  # 2023-11-14T22:13:20Z


def store_old_fact(catalog: SqlCatalog) -> None:
    """One fact, written with schema 8's columns only."""
    with catalog.transaction() as db:
        db.execute(
            "INSERT INTO memories (id, owner, collection, path, kind, status, revision, "
            "private, fingerprint, created_at, updated_at) VALUES "
            "('mem_old', 'users/alice', '', NULL, 'misc', 'active', 1, 0, 'f', ?, ?)",
            (CREATED, CREATED),
        )
        db.execute(
            "INSERT INTO memory_revisions (memory_id, revision, content, kind, status, action, "
            "actor, created_at) VALUES ('mem_old', 1, 'Alice lives in Paris', 'misc', "
            "'active', 'create', 'agent:a', ?)",
            (CREATED,),
        )


def assert_reads_as_valid_from_recorded(catalog: SqlCatalog) -> None:
    record = catalog.memory(OPERATOR_SCOPE, "mem_old")
    assert record is not None and record.content == "Alice lives in Paris"
    assert record.valid_from == CREATED and record.is_current and record.superseded_by is None
    shown = record.to_dict()
    assert shown["valid_from"] == shown["recorded_at"] == "2023-11-14T22:13:20Z"
    assert shown["valid_until"] is None and shown["created_at"] == CREATED
    stored = catalog.query("SELECT valid_from, valid_until, superseded_by FROM memories")[1]
    assert [tuple(row) for row in stored] == [(CREATED, None, None)]
