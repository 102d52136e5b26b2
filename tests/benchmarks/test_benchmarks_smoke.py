"""The benchmark metrics on hand-computed examples (no timing, no data needed), quick runs
of the context-budget and vault phases on the shared data (skipped when it is absent), and
the memory phases' fact generator and tiny runs."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest

from benchmarks import context_budget, memory_duplicates, memory_throughput, reworded_facts, vault
from benchmarks.context import RunContext, Sizes
from benchmarks.context_budget import BUDGET, fit_whole, from_pack, turn_recall
from benchmarks.metrics import dedupe, mean, ndcg_at_k, percentile, recall_at_k
from benchmarks.report import Section
from memex_core.domain.disclosure import QUERY_MATCH, RECENCY, ContextItem, ContextPack
from tests.support._data import shared_data_dir


def test_ndcg_perfect_ranking_is_one() -> None:
    assert ndcg_at_k(["a", "b", "x"], {"a": 1, "b": 1}) == pytest.approx(1.0)


def test_ndcg_single_relevant_at_rank_three() -> None:
    # DCG = 1/log2(4) = 0.5; IDCG = 1/log2(2) = 1.
    assert ndcg_at_k(["x", "y", "a"], {"a": 1}) == pytest.approx(0.5)


def test_ndcg_two_relevant_at_ranks_two_and_four() -> None:
    dcg = 1 / math.log2(3) + 1 / math.log2(5)
    idcg = 1 + 1 / math.log2(3)
    assert ndcg_at_k(["x", "a", "y", "b"], {"a": 1, "b": 1}) == pytest.approx(dcg / idcg)


def test_ndcg_graded_gains_are_linear() -> None:
    # pytrec_eval's ndcg uses the grade itself as gain: DCG = 1 + 2/log2(3); IDCG = 2 + 1/log2(3).
    expected = (1 + 2 / math.log2(3)) / (2 + 1 / math.log2(3))
    assert ndcg_at_k(["b", "a"], {"a": 2, "b": 1}) == pytest.approx(expected)


def test_ndcg_ignores_hits_beyond_k_and_repeats() -> None:
    assert ndcg_at_k(["x", "y", "a"], {"a": 1}, k=2) == 0.0
    # a second chunk of "x" must not push "a" down to rank 3
    assert ndcg_at_k(["x", "x", "a"], {"a": 1}) == pytest.approx(1 / math.log2(3))


def test_ndcg_without_relevant_documents_is_zero() -> None:
    assert ndcg_at_k(["a"], {}) == 0.0


def test_recall_counts_share_of_evidence_in_top_k() -> None:
    assert recall_at_k(["D1:1", "D2:5", "D3:3"], ["D2:5", "D9:9"], k=10) == 0.5
    assert recall_at_k(["D1:1", "D2:5", "D9:9"], ["D2:5", "D9:9"], k=2) == 0.5
    assert recall_at_k(["D2:5", "D2:5", "D9:9"], ["D2:5", "D9:9"], k=2) == 1.0


def test_recall_without_evidence_is_an_error() -> None:
    with pytest.raises(ValueError):
        recall_at_k(["a"], [])


def test_percentile_interpolates_like_numpy() -> None:
    values = [4.0, 1.0, 3.0, 2.0]
    assert percentile(values, 50) == 2.5
    assert percentile(values, 95) == pytest.approx(3.85)
    assert percentile([7.0], 95) == 7.0


def test_dedupe_keeps_first_occurrence() -> None:
    assert dedupe(["b", "a", "b", "c", "a"]) == ["b", "a", "c"]


# -- context budget: packing and scoring on hand-made examples ---------------------------


def test_fit_whole_stops_at_the_first_hit_that_overflows() -> None:
    hits = [("a", "x" * 900), ("b", "y" * 900), ("c", "z" * 300), ("d", "w" * 100)]
    packed = fit_whole(hits, 2000)
    assert packed.ids == ("a", "b")  # "c" would overflow; "d" after it is not reached
    assert packed.whole_ids == packed.ids
    assert packed.chars == 1800


def test_fit_whole_keeps_an_exact_fit_and_nothing_when_the_first_hit_is_too_long() -> None:
    assert fit_whole([("a", "x" * 1500), ("b", "y" * 500)], 2000).ids == ("a", "b")
    empty = fit_whole([("a", "x" * 2001), ("b", "y")], 2000)
    assert empty.ids == () and empty.chars == 0


def test_turn_recall_maps_fragment_ids_to_evidence_turns() -> None:
    turn_of = {"f1": "D1:1", "f2": "D1:2", "f3": "D2:1"}
    assert turn_recall(["f1", "f3", "unknown"], turn_of, ["D1:1", "D1:2"]) == 0.5
    assert turn_recall([], turn_of, ["D1:1"]) == 0.0


def test_from_pack_keeps_order_reasons_and_separates_truncated_items() -> None:
    pack = ContextPack(query="q", budget_chars=2000)
    for fragment_id, reason, text, cut in (
        ("f1", QUERY_MATCH, "a" * 100, False),
        ("f2", QUERY_MATCH, "b" * 600, True),
        ("f3", RECENCY, "c" * 50, False),
    ):
        pack.items.append(ContextItem(fragment_id, reason, "t", text, cut, None))
    packed = from_pack(pack)
    assert packed.ids == ("f1", "f2", "f3")
    assert packed.whole_ids == ("f1", "f3")
    assert packed.reasons == (QUERY_MATCH, QUERY_MATCH, RECENCY)
    assert packed.chars == 750


# -- quick runs on the shared data ---------------------------------------------------------


@pytest.fixture
def quick_ctx(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bench_vector_cache: Path
) -> RunContext:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.delenv("MEMEX_CHROMA_URL", raising=False)
    monkeypatch.setenv("MEMEX_BENCH_CACHE", str(bench_vector_cache))  # not the repo's
    return RunContext(tmp=tmp_path, sizes=Sizes.quick(), quick=True)


@pytest.mark.slow
def test_context_budget_quick_run_on_locomo(quick_ctx: RunContext) -> None:
    shared_data_dir("locomo")
    reason = quick_ctx.embedder_available()
    if reason:
        pytest.skip(reason)
    figures = context_budget.measure(quick_ctx)
    assert figures.conversations == 1
    assert figures.questions == context_budget.QUICK_QUESTIONS
    for name, result in figures.methods.items():
        assert len(result.recall) == figures.questions
        assert all(0.0 <= r <= 1.0 for r in result.recall)
        assert all(w <= r for w, r in zip(result.recall_whole, result.recall, strict=True))
        if "no budget" not in name:
            assert max(result.chars) <= BUDGET
    whole = figures.methods["hybrid, whole hits"]
    assert whole.truncated == 0
    assert mean(whole.recall) > 0.3  # retrieval works: most evidence fits in 2,000 chars
    pack = figures.methods["hybrid, context pack"]
    assert pack.reasons[QUERY_MATCH] > 0
    assert set(pack.reasons) <= {QUERY_MATCH, RECENCY}  # LoCoMo turns link nowhere
    section = context_budget.render(figures, Section("context_budget", "6."))
    assert section.checks and not section.skipped
    assert any("| hybrid, context pack |" in block for block in section.body)


@pytest.mark.slow
def test_vault_quick_ingest_and_resync(quick_ctx: RunContext) -> None:
    shared = shared_data_dir("obsidian-help", "en")
    edited_before = (shared / vault.EDITED_NOTE).read_bytes()
    figures = vault.measure(quick_ctx)
    by_name = {s.name: s for s in figures.scenarios}
    first = by_name["first run, keyword only (`embed=False`)"]
    assert figures.notes > 0
    assert first.statuses == {"new": figures.notes}
    assert first.fragments == first.fragments_added > 0
    assert first.embedded == 0
    assert first.links >= first.unresolved > 0  # the help vault's demo links never resolve
    if figures.embedded:
        embedded = by_name["first run, with embeddings"]
        assert embedded.embedded == embedded.fragments == first.fragments
    for name in ("re-run, nothing changed", "re-run, nothing changed, `Memex` already open"):
        rerun = by_name[name]
        assert rerun.statuses == {"unchanged": figures.notes}
        assert rerun.fragments_added == rerun.embedded == 0
    touched = by_name["re-run after touching one note (mtime only)"]
    assert touched.statuses == {"unchanged": figures.notes}
    assert touched.fragments_added == 0
    changed = by_name["re-run after changing one note"]
    assert changed.statuses == {"updated": 1, "unchanged": figures.notes - 1}
    assert changed.fragments_added >= 1 and changed.fragments_removed >= 1
    assert changed.fragments == first.fragments  # the edited section replaced, not added
    assert {(s.links, s.unresolved) for s in figures.scenarios} == {(first.links, first.unresolved)}
    assert (shared / vault.EDITED_NOTE).read_bytes() == edited_before  # only the copy changed
    section = vault.render(figures, Section("vault", "7."))
    assert len(section.checks) == 2 and not section.skipped


# -- agent memory: the reworded-fact generator and tiny runs of both phases --------------------


def test_reworded_facts_are_deterministic_and_sound() -> None:
    first, again = reworded_facts.generate(users=3, per_user=60), reworded_facts.generate(3, 60)
    assert first == again
    assert reworded_facts.generate(3, 60, seed=5) != first
    assert len(first.facts) == len(first.base) == len(first.reworded) == 180
    assert first.users == ("alice", "bob", "chen")
    assert len({f.fact_id for f in first.facts}) == 180
    for fact, base, other in zip(first.facts, first.base, first.reworded, strict=True):
        assert base.fact_id == other.fact_id == fact.fact_id
        assert base.text == fact.text != other.text
        assert fact.fact_id.startswith(fact.user + ":")
    assert set(first.kinds()) == set(reworded_facts.KINDS)


def test_reworded_facts_of_one_user_never_repeat_a_single_valued_attribute() -> None:
    facts = reworded_facts.generate(users=5, per_user=reworded_facts.candidate_count()).facts
    for user in {f.user for f in facts}:
        mine = [f for f in facts if f.user == user]
        relatives = [dict(f.slots)["relative"] for f in mine if f.template == "relative_city"]
        assert len(relatives) == len(set(relatives))
        assert sum(f.template == "job" for f in mine) == 1
        kinds = [dict(f.slots)["kind"] for f in mine if f.template == "favourite"]
        assert len(kinds) == len(set(kinds))
        liked = {dict(f.slots)["thing"] for f in mine if f.template == "likes"}
        disliked = {dict(f.slots)["thing"] for f in mine if f.template == "dislikes"}
        assert not liked & disliked
        pairs = {tuple(sorted(dict(f.slots).values())) for f in mine if f.template == "prefers"}
        assert len(pairs) == sum(f.template == "prefers" for f in mine)  # never both orders


def test_rendering_subjects_plurals_and_contractions() -> None:
    render = reworded_facts.render
    assert render("{S} likes {thing}", {"thing": "sushi"}, "Alice") == "Alice likes sushi"
    assert render("{P} team uses {tool}", {"tool": "Go"}, "Bob", "the user") == (
        "The user's team uses Go"
    )
    assert render("{S} likes {thing}", {"thing": "tea"}, "Alice", "user") == "User likes tea"
    mid = render("{thing} is something {S} likes", {"thing": "oysters"}, "Alice", "user")
    assert mid == "Oysters are something the user likes"  # "user" alone only at the start
    assert render("{thing} is something {S} likes", {"thing": "hummus"}, "Al") == (
        "Hummus is something Al likes"
    )
    assert reworded_facts.contract("Alice does not like jazz") == "Alice doesn't like jazz"
    assert reworded_facts.contract("Alice is allergic to soy") == "Alice's allergic to soy"
    assert reworded_facts.contract("Alice would like to learn chess") == (
        "Alice'd like to learn chess"
    )
    assert reworded_facts.contract("Alice plays the harp") is None


def test_near_miss_pairs_count_facts_differing_in_one_slot() -> None:
    def fact(user: str, template: str, **slots: str) -> reworded_facts.Fact:
        return reworded_facts.Fact("id", user, user, template, "misc", tuple(slots.items()), "t")

    facts = [
        fact("alice", "likes", thing="sushi"),
        fact("alice", "likes", thing="ramen"),
        fact("alice", "likes", thing="tea"),
        fact("bob", "likes", thing="sushi"),  # another user: never compared
        fact("alice", "visit", place="Peru", month="May"),
        fact("alice", "visit", place="Chile", month="May"),  # one slot differs
        fact("alice", "visit", place="Japan", month="June"),  # two differ
    ]
    assert reworded_facts.near_miss_pairs(facts) == 3 + 1


def test_round_robin_and_interleaving_keep_every_wording() -> None:
    facts = reworded_facts.generate(users=3, per_user=4)
    order = memory_throughput.round_robin(facts.base)
    assert [w.user for w in order[:3]] == ["alice", "bob", "chen"]
    assert sorted(order, key=lambda w: w.fact_id) == sorted(facts.base, key=lambda w: w.fact_id)
    mixed = reworded_facts.interleaved(facts, "bob")
    assert sorted(w.text for w in mixed) == sorted(
        w.text for w in facts.wordings() if w.user == "bob"
    )
    assert mixed == reworded_facts.interleaved(facts, "bob")


@pytest.fixture
def memory_ctx(quick_ctx: RunContext) -> RunContext:
    reason = memory_throughput.missing_components(
        quick_ctx.registry(), ("keyword_store", "redactor", "consolidator")
    )
    if reason:
        pytest.skip(reason)
    return quick_ctx


@pytest.fixture
def keyword_only_ctx(memory_ctx: RunContext, monkeypatch: pytest.MonkeyPatch) -> RunContext:
    """The memory phases without the default (MiniLM) home: fast."""
    monkeypatch.setattr(memory_ctx, "embedder_available", lambda: "not in this test")
    return memory_ctx


def test_remember_throughput_tiny_keyword_only(keyword_only_ctx: RunContext) -> None:
    figures = memory_throughput.measure(keyword_only_ctx, facts=12, users=3)
    assert figures.facts == 12 and figures.users == 3
    (run,) = figures.runs
    assert run.name == memory_throughput.KEYWORD_ONLY and not run.semantic
    assert len(run.calls) == run.added == 12  # distinct facts: every call adds one
    assert set(run.steps) == {"redaction", "keyword index flush"}
    assert len(figures.floor) == 12
    section = memory_throughput.render(figures, Section("remember_throughput", "8."))
    assert len(section.checks) == 1 and "bare SQLite" in section.checks[0].peer
    assert any("| keyword only | 12 |" in block for block in section.body)
    assert any("not run: not in this test" in block for block in section.body)


def test_dream_duplicates_tiny_keyword_only(keyword_only_ctx: RunContext) -> None:
    figures = memory_duplicates.measure(keyword_only_ctx, users=2, per_user=15)
    (home,) = figures.homes
    assert home.ledger.remembered == 60
    folded = sum(home.ledger.caught_at_write.values())
    assert home.before.active == 60 - folded
    assert home.before.distinct == 30 and not home.before.lost  # every fact stored
    assert folded == home.ledger.caught_at_write["punctuation_case"]  # only exact repeats
    assert home.dry_changed_nothing and home.after_dry.active == home.before.active
    assert len(home.dry.decisions) == len(home.real.decisions) == home.before.active
    # Every decision with a target retires one memory (the one examined, or its target).
    retired = sum(home.real.same_fact.values()) + len(home.real.cross)
    assert home.after.active == home.before.active - retired
    assert home.after.distinct + len(home.after.lost) == 30
    section = memory_duplicates.render(figures, Section("dream_duplicates", "9."))
    assert len(section.checks) == 2
    assert any("| keyword only | 60 |" in block for block in section.body)


@pytest.mark.slow
def test_dream_duplicates_tiny_with_vectors(memory_ctx: RunContext) -> None:
    reason = memory_ctx.embedder_available()
    if reason:
        pytest.skip(reason)
    figures = memory_duplicates.measure(memory_ctx, users=1, per_user=12)
    default, keyword = figures.homes
    assert default.name == memory_throughput.DEFAULT and keyword.name == "keyword only"
    for home in figures.homes:
        assert home.dry_changed_nothing
        assert home.before.distinct == 12
        assert home.after.duplicates <= home.before.duplicates


# -- speed benchmarks: the vector cache, and tiny runs of each section without the peers ------


def test_vector_cache_keeps_vectors_by_text_and_survives_a_torn_write(tmp_path: Path) -> None:
    import numpy as np

    from benchmarks.vector_cache import VectorCache

    cache = VectorCache(tmp_path / "v", dimension=3)
    vectors = np.arange(9, dtype=np.float32).reshape(3, 3)
    cache.append(["a", "b", "c"], vectors)
    assert cache.missing(["c", "d", "a", "d"]) == ["d"]
    again = VectorCache(tmp_path / "v", dimension=3)
    assert len(again) == 3
    assert again.matrix(["c", "a"]).tolist() == [vectors[2].tolist(), vectors[0].tolist()]
    with (tmp_path / "v" / "vectors.f32").open("ab") as handle:
        handle.write(b"\0" * 5)  # a row cut short by a kill
    torn = VectorCache(tmp_path / "v", dimension=3)
    assert len(torn) == 3 and torn.matrix(["b"]).tolist() == [vectors[1].tolist()]
    calls: list[list[str]] = []

    def embed(texts: list[str]) -> np.ndarray:
        calls.append(texts)
        return np.ones((len(texts), 3), dtype=np.float32)

    assert torn.fill(["a", "e", "f", "e"], embed, batch=1)[0] == 2
    assert calls == [["e"], ["f"]]  # only what was missing, each once
    with pytest.raises(KeyError, match="fill the cache first"):
        torn.matrix(["never seen"])
    mixed, embedded = torn.matrix_or_embed(["b", "never seen"], embed)
    assert embedded == 1 and mixed.tolist() == [vectors[1].tolist(), [1.0, 1.0, 1.0]]
    assert torn.missing(["never seen"]) == ["never seen"]  # embedded, not stored


def test_vector_cache_writers_in_two_processes_stay_in_step(tmp_path: Path) -> None:
    import numpy as np

    from benchmarks.vector_cache import VectorCache

    first, second = VectorCache(tmp_path, 2), VectorCache(tmp_path, 2)  # opened side by side
    first.append(["a"], np.array([[1, 1]], dtype=np.float32))
    second.append(["b", "c"], np.array([[2, 2], [3, 3]], dtype=np.float32))
    first.append(["d"], np.array([[4, 4]], dtype=np.float32))
    for cache in (first, second, VectorCache(tmp_path, 2)):
        known = [t for t in "abcd" if not cache.missing([t])]
        assert cache.matrix(known).tolist() == [[ord(t) - 96] * 2 for t in known]
    assert len(VectorCache(tmp_path, 2)) == 4


def test_peer_availability_names_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmarks import peers

    monkeypatch.setitem(peers._REQUIRES, peers.LANGCHAIN, ("no_such_module_for_memex_bench",))
    reason = peers.unavailable(peers.LANGCHAIN)
    assert reason is not None and "no_such_module_for_memex_bench" in reason
    assert "benchmarks/requirements.txt" in reason


@pytest.mark.slow
def test_speed_sections_run_tiny_without_the_peers(
    quick_ctx: RunContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Benchmarks 5 and 10-13 on a few hundred passages, the peers reported as not installed
    (even where they are), the vector cache and charts in temporary folders."""
    from dataclasses import replace

    from benchmarks import (
        charts,
        cold_start,
        growth,
        hybrid_latency,
        ingest_throughput,
        peak_memory,
        peers,
    )

    shared_data_dir("beir", "scifact")
    reason = quick_ctx.embedder_available()
    if reason:
        pytest.skip(reason)
    monkeypatch.setattr(peers, "unavailable", lambda name: "not installed (test)")
    quick_ctx.sizes = replace(
        quick_ctx.sizes,
        hybrid_sizes=(60, 120),
        growth_sizes=(60, 120, 180),
        vectors_max=120,
        memory_size=120,
        cold_sizes=(120,),
        cold_runs=1,
        hybrid_queries=5,
        ingest_texts=12,
        ingest_rounds=1,
        model_warmup_texts=4,
    )
    quick_ctx.charts = tmp_path / "docs" / growth.CHART_FOLDER

    hybrid = hybrid_latency.run(quick_ctx)
    assert not hybrid.skipped
    names = [c.name for c in hybrid.checks]
    assert names[0].startswith("hybrid query p50 @ 120")
    assert [c.figure for c in hybrid.checks[1:]] == ["not measured", "not measured"]
    assert all(c.met is None for c in hybrid.checks[1:])  # no verdict without the peer
    assert sum("not installed (test)" in block for block in hybrid.body) == 1
    assert any("| 120 | embed the query |" in block for block in hybrid.body)

    ingest = ingest_throughput.run(quick_ctx)
    share, keyword, *encoders = ingest.checks
    assert [c.name.split(",")[1].strip().split(" against")[0] for c in encoders] == [
        "onnx fp32",
        "onnx int8",
    ]
    assert share.figure.endswith("/s)") and "MiniLM alone" in share.peer
    assert keyword.name.startswith("keyword-only ingest @ 120")
    assert any("| embedding (MiniLM) |" in block for block in ingest.body)

    cold = cold_start.run(quick_ctx)
    assert [c.name for c in cold.checks] == [
        "cold `memex dig` @ 120, warm process running (median of 1)",
        "cold `memex dig` @ 120, no warm process (median of 1)",
        "same JSON through the warm process @ 120",
    ]
    assert cold.checks[2].met and cold.checks[2].figure == "2/2"

    memory = peak_memory.run(quick_ctx)
    assert len(memory.checks) == 2
    assert all(
        c.figure.endswith(" MB") and float(c.figure[:-3].replace(",", "")) > 20
        for c in memory.checks
    )

    grown = growth.run(quick_ctx)
    rows = next(block for block in grown.body if block.startswith("| fragments |"))
    assert "| 180 | none: keyword only |" in rows and "(keyword)" in rows
    assert rows.count("| MiniLM |") == 2
    if charts_missing := charts.unavailable():
        assert any(charts_missing in block for block in grown.body)
    else:
        pictures = sorted(p.name for p in quick_ctx.charts.iterdir())
        assert pictures == [
            "growth-cold-dig.png",
            "growth-hybrid-latency.png",
            "growth-ingest.png",
            "growth-peak-rss.png",
        ]
        assert any("](img/benchmarks/growth-hybrid-latency.png)" in b for b in grown.body)


