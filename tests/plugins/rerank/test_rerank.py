"""The rerank ranker: RRF, then the best candidates re-ordered by a JSON logistic regression."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from memex_core.api import Memex
from memex_core.cli.render import print_panels, results_json
from memex_core.config import Config, load_config
from memex_core.domain import (
    Fragment,
    FusedHit,
    PluginContext,
    QueryAwareRanker,
    RerankCatalog,
    SignalHit,
)
from memex_core.domain.chunking import message_fragments
from memex_core.domain.disclosure import compact_hit, query_terms
from memex_core.plugins import load_registry
from memex_rerank import LearnedRerank, RerankModel, RerankModelError, load_model
from memex_rerank.explain import LABELS, reasons
from memex_rerank.features import NAMES, Unit, feature_rows, unit_of
from memex_rerank.query import keyword_query
from memex_rerank.ranker import conversational
from memex_rerank.settings import RerankSettingError, parse_settings
from memex_rerank.text_features import KINDS, content_words, kind_of, turn_cues
from memex_rrf import ReciprocalRankFusion
from tests.support.catalog_builders import fragment
from tests.support.component_doubles import DoublesPlugin


def only(name: str, weight: float = 1.0) -> RerankModel:
    """A model that reads one feature."""
    return RerankModel(tuple(weight if n == name else 0.0 for n in NAMES))


def hit(fid: str, keyword: float | None, cosine: float | None, score: float = 0.1) -> FusedHit:
    return FusedHit(
        fid,
        score,
        {"keyword": None if keyword is None else 1, "semantic": None if cosine is None else 1},
        {"keyword": keyword, "semantic": cosine},
    )


class Catalog:
    """A RerankCatalog over fixed turns: ``(id, conversation, position, content)``."""

    def __init__(self, turns: Sequence[tuple[str, str, int, str]]) -> None:
        self.turns = {t[0]: t for t in turns}

    def get_many(self, ids: Sequence[str]) -> dict[str, Fragment]:
        return {
            i: replace(fragment(i, self.turns[i][1], None), content=self.turns[i][3])
            for i in ids
            if i in self.turns
        }

    def fragment_positions(self, ids: Sequence[str]) -> dict[str, tuple[str, int]]:
        return {i: (self.turns[i][1], self.turns[i][2]) for i in ids if i in self.turns}


def test_the_ranker_and_the_double_satisfy_the_contracts() -> None:
    assert isinstance(LearnedRerank(only("fused")), QueryAwareRanker)
    assert isinstance(Catalog([]), RerankCatalog)
    assert not isinstance(ReciprocalRankFusion(), QueryAwareRanker)


def test_fuse_is_rrf() -> None:
    signals = {
        "keyword": [SignalHit("a", 3.0), SignalHit("b", 2.0)],
        "semantic": [SignalHit("b", 0.9), SignalHit("c", 0.5)],
    }
    weights = {"keyword": 0.6, "semantic": 0.4}
    assert LearnedRerank(only("fused"), k=10).fuse(signals, weights, 5) == (
        ReciprocalRankFusion(10).fuse(signals, weights, 5)
    )


def test_the_speaker_a_question_names_is_a_feature() -> None:
    assert unit_of("Caroline: I went hiking", "user") == Unit("Caroline", 13, text="I went hiking")
    assert unit_of("no speaker here", "assistant").speaker == "assistant"
    assert unit_of("Aspirin: a review", "note").speaker is None  # a title, not a speaker
    units = {"a": Unit("Caroline"), "b": Unit("Melanie"), "c": Unit("Caroline")}
    units["d"] = Unit("Melanie")
    pool = [hit(i, 1, 0.5) for i in "abcd"]
    rows = feature_rows("What did Caroline paint?", pool, units)
    named, other = NAMES.index("speaker_named"), NAMES.index("other_speaker_named")
    assert (rows[0][named], rows[0][other]) == (1.0, 0.0)
    assert (rows[1][named], rows[1][other]) == (0.0, 1.0)
    # A name heading one candidate only is a title ("Caroline: a biography"), no speaker.
    rows = feature_rows("What did Caroline paint?", pool[:2], units)
    assert [(r[named], r[other]) for r in rows] == [(0.0, 0.0), (0.0, 0.0)]


def test_the_question_kind_and_what_the_turn_says_are_features() -> None:
    assert kind_of("When did Anna adopt Biscuit?")[list(KINDS).index("when")] == 1.0
    assert kind_of("How many puppies does Anna have?")[list(KINDS).index("how_many")] == 1.0
    assert kind_of("What breed is Biscuit?") == [0.0] * len(KINDS)
    assert turn_cues("Did you see it?") == [1.0, 0.0, 0.0, 0.0]
    assert turn_cues("Last summer we got two dogs\n\n[shares a photo of dogs]") == [
        0.0,
        1.0,
        1.0,
        1.0,
    ]
    # Content words meet on their first five letters; the speaker's name does not count.
    assert content_words("Anna painted sunsets", frozenset({"anna"})) == {"paint", "sunse"}
    units = {
        "a": Unit("Anna", text="I painted a sunset", place=("c1", 4)),
        "b": Unit("Ben", text="Where?", previous="a", place=("c1", 5)),
        "c": Unit("Anna", text="at the lake", place=("c1", 20)),
        "d": Unit("Ben", text="nice", place=("c1", 21)),
    }
    pool = [hit(i, 1.0, 0.5) for i in "abcd"]
    rows = feature_rows("What did Anna paint at the lake?", pool, units)
    column = {name: [r[NAMES.index(name)] for r in rows] for name in NAMES}
    assert column["overlap"] == [0.5, 0.0, 0.5, 0.0]  # paint / lake
    assert column["overlap_context"] == [0.5, 0.5, 0.5, 0.0]  # b is next to a
    assert column["overlap_best"] == [0.0, -0.5, 0.0, -0.5]
    assert column["turn_asks"] == [0.0, 1.0, 0.0, 0.0]
    assert column["cluster"] == [1.0, 1.0, 1.0, 1.0]  # one other candidate within 3 turns
    assert column["question_where"] == [0.0] * 4


def test_neighbours_count_only_when_next_to_each_other() -> None:
    pool = [hit("a", 2.0, 0.6, score=0.2), hit("b", None, 0.3), hit("c", None, 0.3)]
    units = {"b": Unit(previous="a"), "c": Unit(previous="x")}
    rows = feature_rows("q", pool, units)
    near = NAMES.index("neighbour_keyword")
    assert [r[near] for r in rows] == [0.0, 1.0, 0.0]


def test_rerank_orders_by_the_model_and_names_its_signal() -> None:
    catalog = Catalog(
        [
            ("a", "c1", 0, "Anna: hi"),
            ("b", "c1", 1, "Ben: a much longer turn that says a great deal more"),
        ]
    )
    hits = [hit("a", 2.0, 0.5, 0.2), hit("b", 1.0, 0.4, 0.1)]
    out = LearnedRerank(only("length")).rerank("q", hits, catalog)
    assert [h.id for h in out] == ["b", "a"]
    assert [h.ranks["rerank"] for h in out] == [1, 2]
    assert [h.score for h in out] == [0.2, 0.1]  # each takes its new place's fused score
    # What raised each against the other: b's length; nothing raised a.
    assert [h.reasons for h in out] == [("turn length",), ()]
    assert out[0].ranks["keyword"] == 1 and out[0].scores["keyword"] == 1.0
    assert out[0].scores["rerank"] > out[1].scores["rerank"]  # type: ignore[operator]


def test_every_feature_has_words_and_reasons_rank_what_raised_a_hit() -> None:
    assert set(LABELS) == set(NAMES)
    weights = [0.0] * len(NAMES)
    weights[NAMES.index("length")], weights[NAMES.index("keyword_score")] = 1.0, 2.0
    weights[NAMES.index("cluster")] = -1.0
    row = {"length": 3.0, "keyword_score": 1.0, "cluster": 0.0}
    rows = [[row.get(n, 0.0) for n in NAMES], [0.0] * len(NAMES)]
    rows[1][NAMES.index("cluster")] = 1.0
    # a: length +1.5, keyword +1.0 over the mean; cluster's lower value raised it too (+0.5)
    assert reasons(weights, rows) == [("turn length", "keyword score", "candidates nearby"), ()]
    assert reasons(weights, []) == []


def test_documents_one_per_conversation_stay_as_fused() -> None:
    """The model was fitted on conversations; on abstracts (SciFact) it cost nDCG@10."""
    catalog = Catalog([(i, f"doc-{i}", 0, "x" * n) for n, i in enumerate("ab", start=1)])
    hits = [hit("a", 2.0, 0.5, 0.2), hit("b", 1.0, 0.4, 0.1)]
    assert LearnedRerank(only("length")).rerank("q", hits, catalog) == hits
    assert conversational(["c1", "c1", "c2", "c3"])
    assert not conversational(["c1", "c1", "c2", "c3", "c4"])
    assert not conversational([])


def test_the_shipped_model_loads_and_a_stale_one_is_refused(tmp_path: Path) -> None:
    model = load_model()
    assert len(model.weights) == len(NAMES)
    assert "LoCoMo" in str(model.provenance.get("data"))
    stale = tmp_path / "model.json"
    stale.write_text(json.dumps({"features": ["fused"], "weights": [1.0]}))
    with pytest.raises(RerankModelError, match="other features"):
        load_model(stale)
    with pytest.raises(RerankModelError, match="cannot read"):
        load_model(tmp_path / "missing.json")


def test_settings_are_checked() -> None:
    assert parse_settings({"k": 5, "depth": 20}).depth == 20
    with pytest.raises(RerankSettingError, match="depth"):
        parse_settings({"depth": 0})
    with pytest.raises(RerankSettingError):
        parse_settings({"deep": 3})


def test_question_words_dropped_for_the_keyword_signal() -> None:
    assert keyword_query("How many kinds of pottery did Melanie make?") == (
        "How of pottery did Melanie make?"
    )
    assert keyword_query("many much") == ""


def test_registered_and_used_by_hybrid_search(
    memex_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Through Memex with ``[ranker] use = "rerank"``: hybrid results carry the rerank's
    rank, keyword searches do not."""
    registry = load_registry()
    assert "rerank" in {r.name for r in registry.registrations("ranker")}
    ranker = registry.build("ranker", "rerank", PluginContext(home=memex_home))
    assert isinstance(ranker, LearnedRerank) and ranker.rerank_depth == 50
    registry.register_plugin(DoublesPlugin(memex_home), name="doubles")
    components = {
        **load_config(memex_home).components,
        "embedder": "hashing",
        "vector_store": "memory",
        "ranker": "rerank",
    }
    mx = Memex(registry=registry, config=Config(home=memex_home, components=components, raw={}))
    try:
        turns = [
            ("Anna", "I adopted a puppy named Biscuit last week"),
            ("Ben", "That is lovely, what breed is Biscuit?"),
            ("Anna", "A beagle, he loves the beach"),
        ]
        mx.add_fragments(
            [
                f
                for n, (speaker, text) in enumerate(turns)
                for f in message_fragments(
                    source_kind="chatgpt",
                    source_path="x.json",
                    conversation_id="c1",
                    message_id=f"m{n}",
                    role="user" if speaker == "Anna" else "assistant",
                    text=f"{speaker}: {text}",
                    timestamp=None,
                    title="chat",
                )
            ],
            origin="test",
        )
        found = mx.search("Biscuit puppy", mode="hybrid", limit=3, floor="off")
        assert found.results and all(r.ranks.get("rerank") for r in found.results)
        assert sorted(r.ranks["rerank"] or 0 for r in found.results) == list(
            range(1, len(found.results) + 1)
        )
        keyword = mx.search("Biscuit puppy", mode="keyword", limit=3)
        assert all("rerank" not in r.ranks for r in keyword.results)
        # What `memex dig` shows: the panel names the rerank beside the signals, JSON too.
        shown = json.loads(results_json(found.results))[0]
        assert shown["ranks"]["rerank"] == 1 and "rerank" in shown["scores"]
        capsys.readouterr()
        print_panels(found.results, "Biscuit puppy")
        assert "rerank #1" in capsys.readouterr().out
        # The small steps' reason too (`memex dig --concise`, an agent's search).
        why = compact_hit(found.results[0], query_terms("Biscuit puppy")).why
        assert why.startswith("keyword #") and ", rerank #1: " in why
        assert why.endswith(", ".join(found.results[0].reasons)) and found.results[0].reasons
        assert shown["reasons"] == list(found.results[0].reasons)
    finally:
        mx.close()
