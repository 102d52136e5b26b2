"""Archives over HTTP, through memex_client against a real ``memex serve``: the operator's
export (whole, one user) and import (dry run, twice, a bad archive, an upload too large),
an agent key's export of its own user's memory only, and the refusals."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("fastapi", reason="memex serve needs memex[server]")

from memex_client import MemexClient
from memex_client.errors import MemexClientError, PermissionDeniedError
from memex_core.api import Memex
from tests.support.archive_members import archive_rows
from tests.support.memex_service import Service, running_service
from tests.support.server_fixtures import CLIENT_TIMEOUT, keyword_only_home

ALICE, BOB = "zqxalicearchive", "zqxbobarchive"


@dataclass
class Served:
    service: Service
    alice_key: str
    bob_key: str
    home: Path

    def operator(self) -> MemexClient:
        return MemexClient(
            self.service.url, admin_secret=self.service.admin_secret, timeout=CLIENT_TIMEOUT
        )

    def agent(self, key: str) -> MemexClient:
        return MemexClient(self.service.url, api_key=key, timeout=CLIENT_TIMEOUT)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    home = keyword_only_home(tmp_path_factory.mktemp("archives") / "home")
    with Memex(home) as mx:
        mx.agent("alice").remember(f"Alice keeps the {ALICE} ledger", collection="notes")
        mx.agent("alice").write("user/diary.md", f"# Diary\n\n{ALICE} plans.\n")
        mx.agent("bob").remember(f"Bob keeps the {BOB} jar")
        mx.operator().write("shared/handbook.md", "# Handbook\n\nzqxsharedarchive rules.\n")
        mx.agent("alice").search(ALICE)
        mx.agent("bob").search(BOB)
        _, alice_key = mx.agent_keys().create("alice", name="alice-agent")
        _, bob_key = mx.agent_keys().create("bob", name="bob-agent")
    with running_service(home) as service:
        yield Served(service, alice_key, bob_key, home)


def exported(client: MemexClient, **filters: Any) -> tuple[bytes, dict[str, list[Any]]]:
    out = io.BytesIO()
    size = client.export_archive(out, **filters)
    assert size == len(out.getvalue()) > 0
    return out.getvalue(), archive_rows(out.getvalue())


def text(rows: dict[str, list[dict[str, Any]]]) -> str:
    return json.dumps(rows)


def owners(rows: dict[str, list[dict[str, Any]]]) -> set[str]:
    return {r["owner"] for r in rows.get("memories.jsonl", [])}


def test_the_operator_exports_everything_or_one_user(served: Served) -> None:
    with served.operator() as client:
        _, rows = exported(client)
        assert owners(rows) == {"users/alice", "users/bob", "shared"}
        assert ALICE in text(rows) and BOB in text(rows)
        _, rows = exported(client, user="alice")
        assert owners(rows) == {"users/alice"}
        assert {e["user_id"] for e in rows["access_log.jsonl"]} == {"alice"}
        assert ALICE in text(rows) and BOB not in text(rows)
        _, rows = exported(client, with_log=False)
        assert "access_log.jsonl" not in rows


def test_an_agent_exports_its_own_users_memory_only(served: Served, tmp_path: Path) -> None:
    with served.agent(served.alice_key) as client:
        target = tmp_path / "alice.zip"
        size = client.export_archive(target)
        data = target.read_bytes()
        assert size == len(data)
        rows = archive_rows(data)
        assert owners(rows) == {"users/alice"}
        assert len(rows["memory_revisions.jsonl"]) == 2
        assert rows["access_log.jsonl"]
        assert {e["user_id"] for e in rows["access_log.jsonl"]} == {"alice"}
        assert BOB not in text(rows) and "zqxsharedarchive" not in text(rows)
        with pytest.raises(PermissionDeniedError):
            client.export_archive(io.BytesIO(), user="bob")
        with pytest.raises(MemexClientError, match="exports its user's memory whole"):
            client.export_archive(io.BytesIO(), collection="notes")
    with served.agent(served.bob_key) as client:
        _, rows = exported(client)
        assert owners(rows) == {"users/bob"}


def test_the_operator_routes_refuse_an_agent_key(served: Served) -> None:
    url = served.service.url
    headers = {"Authorization": f"Bearer {served.alice_key}"}
    for method, path in (("GET", "/v1/admin/export"), ("POST", "/v1/admin/import")):
        response = httpx.request(method, url + path, headers=headers, content=b"x" * 10)
        assert response.status_code == 403, (path, response.text)
        assert response.json()["error"]["code"] == "operator_only"
    secret = {"Authorization": f"Bearer {served.service.admin_secret}"}
    response = httpx.get(url + "/v1/export", headers=secret)
    assert response.status_code == 403
    assert httpx.get(url + "/v1/export").status_code == 401


def test_an_archive_imports_into_another_served_home(served: Served, tmp_path: Path) -> None:
    with served.operator() as client:
        data, rows = exported(client)
        again = client.import_archive(io.BytesIO(data))  # into the home it came from
        assert again["added"] == 0 and again["conflict_count"] == 0
    other = keyword_only_home(tmp_path / "other")
    with running_service(other, extra_args=("--max-upload", str(len(data) * 4))) as service:
        client = MemexClient(service.url, admin_secret=service.admin_secret, timeout=CLIENT_TIMEOUT)
        with client:
            planned = client.import_archive(io.BytesIO(data), dry_run=True)
            assert planned["dry_run"] and planned["added"] > 0
            assert client.operator().list(user_id="alice") == []  # a dry run wrote nothing
            report = client.import_archive(io.BytesIO(data))
            assert report["added"] == planned["added"]
            assert report["tables"]["memories"]["added"] == len(rows["memories.jsonl"])
            alice = client.operator().search(ALICE, user_id="alice")
            assert alice and ALICE in alice[0].text
            assert client.import_archive(io.BytesIO(data))["added"] == 0  # idempotent
            with pytest.raises(MemexClientError) as bad:
                client.import_archive(io.BytesIO(data[: len(data) // 2]))
            assert bad.value.status == 422 and "\n" not in str(bad.value)
            message = str(bad.value)
            assert message.startswith("the upload: refused") and str(other) not in message
            with pytest.raises(MemexClientError) as large:
                client.import_archive(io.BytesIO(b"x" * (len(data) * 4 + 1)))
            assert large.value.status == 413
            with pytest.raises(MemexClientError) as empty:
                client.import_archive(io.BytesIO(b""))
            assert empty.value.status == 422 and "upload is empty" in str(empty.value)
    assert not [p for p in (other / "uploads").iterdir() if p.name.startswith(".")]


def test_a_purge_over_http_answers_its_receipt(tmp_path: Path) -> None:
    """The other half of a data request: the receipt travels (POST /v1/admin/memory/purge)."""
    home = keyword_only_home(tmp_path / "home")
    with Memex(home) as mx:
        mx.agent("alice").remember(f"Alice keeps the {ALICE} ledger")
        mx.agent("alice").write("user/diary.md", f"# Diary\n\n{ALICE} plans.\n")
        mx.agent("bob").remember(f"Bob keeps the {BOB} jar")
    with running_service(home) as service:
        client = MemexClient(service.url, admin_secret=service.admin_secret, timeout=CLIENT_TIMEOUT)
        with client:
            receipt = client.operator().purge_receipt(user_id="alice", confirm="alice")
            assert (receipt.purged, receipt.user_id, len(receipt.memory_ids)) == (2, "alice", 2)
            assert receipt.rows_removed["memories"] == 2
            assert receipt.rows_removed["documents"] == 1
            assert receipt.keyword_entries_removed == 2
            assert receipt.vectors_removed is None  # keyword-only: no vector store in use
            assert receipt.before.tables["memories"] == 3
            assert client.operator().purge(user_id="bob", confirm="bob") == 1
            _, rows = exported(client)
            assert "memories.jsonl" not in rows or rows["memories.jsonl"] == []
