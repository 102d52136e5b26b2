"""Tests for the ChatGPT export source: real exports (shared data) and our own fixtures."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import zipfile
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pluggy
import pytest
from hypothesis import given
from hypothesis import strategies as st

import memex_chatgpt
from memex_chatgpt.source import ChatGPTSource
from memex_chatgpt.thread import active_path
from memex_claude_ai.source import ClaudeAISource
from memex_core import hookspecs
from memex_core.domain import ROLES, Fragment, PluginContext, Source, SourceError
from memex_core.plugins import PluginRegistry
from memex_core.source_kit import SkippedItemWarning
from tests.support._data import shared_data_dir, shared_file_params

FIXTURE = Path(__file__).parents[2] / "fixtures" / "chatgpt" / "conversations.json"
CLAUDE_FIXTURE = Path(__file__).parents[2] / "fixtures" / "claude_ai" / "conversations.json"


def ingest(path: Path, **options: Any) -> list[Fragment]:
    source = ChatGPTSource(**options)
    assert source.can_handle(path), f"can_handle refused {path}"
    return list(source.ingest(path))


def by_conversation(fragments: list[Fragment]) -> dict[str, list[Fragment]]:
    grouped: dict[str, list[Fragment]] = {}
    for fragment in fragments:
        grouped.setdefault(fragment.conversation_id, []).append(fragment)
    return grouped


def texts(fragments: list[Fragment]) -> list[str]:
    return [f.content for f in fragments]


def message_ids(fragments: list[Fragment]) -> list[str]:
    ids = [str(f.metadata["message_id"]) for f in fragments]
    return list(dict.fromkeys(ids))  # chunks share a message id


def zipped(tmp_path: Path, source: Path, member: str = "conversations.json") -> Path:
    archive = tmp_path / "export.zip"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as handle:
        handle.writestr(member, source.read_bytes())
        handle.writestr(member.replace("conversations.json", "user.json"), "{}")
        handle.writestr(member.replace("conversations.json", "chat.html"), "<html></html>")
    return archive


# --- every real export file -----------------------------------------------------------

SHARED = shared_file_params("exports", "chatgpt", keep=lambda p: not p.name.startswith("LICENSE"))


@pytest.mark.parametrize("path", SHARED)
def test_every_shared_export_is_read(path: Path) -> None:
    fragments = ingest(path)
    assert fragments
    assert len({f.id for f in fragments}) == len(fragments)
    for fragment in fragments:
        assert fragment.role in ROLES
        assert fragment.content.strip()
        assert fragment.source_kind == "chatgpt"
        assert fragment.provenance.source_path == str(path)
        assert fragment.timestamp is None or isinstance(fragment.timestamp, float)
        json.dumps(fragment.metadata)  # must be JSON-serialisable
    # ingesting twice yields identical ids
    assert [f.id for f in ingest(path)] == [f.id for f in fragments]


@pytest.mark.parametrize("path", SHARED)
def test_shared_exports_are_not_claude_exports(path: Path) -> None:
    assert not ClaudeAISource().can_handle(path)


@pytest.mark.parametrize(
    "path", shared_file_params("exports", "chatgpt", keep=lambda p: p.name.startswith("LICENSE"))
)
def test_license_files_are_refused(path: Path) -> None:
    assert not ChatGPTSource().can_handle(path)


@pytest.fixture
def chatgpt_data() -> Path:
    return shared_data_dir("exports", "chatgpt")


def test_mitkury_active_branch_excludes_the_abandoned_prompt(chatgpt_data: Path) -> None:
    fragments = ingest(chatgpt_data / "mitkury_example-conversation.json")
    # msg-1 is an empty system message; msg-5 is the abandoned branch off msg-3.
    assert message_ids(fragments) == ["msg-2", "msg-3", "msg-4", "msg-6"]
    assert [f.role for f in fragments] == ["user", "assistant", "user", "assistant"]
    assert not any("Python instead" in f.content for f in fragments)
    assert fragments[0].conversation_id == "conv-123"
    assert fragments[0].title == "Sample conversation with branch"
    assert fragments[-1].timestamp == 1704067500.0
    assert fragments[-1].metadata["model_slug"] == "gpt-4"
    assert "function greet(name)" in fragments[-1].content


def test_2015pulsar_edge_cases(chatgpt_data: Path) -> None:
    convs = by_conversation(ingest(chatgpt_data / "2015pulsar_edgecases_conversations.json"))
    # a dict keyed by case name: the key is the conversation id
    assert set(convs) == {
        "linear",
        "regenerate",
        "attachment",
        "missingParent",
        "cycle",
        "unicode",
        "unknownPart",
        "structuralHidden",
    }
    assert texts(convs["linear"]) == ["Hello", "Hi there"]
    assert convs["linear"][0].timestamp == 1786279632.0
    assert texts(convs["regenerate"]) == ["Give me an answer", "NEW ACTIVE ANSWER"]
    assert convs["attachment"][0].metadata["attachments"] == ["example.zip"]
    assert "[attachment: example.zip]" in convs["attachment"][0].content
    assert texts(convs["missingParent"]) == ["Partial"]  # parent not in mapping
    assert sorted(texts(convs["cycle"])) == ["A", "B"]  # terminates
    assert convs["unicode"][0].title == "Кириллица и 日本語"
    assert texts(convs["unicode"]) == ["Привет, мир! 👋", "Здравствуйте — всё работает."]
    widget = convs["unknownPart"][1]
    assert widget.content == "Visible text\n\n[future_widget]"
    assert widget.metadata["non_text_parts"] == ["future_widget"]
    # Not flagged hidden and not empty: system and tool messages are kept with their roles.
    assert [f.role for f in convs["structuralHidden"]] == ["system", "user", "tool", "assistant"]


def test_2015pulsar_hardening(chatgpt_data: Path) -> None:
    path = chatgpt_data / "2015pulsar_hardening.json"
    convs = by_conversation(ingest(path))
    call, result, final = convs["internalRecipient"][1:]
    assert (call.role, call.content) == ("assistant", "INTERNAL BROWSER COMMAND")
    assert call.metadata["tool_call"] is True and call.metadata["recipient"] == "browser"
    assert (result.role, result.content) == ("tool", "TOOL RESULT")
    assert "tool_call" not in final.metadata and final.content == "VISIBLE FINAL ANSWER"
    # reasoning stays out of search unless asked for
    assert texts(convs["reasoning"]) == ["Solve it", "PUBLIC RESULT"]
    with_thinking = by_conversation(ingest(path, include_thinking=True))["reasoning"]
    assert texts(with_thinking) == [
        "Solve it",
        "PRIVATE THOUGHTS",
        "PRIVATE REASONING RECAP",
        "PUBLIC RESULT",
    ]
    assert [f.metadata.get("reasoning", False) for f in with_thinking] == [
        False,
        True,
        True,
        False,
    ]
    # a file pointer that matches an attachment is shown once, by name
    assert texts(convs["duplicateSediment"]) == ["See attachment\n\n[file: example.zip]"]
    assert texts(convs["duplicateFileService"]) == ["See attachment\n\n[file: example-archive.zip]"]
    image = convs["knownImage"][0]
    assert image.content == "Describe this image\n\n[image: sediment://image_456]"
    assert image.metadata["non_text_parts"] == ["image_asset_pointer: sediment://image_456"]
    assert image.metadata["content_type"] == "multimodal_text"


def test_librechat_export_tool_traffic_and_hidden_system(chatgpt_data: Path) -> None:
    convs = by_conversation(ingest(chatgpt_data / "librechat_chatgpt-export.json"))
    assert list(convs) == [
        "d6523d1e-7ec3-474f-a363-0e9dffdb3d93",
        "7c5ab593-dbab-43bd-862d-2c3c1eeebf6a",
    ]
    web = convs["d6523d1e-7ec3-474f-a363-0e9dffdb3d93"]
    assert web[0].title == "Conversation 1. Web Search"
    assert not any(f.role == "system" for f in web)  # the hidden empty system message
    assert web[0].content.startswith("What is the fuel consumption of vw")
    calls = [f for f in web if f.metadata.get("tool_call")]
    assert calls[0].content == (
        'search("Volkswagen Transporter fuel consumption with 8 people l/km")'
    )
    assert {f.metadata["recipient"] for f in calls} == {"browser"}
    assert len(message_ids(calls)) == 4
    tool_messages = [f for f in web if f.role == "tool"]
    assert len(message_ids(tool_messages)) == 5
    assert Counter(f.metadata["content_type"] for f in tool_messages).keys() == {
        "tether_browsing_display",
        "tether_quote",
    }
    answer = next(f for f in web if f.role == "assistant" and "tool_call" not in f.metadata)
    assert answer.metadata["citations"][0]["url"].startswith("https://")
    assert answer.timestamp == pytest.approx(1704629939.865778)


def test_librechat_tree_follows_current_node(chatgpt_data: Path) -> None:
    fragments = ingest(chatgpt_data / "librechat_chatgpt-tree.json")
    assert texts(fragments)[:5] == [
        "hi there",
        "Hello! How can I assist you today?",
        "hi again",
        "Hey! Welcome back. What's on your mind?",
        "tell me a joke",
    ]
    assert not any(t in texts(fragments) for t in ("so cool bro", "tell me a story"))
    # the regenerated joke: the one current_node names, not its older sibling
    assert message_ids(fragments)[-1] == "f63b8e17-aa5c-4ca6-a1bf-d4d285e269b8"
    assert "d0d2a7df" not in " ".join(message_ids(fragments))


def test_librechat_citations_with_dangling_pointers(chatgpt_data: Path) -> None:
    # current_node is missing and the first node's parent is missing: walk what exists.
    fragments = ingest(chatgpt_data / "librechat_chatgpt-citations.json")
    assert message_ids(fragments) == [
        "9e874379-5008-4a2d-aa2e-628d1d705a04",
        "4b3aec6b-5146-4bad-ae8e-204fdb6accda",
    ]
    answer = fragments[-1]
    assert answer.role == "assistant" and answer.content.startswith("Signal Sciences is a")
    assert len(answer.metadata["citations"]) == 4


def test_convonaut_tree_from_parent_links_only(chatgpt_data: Path) -> None:
    convs = by_conversation(ingest(chatgpt_data / "convonaut_conversations.json"))
    assert len(convs) == 7
    first = convs["4o85deuk-t7gy-bz98-uclp-764b8b8zpwdr"]
    assert texts(first)[:3] == [
        "Hi, what's up?",
        "I'm here to assist you. What would you like to know?",
        "How do you work?",
    ]
    for fragments in convs.values():
        assert len(fragments) == 5
        times = [f.timestamp for f in fragments if f.timestamp is not None]
        assert len(times) == 5 and times == sorted(times)


# --- our own fixtures -------------------------------------------------------------------


def test_fixture_branch_edit_and_regeneration() -> None:
    branch = by_conversation(ingest(FIXTURE))["6a1f0c2e-0b1d-4c55-9f0e-branch000001"]
    assert message_ids(branch) == ["u-1", "a-1", "u-2-new", "a-2-regen-2"]
    assert not any("ABANDONED" in t or "FIRST GENERATION" in t for t in texts(branch))
    assert branch[0].title == "Rename files by date"


def test_fixture_tool_call_result_image_and_hidden_context() -> None:
    tools = by_conversation(ingest(FIXTURE))["6a1f0c2e-0b1d-4c55-9f0e-tools0000002"]
    assert [f.role for f in tools] == ["user", "assistant", "tool", "assistant"]
    image, call, result, answer = tools
    assert image.content.startswith("[image: sketch.png]\n\nHere is my hand-drawn sketch.")
    assert image.metadata["attachments"] == ["sketch.png"]
    assert image.metadata["non_text_parts"] == ["image_asset_pointer: file-service://file-Sine123"]
    assert call.metadata["tool_call"] is True and call.metadata["recipient"] == "python"
    assert call.content.startswith("import numpy as np")
    assert (result.content, result.metadata["author_name"]) == (
        "Saved figure sine.png (200 points)",
        "python",
    )
    assert "PRIVATE REASONING" not in " ".join(texts(tools))
    assert "HIDDEN" not in " ".join(texts(tools))  # custom instructions are hidden
    assert answer.timestamp == 1735000015.0


def test_fixture_long_message_is_chunked_and_linked() -> None:
    long = by_conversation(ingest(FIXTURE))["6a1f0c2e-0b1d-4c55-9f0e-long00000003"]
    chunks = long[1:]
    assert len(chunks) == 3
    assert all(len(c.content) <= 2000 for c in chunks)
    assert [c.metadata["chunk_index"] for c in chunks] == [0, 1, 2]
    assert {c.metadata["message_id"] for c in chunks} == {"a-1"}
    for before, after in itertools.pairwise(chunks):
        assert before.metadata["next_id"] == after.id
        assert after.metadata["prev_id"] == before.id
    assert chunks[0].metadata["prev_id"] is None and chunks[-1].metadata["next_id"] is None
    # chunks cut at paragraph boundaries: each starts a "Step" paragraph
    assert all(c.content.startswith("Step ") for c in chunks)
    assert chunks[0].provenance.locator.endswith("/a-1#chunk-0")


def test_smaller_max_chars_makes_more_chunks() -> None:
    fragments = ingest(FIXTURE, max_chars=500)
    assert max(len(f.content) for f in fragments) <= 500


@pytest.mark.parametrize("member", ["conversations.json", "chatgpt-export-2025/conversations.json"])
def test_zip_export_gives_the_same_fragments(tmp_path: Path, member: str) -> None:
    archive = zipped(tmp_path, FIXTURE, member)
    from_zip = ingest(archive)
    plain = ingest(FIXTURE)
    assert [f.id for f in from_zip] == [f.id for f in plain]
    assert {f.provenance.source_path for f in from_zip} == {str(archive)}


def test_zip_with_a_claude_export_is_refused(tmp_path: Path) -> None:
    assert not ChatGPTSource().can_handle(zipped(tmp_path, CLAUDE_FIXTURE))


def test_can_handle_only_peeks(tmp_path: Path) -> None:
    # A valid opening followed by garbage: can_handle says yes without parsing the rest...
    path = tmp_path / "conversations.json"
    path.write_bytes(FIXTURE.read_bytes()[:3000] + b"\x00 garbage" * 20_000)
    assert ChatGPTSource().can_handle(path)
    # ...and ingest reports where the JSON breaks.
    with pytest.raises(SourceError) as caught:
        list(ChatGPTSource().ingest(path))
    assert caught.value.location is not None and caught.value.location.startswith("line ")
    assert str(path) in str(caught.value)


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("notes.txt", FIXTURE.read_text()),  # right content, wrong kind of file
        ("config.json", '{"mapping": "not a node map"}'),
        ("schema.json", '{"text": "a \\"mapping\\": {\\"a\\": {\\"id\\": 1}}"}'),
        ("empty.json", ""),
        ("broken.zip", "PK not a zip"),
    ],
)
def test_can_handle_refuses_other_files(tmp_path: Path, name: str, content: str) -> None:
    path = tmp_path / name
    path.write_text(content)
    assert not ChatGPTSource().can_handle(path)


def test_can_handle_refuses_folders_and_missing_files(tmp_path: Path) -> None:
    (tmp_path / "dir.json").mkdir()
    assert not ChatGPTSource().can_handle(tmp_path / "dir.json")
    assert not ChatGPTSource().can_handle(tmp_path / "absent.json")


def test_single_conversation_object_is_accepted(tmp_path: Path) -> None:
    one = json.loads(FIXTURE.read_text())[0]
    path = tmp_path / "one.json"
    path.write_text(json.dumps(one))
    assert message_ids(ingest(path)) == ["u-1", "a-1", "u-2-new", "a-2-regen-2"]


def test_odd_conversations_are_skipped_with_warnings(tmp_path: Path) -> None:
    good = json.loads(FIXTURE.read_text())[0]
    weird = {
        "title": "odd shapes",
        "id": "odd",
        "current_node": "n",
        "mapping": {
            "n": {
                "parent": None,
                "message": {"author": "not an object", "content": {"parts": "not a list"}},
            },
            "m": "not a node",
        },
    }
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([good, {"id": "bad", "mapping": []}, 42, weird]))
    with pytest.warns(SkippedItemWarning) as caught:
        fragments = ingest(path)
    messages = [str(w.message) for w in caught]
    assert any("conversation 2 (id bad)" in m and "not an object" in m for m in messages)
    assert any("conversation 3" in m for m in messages)
    assert len(by_conversation(fragments)[good["id"]]) == 4
    odd = by_conversation(fragments)["odd"]  # odd but readable: rendered, not dropped
    assert odd[0].content == "not a list"


def test_wrong_structure_raises_a_source_error(tmp_path: Path) -> None:
    path = tmp_path / "conversations.json"
    path.write_text('{"users": [{"name": "x"}]}')
    with pytest.raises(SourceError, match="no conversations found"):
        list(ChatGPTSource().ingest(path))


def test_conversation_without_ids_gets_a_stable_derived_id(tmp_path: Path) -> None:
    conv = json.loads(FIXTURE.read_text())[0]
    del conv["id"], conv["conversation_id"]
    path = tmp_path / "c.json"
    path.write_text(json.dumps([conv]))
    first, second = ingest(path), ingest(path)
    assert first[0].conversation_id.startswith("chatgpt-")
    assert [f.id for f in first] == [f.id for f in second]


def test_missing_message_time_falls_back_to_the_conversation(tmp_path: Path) -> None:
    conv = json.loads(FIXTURE.read_text())[0]
    conv["mapping"]["u-1"]["message"]["create_time"] = None
    path = tmp_path / "c.json"
    path.write_text(json.dumps([conv]))
    assert ingest(path)[0].timestamp == conv["create_time"]


# --- the active-path walk, for any shape of parent links ----------------------------------

node_ids = st.sampled_from([f"n{i}" for i in range(8)])


@given(
    parents=st.dictionaries(node_ids, st.one_of(st.none(), node_ids, st.just("ghost"))),
    current=st.one_of(st.none(), node_ids, st.just("ghost")),
)
def test_active_path_always_terminates_on_real_nodes(
    parents: dict[str, str | None], current: str | None
) -> None:
    mapping = {node_id: {"id": node_id, "parent": parent} for node_id, parent in parents.items()}
    path = active_path(mapping, current)
    assert len(path) == len(set(path))
    assert all(node_id in mapping for node_id in path)
    for child, parent in zip(path[1:], path, strict=False):
        assert mapping[child]["parent"] == parent
    if mapping:
        assert path  # something is always found when there are nodes


# --- plugin wiring ------------------------------------------------------------------------


def test_plugin_registers_a_source_factory(tmp_path: Path) -> None:
    manager = pluggy.PluginManager("memex")
    manager.add_hookspecs(hookspecs)
    registry = PluginRegistry(manager)
    registry.register_plugin(memex_chatgpt, "chatgpt")
    registration = registry.get("source", "chatgpt")
    assert registration.available and registration.requires == ()
    source = registry.build(
        "source", "chatgpt", PluginContext(home=tmp_path, settings={"include_thinking": True})
    )
    assert isinstance(source, Source) and isinstance(source, ChatGPTSource)
    assert source.source_kind == "chatgpt" and source.include_thinking is True


def test_importing_the_plugin_does_not_load_the_reader() -> None:
    code = "import sys, memex_chatgpt; print('memex_chatgpt.source' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


# --- the sample export shipped for the README quick start --------------------------------


def test_shipped_example_export() -> None:
    path = Path(__file__).parents[3] / "examples" / "exports" / "chatgpt-conversations.json"
    convs = by_conversation(ingest(path))
    assert len(convs) == 8
    titles = {fragments[0].title for fragments in convs.values()}
    assert "SQLite database is locked with WAL" in titles
    years = {datetime.fromtimestamp(f[0].timestamp or 0, UTC).year for f in convs.values()}
    assert years == {2024, 2025, 2026}
    everything = [f for fragments in convs.values() for f in fragments]
    assert any(f.metadata.get("tool_call") for f in everything)
    assert any(f.role == "tool" for f in everything)
    assert any("non_text_parts" in f.metadata for f in everything)
    # the regenerated first answer of the SQLite chat is an abandoned branch
    assert not any("try restarting the Flask app" in f.content for f in everything)
    assert not ClaudeAISource().can_handle(path)
