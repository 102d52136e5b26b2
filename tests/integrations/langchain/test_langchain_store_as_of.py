"""``MemexStore(as_of=...)`` (issue 30): a LangGraph store's items as they stood at a time.
Items are memory files, revised rather than superseded, so an item as of a time is its
revision current then: ``get`` returns that value, ``search`` (with and without a query,
with a filter) looks through the values of that time, an item not yet written or deleted
then is not there, bob's items never show, and such a store writes nothing. The times asked
are the revisions' own (read through the operator), so nothing depends on the clock."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

pytest.importorskip("langgraph.store.base")

from memex_core.api import Memex
from memex_core.errors import MemexError
from memex_langchain import MemexStore
from memex_langchain.store_as_of import revision_at, word_score
from tests.support.component_doubles import fast_memex

NS = ("alice", "prefs")


@pytest.fixture
def mx(memex_home: Path) -> Iterator[Memex]:
    memex = fast_memex(memex_home)
    yield memex
    memex.close()


def written(mx: Memex, store: MemexStore, key: str, namespace: tuple[str, ...] = NS) -> list:
    """When each revision of an item was written (epoch seconds), oldest first."""
    record = mx.agent(namespace[0]).get(store._path("prefs", key))
    return [r.created_at for r in mx.operator().history(record.id)]


def test_get_and_search_read_the_revision_current_then(mx: Memex) -> None:
    store = MemexStore(mx)
    store.put(NS, "drink", {"likes": "green tea", "cups": 2})
    store.put(NS, "city", {"lives": "Paris"})
    store.put(NS, "drink", {"likes": "black coffee", "cups": 4})
    store.put(NS, "city", None)  # deleted
    store.put(NS, "food", {"likes": "ramen"})  # new after everything above
    store.put(("bob", "prefs"), "drink", {"likes": "green tea"})
    tea, coffee = written(mx, store, "drink")
    city_put, city_deleted = written(mx, store, "city")

    then = store.at(tea)
    item = then.get(NS, "drink")
    assert item is not None and item.value == {"likes": "green tea", "cups": 2}
    assert item.updated_at == datetime.fromtimestamp(tea, UTC)
    assert then.get(NS, "food") is None  # not written yet
    assert then.get(NS, "city") is None  # not written yet either
    assert MemexStore(mx, as_of=city_put).get(NS, "city").value == {"lives": "Paris"}
    assert MemexStore(mx, as_of=city_deleted).get(NS, "city") is None  # deleted then
    assert store.at(coffee).get(NS, "drink").value["likes"] == "black coffee"
    assert store.get(NS, "drink").value["likes"] == "black coffee"  # the store itself: now

    at_city = store.at(city_put)
    assert [i.key for i in at_city.search(("alice",))] == ["city", "drink"]  # newest first
    found = at_city.search(("alice",), query="green tea")
    assert [(i.key, i.value["likes"], i.score) for i in found] == [("drink", "green tea", 1.0)]
    assert store.at(coffee).search(("alice",), query="green tea") == []
    filtered = at_city.search(("alice",), filter={"cups": {"$lt": 3}})
    assert [i.key for i in filtered] == ["drink"]
    assert at_city.search(("alice",), limit=1, offset=1)[0].key == "drink"
    # bob's tea never shows in alice's past, and a store bound to alice cannot ask for his.
    assert all(i.namespace[0] == "alice" for i in at_city.search(("alice",), query="tea"))


def test_a_store_reading_the_past_writes_nothing(mx: Memex) -> None:
    store = MemexStore(mx, user="alice")
    store.put(NS, "drink", {"likes": "tea"})
    past = store.at("2024-05-01")
    assert past.as_of == datetime(2024, 5, 1, tzinfo=UTC).timestamp()
    assert past.user == "alice" and past.get(NS, "drink") is None
    with pytest.raises(MemexError, match=r"as of 2024-05-01.*put through a MemexStore without"):
        past.put(NS, "drink", {"likes": "coffee"})
    with pytest.raises(MemexError, match="as_of"):
        MemexStore(mx, as_of="the spring before")
    assert store.get(NS, "drink").value == {"likes": "tea"}


def test_revision_at_and_word_score() -> None:
    from memex_core.domain.memory.records import ACTIVE, DELETED, Revision

    def rev(n: int, at: float, status: str = ACTIVE) -> Revision:
        return Revision("mem_x", n, f"v{n}", "file", status, "write", "op", at)

    revisions = [rev(1, 10.0), rev(2, 20.0), rev(3, 30.0, DELETED), rev(4, 40.0)]
    assert revision_at(revisions, 9.9) is None
    assert [revision_at(revisions, t).revision for t in (10.0, 19.9, 20.0, 40.0)] == [1, 1, 2, 4]
    assert revision_at(revisions, 30.0) is None and revision_at(revisions, 35.0) is None
    assert word_score("green tea", '{"likes": "green tea"}') == 1.0
    assert word_score("green tea", '{"likes": "tea"}') == 0.5
    assert word_score("", "tea") == 0.0
