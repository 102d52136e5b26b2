"""Turn context: the indexes see a conversation turn with the turns before it.

``[index] keyword_context_turns`` (default 2), ``vector_context_turns`` (default
0) and ``context_chars`` (default 300). What ``get``, ``timeline`` and search
results show never changes; ingest, rebuild, the doctor's repair and a reader's
catch-up all index the same text; a home never mixes turns indexed two ways.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from memex_core.domain import Fragment, SearchFilters
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
from memex_core.services.index_text import KEYWORD_CONTEXT_SETTING
from tests.support import codex_builders as codex
from tests.support.claude_code_builders import Transcript, text
from tests.support.component_doubles import fast_memex
from tests.support.export_builders import T0, chatgpt_conversation, write_chatgpt_export
from tests.support.turn_context_homes import (
    ANSWER,
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

REPO = Path(__file__).resolve().parents[2]


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


def test_with_context_changes_only_later_dialogue_turns() -> None:
    first = turn_fragment("1", "user", "first question")
    tool = turn_fragment("2", "tool", "tool output")
    answer = turn_fragment("3", "assistant", "the answer")
    note = turn_fragment("4", "note", "a note")
    memory = turn_fragment("5", "user", "remembered", kind="memory")
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
    titled = replace(turn_fragment("1", "user", "how do I fix it?"), title="SQLite locking")
    answer = replace(turn_fragment("2", "assistant", "Use WAL."), title="SQLite locking")
    # An abstract stored as "title + text" already holds its title: not added again.
    abstract = replace(
        turn_fragment("3", "user", "SQLite locking in depth. Text."), title="SQLite locking"
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
    "chatgpt": ferry_chat,
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
    mx.ingest(ferry_chat(tmp_path))
    found = set(keyword_ids(mx, "zanzibar"))
    assert found == {by_content(mx, QUESTION).id, by_content(mx, ANSWER).id}
    mx.close()


def test_turn_context_off(memex_home: Path, tmp_path: Path) -> None:
    mx = fast_memex(memex_home, index={"keyword_context_turns": 0})
    mx.ingest(ferry_chat(tmp_path))
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


def test_vectors_see_a_turn_alone_by_default(memex_home: Path, tmp_path: Path) -> None:
    mx = fast_memex(memex_home)
    mx.ingest(ferry_chat(tmp_path))
    answer = by_content(mx, ANSWER).id
    assert np.allclose(vector_of(mx, answer), hashing_embedding(ANSWER))
    mx.close()


def test_vectors_see_earlier_turns_when_configured(memex_home: Path, tmp_path: Path) -> None:
    mx = fast_memex(memex_home, index={"vector_context_turns": 1, "keyword_context_turns": 0})
    mx.ingest(ferry_chat(tmp_path))
    answer, thanks = by_content(mx, ANSWER).id, by_content(mx, THANKS).id
    assert np.allclose(vector_of(mx, answer), hashing_embedding(f"{QUESTION}\n{ANSWER}\n{ANSWER}"))
    assert np.allclose(vector_of(mx, thanks), hashing_embedding(f"{ANSWER}\n{THANKS}\n{THANKS}"))
    assert keyword_ids(mx, "zanzibar") == [by_content(mx, QUESTION).id]
    mx.close()
