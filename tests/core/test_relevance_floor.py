"""The relevance floor (issue 18): a search that matches nothing returns nothing.

On a small home built with the real MiniLM embedder and Chroma: a nonsense query finds
nothing through every caller (API, CLI, MCP tool, LangChain and LlamaIndex retrievers,
memory block), a paraphrase that shares no word with its fragment is still found (on
meaning alone, and says so), turning the floor off brings the neighbours back, and the
calibrated floor is measured once and recorded.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from memex_core.api import Memex, make_filters
from memex_core.domain.relevance import (
    EVIDENCE_BOTH,
    EVIDENCE_KEYWORD,
    EVIDENCE_SEMANTIC,
    RelevanceFloorSettingError,
    agree,
    judge,
    parse_floor_setting,
    select,
)
from memex_core.errors import MemexError
from memex_core.services import calibration
from memex_core.services.search import SearchResults
from tests.support.component_doubles import fast_memex
from tests.support.export_builders import write_chatgpt_export

NONSENSE = "zzqxj qqvvkw"
#: Shares no keyword-index term with the Lisbon conversation (stopwords aside).
PARAPHRASE = "what to visit in Portugal over a weekend"


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("floor") / "home"
    export = write_chatgpt_export(path.parent / "conversations.json")
    with Memex(home=path) as mx:
        reason = mx.semantic_unavailable_reason()
        if reason:
            pytest.skip(reason)
        report = mx.ingest(export)
        assert report.embedded == 6
    return path


@pytest.fixture
def mx(home: Path) -> Iterator[Memex]:
    memex = Memex(home=home)
    yield memex
    memex.close()


# -- the API ---------------------------------------------------------------------------------


def test_nonsense_finds_nothing_and_says_why(mx: Memex) -> None:
    for mode in ("hybrid", "semantic"):
        found = mx.search(NONSENSE, mode=mode)
        assert found.results == [], mode
        assert found.floor is not None and found.below_floor > 0
        assert any("relevance floor" in note for note in found.notes)
    guidance = mx.explain_empty(NONSENSE, "hybrid", make_filters(), mx.search(NONSENSE))
    assert guidance[0].startswith("No results among")
    assert any("--no-floor" in line for line in guidance)


def test_off_topic_question_sharing_a_common_word_finds_nothing(mx: Memex) -> None:
    # "days" is in the Lisbon plan; one shared word is not evidence.
    found = mx.search("how many days does a tardigrade survive in space")
    assert mx.search("how many days does a tardigrade survive in space", floor="off").results
    assert found.results == []


def test_a_paraphrase_with_no_shared_word_is_found_on_meaning_alone(mx: Memex) -> None:
    found = mx.search(PARAPHRASE, limit=3)
    assert found.results, found.notes
    top = found.results[0]
    assert top.fragment.conversation_id == "conv-lisbon"
    assert top.ranks["keyword"] is None
    assert top.evidence == EVIDENCE_SEMANTIC
    assert all(r.scores["semantic"] >= found.floor for r in found.results)  # type: ignore[operator]


def test_words_and_meaning_together_are_both(mx: Memex) -> None:
    found = mx.search("sqlite database locked", limit=3)
    top = found.results[0]
    assert top.fragment.conversation_id == "conv-sqlite"
    assert top.evidence in (EVIDENCE_BOTH, EVIDENCE_KEYWORD)
    assert mx.search("sqlite database locked", mode="keyword")[0].evidence == EVIDENCE_KEYWORD


def test_floor_off_or_lower_brings_the_neighbours_back(mx: Memex) -> None:
    off = mx.search(NONSENSE, floor="off")
    assert len(off.results) >= 6 and off.floor is None and off.below_floor == 0
    assert all(r.evidence == EVIDENCE_SEMANTIC for r in off.results)
    assert mx.search(NONSENSE, floor=-1.0).results
    assert mx.search(NONSENSE, mode="semantic", floor="off").results


def test_the_calibrated_floor_is_recorded_once_and_reused(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Memex(home=home) as first:
        first.search(NONSENSE)
        recorded = first.recorded_floor()
    assert recorded is not None
    assert recorded.embedder == "minilm:384" and recorded.method == calibration.METHOD
    assert 0.2 < recorded.value < 0.7
    assert recorded.value == pytest.approx(
        recorded.highest_unrelated + calibration.MARGIN, abs=2e-3
    )

    def must_not_run(*args: object) -> None:
        raise AssertionError("the floor was calibrated again")

    monkeypatch.setattr(calibration, "calibrate", must_not_run)
    with Memex(home=home) as second:
        assert second.search(NONSENSE).floor == recorded.value
        assert second.relevance_floor() == recorded.value


def test_calibration_is_deterministic(mx: Memex) -> None:
    one = calibration.calibrate(mx.embedder, "minilm:384")
    two = calibration.calibrate(mx.embedder, "minilm:384")
    assert one == two
    assert calibration.nonsense_probes() == calibration.nonsense_probes()


def test_result_evidence_survives_the_wire(mx: Memex) -> None:
    from pydantic import TypeAdapter

    from memex_client.transport import decode

    found = mx.search(PARAPHRASE, limit=3)
    data = TypeAdapter(SearchResults).dump_python(found, mode="json")
    back = decode(SearchResults, json.loads(json.dumps(data)))
    assert [r.evidence for r in back.results] == [r.evidence for r in found.results]
    assert back.floor == found.floor and back.below_floor == found.below_floor


# -- every caller ------------------------------------------------------------------------------


def test_cli_dig_prints_the_no_results_guidance(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memex_core.cli import cli

    monkeypatch.setenv("MEMEX_HOME", str(home))
    runner = CliRunner()
    empty = runner.invoke(cli, ["dig", NONSENSE], catch_exceptions=False)
    assert "No results among" in empty.output
    assert "relevance floor" in empty.output and "--no-floor" in empty.output

    shown = runner.invoke(cli, ["dig", NONSENSE, "--no-floor", "--format", "json"])
    assert len(json.loads(shown.stdout)) >= 6
    lower = runner.invoke(cli, ["semantic", NONSENSE, "--min-similarity", "-1", "--format", "ids"])
    assert len(lower.stdout.split()) >= 6

    found = runner.invoke(cli, ["dig", PARAPHRASE, "--format", "json", "-n", "1"])
    assert json.loads(found.stdout)[0]["evidence"] == EVIDENCE_SEMANTIC
    panel = runner.invoke(cli, ["dig", PARAPHRASE, "-n", "1"])
    assert "meaning alone" in panel.output
    corpus = json.loads(runner.invoke(cli, ["corpus", "--format", "json"]).stdout)
    assert corpus["relevance_floor"]["setting"] == "auto"
    assert corpus["relevance_floor"]["calibrated_for"] == "minilm:384"
    assert 0.2 < corpus["relevance_floor"]["calibrated"] < 0.7
    keyword = runner.invoke(cli, ["keyword", "--help"]).output
    assert "--no-floor" not in keyword  # a keyword search shows what holds the words
    concise = runner.invoke(cli, ["dig", PARAPHRASE, "-n", "1", "--concise", "--format", "json"])
    assert json.loads(concise.stdout)[0]["evidence"] == EVIDENCE_SEMANTIC


def test_context_is_empty_when_nothing_is_about_the_query(
    mx: Memex, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert mx.context(NONSENSE).items == []
    assert mx.view().context(NONSENSE).items == []
    # Without the floor, recent material fills the budget as before.
    assert mx.context(PARAPHRASE).items
    from memex_core.cli import cli

    monkeypatch.setenv("MEMEX_HOME", str(home))
    out = CliRunner().invoke(cli, ["context", NONSENSE], catch_exceptions=False)
    assert "0 item(s)" in out.output and "relevance floor" in out.output


def test_mcp_search_tool_returns_no_hits(mx: Memex) -> None:
    from memex_mcp.scope import ServerScope
    from memex_mcp.tools import MemexTools

    tools = MemexTools(mx, ServerScope())
    for concise in (True, False):
        text, data = tools.search(NONSENSE, concise=concise)
        assert data["hits"] == []
        assert "0 hit(s)" in text and "relevance floor" in text
    text, data = tools.context(NONSENSE)
    assert data["items"] == []
    text, data = tools.search(PARAPHRASE, concise=False)
    assert data["hits"][0]["evidence"] == EVIDENCE_SEMANTIC


def test_retrievers_and_memory_block_return_nothing(mx: Memex) -> None:
    langchain = pytest.importorskip("memex_langchain")
    assert langchain.MemexRetriever(memex=mx).invoke(NONSENSE) == []
    assert langchain.MemexRetriever(memex=mx).invoke(PARAPHRASE)

    llamaindex = pytest.importorskip("memex_llamaindex")
    assert llamaindex.MemexRetriever(memex=mx).retrieve(NONSENSE) == []
    assert llamaindex.MemexRetriever(memex=mx).retrieve(PARAPHRASE)

    from llama_index.core.base.llms.types import ChatMessage

    mx.agent("floor-user").remember("Floor user keeps a kayak at the marina")
    block = llamaindex.MemexMemoryBlock(memex=mx, user="floor-user")
    recalled = asyncio.run(block.aget([ChatMessage(role="user", content=NONSENSE)]))
    assert "kayak" not in recalled
    recalled = asyncio.run(
        block.aget([ChatMessage(role="user", content="the kayak at the marina")])
    )
    assert "kayak" in recalled


# -- the setting -------------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["high", 2.0, -1.5, True, "", [0.3]])
def test_a_bad_setting_names_itself_and_the_fix(tmp_path: Path, value: object) -> None:
    home = tmp_path / "home"
    with (
        fast_memex(home, search={"min_semantic_similarity": value}) as mx,
        pytest.raises(MemexError) as caught,
    ):
        mx.search("anything")
    message = str(caught.value)
    assert "[search] min_semantic_similarity" in message
    assert '"auto"' in message and '"off"' in message and "config.toml" in message


def test_setting_spellings() -> None:
    assert parse_floor_setting(None).is_auto and parse_floor_setting("AUTO").is_auto
    assert parse_floor_setting("off").is_off
    assert parse_floor_setting(0.35).value == 0.35 and parse_floor_setting("0.35").value == 0.35
    assert parse_floor_setting(0).value == 0.0
    with pytest.raises(RelevanceFloorSettingError):
        parse_floor_setting("nan")


def test_setting_off_in_config_restores_the_neighbours(home: Path, tmp_path: Path) -> None:
    with fast_memex(tmp_path / "home", search={"min_semantic_similarity": "off"}) as fast:
        assert fast.relevance_floor() is None
    config = home / "config.toml"
    saved = config.read_text() if config.exists() else None
    config.write_text('[search]\nmin_semantic_similarity = "off"\n')
    try:
        with Memex(home=home) as mx:
            assert len(mx.search(NONSENSE).results) >= 6
    finally:
        if saved is None:
            config.unlink()
        else:
            config.write_text(saved)


def test_select_asks_the_query_as_a_whole() -> None:
    # Nothing carries evidence and the signals agree on nothing: everything goes.
    assert select([(0.05, 0.3), (None, 0.35), (0.3, None), (0.2, 0.2)], 0.4) == [None] * 4
    # Both signals weakly on one candidate (some words, similarity near the floor): the
    # query has evidence; that candidate stays as a keyword match, meaning alone goes.
    assert select([(0.2, 0.3), (None, 0.35)], 0.4) == [EVIDENCE_KEYWORD, None]
    assert not agree(0.2, 0.27, 0.4) and agree(0.1, 0.29, 0.4)
    # One does: partial word matches stay (labelled keyword), meaning alone below the floor goes.
    assert select([(0.8, 0.3), (0.2, 0.1), (None, 0.35), (None, 0.5)], 0.4) == [
        EVIDENCE_KEYWORD,
        EVIDENCE_KEYWORD,
        None,
        EVIDENCE_SEMANTIC,
    ]
    assert select([(0.2, None), (None, 0.1)], None) == [EVIDENCE_KEYWORD, EVIDENCE_SEMANTIC]


def test_benchmark_queries_are_fixed_and_apart_from_the_calibration() -> None:
    from benchmarks.abstention import generated_queries

    queries = generated_queries()
    assert queries == generated_queries() and len(queries) == 200
    assert sum(kind == "nonsense" for kind, _ in queries) == 100
    probes = {*calibration.nonsense_probes(), *calibration.OFF_TOPIC_PROBES}
    assert not probes & {text for _, text in queries}
    assert not set(calibration.REFERENCE_TEXTS) & {text for _, text in queries}


def test_judge() -> None:
    assert judge(keyword_share=0.8, similarity=0.5, floor=0.4) == EVIDENCE_BOTH
    assert judge(keyword_share=0.8, similarity=0.1, floor=0.4) == EVIDENCE_KEYWORD
    assert judge(keyword_share=0.2, similarity=0.5, floor=0.4) == EVIDENCE_SEMANTIC
    assert judge(keyword_share=0.2, similarity=0.3, floor=0.4) is None
    assert judge(keyword_share=None, similarity=None, floor=0.4) is None
    # No floor: nothing is judged, only labelled by what found it.
    assert judge(keyword_share=0.2, similarity=None, floor=None) == EVIDENCE_KEYWORD
    assert judge(keyword_share=None, similarity=0.1, floor=None) == EVIDENCE_SEMANTIC


def test_bm25_query_share_weighs_the_query_terms_a_hit_holds(tmp_path: Path) -> None:
    from memex_bm25.store import BM25Store
    from memex_core.domain import SearchFilters
    from tests.support.catalog_builders import text_fragment

    store = BM25Store(tmp_path / "bm25")
    texts = ["sqlite database locked", "sqlite wal mode", "bread in winter", "winter trip"]
    texts += [f"filler text number {n}" for n in range(20)]
    store.add([text_fragment(f"d{n}", text) for n, text in enumerate(texts)])
    store.flush()
    hits = store.search("sqlite database locked", 10, SearchFilters())
    shares = store.query_share("sqlite database locked", [h.id for h in hits])
    assert shares["d0"] == pytest.approx(1.0)
    assert 0.0 < shares["d1"] < 0.5  # one of three terms
    # One common word of an off-topic question, beside two the index never saw.
    store.search("repot cactus winter", 10, SearchFilters())
    off_topic = store.query_share("repot cactus winter", ["d2", "d3"])
    assert 0.0 < off_topic["d2"] < 0.3 and off_topic["d2"] == off_topic["d3"]
    # Ids outside the last hits go through the whole index and agree.
    assert store.query_share("sqlite database locked", ["d1", "d5"]) == {
        "d1": shares["d1"],
        "d5": 0.0,
    }
    assert store.query_share("zzqxj", ["d0"]) == {"d0": 0.0}
    assert store.query_share("sqlite", ["nope"]) == {}


def test_memex_serve_and_client_apply_and_carry_the_floor(home: Path) -> None:
    from memex_client import MemexClient
    from tests.support.memex_service import running_service

    with running_service(home) as service:
        client = MemexClient(service.url, admin_secret=service.admin_secret)
        try:
            view = client.view()
            empty = view.search(NONSENSE)
            assert empty.results == [] and empty.below_floor > 0 and empty.floor
            assert len(view.search(NONSENSE, floor="off").results) >= 6
            found = view.search(PARAPHRASE, limit=1)
            assert found.results[0].evidence == EVIDENCE_SEMANTIC
            assert found.results[0].fragment.conversation_id == "conv-lisbon"
        finally:
            client.close()


def test_another_embedder_build_is_calibrated_again(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Memex(home=home) as mx:
        mx.relevance_floor()
        saved = mx.catalog.get_setting(calibration.FLOOR_SETTING)
        assert saved is not None
        asked: list[str] = []

        def fake(embedder: object, signature: str) -> calibration.Calibration:
            asked.append(signature)
            return calibration.Calibration(signature, 0.5)

        monkeypatch.setattr(calibration, "calibrate", fake)
        monkeypatch.setattr(type(mx.embedder), "build", property(lambda self: "int8"))
        try:
            assert mx.relevance_floor() == 0.5
            assert asked == ["minilm:384:int8"]
            assert mx.recorded_floor() == calibration.Calibration("minilm:384:int8", 0.5)
            assert mx.relevance_floor() == 0.5 and len(asked) == 1  # recorded, not redone
        finally:
            mx.catalog.set_setting(calibration.FLOOR_SETTING, saved)
