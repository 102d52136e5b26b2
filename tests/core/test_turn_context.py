"""Turn context: the indexes see a conversation turn with the turns before it.

``[index] keyword_context_turns`` (default 2), ``vector_context_turns`` (default
0) and ``context_chars`` (default 300). What ``get``, ``timeline`` and search
results show never changes; ingest, rebuild, the doctor's repair and a reader's
catch-up all index the same text; a home never mixes turns indexed two ways.
"""

from __future__ import annotations

import copy
import json
import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from memex_core.api import Memex
from memex_core.domain import Fragment, Provenance, SearchFilters
from memex_core.domain.chunking import message_fragments
from memex_core.domain.turn_context import (
    IndexContext,
    TurnContext,
    TurnContextSettingError,
    TurnText,
    earlier_turns,
    parse_index_table,
    tail,
    with_context,
)
from memex_core.errors import MemexError
from memex_core.services.index_text import KEYWORD_CONTEXT_SETTING, VECTOR_CONTEXT_SETTING
from tests.support import codex_builders as codex
from tests.support.claude_code_builders import Transcript, text
from tests.support.component_doubles import HashingEmbedder, fast_memex
from tests.support.export_builders import T0, chatgpt_conversation, write_chatgpt_export

REPO = Path(__file__).resolve().parents[2]
QUESTION = "Which ferry goes to Zanzibar from the harbour?"
ANSWER = "The Kilimanjaro fast ferry leaves twice a day."
THANKS = "Thanks, booked it."
OFFICE = "At the conservation office in Arusha."
PERMITS = [
    ("user", "Where do I buy Ngorongoro crater permits?", T0),
    ("assistant", OFFICE, T0 + 60),
]


def keyword_ids(mx: Memex, query: str) -> list[str]:
    return [r.id for r in mx.search(query, mode="keyword", limit=20)]


def by_content(mx: Memex, content: str) -> Fragment:
    found = [f for f in mx.catalog.iter_fragments() if f.content == content]
    assert len(found) == 1, content
    return found[0]


# -- the pure rules --------------------------------------------------------------------------


def test_tail_keeps_the_end_from_a_word_boundary() -> None:
    assert tail("short", 10) == "short"
    assert tail("the quick brown fox", 9) == "brown fox"  # "k brown fox" would index "k"
    assert tail("the quick brown fox", 10) == "brown fox"
    assert tail("x" * 20, 5) == "xxxxx"  # one long word: cut anyway


def test_earlier_turns_count_messages_not_chunks() -> None:
    order = [
        TurnText("a1", "m1", "A part one"),
        TurnText("a2", "m1", "A part two"),
        TurnText("b", "m2", "B"),
        TurnText("c1", "m3", "C part one"),
        TurnText("c2", "m3", "C part two"),
    ]
    assert earlier_turns(order, 4, 2) == ["A part one\nA part two", "B"]
    assert earlier_turns(order, 3, 2) == earlier_turns(order, 4, 2)  # chunks share context
    assert earlier_turns(order, 2, 5) == ["A part one\nA part two"]
    assert earlier_turns(order, 0, 2) == []


def _fragment(fid: str, role: str, content: str, kind: str = "chatgpt") -> Fragment:
    return Fragment(
        id=fid,
        conversation_id="c",
        role=role,
        content=content,
        provenance=Provenance(kind, "p", fid, f"c/{fid}"),
        metadata={"message_id": fid},
    )


def test_with_context_changes_only_later_dialogue_turns() -> None:
    first = _fragment("1", "user", "first question")
    tool = _fragment("2", "tool", "tool output")
    answer = _fragment("3", "assistant", "the answer")
    note = _fragment("4", "note", "a note")
    memory = _fragment("5", "user", "remembered", kind="memory")
    order = {"c": [TurnText(f.id, f.id, f.content) for f in (first, answer)]}
    out = with_context([first, tool, answer, note, memory], order, TurnContext(2, 300))
    # Own text twice (context words count half); the first turn too, so all turns weigh alike.
    assert [f.index_text for f in out] == [
        "first question\nfirst question",
        None,
        "first question\nthe answer\nthe answer",
        None,
        None,
    ]
    assert [f.content for f in out] == [f.content for f in (first, tool, answer, note, memory)]
    assert with_context([answer], order, TurnContext(0))[0].index_text is None
    assert with_context([answer], order, TurnContext(1, 10))[0].index_text == (
        "question\nthe answer\nthe answer"
    )


