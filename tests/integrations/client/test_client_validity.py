"""Facts that change over time through ``MemexClient`` (issue 30): ``remember(at=)``,
``recall(as_of=, include_superseded=)`` and ``history(id)`` as ``Memex`` has them, on an
agent key and with the operator secret; the handles' ``search(as_of=)`` and ``chain``;
the dataclasses come back with their validity in epoch seconds, as the local ones."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime

import pytest

pytest.importorskip("fastapi", reason="memex serve needs memex[server]")
pytest.importorskip("uvicorn", reason="memex serve needs memex[server]")

from memex_client import MemexClient
from memex_client.errors import MemexClientError, PermissionDeniedError
from memex_core.api import Memex
from tests.support.server_fixtures import CLIENT_TIMEOUT, keyword_only_home, served

JUNE = datetime(2024, 6, 1, tzinfo=UTC).timestamp()


@pytest.fixture(scope="module")
def clients(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[MemexClient, ...]]:
    home = keyword_only_home(tmp_path_factory.mktemp("client-validity") / "home")
    with served(home) as service:
        op = MemexClient(service.url, admin_secret=service.admin_secret, timeout=CLIENT_TIMEOUT)
        alice = MemexClient(
            service.url,
            api_key=op.create_key("alice", name="alice-bot")["key"],
            timeout=CLIENT_TIMEOUT,
        )
        yield alice, op, home
        alice.close()
        op.close()


def test_alice_moves_through_the_client(clients: tuple) -> None:
    alice, op, home = clients
    paris = alice.remember("Alice lives in Paris", at=date(2024, 1, 10)).memory_ids[0]
    berlin = alice.remember("Alice moved to Berlin", at="2024-06-01").memory_ids[0]

    now = alice.recall("Alice", mode="keyword")
    assert [h.memory_id for h in now] == [berlin] and now[0].is_current
    assert now[0].valid_from == JUNE and now[0].recorded_at is not None

    then = alice.recall("Alice", mode="keyword", as_of=datetime(2024, 3, 1))
    assert [h.memory_id for h in then] == [paris]
    assert then[0].valid_until == JUNE and then[0].superseded_by == berlin

    everything = alice.recall("Alice", mode="keyword", include_superseded=True)
    assert {h.memory_id for h in everything} == {paris, berlin}

    chain = alice.history(berlin)
    assert [r.id for r in chain] == [paris, berlin]
    assert chain[0].valid_until == JUNE and chain[1].is_current
    assert [r.id for r in alice.agent().chain(paris)] == [paris, berlin]
    hits = alice.agent().search("Alice", mode="keyword", as_of="2024-03-01")
    assert [h.memory_id for h in hits] == [paris]

    # The operator names the user; the records are those the local Memex returns.
    assert [h.memory_id for h in op.recall("Alice", user="alice", mode="keyword")] == [berlin]
    assert [r.id for r in op.history(paris, user="alice")] == [paris, berlin]
    with Memex(home) as mx:
        local = mx.history(paris, user="alice")
    remote = op.history(paris)
    assert [(r.id, r.valid_until, r.superseded_by) for r in remote] == [
        (r.id, r.valid_until, r.superseded_by) for r in local
    ]
    assert [r.holds_from for r in remote] == pytest.approx([r.holds_from for r in local])
    assert remote[1] == local[1]  # valid from its record time: the same record exactly


def test_users_are_checked(clients: tuple) -> None:
    alice, op, _ = clients
    with pytest.raises(PermissionDeniedError):
        alice.recall("Alice", user="bob")
    with pytest.raises(MemexClientError, match="user="):
        op.remember("Bob lives in Oslo")


def test_a_bad_date_is_one_line(clients: tuple) -> None:
    alice, _, _ = clients
    with pytest.raises(MemexClientError, match="as_of 'someday' is not a date") as caught:
        alice.recall("Alice", as_of="someday")
    assert "\n" not in str(caught.value)
