"""The Claude Code source on real transcripts (shared data), alone and through memex."""

from __future__ import annotations

import itertools
import json
import warnings
from pathlib import Path

import pytest

from memex_claude_code.source import ClaudeCodeSource, agent_conversation_id
from memex_core.domain import ROLES, Fragment, SourceError
from memex_core.domain.compaction import DEFAULT_TOOL_OUTPUT_BUDGET, compact_tool_output
from memex_core.source_kit import SkippedItemWarning
from tests.plugins.claude_code.transcripts import (
    AGENT,
    COMPACT_AGENT,
    FULL,
    FULL_CWD,
    MANUAL_COUNTS,
    claude_code_root,
    ingest,
    records,
    transcript_params,
    turn_key,
)
from tests.support.component_doubles import fast_memex

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
