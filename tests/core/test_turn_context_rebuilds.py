"""Turn context kept through rebuilds, the doctor's repair and a reader's catch-up; a changed
setting never mixed into a home; conversations added in batches indexed as a rebuild would
(the rules and each source: ``test_turn_context``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from memex_core.domain import Fragment, SearchFilters
from memex_core.domain.chunking import message_fragments
from memex_core.domain.turn_context import (
    TurnContext,
    TurnText,
    earlier_turns,
    with_context,
)
from memex_core.services.index_text import KEYWORD_CONTEXT_SETTING, VECTOR_CONTEXT_SETTING
from tests.support.component_doubles import fast_memex
from tests.support.export_builders import chatgpt_conversation, write_chatgpt_export
from tests.support.turn_context_homes import (
    ANSWER,
    OFFICE,
    PERMITS,
    QUESTION,
    THANKS,
    by_content,
    ferry_chat,
    hashing_embedding,
    keyword_ids,
    turn_fragment,
    vector_of,
)

# -- rebuild, doctor, catch-up ---------------------------------------------------------------------


def test_rebuild_keeps_turn_context(memex_home: Path, tmp_path: Path) -> None:
    mx = fast_memex(memex_home, index={"vector_context_turns": 1})
    mx.ingest(ferry_chat(tmp_path))
    before = keyword_ids(mx, "zanzibar")
    answer = by_content(mx, ANSWER).id
    mx.rebuild(keyword=True, vectors=True)
    assert keyword_ids(mx, "zanzibar") == before and answer in before
    assert np.allclose(vector_of(mx, answer), hashing_embedding(f"{QUESTION}\n{ANSWER}\n{ANSWER}"))
    mx.close()
    reopened = fast_memex(memex_home, index={"vector_context_turns": 1})
    assert keyword_ids(reopened, "zanzibar") == before
    assert reopened.index_setting_notes() == []
    reopened.close()


def test_doctor_repair_indexes_with_turn_context(memex_home: Path, tmp_path: Path) -> None:
    mx = fast_memex(memex_home, index={"vector_context_turns": 1})
    mx.ingest(ferry_chat(tmp_path))
    answer = by_content(mx, ANSWER).id
    with mx.writing():
        mx.keyword_store.delete([answer])
        mx.keyword_store.flush()
        mx.keyword_sync.flushed()
    mx.vector_store.delete([answer])
    mx.close()

    mx = fast_memex(memex_home, index={"vector_context_turns": 1})
    found = mx.doctor().final.codes()
    assert {"keyword.missing", "vectors.missing"} <= found
    report = mx.doctor(repair=True)
    assert report.healthy, report.to_dict()
    assert answer in keyword_ids(mx, "zanzibar")
    assert np.allclose(vector_of(mx, answer), hashing_embedding(f"{QUESTION}\n{ANSWER}\n{ANSWER}"))
    mx.close()


def test_a_reader_rebuilding_a_lost_index_adds_turn_context(
    memex_home: Path, tmp_path: Path
) -> None:
    mx = fast_memex(memex_home)
    mx.ingest(ferry_chat(tmp_path))
    expected = keyword_ids(mx, "zanzibar")
    mx.close()
    shutil.rmtree(memex_home / "index" / "bm25")
    reader = fast_memex(memex_home)
    assert keyword_ids(reader, "zanzibar") == expected
    reader.close()


# -- a changed setting ----------------------------------------------------------------------------


def test_a_changed_setting_is_not_mixed_in_and_asks_for_a_rebuild(
    memex_home: Path, tmp_path: Path
) -> None:
    mx = fast_memex(memex_home, index={"keyword_context_turns": 0})
    mx.ingest(ferry_chat(tmp_path))
    assert mx.search("ferry", mode="keyword").notes == []
    mx.close()

    mx = fast_memex(memex_home)  # the default: two earlier turns
    notes = mx.search("ferry", mode="keyword").notes
    assert len(notes) == 1 and "keyword_context_turns = 0" in notes[0]
    assert "`memex rebuild`" in notes[0]
    assert mx.search("ferry", mode="semantic").notes == []
    mx.ingest(write_chatgpt_export(tmp_path / "b.json", [chatgpt_conversation("p", "P", PERMITS)]))
    office = by_content(mx, OFFICE).id
    assert office not in keyword_ids(mx, "ngorongoro")  # indexed like the rest of the home
    finding = mx.doctor().final.get("keyword.context_setting")
    assert finding is not None and finding.severity == "drift"

    mx.rebuild()
    assert mx.search("ferry", mode="keyword").notes == []
    assert office in keyword_ids(mx, "ngorongoro")
    assert by_content(mx, ANSWER).id in keyword_ids(mx, "zanzibar")
    assert mx.catalog.get_setting(KEYWORD_CONTEXT_SETTING) == "turns=2,chars=300,own=2,title=1"
    mx.close()


def test_doctor_repair_applies_a_changed_keyword_setting(memex_home: Path, tmp_path: Path) -> None:
    mx = fast_memex(memex_home, index={"keyword_context_turns": 0})
    mx.ingest(ferry_chat(tmp_path))
    mx.close()
    mx = fast_memex(memex_home)
    report = mx.doctor(repair=True)
    assert "keyword.context_setting" in {f.code for f in report.before.findings}  # type: ignore[union-attr]
    assert report.healthy
    assert by_content(mx, ANSWER).id in keyword_ids(mx, "zanzibar")
    mx.close()


def test_a_changed_vector_setting_asks_for_rebuild_vectors(
    memex_home: Path, tmp_path: Path
) -> None:
    mx = fast_memex(memex_home)
    mx.ingest(ferry_chat(tmp_path))
    mx.close()
    mx = fast_memex(memex_home, index={"vector_context_turns": 1})
    notes = mx.search("ferry").notes
    assert len(notes) == 1 and "`memex rebuild --vectors`" in notes[0]
    assert mx.search("ferry", mode="keyword").notes == []
    finding = mx.doctor(repair=True).final.get("vectors.context_setting")
    assert finding is not None and finding.severity == "note"
    answer = by_content(mx, ANSWER).id
    assert np.allclose(
        vector_of(mx, answer), hashing_embedding(ANSWER)
    )  # the doctor did not re-embed
    mx.rebuild(keyword=False, vectors=True)
    assert mx.search("ferry").notes == []
    assert np.allclose(vector_of(mx, answer), hashing_embedding(f"{QUESTION}\n{ANSWER}\n{ANSWER}"))
    assert mx.catalog.get_setting(VECTOR_CONTEXT_SETTING) == "turns=1,chars=300,own=2"
    mx.close()


def test_a_home_indexed_before_turn_context_counts_as_off(memex_home: Path, tmp_path: Path) -> None:
    mx = fast_memex(memex_home, index={"keyword_context_turns": 0})
    mx.ingest(ferry_chat(tmp_path))
    for key in (KEYWORD_CONTEXT_SETTING, VECTOR_CONTEXT_SETTING):  # as an older memex left it
        mx.catalog.delete_setting(key)
    mx.close()

    mx = fast_memex(memex_home)
    assert mx.indexed_context().keyword == TurnContext(0)
    assert any("`memex rebuild`" in n for n in mx.search("ferry", mode="keyword").notes)
    mx.ingest(write_chatgpt_export(tmp_path / "b.json", [chatgpt_conversation("p", "P", PERMITS)]))
    assert mx.catalog.get_setting(KEYWORD_CONTEXT_SETTING) == "off"  # recorded by the write
    assert by_content(mx, OFFICE).id not in keyword_ids(mx, "ngorongoro")
    mx.close()


def test_an_empty_home_takes_the_configured_setting(memex_home: Path) -> None:
    mx = fast_memex(memex_home, index={"keyword_context_turns": 1, "context_chars": 120})
    assert mx.indexed_context().keyword == TurnContext(1, 120)
    mx.add_fragments([], origin="test:nothing")
    assert mx.catalog.get_setting(KEYWORD_CONTEXT_SETTING) == "turns=1,chars=120,own=2,title=1"
    assert mx.catalog.get_setting(VECTOR_CONTEXT_SETTING) == "off"
    mx.close()


def test_the_keyword_store_reads_repeated_lines_exactly(tmp_path: Path) -> None:
    """The bm25 store tokenizes line by line, remembering lines it saw in the same add
    (turn context repeats them); the scores are still exactly BM25Okapi's."""
    from rank_bm25 import BM25Okapi

    from memex_bm25.store import BM25Store
    from memex_bm25.tokenizer import Tokenizer

    texts = [
        "Which ferry goes to Zanzibar?\nWhich ferry goes to Zanzibar?",
        "Which ferry goes to Zanzibar?\nThe fast ferry, twice a day.\nThe fast ferry, twice a day.",
        "ferry\n\nferry ferries\r\nZANZIBAR\tharbour",
        "one line only, no break at all",
        "",
    ]
    store = BM25Store(tmp_path / "bm25")
    store.add([turn_fragment(str(n), "user", text) for n, text in enumerate(texts)])
    tokenize = Tokenizer().tokenize
    reference = BM25Okapi([tokenize(text) for text in texts])
    for query in ("ferry zanzibar", "twice day", "harbour ferries", "line"):
        expected = reference.get_scores(tokenize(query))
        found = {h.id: h.score for h in store.search(query, 10, SearchFilters())}
        for n, score in enumerate(expected):
            assert found.get(str(n), 0.0) == pytest.approx(score, rel=1e-9, abs=1e-12) or (
                str(n) not in found and score <= 0
            )


