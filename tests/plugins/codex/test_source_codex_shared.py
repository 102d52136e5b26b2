"""The Codex CLI rollout source on real rollouts (shared data), alone and through memex."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from memex_core.domain import ROLES
from memex_core.domain.compaction import DEFAULT_TOOL_OUTPUT_BUDGET, compact_tool_output
from memex_core.source_kit import SkippedItemWarning
from tests.plugins.codex.rollouts import (
    EXPECTED,
    LIFECYCLE,
    MADSHN,
    ingest,
    iso,
    kinds,
    shared_rollouts,
)
from tests.support import codex_builders as cb
from tests.support.component_doubles import fast_memex

# --- every real rollout ---------------------------------------------------------------


@pytest.mark.parametrize("path", shared_rollouts())
def test_every_shared_rollout_is_read(path: Path) -> None:
    fragments = ingest(path)
    assert kinds(fragments) == Counter(EXPECTED[path.name])
    assert len({f.id for f in fragments}) == len(fragments)
    session_id = fragments[0].conversation_id
    for fragment in fragments:
        assert fragment.role in ROLES
        assert fragment.content.strip()
        assert fragment.source_kind == "codex"
        assert fragment.conversation_id == session_id
        assert fragment.provenance.source_id == session_id
        assert fragment.provenance.source_path == str(path)
        assert fragment.provenance.locator.startswith(f"{session_id}/")
        assert isinstance(fragment.timestamp, float)
        assert fragment.title == fragments[0].title and fragment.title
        assert fragment.metadata["session_id"] == session_id
        assert fragment.metadata["cli_version"] and fragment.metadata["cwd"]
        json.dumps(fragment.metadata)
        if fragment.role == "tool":
            assert fragment.index_text == compact_tool_output(
                fragment.content, DEFAULT_TOOL_OUTPUT_BUDGET
            )
        else:
            assert fragment.index_text is None
    # the same file read again, or a copy elsewhere, gives the same ids
    assert [f.id for f in ingest(path)] == [f.id for f in fragments]


@pytest.mark.parametrize("path", shared_rollouts())
def test_shared_calls_and_outputs_are_linked(path: Path) -> None:
    fragments = ingest(path)
    calls = {f.id: f for f in fragments if f.metadata.get("tool_call")}
    position = {f.id: n for n, f in enumerate(fragments)}
    for output in (f for f in fragments if f.role == "tool"):
        if "call_fragment_id" not in output.metadata:
            continue  # an output whose call is not in this rollout
        call = calls[output.metadata["call_fragment_id"]]
        assert call.metadata["call_id"] == output.metadata["call_id"]
        assert call.metadata["tool_name"] == output.metadata["tool_name"]
        assert output.content.startswith(f"[tool result: {call.metadata['tool_name']}]")
        assert position[call.id] < position[output.id]


def test_madshn_preambles_and_event_copies_are_left_out(codex_data: Path) -> None:
    folder = codex_data / MADSHN
    for path in sorted(folder.glob("*.jsonl")):
        fragments = ingest(path)
        texts = "\n".join(f.content for f in fragments)
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        # user-role messages no event claims are injected context (AGENTS.md, environment...)
        user_texts = [
            r["payload"]["content"][0]["text"]
            for r in lines
            if r["type"] == "response_item" and r["payload"].get("role") == "user"
        ]
        prompts = [f.content for f in fragments if f.role == "user"]
        assert len(prompts) == 1 and len(user_texts) >= 3
        for injected in user_texts:
            if injected not in prompts:
                assert injected not in texts
        developer = [
            r["payload"]["content"][0]["text"]
            for r in lines
            if r["type"] == "response_item" and r["payload"].get("role") == "developer"
        ]
        assert developer and not any(text in texts for text in developer)
        # event_msg copies are redacted as REDACTED_MESSAGE, response items as REDACTED_TEXT
        assert "REDACTED_MESSAGE" not in texts
        assert "REDACTED_ENCRYPTED_CONTENT" not in texts
        assert "REDACTED_TEXT len=13131" not in texts  # base_instructions of session_meta


def test_madshn_session_metadata_and_times(codex_data: Path) -> None:
    path = (
        codex_data
        / MADSHN
        / ("rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl")
    )
    fragments = ingest(path)
    prompt = fragments[0]
    assert prompt.role == "user" and prompt.content == "[REDACTED_TEXT len=86 sha=2239bcba]"
    assert prompt.title == "[REDACTED_TEXT len=86 sha=2239bcba]"
    assert prompt.conversation_id == "019c8a70-dda7-7f33-98ea-f30553347322"
    assert prompt.timestamp == pytest.approx(iso("2026-02-23T12:19:42.563Z"))
    assert prompt.metadata == {
        "session_id": "019c8a70-dda7-7f33-98ea-f30553347322",
        "cwd": "/redacted/path/da0ba47443",
        "git_branch": "main",
        "git_commit": "86b4a8d9581d63089e53845daf7dd787129a9972",
        "cli_version": "0.104.0-alpha.1",
        "line": 9,
        "message_id": "line-9",
    }
    reasoning, commentary, call = fragments[1:]
    assert reasoning.metadata["reasoning"] is True
    assert reasoning.content == "[REDACTED_TEXT len=34 sha=c8b34894]"
    assert reasoning.metadata["model"] == "gpt-5.3-codex"  # from the turn_context before it
    assert commentary.metadata["phase"] == "commentary"
    assert call.content == "[tool call: exec_command]\n[REDACTED_ARGUMENTS len=456 sha=df6be51a]"
    assert call.metadata["call_id"] == "call_UtYwHmwWekzvq83m8Rb9K8jJ"  # its output never came
    assert call.timestamp == pytest.approx(iso("2026-02-23T12:19:52.620Z"))


def test_lifecycle_fixture_newer_version(codex_data: Path) -> None:
    fragments = ingest(codex_data / LIFECYCLE)
    assert [(f.role, f.metadata["message_id"]) for f in fragments] == [
        ("user", "user-1"),
        ("assistant", "assistant-commentary-1"),
        ("assistant", "reasoning-1"),
        ("assistant", "function-call-1"),
        ("tool", "function-output-1"),
        ("assistant", "custom-call-1"),
        ("tool", "custom-output-1"),
        ("tool", "unmatched-output-1"),
        ("assistant", "assistant-final-1"),
    ]
    text = "\n".join(f.content for f in fragments)
    for never in (
        "DEVELOPER_SENTINEL",
        "SYSTEM_SENTINEL",
        "META_INSTRUCTIONS",
        "ENCRYPTED_REASONING_SENTINEL",
        "AGENT_MESSAGE_DUPLICATE_SENTINEL",
    ):
        assert never not in text
    assert text.count("Implement a durable retry ledger") == 1  # not again from event_msg
    assert text.count("Implemented the protected retry ledger") == 1
    prompt, commentary, summary, call, output, custom, custom_out, orphan, final = fragments
    assert prompt.title == "Implement a durable retry ledger and verify it. Never retain this key…"
    assert prompt.metadata["session_id"] == "sanitized-session"
    assert prompt.metadata["cwd"] == "C:\\sanitized\\project"
    assert "git_branch" not in prompt.metadata  # git is null in this session
    assert commentary.metadata["phase"] == "commentary"
    assert final.metadata["phase"] == "final_answer"
    assert summary.content == "REASONING_SUMMARY_SENTINEL_MUST_NOT_CAPTURE"
    assert call.content == "[tool call: shell_command]\ncommand: npm test"
    assert output.metadata["call_fragment_id"] == call.id and output.metadata["exit_code"] == 0
    assert custom.content == "[tool call: exec]\nSYNTHETIC_CUSTOM_INPUT_MUST_NOT_CAPTURE"
    assert custom_out.content.startswith("[tool result: exec]\nScript completed\nExit code: 0")
    assert custom_out.metadata["call_fragment_id"] == custom.id
    assert orphan.content == "[tool result]\nUNMATCHED_OUTPUT_SENTINEL_MUST_NOT_CAPTURE"
    assert orphan.metadata["call_id"] == "missing-call"
    assert "call_fragment_id" not in orphan.metadata and "tool_name" not in orphan.metadata
    assert final.timestamp == pytest.approx(iso("2026-08-05T12:00:11.000Z"))


@pytest.mark.parametrize("path", shared_rollouts())
def test_budget_setting_reaches_real_outputs(path: Path) -> None:
    # The redacted outputs are short; the long-output case is a synthetic test below.
    outputs = [f for f in ingest(path, tool_output_budget=40) if f.role == "tool"]
    for output in outputs:
        assert output.index_text == compact_tool_output(output.content, 40)
        assert output.content.startswith("[tool result")  # content keeps the whole output


@pytest.mark.parametrize("path", shared_rollouts())
def test_ids_are_stable_when_the_rollout_grows(path: Path, tmp_path: Path) -> None:
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    full = {f.id: f for f in ingest(path)}
    first_event = next(n for n, line in enumerate(lines, 1) if '"user_message"' in line)
    cuts = sorted({*range(2, min(len(lines), 40)), *range(40, len(lines), 25), len(lines) - 1})
    for cut in cuts:
        prefix = tmp_path / path.name
        prefix.write_text("".join(lines[:cut]), encoding="utf-8")
        for fragment in ingest(prefix):
            if fragment.id in full:
                assert fragment.content == full[fragment.id].content
                assert fragment.metadata == full[fragment.id].metadata
            else:
                # Only before the first user_message event can the prefix not yet tell
                # injected context from a prompt (the grown file then replaces it).
                assert cut < first_event and fragment.role == "user", (cut, fragment)


def test_a_line_cut_mid_write_is_skipped_with_a_warning(codex_data: Path, tmp_path: Path) -> None:
    source = (
        codex_data
        / MADSHN
        / ("rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl")
    )
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    growing = tmp_path / source.name
    growing.write_text("".join(lines[:30]) + lines[30][: len(lines[30]) // 2], encoding="utf-8")
    with pytest.warns(SkippedItemWarning, match=r"line 31\): skipped, not valid JSON"):
        fragments = ingest(growing)
    full = {f.id for f in ingest(source)}
    assert fragments and {f.id for f in fragments} <= full


# --- end to end through memex -------------------------------------------------------------


def test_memex_ingests_the_shared_rollouts_and_finds_them(
    codex_data: Path, memex_home: Path
) -> None:
    with fast_memex(memex_home) as mx:
        report = mx.ingest(codex_data)
        codex_files = [f for f in report.files if f.source_kind == "codex"]
        assert len(codex_files) == 4 and all(f.status == "new" for f in codex_files)
        assert report.count("failed") == 0
        assert sum(f.fragments_added for f in codex_files) == sum(
            sum(counts.values()) for counts in EXPECTED.values()
        )
        hits = mx.search("durable retry ledger", mode="keyword", source="codex")
        assert hits and hits[0].fragment.role == "user"
        assert hits[0].fragment.conversation_id == "sanitized-session"
        assert hits[0].fragment.content.startswith("Implement a durable retry ledger")
        tools = mx.search("exec_command", mode="keyword", role="assistant", limit=5)
        assert tools and all(h.fragment.metadata.get("tool_call") for h in tools)
        again = mx.ingest(codex_data)
        assert {f.status for f in again.files if f.source_kind == "codex"} == {"unchanged"}


def test_memex_reingests_a_grown_rollout(tmp_path: Path, memex_home: Path) -> None:
    entries = [*cb.typical_session(), cb.user("now add metrics"), cb.user_event("now add metrics")]
    entries.append(cb.assistant("Metrics are exported on /metrics."))
    path = tmp_path / "sessions" / "rollout.jsonl"
    path.parent.mkdir()
    cb.write_rollout(path, entries[:12])
    with fast_memex(memex_home) as mx:
        first = mx.ingest(path)
        assert first.files[0].source_kind == "codex" and first.fragments_added == 3
        cb.write_rollout(path, entries)
        grown = mx.ingest(path)
        assert grown.files[0].status in ("new", "updated")
        full = ingest(path)
        assert grown.fragments_added == len(full) - 3  # the old fragments kept their ids
        assert [f.id for f in mx.get([f.id for f in full])] == [f.id for f in full]
        assert mx.search("metrics exported", mode="keyword")[0].fragment.content == (
            "Metrics are exported on /metrics."
        )
