"""Tests for the Claude Code source: real transcripts (shared data) and synthetic ones."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pluggy
import pytest

import memex_claude_code
from memex_claude_code.lines import PEEK_BYTES
from memex_claude_code.settings import ClaudeCodeSettingError, parse_settings
from memex_claude_code.source import ClaudeCodeSource, agent_conversation_id, shorten
from memex_core import hookspecs
from memex_core.domain import ROLES, Fragment, PluginContext, Source, SourceError
from memex_core.domain.compaction import DEFAULT_TOOL_OUTPUT_BUDGET, compact_tool_output
from memex_core.domain.contracts import REPLACE_CHANGED_FILES
from memex_core.plugins import PluginRegistry
from memex_core.source_kit import SkippedItemWarning
from tests.support._data import shared_data_root
from tests.support.claude_code_builders import (
    BRANCH,
    CWD,
    SESSION,
    Transcript,
    codex_rollout,
    text,
    thinking,
    tool_use,
)
from tests.support.component_doubles import fast_memex

FULL = "ae4a77f8-aedd-4bc1-888f-c94edc91af04"
AGENT = "aac57f5"
COMPACT_AGENT = "acompact-946d2b"
FULL_CWD = "/home/USER/projects/spotter-worktrees/spotter-4te"


def claude_code_root() -> Path:
    return shared_data_root() / "exports" / "claude_code" / "marot_spotter"


def transcript_params() -> list[Any]:
    """Every transcript in the shared folder, sub-agents included (skipped when absent)."""
    root = claude_code_root()
    if not root.is_dir():
        reason = f"shared test data not found at {root} (set MEMEX_TEST_DATA)"
        return [pytest.param(None, id="no-shared-data", marks=pytest.mark.skip(reason))]
    return [
        pytest.param(path, id=str(path.relative_to(root))) for path in sorted(root.rglob("*.jsonl"))
    ]


@pytest.fixture
def cc_data() -> Path:
    root = claude_code_root()
    if not root.is_dir():
        pytest.skip(f"shared test data not found at {root} (set MEMEX_TEST_DATA)")
    return root


def ingest(path: Path, **options: Any) -> list[Fragment]:
    source = ClaudeCodeSource(**options)
    assert source.can_handle(path), f"can_handle refused {path}"
    return list(source.ingest(path))


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def turn_key(fragment: Fragment) -> str:
    """The turn a fragment came from: message.id for the assistant, the line's uuid else."""
    return str(fragment.metadata["message_id"]).split("/", 1)[0]


# Counted by hand from the files (distinct message.id of assistant lines; tool_use and
# tool_result blocks): (assistant turns, tool calls, tool results).
MANUAL_COUNTS = {
    f"{FULL}.jsonl": (217, 242, 242),
    f"{FULL}/subagents/agent-{AGENT}.jsonl": (3, 12, 12),
    f"{FULL}/subagents/agent-{COMPACT_AGENT}.jsonl": (1, 0, 0),
    "short.jsonl": (1, 2, 2),
    "subagent.jsonl": (12, 16, 16),
    "tool_heavy.jsonl": (4, 6, 6),
}
SKIPPED_TYPES = {"progress", "file-history-snapshot", "queue-operation", "system", "summary"}


# --- every real transcript ------------------------------------------------------------------


@pytest.mark.parametrize("path", transcript_params())
def test_every_shared_transcript_is_read(path: Path) -> None:
    fragments = ingest(path)
    assert fragments
    assert len({f.id for f in fragments}) == len(fragments)
    lines = records(path)
    session = next(r["sessionId"] for r in lines if "sessionId" in r)
    for fragment in fragments:
        assert fragment.role in ROLES
        assert fragment.content.strip()
        assert fragment.source_kind == "claude_code"
        assert fragment.provenance.source_path == str(path)
        assert fragment.provenance.source_id == session == fragment.metadata["session_id"]
        assert isinstance(fragment.timestamp, float)
        assert fragment.metadata["cwd"].startswith("/home/")
        assert fragment.metadata["git_branch"]
        assert fragment.title
        json.dumps(fragment.metadata)
    assert [f.id for f in ingest(path)] == [f.id for f in fragments]