def test_the_keyword_text_holds_the_conversation_title_once() -> None:
    titled = replace(_fragment("1", "user", "how do I fix it?"), title="SQLite locking")
    answer = replace(_fragment("2", "assistant", "Use WAL."), title="SQLite locking")
    # An abstract stored as "title + text" already holds its title: not added again.
    abstract = replace(
        _fragment("3", "user", "SQLite locking in depth. Text."), title="SQLite locking"
    )
    order = {"c": [TurnText(f.id, f.id, f.content) for f in (titled, answer, abstract)]}
    out = with_context([titled, answer, abstract], order, TurnContext(1, 300))
    assert [f.index_text for f in out] == [
        "SQLite locking\nhow do I fix it?\nhow do I fix it?",
        "SQLite locking\nhow do I fix it?\nUse WAL.\nUse WAL.",
        "Use WAL.\nSQLite locking in depth. Text.\nSQLite locking in depth. Text.",
    ]
    untitled = with_context([answer], order, TurnContext(1, 300, titles=False))
    assert untitled[0].index_text == "how do I fix it?\nUse WAL.\nUse WAL."


def test_a_chat_is_found_by_its_title(memex_home: Path, tmp_path: Path) -> None:
    turns = [("user", "Привет, как дела?", T0), ("assistant", "こんにちは、元気です。", T0 + 60)]
    export = write_chatgpt_export(
        tmp_path / "conversations.json", [chatgpt_conversation("t", "Кириллица и 日本語", turns)]
    )
    with fast_memex(memex_home) as mx:
        mx.ingest(export)
        found = mx.search("Кириллица", mode="keyword")
        assert {r.fragment.content for r in found} == {turns[0][1], turns[1][1]}
        assert found.notes == []


def test_titles_can_be_left_out_of_the_keyword_index(memex_home: Path, tmp_path: Path) -> None:
    export = write_chatgpt_export(
        tmp_path / "c.json", [chatgpt_conversation("z", "Zebra planning", PERMITS)]
    )
    with fast_memex(memex_home, index={"keyword_titles": False}) as mx:
        mx.ingest(export)
        assert mx.search("zebra", mode="keyword").results == []
        assert len(mx.search("crater permits", mode="keyword").results) == 2
    with fast_memex(memex_home) as mx:  # titles on again: the index says it lacks them
        notes = mx.search("zebra", mode="keyword").notes
        assert len(notes) == 1 and "before conversation titles were indexed" in notes[0]


def test_a_home_indexed_before_titles_asks_for_a_rebuild(memex_home: Path, tmp_path: Path) -> None:
    export = write_chatgpt_export(
        tmp_path / "c.json", [chatgpt_conversation("z", "Zebra planning", PERMITS)]
    )
    with fast_memex(memex_home) as mx:
        # As a memex that did not index titles recorded it: the ingest indexes no title.
        mx.catalog.set_setting(KEYWORD_CONTEXT_SETTING, "turns=2,chars=300,own=2")
        mx.ingest(export)
    with fast_memex(memex_home) as mx:
        assert mx.indexed_context().keyword == TurnContext(2, 300, titles=False)
        found = mx.search("zebra", mode="keyword")
        assert found.results == []
        assert len(found.notes) == 1
        assert "built before conversation titles were indexed" in found.notes[0]
        assert "`memex rebuild`" in found.notes[0]
        mx.rebuild(vectors=False)
        found = mx.search("zebra", mode="keyword")
        assert found.notes == [] and len(found.results) == 2


