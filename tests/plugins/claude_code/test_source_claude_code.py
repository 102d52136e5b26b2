"""The Claude Code source on synthetic transcripts, broken and foreign files, and its
settings (real transcripts: ``test_source_claude_code_shared``)."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
from pathlib import Path

import pluggy
import pytest

import memex_claude_code
from memex_claude_code.lines import PEEK_BYTES
from memex_claude_code.settings import ClaudeCodeSettingError, parse_settings
from memex_claude_code.source import ClaudeCodeSource, shorten
from memex_core import hookspecs
from memex_core.domain import PluginContext, Source, SourceError
from memex_core.domain.compaction import DEFAULT_TOOL_OUTPUT_BUDGET
from memex_core.domain.contracts import REPLACE_CHANGED_FILES
from memex_core.plugins import PluginRegistry
from memex_core.source_kit import SkippedItemWarning
from tests.plugins.claude_code.transcripts import (
    ingest,
)
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


# --- end to end: a grown transcript through memex ---------------------------------------


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
