"""Isolation matrix, family 6 beneath the handles: the catalog's scoped methods, called
directly with alice's scope, read nothing and write nothing outside it (in process only:
the catalog is no surface an agent reaches; this is the defence under every surface)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from memex_core.catalog.memory_records import MemoryAccessDenied, MemoryWrite
from memex_core.domain.memory.records import AGENT, Actor, Revision, Scope
from tests.isolation.surfaces import CATALOG, InProcess, on
from tests.isolation.world import ALICE, ALICE_BOT, ALICE_OWNER, READABLE


def alice_scope() -> Scope:
    return Scope(Actor(AGENT, ALICE_BOT, ALICE), readable=READABLE, writable=(ALICE_OWNER,))


def bob_fragment_ids(surface: InProcess) -> list[str]:
    return [
        str(r[0])
        for r in surface.mx.query("SELECT id, owner FROM fragments")[1]
        if r[1] == "users/bob"
    ]


CATALOG_READS = {
    "memory": lambda c, h: c.memory(alice_scope(), h.ids["bob_file"]),
    "memory-deleted": lambda c, h: c.memory(alice_scope(), h.ids["bob_deleted_fact"]),
    "memory-at-path": lambda c, h: c.memory_at_path(alice_scope(), "users/bob/secret.md"),
    "memories-owner-bob": lambda c, h: c.memories(
        alice_scope(), owners=("users/bob",), statuses=("active", "deleted", "invalidated")
    ),
    "collections-owner-bob": lambda c, h: c.memory_collections(alice_scope(), ("users/bob",)),
    "memories-by-fragment": lambda c, h: c.memories_by_fragment(alice_scope(), bob_fragment_ids(h)),
    "revisions": lambda c, h: c.revisions(alice_scope(), h.ids["bob_fact"]),
    "outlinks": lambda c, h: c.memory_outlinks(alice_scope(), h.ids["bob_file"]),
    "backlinks": lambda c, h: c.memory_backlinks(alice_scope(), h.ids["bob_file"]),
    "empty-scope": lambda c, h: c.memory(
        Scope(Actor(AGENT, "x", "x"), readable=(), writable=()), h.ids["alice_fact"]
    ),
}


@on(CATALOG)
@pytest.mark.parametrize("call", list(CATALOG_READS))
def test_the_catalog_reads_nothing_outside_the_scope(surface: InProcess, call: str) -> None:
    assert CATALOG_READS[call](surface.mx.catalog, surface) in (None, [], {})


@on(CATALOG)
def test_the_catalog_lists_no_collection_only_bob_uses(surface: InProcess) -> None:
    names = surface.mx.catalog.memory_collections(alice_scope())
    assert "acme:bob" not in names and "acme:carol" not in names
    assert "acme" in names


def forged_write(surface: InProcess, **changes: Any) -> MemoryWrite:
    record = replace(surface.mx.operator().get(surface.ids["alice_fact"]), **changes)
    record = replace(record, revision=record.revision + 1, content="forged by alice")
    revision = Revision(
        record.id,
        record.revision,
        record.content,
        record.kind,
        record.status,
        "update",
        f"agent:{ALICE_BOT}",
        0.0,
    )
    return MemoryWrite(record, revision, "x")


CATALOG_WRITES = {
    "record-owned-by-bob": lambda h: forged_write(
        h, id="mem_forged00000000000a", owner="users/bob"
    ),
    "alice-owner-on-bobs-id": lambda h: forged_write(h, id=h.ids["bob_fact"]),
    "bobs-record-as-is": lambda h: forged_write(
        h, **{k: getattr(h.mx.operator().get(h.ids["bob_fact"]), k) for k in ("id", "owner")}
    ),
}


@on(CATALOG)
@pytest.mark.parametrize("call", list(CATALOG_WRITES))
def test_the_catalog_refuses_writes_outside_the_scope(surface: InProcess, call: str) -> None:
    before = surface.foreign_state()
    with pytest.raises(MemoryAccessDenied):
        surface.mx.catalog.write_memory(alice_scope(), CATALOG_WRITES[call](surface))
    with pytest.raises(MemoryAccessDenied):
        surface.mx.catalog.purge_memories(alice_scope(), [surface.ids["bob_fact"]])
    assert surface.foreign_state() == before


def test_the_catalog_refuses_an_alice_record_stored_under_bobs_path(tiny: InProcess) -> None:
    surface = tiny
    write = forged_write(surface, id="mem_forged00000000000b", path="users/bob/planted.md")
    with pytest.raises(MemoryAccessDenied):
        surface.mx.catalog.write_memory(alice_scope(), write)