def test_index_table_defaults_and_refusals() -> None:
    assert parse_index_table({}) == IndexContext(
        TurnContext(2, 300), TurnContext(0, 300, titles=False)
    )
    assert parse_index_table(
        {"keyword_context_turns": 1, "vector_context_turns": 1, "context_chars": 50}
    ) == IndexContext(TurnContext(1, 50), TurnContext(1, 50, titles=False))
    assert parse_index_table({"keyword_titles": False}).keyword == TurnContext(2, 300, False)
    with pytest.raises(TurnContextSettingError, match="keyword_titles = 'no': use true or false"):
        parse_index_table({"keyword_titles": "no"})
    for bad in ({"keyword_context_turns": -1}, {"context_chars": "300"}, {"turns": 1}):
        with pytest.raises(TurnContextSettingError):
            parse_index_table(bad)
    with pytest.raises(TurnContextSettingError, match="keyword_context_turns = True"):
        parse_index_table({"keyword_context_turns": True})
    assert TurnContext.from_signature(TurnContext(2, 300).signature()) == TurnContext(2, 300)
    assert TurnContext(2, 300).signature() == "turns=2,chars=300,own=2,title=1"
    # Recorded by a memex that did not index titles yet:
    assert TurnContext.from_signature("turns=2,chars=300,own=2") == TurnContext(2, 300, False)
    assert TurnContext.from_signature("off") == TurnContext(0)
    assert TurnContext.from_signature("nonsense") is None


def test_a_bad_index_table_is_named(memex_home: Path) -> None:
    mx = fast_memex(memex_home, index={"keyword_context_turns": "two"})
    with pytest.raises(MemexError, match=r"\[index\] keyword_context_turns"):
        mx.search("anything", mode="keyword")


# -- every conversation source -----------------------------------------------------------------


def _chatgpt(folder: Path) -> Path:
    turns = [("user", QUESTION, T0), ("assistant", ANSWER, T0 + 60), ("user", THANKS, T0 + 120)]
    return write_chatgpt_export(
        folder / "conversations.json", [chatgpt_conversation("conv-ferry", "Ferry", turns)]
    )


def _claude_ai(folder: Path) -> Path:
    example = json.loads((REPO / "examples/exports/claude-conversations.json").read_text())
    conversation = copy.deepcopy(example[0])
    template = conversation["chat_messages"][0]
    messages = []
    for n, (sender, words) in enumerate(
        [("human", QUESTION), ("assistant", ANSWER), ("human", THANKS)]
    ):
        message = copy.deepcopy(template)
        message.update(uuid=f"00000000-0000-4000-8000-00000000000{n}", sender=sender, text=words)
        message["content"] = [{**template["content"][0], "text": words}]
        messages.append(message)
    conversation["chat_messages"] = messages
    path = folder / "claude" / "conversations.json"
    path.parent.mkdir()
    path.write_text(json.dumps([conversation]), encoding="utf-8")
    return path


def _claude_code(folder: Path) -> Path:
    transcript = Transcript()
    transcript.user(QUESTION)
    transcript.assistant("msg_A", text(ANSWER))
    transcript.user(THANKS)
    return transcript.write(folder / "session.jsonl")


def _codex(folder: Path) -> Path:
    entries = [
        codex.session_meta(),
        codex.user(QUESTION),
        codex.assistant(ANSWER),
        codex.user(THANKS),
    ]
    return codex.write_rollout(folder / "rollout-2025-01-01T00-00-00-ferry.jsonl", entries)


SOURCES: dict[str, Callable[[Path], Path]] = {
    "chatgpt": _chatgpt,
    "claude_ai": _claude_ai,
    "claude_code": _claude_code,
    "codex": _codex,
}


@pytest.mark.parametrize("kind", sorted(SOURCES))
def test_each_conversation_source_indexes_a_turn_with_the_ones_before(
    kind: str, memex_home: Path, tmp_path: Path
) -> None:
    mx = fast_memex(memex_home)
    report = mx.ingest(SOURCES[kind](tmp_path))
    assert report.count("failed") == 0
    answer, thanks = by_content(mx, ANSWER), by_content(mx, THANKS)
    assert answer.source_kind == kind
    # "Zanzibar" is only in the question; the next two turns are found by it.
    found = keyword_ids(mx, "zanzibar")
    assert answer.id in found and thanks.id in found
    assert set(keyword_ids(mx, "kilimanjaro")) == {answer.id, thanks.id}
    # What is shown is the turn itself.
    hit = next(r for r in mx.search("zanzibar", mode="keyword") if r.id == answer.id)
    assert hit.fragment.content == ANSWER and hit.fragment.index_text is None
    assert [f.content for f in mx.get([answer.id])] == [ANSWER]
    line = mx.timeline(answer.id, before=1, after=1)
    assert [f.content for f in line.fragments] == [QUESTION, ANSWER, THANKS]
    compact, _ = mx.compact_search("zanzibar", limit=3, mode="keyword")
    snippet = next(hit.snippet for hit in compact if hit.id == answer.id)
    assert "Kilimanjaro" in snippet and "Zanzibar" not in snippet
    mx.close()


