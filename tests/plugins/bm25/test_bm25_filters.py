"""Filters inside the bm25 store reproduce SearchFilters.matches, before top-k."""

from __future__ import annotations

import math
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memex_bm25.store import BM25Store
from memex_bm25.tokenizer import Tokenizer
from memex_core.domain import ROLES, Fragment, Provenance, SearchFilters

SOURCES = ("chatgpt", "claude_ai", "codex")
CONVERSATIONS = ("conv-a", "conv-b", "conv-c", "conv-ü")
PLAIN = Tokenizer(stemmer=None, stopwords=None)

timestamps = st.one_of(
    st.none(),
    st.floats(min_value=0, max_value=100, allow_nan=False),
    st.sampled_from([0.0, 50.0, 100.0, math.nan, math.inf]),
)
fragment_specs = st.lists(
    st.tuples(
        st.sampled_from(SOURCES),
        st.sampled_from(CONVERSATIONS),
        st.sampled_from(ROLES),
        timestamps,
    ),
    min_size=1,
    max_size=40,
)
bounds = st.one_of(
    st.none(),
    st.floats(min_value=-10, max_value=110, allow_nan=False),
    st.sampled_from([0.0, 50.0, 100.0, math.nan]),
)
search_filters = st.builds(
    SearchFilters,
    source_kinds=st.lists(st.sampled_from((*SOURCES, "unknown"))).map(tuple),
    conversation_ids=st.lists(st.sampled_from((*CONVERSATIONS, "conv-z"))).map(tuple),
    roles=st.lists(st.sampled_from((*ROLES, "narrator"))).map(tuple),
    since=bounds,
    until=bounds,
)


def build(specs: list[tuple[str, str, str, float | None]], directory: Path) -> list[Fragment]:
    return [
        Fragment(
            id=f"f{i}",
            conversation_id=conversation,
            role=role,
            # Every fragment holds the shared word and a unique one, so "shared" scores
            # every fragment non-zero whatever N is (see test_bm25_store for N=1, 2).
            content=f"shared unique{i}",
            provenance=Provenance(source, str(directory), f"m{i}", f"loc{i}", timestamp),
            timestamp=timestamp,
        )
        for i, (source, conversation, role, timestamp) in enumerate(specs)
    ]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(specs=fragment_specs, filters=search_filters, split=st.integers(min_value=0, max_value=40))
def test_filtered_search_returns_exactly_the_matching_fragments(
    specs: list[tuple[str, str, str, float | None]], filters: SearchFilters, split: int
) -> None:
    # Nothing is flushed: the directory is never created.
    directory = Path("/nonexistent/memex-bm25-filter-test")
    fragments = build(specs, directory)
    store = BM25Store(directory, PLAIN)
    # Two batches with a search in between put fragments in two segments.
    store.add(fragments[:split])
    store.search("shared", 1, SearchFilters())
    store.add(fragments[split:])
    hits = store.search("shared", len(fragments), filters)
    assert {hit.id for hit in hits} == {f.id for f in fragments if filters.matches(f)}


def test_filters_apply_before_top_k(tmp_path: Path) -> None:
    store = BM25Store(tmp_path / "bm25", PLAIN)
    fragments = [
        Fragment(
            id=f"f{i}",
            conversation_id="c",
            role="assistant" if i < 50 else "user",
            # The assistant fragments repeat the word and outscore every user fragment.
            content="needle " * (3 if i < 50 else 1) + f"hay{i}",
            provenance=Provenance("chatgpt", "p", f"m{i}", f"l{i}"),
        )
        for i in range(60)
    ]
    store.add(fragments)
    top = store.search("needle", 5, SearchFilters(roles=("user",)))
    assert [hit.id for hit in top] == ["f50", "f51", "f52", "f53", "f54"]


def test_time_filters_exclude_fragments_without_timestamp(tmp_path: Path) -> None:
    store = BM25Store(tmp_path / "bm25", PLAIN)
    store.add(
        [
            Fragment(
                id=name,
                conversation_id="c",
                role="user",
                content="word",
                provenance=Provenance("chatgpt", "p", name, name),
                timestamp=ts,
            )
            for name, ts in (("dated", 10.0), ("undated", None), ("late", 99.0))
        ]
    )
    assert {h.id for h in store.search("word", 10, SearchFilters(since=5.0))} == {"dated", "late"}
    assert {h.id for h in store.search("word", 10, SearchFilters(until=50.0))} == {"dated"}
    unknown_source = SearchFilters(source_kinds=("nope",))
    assert store.search("word", 10, unknown_source) == []