@pytest.mark.parametrize("path", transcript_params())
def test_merged_turns_and_tool_blocks_match_a_manual_count(path: Path) -> None:
    fragments = ingest(path)
    turns, calls, results = MANUAL_COUNTS[str(path.relative_to(claude_code_root()))]
    assert len({turn_key(f) for f in fragments if f.role == "assistant"}) == turns
    assert len({f.metadata["tool_use_id"] for f in fragments if f.metadata.get("tool_call")}) == (
        calls
    )
    assert sum(1 for f in fragments if f.metadata.get("tool_result")) == results


@pytest.mark.parametrize("path", transcript_params())
def test_bookkeeping_lines_leave_no_fragments(path: Path) -> None:
    kinds = {r.get("uuid"): r["type"] for r in records(path) if r.get("uuid")}
    meta_lines = {r["uuid"] for r in records(path) if r.get("isMeta") and r["type"] == "user"}
    fragments = ingest(path)
    assert {kinds[f.metadata["uuid"]] for f in fragments} <= {"user", "assistant"}
    assert not {f.metadata["uuid"] for f in fragments} & meta_lines
    for fragment in fragments:
        assert "[Request interrupted by user" not in fragment.content
        assert "<local-command-caveat>" not in fragment.content
        assert not fragment.content.startswith("<command-")


@pytest.mark.parametrize("path", transcript_params())
def test_tool_output_is_compacted_for_the_index_only(path: Path) -> None:
    raw_results = {
        block["tool_use_id"]: block
        for r in records(path)
        if r["type"] == "user" and isinstance(r["message"]["content"], list)
        for block in r["message"]["content"]
        if block.get("type") == "tool_result"
    }
    for fragment in ingest(path, tool_output_budget=400):
        if fragment.role != "tool":
            assert fragment.index_text is None
            continue
        assert fragment.index_text == compact_tool_output(fragment.content, 400)
        if "tool_use_id" in fragment.metadata:
            raw = raw_results[fragment.metadata["tool_use_id"]]["content"]
            first = raw if isinstance(raw, str) else raw[0]["text"]
            assert first.strip()[:200] in fragment.content  # full text, never cut


def test_long_tool_output_keeps_every_line_in_content(cc_data: Path) -> None:
    fragments = ingest(cc_data / f"{FULL}.jsonl")
    longest = max((f for f in fragments if f.role == "tool"), key=lambda f: len(f.content))
    assert len(longest.content) > 5 * DEFAULT_TOOL_OUTPUT_BUDGET
    (raw,) = [
        block["content"]
        for r in records(cc_data / f"{FULL}.jsonl")
        if r["type"] == "user" and isinstance(r["message"]["content"], list)
        for block in r["message"]["content"]
        if block.get("tool_use_id") == longest.metadata["tool_use_id"]
    ]
    assert longest.content == "[tool result: Read]\n" + raw.rstrip()
    assert longest.index_text is not None
    assert len(longest.index_text) < 1.2 * DEFAULT_TOOL_OUTPUT_BUDGET
    assert "lines omitted" in longest.index_text
    assert longest.searchable_text == longest.index_text
    assert longest.metadata.get("chunk_count") is None  # compacted, not chunked