def test_one_earlier_turn_when_configured(memex_home: Path, tmp_path: Path) -> None:
    mx = fast_memex(memex_home, index={"keyword_context_turns": 1})
    mx.ingest(_chatgpt(tmp_path))
    found = set(keyword_ids(mx, "zanzibar"))
    assert found == {by_content(mx, QUESTION).id, by_content(mx, ANSWER).id}
    mx.close()


def test_turn_context_off(memex_home: Path, tmp_path: Path) -> None:
    mx = fast_memex(memex_home, index={"keyword_context_turns": 0})
    mx.ingest(_chatgpt(tmp_path))
    assert keyword_ids(mx, "zanzibar") == [by_content(mx, QUESTION).id]
    mx.close()


def test_chunks_of_a_long_message_share_the_turn_before(memex_home: Path) -> None:
    mx = fast_memex(memex_home)

    def message(message_id: str, role: str, words: str) -> list[Fragment]:
        return list(
            message_fragments(
                source_kind="chatgpt",
                source_path="app",
                conversation_id="conv-long",
                message_id=message_id,
                role=role,
                text=words,
                timestamp=None,
                title="Long",
            )
        )

    question = message("q", "user", QUESTION)
    long_answer = "\n\n".join(f"Paragraph {n} about timetables and tickets." for n in range(80))
    chunks = message("a", "assistant", long_answer)
    assert len(chunks) > 1
    mx.add_fragments([*question, *chunks], origin="test:long")
    assert set(keyword_ids(mx, "zanzibar")) == {question[0].id, *(c.id for c in chunks)}
    mx.close()


def test_the_context_is_the_end_of_a_long_turn(memex_home: Path, tmp_path: Path) -> None:
    mx = fast_memex(memex_home, index={"context_chars": 40})
    turns = [
        ("user", "Zanzibar first. " + "filler words " * 30 + "then harbour timetable", T0),
        ("assistant", ANSWER, T0 + 60),
    ]
    mx.ingest(write_chatgpt_export(tmp_path / "c.json", [chatgpt_conversation("x", "X", turns)]))
    answer = by_content(mx, ANSWER).id
    assert answer not in keyword_ids(mx, "zanzibar")
    assert answer in keyword_ids(mx, "timetable")
    mx.close()


def test_notes_and_agent_memory_are_indexed_alone(memex_home: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "Ferries.md").write_text(
        "# Ferries\n\n## Zanzibar\n\nThe island route.\n\n## Tickets\n\nBuy at the kiosk.\n",
        encoding="utf-8",
    )
    mx = fast_memex(memex_home)
    mx.ingest(vault)
    agent = mx.agent("alice")
    agent.remember(
        messages=[
            {"role": "user", "content": "I am planning a trip to Quagmire Island."},
            {"role": "assistant", "content": "Pack sturdy boots."},
        ]
    )
    everything = SearchFilters(include_private=True)
    store = mx.keyword_store
    note_hits = {h.id for h in store.search("zanzibar", 10, everything)}
    kiosk = [f.id for f in mx.catalog.iter_fragments() if "kiosk" in f.content]
    assert kiosk and not note_hits.intersection(kiosk)
    boots = [f.id for f in mx.catalog.iter_fragments() if f.content == "Pack sturdy boots."]
    assert boots
    assert not {h.id for h in store.search("quagmire", 10, everything)}.intersection(boots)
    mx.close()


# -- vectors -------------------------------------------------------------------------------------


def _vector_of(mx: Memex, fragment_id: str) -> np.ndarray:
    return np.asarray(mx.vector_store.vectors[fragment_id])  # type: ignore[attr-defined]