@pytest.mark.slow
def test_service_section_runs_tiny(quick_ctx: RunContext) -> None:
    """Benchmark 14 on 120 passages: a real memex serve, clients in their own process,
    every HTTP result the same as in-process."""
    from dataclasses import replace

    from benchmarks import service

    shared_data_dir("beir", "scifact")
    reason = quick_ctx.embedder_available() or service.unavailable()
    if reason:
        pytest.skip(reason)
    quick_ctx.sizes = replace(
        quick_ctx.sizes, hybrid_sizes=(120,), hybrid_queries=3, model_warmup_texts=4
    )
    section = service.run(quick_ctx)
    assert not section.skipped
    gap, rate, same = section.checks
    assert gap.name == "hybrid p50 over HTTP vs in-process @ 120, 1 client"
    assert rate.name == "hybrid searches/s over HTTP @ 120, 8 clients"
    assert same.met is True and same.figure.endswith("queries")
    rows = next(block for block in section.body if block.startswith("| mode |"))
    for mode in service.MODES:
        for clients in service.CLIENTS:
            for where in ("in-process", "HTTP"):
                assert f"| {mode} | {clients} | {where} |" in rows
    assert any("`GET /healthz` round trip" in block for block in section.body)
    where = next(i for i, b in enumerate(section.body) if b.startswith("Where the CPU of one"))
    parts = section.body[where + 1]
    assert "| query embedding, one query alone |" in parts and "| the rest: " in parts