def test_only_turns_stored_before_count_as_context() -> None:
    order = [
        TurnText("a", "m1", "A", stored=1),
        TurnText("late", "m9", "LATE", stored=9),  # a later batch placed between them
        TurnText("b", "m2", "B", stored=2),
    ]
    assert earlier_turns(order, 2, 2) == ["A"]
    assert earlier_turns(order, 1, 2) == ["A"]


def test_a_conversation_added_in_two_batches_indexes_as_a_rebuild_would(
    memex_home: Path,
) -> None:
    """Turns of one conversation arriving in two calls (or files): each turn's context
    is fixed when it is stored, so a rebuild (or a rerun after a crash) indexes the same."""
    mx = fast_memex(memex_home)

    def batch(first: int, words: list[str]) -> list[Fragment]:
        out: list[Fragment] = []
        for n, text_ in enumerate(words, start=first):
            out.extend(
                message_fragments(
                    source_kind="chatgpt",
                    source_path=f"batch-{first}",
                    conversation_id="c",
                    message_id=f"m{n}",
                    role="user" if n % 2 else "assistant",
                    text=text_,
                    timestamp=None,
                    title=None,
                )
            )
        return out

    mx.add_fragments(batch(0, [QUESTION, ANSWER, THANKS]), origin="one")
    mx.add_fragments(batch(3, ["What about the return ferry?", "Same pier, at six."]), origin="two")
    queries = ("zanzibar", "kilimanjaro ferry", "return pier", "booked six")

    def scores() -> dict[str, list[tuple[str, float]]]:
        return {
            q: [(r.id, round(r.score, 9)) for r in mx.search(q, mode="keyword", limit=10)]
            for q in queries
        }

    before = scores()
    mx.rebuild()
    assert scores() == before
    mx.close()


