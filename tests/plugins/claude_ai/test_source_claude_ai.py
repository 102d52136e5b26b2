"""Tests for the Claude.ai export source: real exports (shared data) and our own fixtures."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import zipfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pluggy
import pytest

import memex_claude_ai
from memex_chatgpt.source import ChatGPTSource
from memex_claude_ai.source import ClaudeAISource
from memex_core import hookspecs
from memex_core.domain import ROLES, Fragment, PluginContext, Source, SourceError
from memex_core.plugins import PluginRegistry
from memex_core.source_kit import SkippedItemWarning
from tests.support._data import shared_data_dir, shared_file_params

FIXTURES = Path(__file__).parents[2] / "fixtures" / "claude_ai"
FIXTURE = FIXTURES / "conversations.json"
CHATGPT_FIXTURE = Path(__file__).parents[2] / "fixtures" / "chatgpt" / "conversations.json"

# Files of a Claude.ai export that are not conversations.
NOT_CONVERSATIONS = ("users.json", "projects.json", "memories.json")


def is_conversation_file(path: Path) -> bool:
    return not path.name.endswith(NOT_CONVERSATIONS)


def ingest(path: Path, **options: Any) -> list[Fragment]:
    source = ClaudeAISource(**options)
    assert source.can_handle(path), f"can_handle refused {path}"
    return list(source.ingest(path))


def by_conversation(fragments: list[Fragment]) -> dict[str, list[Fragment]]:
    grouped: dict[str, list[Fragment]] = {}
    for fragment in fragments:
        grouped.setdefault(fragment.conversation_id, []).append(fragment)
    return grouped


def iso(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC).timestamp()


def zipped(tmp_path: Path, member: str = "conversations.json") -> Path:
    folder = member.rpartition("/")[0]
    prefix = f"{folder}/" if folder else ""
    archive = tmp_path / "claude-export.zip"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as handle:
        handle.writestr(member, FIXTURE.read_bytes())
        for name in ("users.json", "projects.json"):
            handle.writestr(prefix + name, (FIXTURES / name).read_bytes())
    return archive


# --- every real export file -------------------------------------------------------------


@pytest.mark.parametrize(
    "path", shared_file_params("exports", "claude_ai", keep=is_conversation_file)
)
def test_every_shared_conversation_file_is_read(path: Path) -> None:
    fragments = ingest(path)
    assert fragments
    assert len({f.id for f in fragments}) == len(fragments)
    for fragment in fragments:
        assert fragment.role in ROLES
        assert fragment.content.strip()
        assert fragment.source_kind == "claude_ai"
        assert fragment.provenance.source_path == str(path)
        assert isinstance(fragment.timestamp, float)
        json.dumps(fragment.metadata)
    assert [f.id for f in ingest(path)] == [f.id for f in fragments]
    assert not ChatGPTSource().can_handle(path)


@pytest.mark.parametrize(
    "path", shared_file_params("exports", "claude_ai", keep=lambda p: not is_conversation_file(p))
)
def test_users_projects_and_memories_are_refused(path: Path) -> None:
    assert not ClaudeAISource().can_handle(path)
    with pytest.raises(SourceError, match="no conversations found"):
        list(ClaudeAISource().ingest(path))


@pytest.fixture
def claude_data() -> Path:
    return shared_data_dir("exports", "claude_ai")


def test_yaleman_answer_excludes_the_thinking(claude_data: Path) -> None:
    user, answer = ingest(claude_data / "yaleman_conversations.json")
    assert user.role == "user" and user.content.startswith("Tell me about the facts behind")
    assert answer.role == "assistant"
    # the top-level `text` glues thinking to the answer; content blocks keep them apart
    assert answer.content.startswith("Dog saliva does contain some antibacterial compounds")
    assert "The user is asking" not in answer.content
    assert "concise per their preferences" not in answer.content
    assert answer.metadata["thinking"].startswith("The user is asking about the belief")
    assert answer.conversation_id == "b49c0fc0-85d8-475c-bd2d-ee89f31f592c"
    assert answer.title == "Bleep bloop"
    assert answer.timestamp == pytest.approx(iso("2025-07-06T03:10:24.798798Z"))


def test_yaleman_thinking_indexed_on_request(claude_data: Path) -> None:
    fragments = ingest(claude_data / "yaleman_conversations.json", include_thinking=True)
    assert [f.role for f in fragments] == ["user", "assistant", "assistant"]
    thinking, answer = fragments[1:]
    assert thinking.metadata["reasoning"] is True
    assert thinking.content.startswith("The user is asking")
    assert thinking.provenance.source_id == "0abf9869-20f7-4b45-99e3-4381e9d37317/thinking"
    assert "thinking" not in answer.metadata and "reasoning" not in answer.metadata


def test_open_archive_null_message_is_skipped(claude_data: Path) -> None:
    user, answer = ingest(claude_data / "dknedlik_OpenArchive_claude_export.json")
    assert (user.provenance.source_id, answer.provenance.source_id) == (
        "claude-msg-1",
        "claude-msg-2",
    )
    assert user.content == "Will very lean legs skew a bioimpedance body fat scale?"
    assert answer.content == "Yes, very lean legs can skew bioimpedance readings."
    assert answer.metadata["files"] == ["note.txt"]
    assert answer.metadata["thinking"].startswith("Thinking about bioimpedance")
    assert user.timestamp == pytest.approx(iso("2026-01-17T14:23:33.472056Z"))
    assert user.conversation_id == "claude-conv-1"


# --- our own fixtures ---------------------------------------------------------------------

IMPORT_CONV = "0c1d7a52-3e61-4f7b-9a0a-claude000001"
SEARCH_CONV = "0c1d7a52-3e61-4f7b-9a0a-claude000002"


def test_fixture_attachment_text_is_searchable() -> None:
    user, answer = by_conversation(ingest(FIXTURE))[IMPORT_CONV]  # the null entry is skipped
    assert user.content == (
        "Can you review this import script? It chokes on semicolons.\n\n"
        "[attachment: import_orders.py]\nimport csv\n\nwith open('orders.csv') as f:\n"
        "    for row in csv.reader(f):\n        print(row[2])"
    )
    assert user.metadata["attachments"] == ["import_orders.py"]
    assert user.metadata["files"] == ["import_orders.py"]
    assert answer.content.startswith("Your script assumes commas.")
    assert "SECRET THINKING" not in answer.content
    assert answer.metadata["thinking"] == "SECRET THINKING about delimiters."
    assert answer.title == "Review my CSV import script"


def test_fixture_tool_blocks_become_their_own_fragments() -> None:
    question, *answer = by_conversation(ingest(FIXTURE))[SEARCH_CONV]
    # no content blocks: the top-level text is the message
    assert question.content == "Which Python version is current?"
    assert [(f.role, f.content.splitlines()[0]) for f in answer] == [
        ("assistant", "Let me check."),
        ("assistant", "[tool call: web_search]"),
        ("tool", "[tool result: web_search]"),
        ("assistant", "Python 3.14.0 is the newest major release."),
    ]
    call, result = answer[1], answer[2]
    assert call.content == "[tool call: web_search]\nquery: latest python release"
    assert call.metadata["tool_call"] is True and call.metadata["tool_name"] == "web_search"
    assert "https://www.python.org/downloads/release/python-3140/" in result.content
    assert result.metadata["tool_result"] is True
    message = "22222222-aaaa-4bbb-8ccc-000000000002"
    assert [f.provenance.source_id for f in answer] == [
        message,
        f"{message}/part-1",
        f"{message}/part-2",
        f"{message}/part-3",
    ]
    assert [f.timestamp for f in answer] == [pytest.approx(iso("2025-11-02T18:40:10Z"))] * 4


def test_long_messages_are_chunked_and_linked(tmp_path: Path) -> None:
    data = json.loads(FIXTURE.read_text())
    paragraphs = [f"Paragraph {i} about delimiter sniffing. " * 12 for i in range(12)]
    data[0]["chat_messages"][2]["content"][1]["text"] = "\n\n".join(paragraphs)
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps(data))
    chunks = [f for f in ingest(path) if f.metadata.get("chunk_count")]
    assert len(chunks) == chunks[0].metadata["chunk_count"] >= 3
    for before, after in itertools.pairwise(chunks):
        assert before.metadata["next_id"] == after.id and after.metadata["prev_id"] == before.id
    assert all(c.content.startswith("Paragraph ") for c in chunks)
    assert all(c.metadata["thinking"] == "SECRET THINKING about delimiters." for c in chunks)


def test_stable_ids_across_runs_and_copies(tmp_path: Path) -> None:
    copy = tmp_path / "renamed-copy.json"
    copy.write_bytes(FIXTURE.read_bytes())
    assert [f.id for f in ingest(FIXTURE)] == [f.id for f in ingest(copy)]


@pytest.mark.parametrize("member", ["conversations.json", "data-2025-11-02/conversations.json"])
def test_zip_export_gives_the_same_fragments(tmp_path: Path, member: str) -> None:
    archive = zipped(tmp_path, member)
    with pytest.warns(SkippedItemWarning) as caught:
        from_zip = ingest(archive)
    assert [f.id for f in from_zip] == [f.id for f in ingest(FIXTURE)]
    # The side files are named, each with why it is not read.
    folder = member.rpartition("/")[0]
    prefix = f"{folder}/" if folder else ""
    assert sorted(str(w.message) for w in caught) == [
        f"{archive} ({prefix}projects.json): skipped, Claude.ai projects, not conversations; "
        "memex does not index project descriptions and documents yet",
        f"{archive} ({prefix}users.json): skipped, Claude.ai account details, not "
        "conversations; nothing in them to index",
    ]
    assert {f.provenance.source_path for f in from_zip} == {str(archive)}


def test_zip_with_a_chatgpt_export_is_refused(tmp_path: Path) -> None:
    archive = tmp_path / "chatgpt.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr("conversations.json", CHATGPT_FIXTURE.read_bytes())
    assert not ClaudeAISource().can_handle(archive)


@pytest.mark.parametrize("name", NOT_CONVERSATIONS[:2])
def test_fixture_side_files_are_refused(name: str) -> None:
    # projects.json even quotes "chat_messages": [ inside a document's text
    assert not ClaudeAISource().can_handle(FIXTURES / name)


def test_invalid_json_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "conversations.json"
    path.write_text(FIXTURE.read_text()[:1500])  # truncated download
    assert ClaudeAISource().can_handle(path)
    with pytest.raises(SourceError) as caught:
        list(ClaudeAISource().ingest(path))
    assert str(path) in str(caught.value)
    assert caught.value.location is not None and caught.value.location.startswith("line ")


def test_odd_entries_are_skipped_with_warnings(tmp_path: Path) -> None:
    data = json.loads(FIXTURE.read_text())
    odd = {
        "uuid": "odd",
        "name": None,
        "chat_messages": [
            "not a message",
            {"uuid": "m1", "sender": "human", "content": [None, "x", {"type": "image"}]},
            {"uuid": "m1", "sender": "robot", "content": "not a list", "text": "fallback"},
        ],
    }
    path = tmp_path / "conversations.json"
    path.write_text(json.dumps([*data, {"uuid": "bad", "chat_messages": {}}, odd]))
    with pytest.warns(SkippedItemWarning, match=r"conversation 3 \(id bad\)"):
        convs = by_conversation(ingest(path))
    assert set(convs) == {IMPORT_CONV, SEARCH_CONV, "odd"}
    image, fallback = convs["odd"]
    assert image.content == "x\n\n[image]" and image.metadata["non_text_parts"] == ["image"]
    assert fallback.content == "fallback" and fallback.role == "assistant"
    assert fallback.provenance.source_id == "m1@2"  # duplicate uuids stay distinct
    assert image.title is None and image.timestamp is None


# --- plugin wiring ------------------------------------------------------------------------


def test_plugin_registers_a_source_factory(tmp_path: Path) -> None:
    manager = pluggy.PluginManager("memex")
    manager.add_hookspecs(hookspecs)
    registry = PluginRegistry(manager)
    registry.register_plugin(memex_claude_ai, "claude_ai")
    assert registry.get("source", "claude_ai").available
    source = registry.build("source", "claude_ai", PluginContext(home=tmp_path))
    assert isinstance(source, Source) and isinstance(source, ClaudeAISource)
    assert source.source_kind == "claude_ai" and source.include_thinking is False


def test_importing_the_plugin_does_not_load_the_reader() -> None:
    code = "import sys, memex_claude_ai; print('memex_claude_ai.source' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


# --- the sample export shipped for the README quick start --------------------------------


def test_shipped_example_export() -> None:
    path = Path(__file__).parents[3] / "examples" / "exports" / "claude-conversations.json"
    fragments = ingest(path)
    convs = by_conversation(fragments)
    assert len(convs) == 6
    years = {datetime.fromtimestamp(f[0].timestamp or 0, UTC).year for f in convs.values()}
    assert years == {2024, 2025, 2026}
    with_thinking = [f for f in fragments if "thinking" in f.metadata]
    assert len(with_thinking) >= 2
    for fragment in with_thinking:
        assert fragment.metadata["thinking"] not in fragment.content
    assert any("[attachment: cover_letter_draft.txt]" in f.content for f in fragments)
    assert not ChatGPTSource().can_handle(path)