def _embedding(text_: str) -> np.ndarray:
    return np.asarray(HashingEmbedder().embed_documents([text_])[0])


def test_vectors_see_a_turn_alone_by_default(memex_home: Path, tmp_path: Path) -> None:
    mx = fast_memex(memex_home)
    mx.ingest(_chatgpt(tmp_path))
    answer = by_content(mx, ANSWER).id
    assert np.allclose(_vector_of(mx, answer), _embedding(ANSWER))
    mx.close()


def test_vectors_see_earlier_turns_when_configured(memex_home: Path, tmp_path: Path) -> None:
    mx = fast_memex(memex_home, index={"vector_context_turns": 1, "keyword_context_turns": 0})
    mx.ingest(_chatgpt(tmp_path))
    answer, thanks = by_content(mx, ANSWER).id, by_content(mx, THANKS).id
    assert np.allclose(_vector_of(mx, answer), _embedding(f"{QUESTION}\n{ANSWER}\n{ANSWER}"))
    assert np.allclose(_vector_of(mx, thanks), _embedding(f"{ANSWER}\n{THANKS}\n{THANKS}"))
    assert keyword_ids(mx, "zanzibar") == [by_content(mx, QUESTION).id]
    mx.close()


# -- rebuild, doctor, catch-up ---------------------------------------------------------------------


def test_rebuild_keeps_turn_context(memex_home: Path, tmp_path: Path) -> None:
    mx = fast_memex(memex_home, index={"vector_context_turns": 1})
    mx.ingest(_chatgpt(tmp_path))
    before = keyword_ids(mx, "zanzibar")
    answer = by_content(mx, ANSWER).id
    mx.rebuild(keyword=True, vectors=True)
    assert keyword_ids(mx, "zanzibar") == before and answer in before
    assert np.allclose(_vector_of(mx, answer), _embedding(f"{QUESTION}\n{ANSWER}\n{ANSWER}"))
    mx.close()
    reopened = fast_memex(memex_home, index={"vector_context_turns": 1})
    assert keyword_ids(reopened, "zanzibar") == before
    assert reopened.index_setting_notes() == []
    reopened.close()


def test_doctor_repair_indexes_with_turn_context(memex_home: Path, tmp_path: Path) -> None:
    mx = fast_memex(memex_home, index={"vector_context_turns": 1})
    mx.ingest(_chatgpt(tmp_path))
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
    assert np.allclose(_vector_of(mx, answer), _embedding(f"{QUESTION}\n{ANSWER}\n{ANSWER}"))
    mx.close()


def test_a_reader_rebuilding_a_lost_index_adds_turn_context(
    memex_home: Path, tmp_path: Path
) -> None:
    mx = fast_memex(memex_home)
    mx.ingest(_chatgpt(tmp_path))
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
    mx.ingest(_chatgpt(tmp_path))
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
    mx.ingest(_chatgpt(tmp_path))
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
    mx.ingest(_chatgpt(tmp_path))
    mx.close()
    mx = fast_memex(memex_home, index={"vector_context_turns": 1})
    notes = mx.search("ferry").notes
    assert len(notes) == 1 and "`memex rebuild --vectors`" in notes[0]
    assert mx.search("ferry", mode="keyword").notes == []
    finding = mx.doctor(repair=True).final.get("vectors.context_setting")
    assert finding is not None and finding.severity == "note"
    answer = by_content(mx, ANSWER).id
    assert np.allclose(_vector_of(mx, answer), _embedding(ANSWER))  # the doctor did not re-embed
    mx.rebuild(keyword=False, vectors=True)
    assert mx.search("ferry").notes == []
    assert np.allclose(_vector_of(mx, answer), _embedding(f"{QUESTION}\n{ANSWER}\n{ANSWER}"))
    assert mx.catalog.get_setting(VECTOR_CONTEXT_SETTING) == "turns=1,chars=300,own=2"
    mx.close()


def test_a_home_indexed_before_turn_context_counts_as_off(memex_home: Path, tmp_path: Path) -> None:
    mx = fast_memex(memex_home, index={"keyword_context_turns": 0})
    mx.ingest(_chatgpt(tmp_path))
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
    store.add([_fragment(str(n), "user", text) for n, text in enumerate(texts)])
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
