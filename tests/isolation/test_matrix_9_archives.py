"""Isolation matrix, family 9: archives over HTTP (``GET /v1/export``). An agent key's
export holds its own user's memory, revisions and access-log entries, never another
user's or shared memory, whatever the request adds (query parameters naming bob,
``Memex-User``); another agent's key gets its own user's, never alice's; the operator
routes (``/v1/admin/export``, ``/v1/admin/import``) refuse agent keys (family 6 covers
them with every admin route)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.isolation.surface_http import ACME_BOT, MEMORY_ONLY_BOT, Http
from tests.isolation.surfaces import RAW_HTTP, on
from tests.isolation.world import ALICE, ALICE_BOT, ALICE_OWNER
from tests.support.archive_members import archive_rows
from tests.support.memory_attacks import BOB_CANARY, BOB_HIDDEN, CAROL_CANARY, FOREIGN_MARKERS
from tests.support.server_fixtures import Raw, error_of

CONTENT = ("memories.jsonl", "memory_revisions.jsonl", "fragments.jsonl", "documents.jsonl")
BENT_PARAMS = {"user": "bob", "user_id": "bob", "owner": "users/bob", "collection": "acme:bob"}


def export(raw: Raw, **options: Any) -> dict[str, list[dict[str, Any]]]:
    response = raw.get("/v1/export", **options)
    assert response.status_code == 200, response.text[:300]
    assert response.headers["content-type"] == "application/zip"
    return archive_rows(response.content)


def assert_only(rows: dict[str, list[dict[str, Any]]], owner: str, user: str) -> None:
    """Every content row is ``owner``'s, every log entry about ``user``."""
    memories = rows.get("memories.jsonl", [])
    assert {m["owner"] for m in memories} <= {owner}
    assert {f["owner"] for f in rows.get("fragments.jsonl", [])} <= {owner}
    ids = {m["id"] for m in memories}
    assert {r["memory_id"] for r in rows.get("memory_revisions.jsonl", [])} <= ids
    assert {e["user_id"] for e in rows.get("access_log.jsonl", [])} <= {user}


@on(RAW_HTTP)
@pytest.mark.parametrize("key", [ALICE_BOT, ACME_BOT, MEMORY_ONLY_BOT])
def test_an_agents_export_holds_its_users_memory_only(surface: Http, key: str) -> None:
    before = surface.foreign_state()
    raw = surface.raw(key)
    rows = export(raw)
    assert rows["memories.jsonl"], "alice's memory is exported"
    assert_only(rows, ALICE_OWNER, ALICE)
    if key == ACME_BOT:  # bound to a collection: that collection's memory, no log
        assert {m["collection"].split(":")[0] for m in rows["memories.jsonl"]} == {"acme"}
        assert "access_log.jsonl" not in rows or not rows["access_log.jsonl"]
    content = json.dumps({name: rows.get(name, []) for name in CONTENT})
    assert not [m for m in FOREIGN_MARKERS if m in content]
    assert not [i for i in surface.foreign_ids() if i in content]
    assert not [f for f in surface.foreign_fragments() if f in content]
    # alice's log entries hold what she typed (a search's target is its query: matrix 6 has
    # her search for bob's hidden word), never his text
    untyped = [{**e, "target": ""} for e in rows.get("access_log.jsonl", [])]
    assert BOB_HIDDEN not in json.dumps(untyped)
    for name, rows_of in archive_rows(raw.get("/v1/export", params=BENT_PARAMS).content).items():
        assert rows_of == rows.get(name, rows_of) or name == "access_log.jsonl"
    assert surface.foreign_state() == before


@on(RAW_HTTP)
@pytest.mark.parametrize("named", ["bob", "carol", "alice"])
def test_an_agent_key_cannot_export_as_anyone_with_memex_user(surface: Http, named: str) -> None:
    response = surface.raw().get("/v1/export", headers={"Memex-User": named})
    status, code, message = error_of(response)
    assert (status, code) == (403, "forbidden") and "Memex-User" in message
    surface.assert_reveals_nothing(response)


@on(RAW_HTTP)
def test_another_users_key_exports_theirs_never_alices(surface: Http) -> None:
    made = surface.op.create_key("bob", name="bob-export")
    try:
        rows = export(Raw(surface.service.url, made["key"]))
    finally:
        surface.op.revoke_key("bob-export")
    assert_only(rows, "users/bob", "bob")
    text = json.dumps(rows)
    assert BOB_CANARY in text  # bob's own memory is there
    assert CAROL_CANARY not in text
    alice_ids = {
        r[0] for r in surface.rows("SELECT id FROM memories WHERE owner = ?", (ALICE_OWNER,))
    }
    assert alice_ids and not [i for i in alice_ids if i in text]


@on(RAW_HTTP)
def test_the_operator_secret_is_not_an_agents_export(surface: Http) -> None:
    status, code, _ = error_of(surface.op_raw.get("/v1/export"))
    assert (status, code) == (403, "agent_only")
    assert error_of(Raw(surface.service.url).get("/v1/export"))[0] == 401
