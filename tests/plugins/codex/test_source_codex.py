"""The Codex CLI rollout source on synthetic rollouts, broken and foreign files, and its
settings (real rollouts: ``test_source_codex_shared``)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pluggy
import pytest

import memex_codex
from memex_codex.settings import CodexSettingError, parse_settings
from memex_codex.source import CodexSource
from memex_core import hookspecs
from memex_core.domain import PluginContext, Source, SourceError
from memex_core.domain.compaction import DEFAULT_TOOL_OUTPUT_BUDGET, compact_tool_output
from memex_core.domain.contracts import REPLACE_CHANGED_FILES
from memex_core.plugins import PluginRegistry
from memex_core.source_kit import SkippedItemWarning
from tests.plugins.codex.rollouts import (
    ingest,
    iso,
)
from tests.support import codex_builders as cb
from tests.support._data import shared_data_dir

# --- synthetic rollouts -------------------------------------------------------------------


def test_typical_session(tmp_path: Path) -> None:
    path = cb.write_rollout(tmp_path / "rollout.jsonl", cb.typical_session())
    fragments = ingest(path)
    assert [f.content.splitlines()[0] for f in fragments] == [
        "Add a retry ledger to the payments worker",
        "**Planning the ledger**",
        "I'll read the worker and its tests.",
        "[tool call: shell]",
        "[tool result: shell]",
        "[tool call: apply_patch]",
        "[tool result: apply_patch]",
        "Added the ledger; `make test` passes.",
    ]
    prompt, summary, _, call, output, patch, patched, _ = fragments
    assert call.content == "[tool call: shell]\ncommand: bash -lc 'rg -n retry src/'\nworkdir: /r"
    assert output.content == "[tool result: shell]\nsrc/worker.py:12: retry = 3"
    assert patch.content.startswith("[tool call: apply_patch]\n*** Begin Patch")
    assert patched.content == "[tool result: apply_patch]\nSuccess. Updated src/worker.py"
    assert summary.content == "**Planning the ledger**\n\nLook at the worker first."
    assert "ENCRYPTED" not in "".join(f.content for f in fragments)
    assert prompt.metadata["git_branch"] == "main" and prompt.metadata["git_commit"] == "4f2c9e1d"
    assert prompt.timestamp == cb.at(5)
    assert summary.metadata["model"] == "gpt-5-codex"
    assert {f.title for f in fragments} == {"Add a retry ledger to the payments worker"}


def test_injected_context_is_recognised_by_its_markers(tmp_path: Path) -> None:
    # No user_message events (an older rollout): only the markers can tell.
    entries = [
        cb.session_meta(),
        cb.user("<user_instructions>\n\nAlways answer in French.\n\n</user_instructions>"),
        cb.agents_md("/repo", "Use tabs."),
        cb.environment_context(),
        cb.user("<turn_aborted>\nThe user interrupted the previous turn.\n</turn_aborted>"),
        cb.user("<ENVIRONMENT_CONTEXT>\n<cwd>/x</cwd>\n</ENVIRONMENT_CONTEXT>", "[image]"),
        cb.user("<environment_context> is in my prompt, what does that tag do?"),
        cb.user(
            "<environment_context>\n<cwd>/repo</cwd>\n</environment_context>",
            "and this part I typed",
        ),
    ]
    fragments = ingest(cb.write_rollout(tmp_path / "r.jsonl", entries))
    assert [f.content for f in fragments] == [
        "<environment_context> is in my prompt, what does that tag do?",
        "and this part I typed",
    ]
    assert fragments[0].title == "<environment_context> is in my prompt, what does that tag do?"


def test_user_message_events_decide_what_was_typed(tmp_path: Path) -> None:
    entries = [
        cb.session_meta(),
        cb.user("Injected by the desktop app without markers"),
        cb.user("first prompt"),
        cb.user_event("first prompt"),
        cb.user("Injected after the prompt, no event"),
        cb.assistant("answer one"),
        cb.user_event("second prompt, event written first"),
        cb.user("second prompt, event written first"),
        cb.user_event("third prompt, its message was never written"),
        cb.user("fourth prompt (text redacted differently)"),
        cb.user_event("[REDACTED fourth]"),
    ]
    fragments = ingest(cb.write_rollout(tmp_path / "r.jsonl", entries))
    assert [(f.role, f.content, "from_event" in f.metadata) for f in fragments] == [
        ("user", "first prompt", False),
        ("assistant", "answer one", False),
        ("user", "second prompt, event written first", True),
        ("user", "third prompt, its message was never written", True),
        ("user", "fourth prompt (text redacted differently)", False),
    ]


def test_developer_system_and_event_copies_are_left_out(tmp_path: Path) -> None:
    entries = [
        *cb.typical_session(),
        cb.message("system", "SYSTEM TEXT"),
        cb.agent_event("ONLY IN AN EVENT"),
        cb.reasoning_event("REASONING ONLY IN AN EVENT"),
        ("response_item", {"type": "agent_message", "author": "assistant", "content": "DUP"}),
        ("response_item", {"type": "ghost_snapshot", "ghost_commit": {"id": "abc"}}),
    ]
    text = "\n".join(f.content for f in ingest(cb.write_rollout(tmp_path / "r.jsonl", entries)))
    for absent in ("SYSTEM TEXT", "ONLY IN AN EVENT", "DUP", "permissions instructions", "tabs"):
        assert absent not in text
    assert text.count("I'll read the worker and its tests.") == 1
    assert text.count("Add a retry ledger to the payments worker") == 1


def test_reasoning_summaries(tmp_path: Path) -> None:
    entries = [
        cb.session_meta(),
        cb.reasoning("**Step one**\n\nRead the code.", "**Step two**"),
        cb.reasoning(),  # encrypted only: nothing to index
        cb.reasoning("   "),
    ]
    fragments = ingest(cb.write_rollout(tmp_path / "r.jsonl", entries))
    assert [f.content for f in fragments] == ["**Step one**\n\nRead the code.\n\n**Step two**"]
    assert fragments[0].role == "assistant" and fragments[0].metadata["reasoning"] is True
    assert fragments[0].title is None  # no prompt in this rollout


def test_tool_call_shapes(tmp_path: Path) -> None:
    entries = [
        cb.session_meta(),
        cb.local_shell_call(["bash", "-lc", "pytest -q"], "ls1"),
        cb.function_output(
            "ls1",
            json.dumps({"output": "1 failed, 3 passed", "metadata": {"exit_code": 1}}),
        ),
        cb.web_search_call("codex rollout format"),
        cb.function_call("mcp__docs__search", "not json {", "m1"),
        cb.function_output("m1", {"content": [{"type": "text", "text": "found 2 pages"}]}),
        cb.function_call("update_plan", {"plan": [{"step": "a", "status": "done"}]}, "p1"),
        cb.function_output("p1", ""),
    ]
    fragments = ingest(cb.write_rollout(tmp_path / "r.jsonl", entries))
    assert [f.content for f in fragments] == [
        "[tool call: local_shell]\ncommand: bash -lc 'pytest -q'\nworkdir: /repo",
        "[tool result: local_shell]\n1 failed, 3 passed",
        "[tool call: web_search]\nquery: codex rollout format",
        "[tool call: mcp__docs__search]\nnot json {",
        "[tool result: mcp__docs__search]\nfound 2 pages",
        '[tool call: update_plan]\nplan: [{"step": "a", "status": "done"}]',
        "[tool result: update_plan]",
    ]
    assert fragments[1].metadata["exit_code"] == 1
    assert "call_id" not in fragments[2].metadata  # web searches have no call id
    assert all(f.role == "tool" for f in fragments if f.metadata.get("tool_result"))


def test_long_tool_output_is_compacted_for_the_index_only(tmp_path: Path) -> None:
    log = "\n".join(
        [f"collecting test module {n}" for n in range(400)]
        + ["FAILED tests/test_ledger.py::test_retry - AssertionError: 3 != 4"]
        + [f"passed test {n}" for n in range(400)]
        + ["Process exited with code 1"]
    )
    entries = [
        cb.session_meta(),
        cb.function_call("shell", {"command": ["pytest"]}, "c1"),
        cb.function_output("c1", log),
    ]
    path = cb.write_rollout(tmp_path / "r.jsonl", entries)
    for budget in (DEFAULT_TOOL_OUTPUT_BUDGET, 300):
        output = ingest(path, tool_output_budget=budget)[-1]
        assert output.role == "tool"
        assert output.content == f"[tool result: shell]\n{log}"  # one fragment, whole
        assert output.index_text == compact_tool_output(output.content, budget)
        assert output.searchable_text == output.index_text
        assert len(output.index_text) <= budget + 200 < len(output.content)
        assert "FAILED tests/test_ledger.py::test_retry" in output.index_text
        assert "lines omitted" in output.index_text


def test_long_messages_are_chunked_and_linked(tmp_path: Path) -> None:
    paragraphs = [f"Paragraph {n}: " + "the ledger keeps every retry. " * 12 for n in range(30)]
    entries = [
        cb.session_meta(),
        cb.user("Explain the ledger"),
        cb.assistant("\n\n".join(paragraphs)),
        cb.function_call("shell", {"command": ["cat", "big.txt"]}, "c1"),
        cb.custom_call("apply_patch", "\n".join(["+ added line"] * 600), "c2"),
    ]
    fragments = ingest(cb.write_rollout(tmp_path / "r.jsonl", entries))
    answer = [f for f in fragments if f.metadata.get("message_id") == "line-3"]
    assert len(answer) > 3 and all(len(f.content) <= 2000 for f in answer)
    for n, chunk in enumerate(answer):
        assert chunk.metadata["chunk_index"] == n and chunk.metadata["chunk_count"] == len(answer)
        assert chunk.metadata["prev_id"] == (answer[n - 1].id if n else None)
        assert chunk.metadata["next_id"] == (answer[n + 1].id if n + 1 < len(answer) else None)
        assert chunk.provenance.source_id == cb.SESSION_ID
        assert chunk.provenance.locator == f"{cb.SESSION_ID}/line-3#chunk-{n}"
    patch = [f for f in fragments if f.metadata.get("call_id") == "c2"]
    assert len(patch) > 1 and all(f.metadata["tool_call"] for f in patch)
    assert len({f.id for f in fragments}) == len(fragments)


def test_compaction_summary_is_kept_but_not_the_replaced_history(tmp_path: Path) -> None:
    entries = [*cb.typical_session(), cb.compacted("Summary: the ledger was added, tests pass.")]
    fragments = ingest(cb.write_rollout(tmp_path / "r.jsonl", entries))
    summary = fragments[-1]
    assert summary.content == "Summary: the ledger was added, tests pass."
    assert summary.metadata["compaction_summary"] is True and summary.role == "assistant"
    assert not any(f.content == "old" for f in fragments)


def test_title_is_the_first_prompt_shortened(tmp_path: Path) -> None:
    prompt = (
        "  Please refactor the payments worker so that every retry is written to a durable "
        "ledger table before the next attempt\nsecond line"
    )
    entries = [cb.session_meta(), cb.user(prompt), cb.user_event(prompt), cb.assistant("ok")]
    fragments = ingest(cb.write_rollout(tmp_path / "r.jsonl", entries))
    title = fragments[0].title
    assert title is not None and len(title) <= 80 and title.endswith("…")
    assert title.startswith("Please refactor the payments worker so that every retry")
    assert fragments[0].content == prompt.strip() and fragments[1].title == title


def test_duplicate_item_ids_stay_distinct(tmp_path: Path) -> None:
    entries = [
        cb.session_meta(),
        cb.user("one", item_id="msg_1"),
        cb.assistant("two", item_id="msg_1"),
        cb.assistant("three", item_id="msg_2"),
    ]
    fragments = ingest(cb.write_rollout(tmp_path / "r.jsonl", entries))
    assert [f.metadata["message_id"] for f in fragments] == ["msg_1", "msg_1@line-3", "msg_2"]


def test_ids_do_not_depend_on_where_the_file_is(tmp_path: Path) -> None:
    path = cb.write_rollout(tmp_path / "a.jsonl", cb.typical_session())
    copy = tmp_path / "elsewhere" / "b.jsonl"
    copy.parent.mkdir()
    shutil.copy(path, copy)
    assert [f.id for f in ingest(path)] == [f.id for f in ingest(copy)]


def test_without_session_meta_the_file_name_gives_the_session(tmp_path: Path) -> None:
    uuid = "0199a0b1-aaaa-7bbb-8ccc-9ddddeeeefff"
    name = f"rollout-2025-10-01T09-00-00-{uuid}.jsonl"
    path = cb.write_rollout(tmp_path / name, cb.typical_session()[1:])
    fragments = ingest(path)
    assert {f.conversation_id for f in fragments} == {uuid}
    assert fragments[0].metadata["session_id"] == uuid and "cwd" not in fragments[0].metadata
    other = cb.write_rollout(tmp_path / "notes.jsonl", cb.typical_session()[1:])
    assert ingest(other)[0].conversation_id.startswith("codex-")


def test_pre_envelope_rollout(tmp_path: Path) -> None:
    header = {
        "id": "5973b6c0-94b8-487b-a530-2aeb6098ae0e",
        "timestamp": "2025-07-01T10:00:00.000Z",
        "instructions": "AGENTS.md text",
        "git": {"commit_hash": "abc", "branch": "feature/x"},
    }
    instructions = "<user_instructions>\nx\n</user_instructions>"
    bare = [
        {"record_type": "state"},
        {"type": "message", "id": None, "role": "user",
         "content": [{"type": "input_text", "text": instructions}]},
        {"type": "message", "id": None, "role": "user",
         "content": [{"type": "input_text", "text": "list the files"}]},
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "opaque"},
        {"type": "function_call", "id": "fc_1", "name": "shell",
         "arguments": "{\"command\":[\"ls\"]}", "call_id": "call_1"},
        {"type": "function_call_output", "call_id": "call_1",
         "output": "{\"output\":\"README.md\\n\",\"metadata\":{\"exit_code\":0}}"},
        {"record_type": "state"},
        {"type": "message", "id": None, "role": "assistant",
         "content": [{"type": "output_text", "text": "There is a README."}]},
    ]  # fmt: skip
    path = cb.write_lines(tmp_path / "rollout-old.jsonl", [header, *bare])
    fragments = ingest(path)
    assert [f.content for f in fragments] == [
        "list the files",
        "[tool call: shell]\ncommand: ls",
        "[tool result: shell]\nREADME.md",
        "There is a README.",
    ]
    assert {f.conversation_id for f in fragments} == {header["id"]}
    assert fragments[0].metadata["git_branch"] == "feature/x"
    assert fragments[2].metadata["exit_code"] == 0
    assert {f.timestamp for f in fragments} == {iso("2025-07-01T10:00:00.000Z")}
    assert fragments[0].metadata["message_id"] == "line-4"


def test_huge_session_meta_line_is_still_recognised(tmp_path: Path) -> None:
    entries = cb.typical_session()
    entries[0] = cb.session_meta(base_instructions="You are Codex. " * 10_000)
    path = cb.write_rollout(tmp_path / "r.jsonl", entries)
    assert path.read_text().index("\n") > 64 * 1024
    assert CodexSource().can_handle(path)


# --- broken and foreign files -------------------------------------------------------------


def test_malformed_lines_mid_file_are_skipped_with_warnings(tmp_path: Path) -> None:
    records = cb.envelope(cb.typical_session())
    lines: list[Any] = [*records[:6], "{not json", "[1, 2]", *records[6:]]
    path = cb.write_lines(tmp_path / "r.jsonl", lines)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fragments = ingest(path)
    messages = [str(w.message) for w in caught if issubclass(w.category, SkippedItemWarning)]
    assert messages == [
        f"{path} (line 7): skipped, not valid JSON (Expecting property name enclosed in "
        "double quotes: line 1 column 2 (char 1))",
        f"{path} (line 8): skipped, not a JSON object",
    ]
    expected = ingest(cb.write_rollout(tmp_path / "clean.jsonl", cb.typical_session()))
    assert [f.content for f in fragments] == [f.content for f in expected]


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        ("hello, this is plain text\nand more\n", "not JSONL"),
        ('[\n  {"type": "session_meta"}\n]\n', "not JSONL"),
        ('"just a string"\n', "JSON str, not an object"),
    ],
)
def test_a_file_that_is_not_jsonl_raises_naming_the_line(
    tmp_path: Path, content: str, reason: str
) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_text("\n" + content, encoding="utf-8")
    assert not CodexSource().can_handle(path)
    with pytest.raises(SourceError, match=reason) as info:
        list(CodexSource().ingest(path))
    assert info.value.location == "line 2" and info.value.path == str(path)


def test_empty_and_missing_files(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert not CodexSource().can_handle(empty)
    assert list(CodexSource().ingest(empty)) == []
    with pytest.raises(SourceError, match="file not found"):
        list(CodexSource().ingest(tmp_path / "gone.jsonl"))
    assert not CodexSource().can_handle(tmp_path / "gone.jsonl")
    assert not CodexSource().can_handle(tmp_path)


CLAUDE_CODE_LINES = [
    {"type": "file-history-snapshot", "messageId": "m1", "snapshot": {}},
    {"parentUuid": None, "sessionId": "s1", "type": "user", "cwd": "/x", "uuid": "u1",
     "timestamp": "2026-02-10T21:11:56.846Z", "message": {"role": "user", "content": "hi"}},
]  # fmt: skip


def test_claude_code_transcripts_are_refused(tmp_path: Path) -> None:
    path = cb.write_lines(tmp_path / "55604662.jsonl", CLAUDE_CODE_LINES)
    assert not CodexSource().can_handle(path)
    with pytest.raises(SourceError, match="no Codex rollout records"):
        list(CodexSource().ingest(path))


def test_shared_claude_code_transcripts_are_refused() -> None:
    folder = shared_data_dir("exports", "claude_code")
    transcripts = sorted(folder.rglob("*.jsonl"))
    assert transcripts
    for path in transcripts:
        assert not CodexSource().can_handle(path), path


@pytest.mark.parametrize(
    "records",
    [
        [{"level": "info", "msg": "started"}, {"level": "warn", "msg": "slow"}],
        [{"id": "x", "timestamp": "2025-01-01T00:00:00Z"}, {"id": "y", "value": 3}],
        [{"type": "message", "role": "user", "content": []}],  # bare item without a header
        [{"type": "session_meta", "payload": "not an object"}],
    ],
)
def test_other_jsonl_is_refused(tmp_path: Path, records: list[dict[str, Any]]) -> None:
    assert not CodexSource().can_handle(cb.write_lines(tmp_path / "x.jsonl", records))


def test_rollout_under_another_suffix_is_refused(tmp_path: Path) -> None:
    path = cb.write_rollout(tmp_path / "rollout.json", cb.typical_session())
    assert not CodexSource().can_handle(path)


# --- settings and plugin wiring -----------------------------------------------------------


def _registry() -> PluginRegistry:
    manager = pluggy.PluginManager("memex")
    manager.add_hookspecs(hookspecs)
    registry = PluginRegistry(manager)
    registry.register_plugin(memex_codex, "codex")
    return registry


def test_plugin_registers_a_source_factory(tmp_path: Path) -> None:
    registry = _registry()
    assert registry.get("source", "codex").available
    source = registry.build("source", "codex", PluginContext(home=tmp_path))
    assert isinstance(source, Source) and isinstance(source, CodexSource)
    assert source.source_kind == "codex"
    assert getattr(source, REPLACE_CHANGED_FILES) is True
    assert source.tool_output_budget == DEFAULT_TOOL_OUTPUT_BUDGET
    context = PluginContext(home=tmp_path, settings={"tool_output_budget": 300})
    assert registry.build("source", "codex", context).tool_output_budget == 300


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"tool_output_budget": 0}, "positive whole number"),
        ({"tool_output_budget": "big"}, "positive whole number"),
        ({"tool_output_budget": True}, "positive whole number"),
        ({"budget": 10}, "unknown setting"),
    ],
)
def test_bad_settings_say_what_to_fix(settings: dict[str, Any], message: str) -> None:
    with pytest.raises(CodexSettingError, match=message):
        parse_settings(settings)


def test_importing_the_plugin_does_not_load_the_reader() -> None:
    code = "import sys, memex_codex; print('memex_codex.source' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"
