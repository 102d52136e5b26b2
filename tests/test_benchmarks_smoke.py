"""The benchmark metrics on hand-computed examples (no timing, no data needed), and quick
runs of the context-budget and vault phases on the shared data (skipped when it is absent)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from benchmarks import context_budget, vault
from benchmarks.context import RunContext, Sizes
from benchmarks.context_budget import BUDGET, fit_whole, from_pack, turn_recall
from benchmarks.metrics import dedupe, mean, ndcg_at_k, percentile, recall_at_k
from benchmarks.report import Section
from memex_core.domain.disclosure import QUERY_MATCH, RECENCY, ContextItem, ContextPack
from tests._data import shared_data_dir


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
def quick_ctx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> RunContext:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    monkeypatch.delenv("MEMEX_CHROMA_URL", raising=False)
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
