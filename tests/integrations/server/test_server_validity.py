"""Facts that change over time over HTTP (issue 30): ``as_of`` and ``include_superseded``
on recall, ``at`` on remember, the chain route, the four validity fields (ISO 8601, UTC) on
every memory record and hit, and a bad date refused in one line (422). One keyword-only
server with the default (rules) supersession judge serves the module; the same through
``MemexClient`` is tests/integrations/client/test_client_validity.py."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="memex serve needs memex[server]")
pytest.importorskip("uvicorn", reason="memex serve needs memex[server]")

from memex_client import MemexClient
from tests.support.server_fixtures import (
    CLIENT_TIMEOUT,
    Raw,
    assert_clean_response,
    error_of,
    keyword_only_home,
    served,
)

FIELDS = {"valid_from", "valid_until", "superseded_by", "recorded_at"}


@dataclass
class Moved:
    raw: Raw
    op: Raw
    paris: str
    berlin: str


@pytest.fixture(scope="module")
def moved(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Moved]:
    """Alice's agent told that she lives in Paris (2024-01-10), then that she moved to
    Berlin (2024-06-01)."""
    home = keyword_only_home(tmp_path_factory.mktemp("validity") / "home")
    with served(home) as service:
        op = MemexClient(service.url, admin_secret=service.admin_secret, timeout=CLIENT_TIMEOUT)
        raw = Raw(service.url, op.create_key("alice", name="alice-bot")["key"])
        told = [
            assert_clean_response(raw.post("/v1/memory/remember", {"text": text, "at": at}))
            for text, at in (
                ("Alice lives in Paris", "2024-01-10"),
                ("Alice moved to Berlin", "2024-06-01T00:00:00Z"),
            )
        ]
        paris, berlin = (t["decisions"][0]["memory_id"] for t in told)
        yield Moved(raw, Raw(service.url, service.admin_secret), paris, berlin)
        raw.close()


def recall(moved: Moved, **options: Any) -> list[dict[str, Any]]:
    body = {"query": "Alice", "mode": "keyword", **options}
    return list(assert_clean_response(moved.raw.post("/v1/memory/search", body)))


def test_recall_gives_current_facts_with_their_validity(moved: Moved) -> None:
    hits = recall(moved)
    assert [h["memory_id"] for h in hits] == [moved.berlin]
    assert set(hits[0]) >= FIELDS
    assert hits[0]["valid_from"] == "2024-06-01T00:00:00Z"
    assert hits[0]["valid_until"] is None and hits[0]["superseded_by"] is None
    assert hits[0]["recorded_at"].endswith("Z")


def test_recall_as_of_an_earlier_date_gives_the_fact_then(moved: Moved) -> None:
    for as_of in ("2024-03-01", "2024-03-01T12:00:00+02:00", 1709251200):
        hits = recall(moved, as_of=as_of)
        assert [h["memory_id"] for h in hits] == [moved.paris], as_of
        assert hits[0]["valid_from"] == "2024-01-10T00:00:00Z"
        assert hits[0]["valid_until"] == "2024-06-01T00:00:00Z"
        assert hits[0]["superseded_by"] == moved.berlin
    assert [h["memory_id"] for h in recall(moved, as_of="2024-07-01")] == [moved.berlin]
    assert recall(moved, as_of="2023-12-31") == []


def test_include_superseded_gives_every_fact(moved: Moved) -> None:
    hits = recall(moved, include_superseded=True)
    assert {h["memory_id"] for h in hits} == {moved.paris, moved.berlin}
    closed = next(h for h in hits if h["memory_id"] == moved.paris)
    assert closed["superseded_by"] == moved.berlin


def test_the_chain_route_gives_paris_then_berlin(moved: Moved) -> None:
    for ref in (moved.paris, moved.berlin):
        chain = assert_clean_response(moved.raw.post("/v1/memory/chain", {"ref": ref}))
        assert [r["id"] for r in chain] == [moved.paris, moved.berlin]
    paris, berlin = chain
    assert paris["valid_until"] == berlin["valid_from"] == "2024-06-01T00:00:00Z"
    assert paris["superseded_by"] == moved.berlin and berlin["valid_until"] is None


def test_records_carry_the_four_fields(moved: Moved) -> None:
    record = assert_clean_response(moved.raw.post("/v1/memory/get", {"ref": moved.paris}))
    assert set(record) >= FIELDS
    assert record["valid_until"] == "2024-06-01T00:00:00Z"
    listed = assert_clean_response(moved.raw.post("/v1/memory/list", {}))
    assert all(set(r) >= FIELDS for r in listed) and len(listed) == 2


def test_the_operator_reads_by_time_too(moved: Moved) -> None:
    body = {"query": "Alice", "mode": "keyword", "user_id": "alice", "as_of": "2024-03-01"}
    hits = assert_clean_response(moved.op.post("/v1/admin/memory/search", body))
    assert [h["memory_id"] for h in hits] == [moved.paris]
    chain = assert_clean_response(moved.op.post("/v1/admin/memory/chain", {"ref": moved.paris}))
    assert [r["id"] for r in chain] == [moved.paris, moved.berlin]


def test_view_search_reads_memory_by_time(moved: Moved) -> None:
    body = {"query": "Alice", "mode": "keyword", "corpus": False}

    def texts(**options: Any) -> str:
        found = assert_clean_response(moved.raw.post("/v1/search", {**body, **options}))
        return " ".join(r["fragment"]["content"] for r in found["results"])

    assert "Berlin" in texts() and "Paris" not in texts()
    assert "Paris" in texts(as_of="2024-03-01") and "Berlin" not in texts(as_of="2024-03-01")
    assert "Paris" in texts(include_superseded=True)


@pytest.mark.parametrize(
    ("route", "body", "name"),
    [
        ("/v1/memory/search", {"query": "Alice", "as_of": "last spring"}, "as_of"),
        ("/v1/memory/search", {"query": "Alice", "as_of": "2024-13-45"}, "as_of"),
        ("/v1/memory/remember", {"text": "Alice lives in Rome", "at": "yesterday-ish"}, "at"),
        ("/v1/search", {"query": "Alice", "as_of": "soon"}, "as_of"),
    ],
)
def test_a_bad_date_is_422_in_one_line(moved: Moved, route: str, body: Any, name: str) -> None:
    status, code, message = error_of(moved.raw.post(route, body))
    assert (status, code) == (422, "invalid_request")
    assert f"{name} " in message and "ISO 8601" in message and "\n" not in message
    assert "Value error" not in message


def test_restore_answers_the_record_with_its_validity(moved: Moved) -> None:
    """A restore reopens a fact closed by mistake; the operator's route answers the record
    as the memory routes do (ISO 8601 times)."""
    told = [
        assert_clean_response(moved.raw.post("/v1/memory/remember", {"text": text, "at": at}))
        for text, at in (
            ("Carl lives in Oslo", "2022-01-10"),
            ("Carl moved to Bergen", "2023-01-10"),
        )
    ]
    oslo = told[0]["decisions"][0]["memory_id"]
    closed = assert_clean_response(moved.raw.post("/v1/memory/get", {"ref": oslo}))
    assert closed["valid_until"] == "2023-01-10T00:00:00Z"
    body = {"ref": oslo, "revision": 1}
    record = assert_clean_response(moved.op.post("/v1/admin/memory/restore", body))
    assert set(record) >= FIELDS and record["id"] == oslo
    assert record["valid_from"] == "2022-01-10T00:00:00Z"
    assert record["valid_until"] is None and record["superseded_by"] is None
