"""Dream plans and collections through ``memex serve``: a real server on loopback, the Python
client and raw requests. The client's ``dream_plan``/``apply_dream``/``collections`` give what
the local handles give; a plan is applied only if it is still the plan that was reviewed."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="memex serve needs memex[server]")
pytest.importorskip("uvicorn", reason="memex serve needs memex[server]")

from memex_client import MemexClient
from memex_client.errors import PlanChangedError
from memex_core.api import Memex
from memex_core.services.dream import DreamPlanStale
from tests.support.server_fixtures import (
    CLIENT_TIMEOUT,
    Raw,
    assert_clean_response,
    error_of,
    served,
)
from tests.support.server_fixtures import keyword_only_home as make_home


@dataclass
class World:
    home: Path
    url: str
    secret: str
    alice_key: str
    first: str
    second: str

    def alice(self) -> MemexClient:
        return MemexClient(self.url, api_key=self.alice_key, timeout=CLIENT_TIMEOUT)

    def operator(self) -> MemexClient:
        return MemexClient(self.url, admin_secret=self.secret, timeout=CLIENT_TIMEOUT)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    home = make_home(tmp_path_factory.mktemp("dream") / "home")
    with Memex(home) as mx:
        alice = mx.agent("alice")
        first = alice.remember("Alice prefers window seats on long flights", collection="travel")
        second = alice.remember("Alice prefers a window seat on long flights", collection="travel")
        mx.agent("bob").remember("Bob prefers window seats on long flights", collection="travel")
        _, key = mx.agent_keys().create("alice", name="travel-bot")
    with served(home) as service:
        yield World(
            home,
            service.url,
            service.admin_secret,
            key,
            first.memory_ids[0],
            second.memory_ids[0],
        )


def test_collections_over_http(world: World) -> None:
    assert world.alice().agent().collections() == ["travel"]
    assert world.alice().agent().collections(user_id="bob") == []
    assert world.operator().operator().collections(user_id="bob") == ["travel"]


def test_a_plan_made_over_http_is_the_local_plan(world: World) -> None:
    remote = world.alice().agent().dream_plan("travel")
    with Memex(world.home) as mx:
        local = mx.agent("alice").dream_plan("travel")
    assert remote.digest == local.digest
    assert [d.decision.action for d in remote.report.decisions] == ["ADD", "NONE"]
    assert remote.report.decisions[1].decision.target_id == world.first
    # bob's fact is not in alice's plan, and another user's plan is empty
    assert {d.examined_id for d in remote.report.decisions} == {world.first, world.second}
    assert world.alice().agent().dream_plan("travel", user_id="bob").report.decisions == []


def test_a_changed_memory_refuses_the_plan_then_a_new_plan_applies(world: World) -> None:
    agent = world.alice().agent()
    plan = agent.dream_plan("travel")
    agent.remember("Alice flies to Lisbon in May", collection="travel")
    with pytest.raises(PlanChangedError) as refused:
        agent.apply_dream(plan)
    assert isinstance(refused.value, DreamPlanStale) and refused.value.code == "plan_changed"
    assert agent.get(world.second).status == "active"

    raw = Raw(world.url, world.alice_key)
    status, code, _ = error_of(
        raw.post("/v1/memory/dream/apply", {"collection": "travel", "digest": plan.digest})
    )
    assert (status, code) == (409, "plan_changed")

    fresh = agent.dream_plan("travel")
    report = agent.apply_dream(fresh)
    assert [d.decision.action for d in report.decisions] == ["ADD", "NONE", "ADD"]
    assert all(d.applied for d in report.decisions)
    assert agent.get(world.second).status == "invalidated"
    log = world.operator().operator().access_log(action="dream", limit=1)
    assert (log[0].actor, log[0].detail.get("plan")) == ("travel-bot", fresh.digest)


def test_raw_plan_answer_carries_its_digest(world: World) -> None:
    body = assert_clean_response(
        Raw(world.url, world.secret).post("/v1/admin/memory/dream/plan", {"user_id": "bob"})
    )
    assert set(body) == {"digest", "collection", "user_id", "groups", "state", "report"}
    assert body["user_id"] == "bob" and body["groups"] == [["users/bob", "travel"]]
    assert len(body["digest"]) == 24