@pytest.mark.slow
def test_scale_out_section_runs_tiny(
    quick_ctx: RunContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Benchmark 15 on 120 passages with vectors and 180 keyword-only: a PostgreSQL server of
    its own with fsync on, both engines finding the same results, a fresh home catching up
    with the writer's answers, one and two `memex serve` replicas."""
    from dataclasses import replace

    from benchmarks import scale_out, scale_out_settings, service

    shared_data_dir("beir", "scifact")
    reason = (
        quick_ctx.embedder_available() or scale_out.postgres_unavailable() or service.unavailable()
    )
    if reason:
        pytest.skip(reason)
    monkeypatch.setenv(scale_out_settings.SIZES_ENV, "120,180")
    monkeypatch.setattr(scale_out, "QUICK_REPLICA_QUERIES", 16)
    quick_ctx.sizes = replace(
        quick_ctx.sizes, vectors_max=120, hybrid_queries=4, model_warmup_texts=4
    )
    section = scale_out.run(quick_ctx)
    assert not section.skipped, section.skipped
    assert [c.name for c in section.checks] == [
        "PostgreSQL keyword-only ingest vs SQLite @ 120",
        "PostgreSQL hybrid p50 vs SQLite @ 120",
        "PostgreSQL keyword-only ingest vs SQLite @ 180",
        "PostgreSQL keyword p50 vs SQLite @ 180",
        "two `memex serve` replicas vs one, hybrid @ 120, 8 clients",
        "two `memex serve` replicas vs one, keyword @ 120, 8 clients",
    ]
    body = "\n".join(section.body)
    assert "fsync=on" in body and "**Sizes run: 120, 180**" in body
    # The two builds of a size take turns batch by batch; ingest also compared by CPU.
    assert "interleaved batch by batch" in body
    assert all("by CPU" in c.figure for c in section.checks if "ingest" in c.name)
    assert re.search(r"\| 180 \| none: keyword only \| PostgreSQL \| [\d,]+ \| [\d.]+ s \(", body)
    assert "| 120 | MiniLM | PostgreSQL |" in body and "| 4/4 |" in body  # same top-10
    assert "| 180 | none: keyword only | SQLite |" in body
    assert "| fragments in its keyword index / in the catalog | 120 / 120 |" in body
    assert "| same top-10 keyword ids as the writer home | 20/20 queries |" in body
    for mode in scale_out_settings.REPLICA_MODES:
        assert f"| {mode} | 1 | 16 |" in body and f"| {mode} | 2 | 16 |" in body