def _turns(
    conversation: str, first: int, count: int, *, max_chars: int = 4000, filler: int = 1
) -> list[Fragment]:
    out: list[Fragment] = []
    for n in range(first, first + count):
        out.extend(
            message_fragments(
                source_kind="app",
                source_path="app:chat",
                conversation_id=conversation,
                message_id=f"m{n}",
                role="user" if n % 2 else "assistant",
                text=f"turn {n} mentions word{n} " + "filler text " * filler,
                timestamp=None,
                title=None,
                max_chars=max_chars,
            )
        )
    return out


def test_a_continued_conversation_takes_positions_after_its_end(memex_home: Path) -> None:
    mx = fast_memex(memex_home)
    first, second = _turns("c", 0, 3), _turns("c", 3, 3)
    mx.add_fragments(first, origin="app:one")
    mx.add_fragments(second, origin="app:two")
    timeline = mx.timeline(second[0].id, before=10, after=10)
    assert [f.id for f in timeline.fragments] == [f.id for f in first + second]
    # Re-sending a stored batch numbers it as before: the order stays.
    mx.add_fragments(first, origin="app:one")
    timeline = mx.timeline(first[0].id, before=10, after=10)
    assert [f.id for f in timeline.fragments] == [f.id for f in first + second]
    mx.close()


def test_a_batch_continuing_a_long_conversation_reads_only_its_end(memex_home: Path) -> None:
    mx = fast_memex(memex_home)
    for first in range(0, 300, 20):
        mx.add_fragments(_turns("c", first, 20), origin=f"app:{first}")
    last = _turns("c", 300, 10)
    mx.add_fragments(last, origin="app:last")
    windows, starts = mx.catalog.turn_windows([f.id for f in last], lookback=8)
    assert starts == {"c": 300 - 8}
    assert len(windows["c"]) == 8 + 10
    # What the window gives equals reading the whole conversation.
    texts = mx.index_texts()
    context = mx.indexed_context().keyword
    whole_conversation = mx.catalog.turn_windows([f.id for f in last], None)[0]
    whole = with_context(last, whole_conversation, context)
    assert [f.index_text for f in texts.for_keyword(last)] == [f.index_text for f in whole]
    assert "word299" in texts.for_keyword(last)[0].index_text
    mx.close()


def test_a_window_too_short_for_a_chunked_message_reads_the_conversation_whole(
    memex_home: Path,
) -> None:
    mx = fast_memex(memex_home)
    mx.add_fragments(_turns("c", 0, 2), origin="app:start")
    chunked = _turns(
        "c", 2, 1, max_chars=120, filler=800
    )  # one message in more chunks than the window
    assert len(chunked) > 64
    mx.add_fragments(chunked, origin="app:chunked")
    next_turn = _turns("c", 3, 1)
    mx.add_fragments(next_turn, origin="app:next")
    texts = mx.index_texts()
    context = mx.indexed_context().keyword
    whole_conversation = mx.catalog.turn_windows([f.id for f in next_turn], None)[0]
    expected = with_context(next_turn, whole_conversation, context)
    got = texts.for_keyword(next_turn)
    assert got[0].index_text == expected[0].index_text
    assert "word1" in got[0].index_text  # the turn before the chunked message
    mx.close()