@pytest.mark.parametrize("path", transcript_params())
def test_ids_survive_the_transcript_growing(path: Path, tmp_path: Path) -> None:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    full = {f.id for f in ingest(path)}
    message_ids = [
        r["message"]["id"] if r["type"] == "assistant" else None for r in map(json.loads, lines)
    ]
    prefix = tmp_path / path.name
    step = max(len(lines) // 12, 1)
    for cut in range(1, len(lines), step):
        prefix.write_text("".join(lines[:cut]), encoding="utf-8")
        still_streaming = set(message_ids[:cut]) & set(message_ids[cut:]) - {None}
        for fragment in ClaudeCodeSource().ingest(prefix):
            if turn_key(fragment) not in still_streaming:
                assert fragment.id in full, f"cut at line {cut}: {fragment.provenance.locator}"


def test_ids_of_a_prefix_of_complete_turns_are_kept(cc_data: Path, tmp_path: Path) -> None:
    path = cc_data / f"{FULL}.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    full = {f.id for f in ingest(path)}
    typed = [i for i, r in enumerate(map(json.loads, lines)) if r.get("type") == "user"]
    prefix = tmp_path / path.name
    for cut in typed[:: max(len(typed) // 6, 1)][1:]:
        prefix.write_text("".join(lines[:cut]), encoding="utf-8")  # ends before a user line
        ids = {f.id for f in ClaudeCodeSource().ingest(prefix)}
        assert ids and ids <= full


# --- what the real transcripts hold -------------------------------------------------------


def test_full_session_metadata_and_compaction(cc_data: Path) -> None:
    fragments = ingest(cc_data / f"{FULL}.jsonl")
    assert {f.conversation_id for f in fragments} == {FULL}
    assert {f.metadata["cwd"] for f in fragments} == {FULL_CWD}
    assert {f.metadata["git_branch"] for f in fragments} == {"spotter-4te"}
    assert {f.title for f in fragments} == {
        "Work on bead spotter-4te. Run bd show spotter-4te to see the issue details and…"
    }
    summary = [f for f in fragments if f.metadata.get("is_compaction_summary")]
    assert len(summary) == summary[0].metadata["chunk_count"] > 1  # one summary, chunked
    assert {f.role for f in summary} == {"system"}
    assert summary[0].content.startswith("This session is being continued")
    assert summary[0].metadata["compact_trigger"] == "manual"
    assert summary[0].metadata["compact_pre_tokens"] == 142431
    for before, after in itertools.pairwise(summary):
        assert before.metadata["next_id"] == after.id
    prompts = [f.content for f in fragments if f.role == "user"]
    assert prompts[1:] == [
        "/compact and continue with the reamining tasks",
        "continue implementation",
    ]
    position = fragments.index(summary[0])
    assert any(f.role == "assistant" for f in fragments[:position])
    assert any(f.role == "assistant" for f in fragments[position + len(summary) :])


def test_sub_agents_are_linked_to_their_session(cc_data: Path) -> None:
    parent = ingest(cc_data / f"{FULL}.jsonl")
    agent_path = cc_data / FULL / "subagents" / f"agent-{AGENT}.jsonl"
    agent = ingest(agent_path)
    conversation = agent_conversation_id(FULL, AGENT)
    assert {f.conversation_id for f in agent} == {conversation}
    assert {f.metadata["session_id"] for f in agent} == {FULL}
    assert {f.provenance.source_id for f in agent} == {FULL}
    assert {f.metadata["agent_id"] for f in agent} == {AGENT}
    assert agent[0].role == "user" and agent[0].content.startswith("Search hex.pm")
    assert agent[0].title is not None and agent[0].title.startswith("Search hex.pm")
    assert not any(f.metadata.get("is_compaction_agent") for f in agent)
    # the parent's Task result (the agent's answer) points at the agent's conversation
    (answer,) = [f for f in parent if f.metadata.get("subagent_id")]
    assert answer.role == "tool" and answer.metadata["tool_name"] == "Task"
    assert answer.metadata["subagent_conversation"] == conversation
    assert "opentelemetry_api" in answer.content
    assert {f.metadata.get("agent_id") for f in parent} == {None}


def test_compaction_agent_is_marked(cc_data: Path) -> None:
    fragments = ingest(cc_data / FULL / "subagents" / f"agent-{COMPACT_AGENT}.jsonl")
    assert {f.conversation_id for f in fragments} == {agent_conversation_id(FULL, COMPACT_AGENT)}
    assert all(f.metadata["is_compaction_agent"] is True for f in fragments)


def test_short_session_thinking_stays_out_of_the_index(cc_data: Path) -> None:
    user, answer, call, *_ = ingest(cc_data / "short.jsonl")
    assert user.content == "mix phx.server doesnt seem to start"
    assert user.conversation_id == "55604662-cf2a-4331-851a-ec234028f8ca"  # not the file name
    assert user.title == "mix phx.server doesnt seem to start"
    assert user.metadata["cwd"] == "/home/marco/projects/spotter"
    assert user.metadata["git_branch"] == "master"
    # five streamed lines, one message: empty text, thinking, text, two tool calls
    assert (
        answer.content
        == "Let me check the project structure and try running the server to see the error."
    )
    assert answer.metadata["thinking"].startswith("The user is having trouble")
    assert answer.metadata["model"] == "claude-opus-4-6"
    assert (
        call.content == "[tool call: Bash]\ncommand: mix phx.server 2>&1 | head -80\ntimeout: 30000"
    )
    assert turn_key(answer) == turn_key(call) == "msg_01MKH1ccEGrZGNPvu8pYiiQa"


def test_short_session_thinking_indexed_on_request(cc_data: Path) -> None:
    fragments = ingest(cc_data / "short.jsonl", include_thinking=True)
    reasoning = fragments[1]
    assert reasoning.role == "assistant" and reasoning.metadata["reasoning"] is True
    assert reasoning.content.startswith("The user is having trouble")
    assert reasoning.provenance.locator.endswith("msg_01MKH1ccEGrZGNPvu8pYiiQa/thinking")
    assert not any("thinking" in f.metadata for f in fragments)


def test_tool_heavy_session(cc_data: Path) -> None:
    fragments = ingest(cc_data / "tool_heavy.jsonl")
    by_key: dict[str, list[Fragment]] = {}
    for fragment in fragments:
        by_key.setdefault(turn_key(fragment), []).append(fragment)
    # a Read call, its result, then a WebFetch call of the same message: one turn, calls first
    read, fetch = by_key["msg_019BN3FRqb7NU4DgBN5jdsym"]
    assert (read.metadata["tool_name"], fetch.metadata["tool_name"]) == ("Read", "WebFetch")
    assert fragments.index(fetch) == fragments.index(read) + 1
    result = next(
        f
        for f in fragments
        if f.metadata.get("tool_use_id") == read.metadata["tool_use_id"] and f.role == "tool"
    )
    assert result.content.startswith('[tool result: Read]\n     1→import "phoenix_html"')
    command = next(f for f in fragments if f.metadata.get("command"))
    assert (command.role, command.content) == ("user", "/mcp")
    output = next(f for f in fragments if f.metadata.get("command_output"))
    assert (output.role, output.content) == ("tool", "[command output]\nReconnected to tidewave.")


def test_codex_rollouts_are_refused(shared_data: Path) -> None:
    rollouts = sorted((shared_data / "exports" / "codex").rglob("*.jsonl"))
    if not rollouts:
        pytest.skip("no Codex rollouts in the shared data")
    for path in rollouts:
        assert not ClaudeCodeSource().can_handle(path), path
        with pytest.raises(SourceError, match="no Claude Code records"):
            list(ClaudeCodeSource().ingest(path))


def test_other_shared_files_are_refused(cc_data: Path) -> None:
    for name in ("README.md", "LICENSE"):
        assert not ClaudeCodeSource().can_handle(cc_data / name)


# --- synthetic transcripts ------------------------------------------------------------------


def conversation() -> Transcript:
    t = Transcript()
    t.snapshot()
    t.progress()
    t.user("Why does the CSV import choke on semicolons?", thinkingMetadata={"level": "high"})
    t.assistant(
        "msg_A",
        text("\n\n"),
        thinking("Probably the delimiter."),
        text("Let me look at the importer."),
        tool_use("toolu_1", "Read", file_path="/src/import.py"),
    )
    t.progress("guardian.ts")
    t.tool_result("toolu_1", "     1→import csv\n     2→reader = csv.reader(f)")
    t.assistant("msg_B", text("The reader assumes commas; pass `delimiter=';'`."))
    t.queue()
    t.system("turn_duration", durationMs=1200)
    return t


def test_synthetic_conversation(tmp_path: Path) -> None:
    fragments = ingest(conversation().write(tmp_path / f"{SESSION}.jsonl"))
    assert [(f.role, f.content.splitlines()[0]) for f in fragments] == [
        ("user", "Why does the CSV import choke on semicolons?"),
        ("assistant", "Let me look at the importer."),
        ("assistant", "[tool call: Read]"),
        ("tool", "[tool result: Read]"),
        ("assistant", "The reader assumes commas; pass `delimiter=';'`."),
    ]
    user, prose, call, result, _ = fragments
    assert {f.conversation_id for f in fragments} == {SESSION}
    assert {f.metadata["cwd"] for f in fragments} == {CWD}
    assert {f.metadata["git_branch"] for f in fragments} == {BRANCH}
    assert prose.metadata["thinking"] == "Probably the delimiter."
    assert call.metadata["message_id"] == "msg_A/part-1"
    assert result.metadata["tool_name"] == "Read" and result.metadata["tool_use_id"] == "toolu_1"
    assert result.content == "[tool result: Read]\n     1→import csv\n     2→reader = csv.reader(f)"
    assert user.timestamp == pytest.approx(1770757203.0)  # T0 + 3 s, from the ISO string
    assert prose.timestamp == pytest.approx(1770757205.0)  # the turn's first line
    assert {f.title for f in fragments} == {"Why does the CSV import choke on semicolons?"}


def test_streamed_response_split_by_a_tool_result_is_one_turn(tmp_path: Path) -> None:
    t = Transcript()
    t.user("check both files")
    t.assistant("msg_A", tool_use("toolu_1", "Read", file_path="a.py"))
    t.tool_result("toolu_1", "a")
    t.assistant("msg_A", tool_use("toolu_2", "Read", file_path="b.py"))
    t.tool_result("toolu_2", "b")
    t.assistant("msg_A", text("Both read."))  # same message, after both results
    fragments = ingest(t.write(tmp_path / "s.jsonl"))
    assert [f.metadata["message_id"] for f in fragments] == [
        t.records[0]["uuid"],
        "msg_A",
        "msg_A/part-1",
        "msg_A/part-2",
        t.records[2]["uuid"],
        t.records[4]["uuid"],
    ]
    assert fragments[3].content == "Both read."


def test_growing_transcript_keeps_earlier_ids(tmp_path: Path) -> None:
    t = conversation()
    path = t.write(tmp_path / "s.jsonl")
    before = ingest(path)
    t.assistant("msg_B", text("Also strip the BOM."))  # the last turn goes on streaming
    t.user("thanks, and the dates?")
    t.assistant("msg_C", text("Parse them with dateutil."))
    after = ingest(t.write(path))
    assert [f.id for f in before[:-1]] == [f.id for f in after[:4]]
    assert before[-1].id not in {f.id for f in after}  # the unfinished turn changed
    assert (
        after[4].content
        == "The reader assumes commas; pass `delimiter=';'`.\n\nAlso strip the BOM."
    )


def test_empty_file_and_blank_lines(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert not ClaudeCodeSource().can_handle(empty)  # nothing to recognise yet
    assert list(ClaudeCodeSource().ingest(empty)) == []
    blank = tmp_path / "blank.jsonl"
    blank.write_text("\n   \n" + "\n\n".join(conversation().lines()) + "\n\n")
    plain = conversation().write(tmp_path / "plain.jsonl")
    assert [f.id for f in ingest(blank)] == [f.id for f in ingest(plain)]


def test_malformed_line_is_skipped_with_a_warning(tmp_path: Path) -> None:
    lines = conversation().lines()
    lines.insert(3, '{"type": "user", "message": {"role": \n')
    path = tmp_path / "s.jsonl"
    path.write_text("".join(lines))
    with pytest.warns(SkippedItemWarning, match=r"s\.jsonl \(line 4\): skipped, not valid JSON"):
        fragments = ingest(path)
    assert len(fragments) == 5


def test_half_written_last_line_is_skipped(tmp_path: Path) -> None:
    lines = conversation().lines()
    path = tmp_path / "s.jsonl"
    path.write_text("".join(lines) + lines[2][:40])
    last = len(lines) + 1
    with pytest.warns(SkippedItemWarning, match=rf"line {last}\): skipped, .*still being written"):
        assert len(ingest(path)) == 5


def test_not_jsonl_at_all_is_an_error_naming_the_line(tmp_path: Path) -> None:
    path = tmp_path / "notes.jsonl"
    path.write_text("\n\nthese are my notes\n" + "".join(conversation().lines()))
    assert not ClaudeCodeSource().can_handle(path)
    with pytest.raises(SourceError) as caught:
        list(ClaudeCodeSource().ingest(path))
    assert caught.value.location == "line 3"
    assert str(path) in str(caught.value) and "JSON Lines" in caught.value.reason
    pretty = tmp_path / "pretty.jsonl"
    pretty.write_text(json.dumps(conversation().records[2], indent=2))
    with pytest.raises(SourceError, match=r"\(line 1\)"):
        list(ClaudeCodeSource().ingest(pretty))


def test_other_jsonl_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "events.jsonl"
    other.write_text('{"event": "click", "type": "user"}\n[1, 2]\n{"event": "scroll"}\n')
    assert not ClaudeCodeSource().can_handle(other)
    with (
        pytest.warns(SkippedItemWarning, match=r"line 2\): skipped, a JSON list"),
        pytest.raises(SourceError, match="no Claude Code records"),
    ):
        list(ClaudeCodeSource().ingest(other))
    codex = codex_rollout(tmp_path / "rollout-2026-02-23T10-00-00-019c.jsonl")
    assert not ClaudeCodeSource().can_handle(codex)
    as_json = conversation().write(tmp_path / "transcript.json")
    assert not ClaudeCodeSource().can_handle(as_json)
    assert not ClaudeCodeSource().can_handle(tmp_path)


def test_recognised_from_bookkeeping_or_a_huge_first_line(tmp_path: Path) -> None:
    t = Transcript()
    t.summary("CSV import fix")
    assert ClaudeCodeSource().can_handle(t.write(tmp_path / "summary-only.jsonl"))
    huge = Transcript()
    huge.user("paste: " + "x" * (PEEK_BYTES + 10))
    huge.assistant("msg_A", text("That is a lot of x."))
    path = huge.write(tmp_path / "huge.jsonl")
    assert ClaudeCodeSource().can_handle(path)
    assert [f.role for f in ingest(path)][-1] == "assistant"
    big = Transcript()
    big.snapshot()["snapshot"]["trackedFileBackups"] = {f"f{i}.py": "v1" * 9 for i in range(9999)}
    big.user("hi")
    assert ClaudeCodeSource().can_handle(big.write(tmp_path / "big-snapshot.jsonl"))
    codex = tmp_path / "rollout-huge.jsonl"
    codex.write_text(json.dumps({"type": "session_meta", "payload": {"x": "y" * PEEK_BYTES}}))
    assert not ClaudeCodeSource().can_handle(codex)


def test_meta_lines_markers_and_duplicates_are_skipped(tmp_path: Path) -> None:
    t = Transcript()
    t.user("<local-command-caveat>Caveat: ...</local-command-caveat>", isMeta=True)
    t.user([text("Base directory for this skill: /skills/csv")], isMeta=True)
    first = t.user("real question")
    t.user([text("[Request interrupted by user for tool use]")])
    t.records.append(dict(first))  # the same line written twice
    t.user(
        "<command-name>/model</command-name>\n<command-message>model</command-message>\n"
        "<command-args></command-args>"
    )
    t.user("<local-command-stdout>Set model to \x1b[1mopus\x1b[22m</local-command-stdout>")
    t.user("<bash-input>ls</bash-input>")
    t.system("local_command", content="<command-name>/model</command-name>")
    fragments = ingest(t.write(tmp_path / "s.jsonl"))
    assert [(f.role, f.content) for f in fragments] == [
        ("user", "real question"),
        ("user", "/model"),
        ("tool", "[command output]\nSet model to opus"),
        ("user", "! ls"),
    ]


def test_summary_line_gives_the_title(tmp_path: Path) -> None:
    t = Transcript()
    t.summary("Somebody else's session", leaf="elsewhere")
    question = t.user("why is the import slow?")
    t.summary("Slow CSV import investigation", leaf=question["uuid"])
    fragments = ingest(t.write(tmp_path / "s.jsonl"))
    assert fragments[0].title == "Slow CSV import investigation"
    t2 = Transcript()
    t2.summary("Only summary")
    t2.user("why is the import slow?")
    assert ingest(t2.write(tmp_path / "t.jsonl"))[0].title == "Only summary"


def test_compaction_summary_is_a_system_fragment(tmp_path: Path) -> None:
    t = conversation()
    t.compaction("1. The user asked about CSV delimiters.", trigger="auto", pre_tokens=151_000)
    t.user("go on")
    fragments = ingest(t.write(tmp_path / "s.jsonl"))
    summary = next(f for f in fragments if f.metadata.get("is_compaction_summary"))
    assert summary.role == "system" and summary.conversation_id == SESSION
    assert summary.metadata["compact_trigger"] == "auto"
    assert summary.metadata["compact_pre_tokens"] == 151_000
    assert "CSV delimiters" in summary.content
    assert fragments[-1].content == "go on"
    assert summary.title == "Why does the CSV import choke on semicolons?"


def test_sub_agent_file_without_session_id_uses_its_folder(tmp_path: Path) -> None:
    t = Transcript(agent_id="ab12cd3")
    t.user("Find the delimiter handling")
    t.assistant("msg_S", text("It is in import.py."))
    for record in t.records:
        del record["sessionId"]
    path = t.write(tmp_path / SESSION / "subagents" / "agent-ab12cd3.jsonl")
    source = ClaudeCodeSource()
    assert not source.can_handle(path)  # no sessionId: nothing marks it as Claude Code's
    fragments = list(source.ingest(path))
    assert {f.conversation_id for f in fragments} == {f"{SESSION}:agent-ab12cd3"}
    assert {f.metadata["session_id"] for f in fragments} == {SESSION}
    assert {f.metadata["agent_id"] for f in fragments} == {"ab12cd3"}


def test_sidechain_lines_inside_a_session_file_form_their_own_conversation(
    tmp_path: Path,
) -> None:
    main = Transcript()
    main.user("research the csv module")
    agent = Transcript(agent_id="ab12cd3")
    agent.user("Read the csv docs")
    agent.assistant("msg_S", text("csv.Sniffer detects delimiters."))
    path = tmp_path / "s.jsonl"
    path.write_text("".join(main.lines() + agent.lines()))
    fragments = ingest(path)
    assert [f.conversation_id for f in fragments] == [SESSION] + [f"{SESSION}:agent-ab12cd3"] * 2
    assert fragments[1].title == "Read the csv docs"


def test_long_prose_is_chunked_and_tool_output_compacted(tmp_path: Path) -> None:
    t = Transcript()
    t.user("explain")
    paragraphs = [f"Paragraph {i} about delimiter sniffing. " * 12 for i in range(12)]
    t.assistant(
        "msg_A", text("\n\n".join(paragraphs)), tool_use("toolu_1", "Bash", command="pytest")
    )
    log = "\n".join(f"test_{i} PASSED" for i in range(400)) + "\nFAILED test_x - AssertionError"
    t.tool_result("toolu_1", log + "\n1 failed, 400 passed")
    fragments = ingest(t.write(tmp_path / "s.jsonl"), tool_output_budget=300)
    chunks = [f for f in fragments if f.metadata.get("chunk_count")]
    assert len(chunks) == chunks[0].metadata["chunk_count"] >= 3
    for before, after in itertools.pairwise(chunks):
        assert before.metadata["next_id"] == after.id and after.metadata["prev_id"] == before.id
    result = fragments[-1]
    assert result.role == "tool" and result.content.endswith("1 failed, 400 passed")
    assert "test_399 PASSED" in result.content
    assert result.index_text is not None and len(result.index_text) < 400
    assert "FAILED test_x - AssertionError" in result.index_text
    assert "test_200 PASSED" not in result.index_text


def test_odd_blocks_do_not_crash(tmp_path: Path) -> None:
    t = Transcript()
    t.user([text("look at this"), {"type": "image", "source": {"type": "base64"}}, "stray"])
    t.assistant("msg_A", {"type": "redacted_thinking", "data": "xx"}, tool_use("toolu_9", "Shot"))
    t.tool_result("toolu_9", [{"type": "image", "source": {}}, {"type": "text", "text": "ok"}])
    t.tool_result("toolu_unknown", "", is_error=True)
    t.user("no message")["message"] = "not an object"
    with pytest.warns(SkippedItemWarning, match="without a message object"):
        fragments = ingest(t.write(tmp_path / "s.jsonl"))
    assert [(f.role, f.content) for f in fragments] == [
        ("user", "look at this\n\n[image]\n\nstray"),
        ("assistant", "[tool call: Shot]"),
        ("tool", "[tool result: Shot]\n[image]\n\nok"),
        ("tool", "[tool result: tool]"),
    ]
    assert fragments[0].metadata["non_text_parts"] == ["image"]
    assert fragments[-1].metadata["is_error"] is True


def test_shorten() -> None:
    assert shorten("  \n fix   the\timport \nsecond line") == "fix the import"
    long = "word " * 40
    assert shorten(long) == ("word " * 15).strip() + "…"
    assert len(shorten(long)) <= 80
    assert shorten("x" * 100) == "x" * 79 + "…"


# --- settings and plugin wiring -------------------------------------------------------------


def test_settings_are_checked() -> None:
    assert parse_settings({}).tool_output_budget == DEFAULT_TOOL_OUTPUT_BUDGET
    parsed = parse_settings({"include_thinking": True, "tool_output_budget": 600})
    assert (parsed.include_thinking, parsed.tool_output_budget) == (True, 600)
    for bad in ({"tool_output_budget": 0}, {"tool_output_budget": "big"}, {"include_thinking": 1}):
        with pytest.raises(ClaudeCodeSettingError, match=r"\[source.claude_code\]"):
            parse_settings(bad)
    with pytest.raises(ClaudeCodeSettingError, match=r"unknown setting.*budget"):
        parse_settings({"budget": 5})


def test_plugin_registers_a_source_factory(tmp_path: Path) -> None:
    manager = pluggy.PluginManager("memex")
    manager.add_hookspecs(hookspecs)
    registry = PluginRegistry(manager)
    registry.register_plugin(memex_claude_code, "claude_code")
    context = PluginContext(home=tmp_path, settings={"tool_output_budget": 700})
    source = registry.build("source", "claude_code", context)
    assert isinstance(source, Source) and isinstance(source, ClaudeCodeSource)
    assert source.source_kind == "claude_code" and source.include_thinking is False
    assert source.tool_output_budget == 700
    assert getattr(source, REPLACE_CHANGED_FILES) is True


def test_importing_the_plugin_does_not_load_the_reader() -> None:
    code = "import sys, memex_claude_code; print('memex_claude_code.source' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


# --- end to end: memex ingests the folder ---------------------------------------------------


def test_memex_ingests_the_folder_and_finds_a_phrase(cc_data: Path, memex_home: Path) -> None:
    settings = {"source": {"claude_code": {"tool_output_budget": 200}}}
    with fast_memex(memex_home, **settings) as mx, warnings.catch_warnings():
        warnings.simplefilter("error", SkippedItemWarning)
        report = mx.ingest(cc_data.parent)
        outcomes = {Path(o.path).name: o for o in report.files if o.status != "skipped"}
        assert set(outcomes) == {p.name for p in cc_data.rglob("*.jsonl")}
        assert {(o.status, o.source_kind) for o in outcomes.values()} == {("new", "claude_code")}
        hits = mx.search("REFUSED JOIN terminal", mode="keyword", limit=3)
        top = hits[0].fragment
        assert top.role == "tool" and top.conversation_id == "d6e0bada-1959-4eec-a9d2-0bfade768d8f"
        assert "REFUSED JOIN terminal" in top.content
        agent = agent_conversation_id(FULL, AGENT)
        in_agent = mx.search("opentelemetry_bandit", mode="keyword", conversation=agent)
        assert in_agent.results and {r.fragment.metadata["session_id"] for r in in_agent} == {FULL}
        prompts = mx.search("phx.server start", mode="keyword", role="user")
        assert prompts[0].fragment.content == "mix phx.server doesnt seem to start"
        longest = max(
            (r.fragment for r in mx.search("Read file", mode="keyword", role="tool", limit=50)),
            key=lambda f: len(f.content),
        )
        assert longest.index_text is not None and len(longest.index_text) <= 300
        assert mx.ingest(cc_data.parent).fragments_added == 0


def test_memex_replaces_a_grown_transcripts_unfinished_turn(
    tmp_path: Path, memex_home: Path
) -> None:
    t = conversation()
    path = t.write(tmp_path / "projects" / "-home-dev-shop" / f"{SESSION}.jsonl")
    with fast_memex(memex_home) as mx:
        mx.ingest(path.parent)
        assert mx.search("delimiter", mode="keyword")
        t.assistant("msg_B", text("Also strip the byte order mark."))
        t.user("and the dates?")
        t.write(path)
        report = mx.ingest(path.parent)
        (outcome,) = report.files
        assert (outcome.status, outcome.fragments_removed) == ("updated", 1)
        hits = mx.search("byte order mark", mode="keyword")
        assert hits[0].fragment.content.endswith("Also strip the byte order mark.")
        assert len(mx.search("delimiter", mode="keyword", role="assistant").results) == 1
