"""Session summaries: the deterministic summary of real transcripts, storing it, the LLM path.

The expectations on the real sessions (../shared/data/exports) are read from the
transcript files themselves, not from memex, so a summary that drifts from what the
session did fails here.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel

from memex_capture.settings import CaptureSettingError, parse_settings
from memex_capture.summary import (
    ORIGIN_PREFIX,
    build_summary,
    llm_prompt,
    session_fragments,
    write_session_summary,
)
from memex_core import Memex
from memex_core.domain.session_summary import (
    MAX_COMMANDS,
    MAX_FILES,
    SUMMARY_FLAG,
    summarize_session,
)
from tests.support import codex_builders as cx
from tests.support._data import shared_data_dir
from tests.support.claude_code_builders import Transcript, text, tool_use
from tests.support.component_doubles import fast_memex

SHORT = "55604662-cf2a-4331-851a-ec234028f8ca"
TOOL_HEAVY = "d6e0bada-1959-4eec-a9d2-0bfade768d8f"
FULL = "ae4a77f8-aedd-4bc1-888f-c94edc91af04"
CODEX_CANARY = "sanitized-session"
CODEX_REDACTED = "019c8a4d-8f45-7010-8b5d-7fad920aa6f9"
FAKE_MODEL = "langchain_core.language_models.fake_chat_models:FakeListChatModel"


@pytest.fixture(scope="module")
def exports() -> Path:
    return shared_data_dir("exports")


@pytest.fixture(scope="module")
def real(exports: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memex]:
    """One home holding the real Claude Code and Codex sessions (read-only in tests)."""
    mx = fast_memex(tmp_path_factory.mktemp("summary-real"))
    spotter = exports / "claude_code" / "marot_spotter"
    report = mx.ingest(
        spotter / "short.jsonl",
        spotter / "tool_heavy.jsonl",
        spotter / f"{FULL}.jsonl",
        spotter / FULL,
        exports / "codex" / "12ziyad_universal-memory-engine",
        next((exports / "codex" / "madshn_localpush").rglob(f"*{CODEX_REDACTED}.jsonl")),
        embed=False,
    )
    assert not [f for f in report.files if f.status == "failed"], report.files
    yield mx
    mx.close()


def _records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def _main_lines(path: Path) -> list[dict[str, Any]]:
    """A Claude Code transcript's own (not sub-agent, not meta) conversation lines."""
    return [
        r
        for r in _records(path)
        if r.get("type") in ("user", "assistant") and not r.get("isSidechain")
    ]


def _blocks(record: dict[str, Any]) -> list[dict[str, Any]]:
    content = record.get("message", {}).get("content")
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _relative(path: str, cwd: str) -> str:
    return path[len(cwd) + 1 :] if path.startswith(cwd + "/") else path


# -- the deterministic summary on real Claude Code sessions -------------------------------


def test_short_session_says_what_the_transcript_says(real: Memex) -> None:
    summary = build_summary(real, SHORT)
    assert summary is not None
    assert summary.request == "mix phx.server doesnt seem to start"
    assert summary.prompts == 1 and summary.tool_calls == 2
    assert summary.commands == ("mix phx.server 2>&1 | head -80",)
    assert [(e.tool, e.line) for e in summary.errors] == [
        ("Bash", "rejected by the user"),
        ("Glob", "rejected by the user"),
    ]
    assert summary.files_changed == () and summary.files_read == ()
    assert summary.outcome.startswith("Let me check the project structure")
    assert summary.cwd == "/home/marco/projects/spotter" and summary.git_branch == "master"
    text = summary.render()
    assert text.splitlines()[0].startswith("Session summary (claude_code, 2026-02-10 21:11")
    assert "Errors (2): Bash: rejected by the user; Glob: rejected by the user" in text


def test_tool_heavy_session_reads_files_and_skips_slash_commands(real: Memex) -> None:
    summary = build_summary(real, TOOL_HEAVY)
    assert summary is not None
    assert summary.request == "start phoenix in background"
    # "/mcp" is a slash command, not a request: two typed prompts remain.
    assert summary.prompts == 2
    assert summary.prompt_texts[1].startswith("scrolling back in xterm.js")
    assert "assets/js/app.js" in summary.files_read  # Read, relative to the session's cwd
    assert summary.commands[0] == "mix phx.server"
    assert summary.commands[1].startswith("tail -5 /tmp/claude-1000/")
    assert summary.errors == ()
    assert summary.outcome.startswith("Phoenix server is starting in the background.")


def test_full_session_matches_its_transcript(real: Memex, exports: Path) -> None:
    path = exports / "claude_code" / "marot_spotter" / f"{FULL}.jsonl"
    lines = _main_lines(path)
    cwd = next(r["cwd"] for r in lines if r.get("cwd"))
    changed: list[str] = []
    commands: list[str] = []
    failed: set[str] = set()
    for record in lines:
        for block in _blocks(record):
            if block.get("type") == "tool_use":
                inputs = block.get("input") or {}
                if block["name"] in ("Edit", "Write", "MultiEdit", "NotebookEdit"):
                    changed.append(_relative(inputs["file_path"], cwd))
                if block["name"] == "Bash":
                    commands.append(inputs["command"])
            if block.get("type") == "tool_result" and block.get("is_error"):
                failed.add(block["tool_use_id"])
    changed = list(dict.fromkeys(changed))
    distinct_commands = list(dict.fromkeys(commands))

    summary = build_summary(real, FULL)
    assert summary is not None
    assert summary.request.startswith("Work on bead spotter-4te. Run bd show spotter-4te")
    assert summary.prompts == 2  # "/compact and continue..." is a slash command
    assert summary.files_changed_total == len(changed) > MAX_FILES
    assert list(summary.files_changed) == changed[:MAX_FILES]
    assert "mix.exs" in summary.files_changed
    assert not set(summary.files_read) & set(changed)  # a file changed is not listed as read
    assert summary.commands_total == len(distinct_commands)
    assert len(summary.commands) == MAX_COMMANDS
    assert summary.commands[:2] == ("bd show spotter-4te", "bd ready")
    assert summary.errors_total == len(failed) == 12
    assert ("Edit", "String to replace not found in file.") in [
        (e.tool, e.line) for e in summary.errors
    ]
    assert any(e.line.startswith("Pre-commit validation failed: [FORMAT]") for e in summary.errors)
    assert summary.outcome.startswith("All done. The entire spotter-4te epic")
    assert len(summary.outcome) <= 400


def test_summary_is_deterministic_across_homes(real: Memex, exports: Path, tmp_path: Path) -> None:
    other = fast_memex(tmp_path / "other")
    spotter = exports / "claude_code" / "marot_spotter"
    try:
        other.ingest(spotter / f"{FULL}.jsonl", spotter / FULL, embed=False)
        first, second = build_summary(real, FULL), build_summary(other, FULL)
        assert first is not None and second is not None
        assert first == second and first.render() == second.render()
        again = summarize_session(session_fragments(real, FULL))
        assert again.render() == first.render()
    finally:
        other.close()


def test_full_session_names_its_sub_agent_and_leaves_compaction_out(
    real: Memex, exports: Path
) -> None:
    """The real session's sub-agent (agent-aac57f5.jsonl: six WebSearch and six WebFetch
    calls, no file, no command, no error) is in the summary, marked; the compaction agent
    (agent-acompact-*) is not; the session's own request, counts and outcome stay."""
    folder = exports / "claude_code" / "marot_spotter" / FULL / "subagents"
    (agent_file,) = folder.glob("agent-a[!c]*.jsonl")
    lines = [r for r in _records(agent_file) if r.get("type") in ("user", "assistant")]
    agent_id = lines[0]["agentId"]
    task = lines[0]["message"]["content"]
    calls = [b for r in lines for b in _blocks(r) if b.get("type") == "tool_use"]
    assert {b["name"] for b in calls} == {"WebSearch", "WebFetch"} and len(calls) == 12

    fragments = session_fragments(real, FULL)
    agents = {f.metadata.get("agent_id") for f in fragments}
    assert agents - {None, agent_id} == {"acompact-946d2b"}  # given, then left out
    summary = build_summary(real, FULL)
    assert summary is not None
    (sub,) = summary.subagents
    assert sub.agent_id == agent_id and sub.tool_calls == len(calls)
    assert sub.task.startswith(" ".join(task.split())[:60])
    own = summarize_session([f for f in fragments if not f.metadata.get("agent_id")])
    # What the sub-agent did adds no file, command or error; the session's own stay.
    for field in ("request", "prompts", "tool_calls", "files_changed", "commands", "errors"):
        assert getattr(summary, field) == getattr(own, field), field
    assert summary.outcome == own.outcome and own.subagents == ()
    text = summary.render()
    assert f"Sub-agents (1): {agent_id}: Search hex.pm for the latest versions" in text
    assert "(12 tool calls)" in text and "acompact" not in text


def test_sub_agent_files_commands_and_errors_join_marked(tmp_path: Path) -> None:
    session = "5ab00000-0000-4000-8000-000000000001"
    t = Transcript(session, cwd="/home/dev/shop")
    t.user("Port the importer to the csv module")
    t.assistant(
        "msg_1",
        tool_use("toolu_1", "Task", description="fix the tests", prompt="Fix the tests"),
        tool_use("toolu_2", "Edit", file_path="/home/dev/shop/importer.py", old_string="a"),
    )
    t.tool_result("toolu_1", "Tests fixed.", result={"agentId": "b7f00d1", "status": "ok"})
    t.tool_result("toolu_2", "The file has been updated.")
    t.assistant("msg_2", text("Ported; the sub-agent fixed the tests."))
    agent = Transcript(session, cwd="/home/dev/shop", agent_id="b7f00d1")
    agent.user("Fix the failing importer tests")
    agent.assistant(
        "msg_a1",
        tool_use("toolu_a1", "Read", file_path="/home/dev/shop/importer.py"),
        tool_use("toolu_a2", "Edit", file_path="/home/dev/shop/tests/test_importer.py"),
        tool_use("toolu_a3", "Bash", command="pytest -q tests/test_importer.py"),
        tool_use("toolu_a4", "Edit", file_path="/home/dev/shop/importer.py", old_string="b"),
    )
    agent.tool_result("toolu_a1", "1→import csv")
    agent.tool_result("toolu_a2", "The file has been updated.")
    agent.tool_result("toolu_a3", "Exit code 1\nFAILED test_quotes", is_error=True)
    agent.tool_result("toolu_a4", "The file has been updated.")
    agent.assistant("msg_a2", text("Fixed the importer tests."))
    compaction = Transcript(session, cwd="/home/dev/shop", agent_id="acompact-1")
    compaction.user("Summarize the conversation")
    compaction.assistant("msg_c1", tool_use("toolu_c1", "Bash", command="echo compact"))
    main = t.write(tmp_path / f"{session}.jsonl")
    agent.write(tmp_path / session / "subagents" / "agent-b7f00d1.jsonl")
    compaction.write(tmp_path / session / "subagents" / "agent-acompact-1.jsonl")
    mx = fast_memex(tmp_path / "home")
    try:
        mx.ingest(main, tmp_path / session, embed=False)
        summary = build_summary(mx, session)
        stored = write_session_summary(mx, session, embed=False)
    finally:
        mx.close()
    assert summary is not None and stored is not None
    assert summary.request == "Port the importer to the csv module" and summary.prompts == 1
    assert summary.tool_calls == 2  # the session's own calls
    # importer.py is the session's own change: listed once, unmarked.
    assert summary.files_changed == ("importer.py", "tests/test_importer.py (sub-agent)")
    assert summary.files_read == ()  # read by the sub-agent, changed in the session
    assert summary.commands == ("pytest -q tests/test_importer.py (sub-agent)",)
    assert [e.render() for e in summary.errors] == ["Bash (sub-agent): exit 1: FAILED test_quotes"]
    assert summary.outcome == "Ported; the sub-agent fixed the tests."
    assert [(a.agent_id, a.task, a.tool_calls) for a in summary.subagents] == [
        ("b7f00d1", "Fix the failing importer tests", 4)
    ]
    assert "echo compact" not in stored.content and "acompact" not in stored.content
    assert "Sub-agents (1): b7f00d1: Fix the failing importer tests (4 tool calls)" in (
        stored.content
    )
    assert "Errors (1): Bash (sub-agent): exit 1: FAILED test_quotes" in stored.content


def test_a_sub_agent_summarized_alone_is_its_own_session(tmp_path: Path) -> None:
    agent = Transcript("5ab00000-0000-4000-8000-000000000002", agent_id="c0ffee1")
    agent.user("List the importer's callers")
    agent.assistant("msg_1", tool_use("toolu_1", "Bash", command="grep -rn importer ."))
    agent.tool_result("toolu_1", "shop/app.py: import importer")
    agent.assistant("msg_2", text("One caller: shop/app.py."))
    path = agent.write(tmp_path / "agent-c0ffee1.jsonl")
    mx = fast_memex(tmp_path / "home")
    try:
        mx.ingest(path, embed=False)
        (conversation,) = [c for (c,) in mx.query("SELECT id FROM conversations")[1]]
        summary = summarize_session(mx.conversation(conversation))
    finally:
        mx.close()
    assert summary.request == "List the importer's callers"
    assert summary.commands == ("grep -rn importer .",) and summary.subagents == ()
    assert summary.outcome == "One caller: shop/app.py."


# -- Codex rollouts -------------------------------------------------------------------------


def test_codex_canary_rollout(real: Memex) -> None:
    summary = build_summary(real, CODEX_CANARY)
    assert summary is not None
    assert summary.source_kind == "codex"
    assert summary.request.startswith("Implement a durable retry ledger and verify it.")
    assert summary.commands == ("npm test",)
    assert summary.errors == ()  # both outputs exited 0
    assert summary.outcome.startswith("Implemented the protected retry ledger.")


def test_codex_redacted_rollout_counts_its_tool_calls(real: Memex, exports: Path) -> None:
    path = next((exports / "codex" / "madshn_localpush").rglob(f"*{CODEX_REDACTED}.jsonl"))
    records = _records(path)
    calls = [
        r
        for r in records
        if r["type"] == "response_item"
        and r["payload"].get("type") in ("function_call", "custom_tool_call", "local_shell_call")
    ]
    finals = [
        r["payload"]
        for r in records
        if r["type"] == "response_item"
        and r["payload"].get("type") == "message"
        and r["payload"].get("phase") == "final_answer"
    ]
    summary = build_summary(real, CODEX_REDACTED)
    assert summary is not None
    assert summary.tool_calls == len(calls)
    assert summary.outcome == finals[-1]["content"][0]["text"]


def test_codex_patches_shell_reads_and_failed_commands(tmp_path: Path) -> None:
    rollout = cx.write_rollout(
        tmp_path / "rollout-2025-10-01T09-00-00-0199a0b1-1111-7222-8333-944455556666.jsonl",
        [
            cx.session_meta(cwd="/home/ada/src/ledger"),
            cx.user("Make the ledger retry failed payments"),
            cx.function_call(
                "exec_command", {"cmd": "sed -n 1,80p src/payments.py", "workdir": "/r"}, "c1"
            ),
            cx.function_output("c1", "def pay(): ..."),
            cx.custom_call(
                "apply_patch",
                "*** Begin Patch\n*** Update File: src/ledger.py\n@@\n-x\n+y\n"
                "*** Add File: tests/test_ledger.py\n+def test(): ...\n*** End Patch\n",
                "c2",
            ),
            cx.custom_output("c2", "Success."),
            cx.function_call("shell", {"command": ["bash", "-lc", "pytest -q"]}, "c3"),
            cx.function_output(
                "c3",
                "Exit code: 1\nWall time: 0.5 seconds\nOutput:\n"
                "FAILED tests/test_ledger.py::test_retry - AssertionError",
            ),
            cx.assistant("The retry ledger is in; one test still fails."),
        ],
    )
    mx = fast_memex(tmp_path / "home")
    try:
        mx.ingest(rollout, embed=False)
        summary = build_summary(mx, cx.SESSION_ID)
    finally:
        mx.close()
    assert summary is not None
    assert summary.files_changed == ("src/ledger.py", "tests/test_ledger.py")
    assert summary.files_read == ("src/payments.py",)
    assert summary.commands == ("sed -n 1,80p src/payments.py", "pytest -q")
    assert [(e.tool, e.line) for e in summary.errors] == [
        ("shell", "exit 1: FAILED tests/test_ledger.py::test_retry - AssertionError")
    ]
    assert summary.outcome == "The retry ledger is in; one test still fails."


def test_claude_code_nested_inputs_and_multiline_commands(tmp_path: Path) -> None:
    t = Transcript(cwd="/home/dev/shop")
    t.user("Rename the importer")
    t.assistant(
        "msg_1",
        tool_use("toolu_1", "Read", file_path="/home/dev/shop/importer.py"),
        tool_use(
            "toolu_2",
            "MultiEdit",
            file_path="/home/dev/shop/importer.py",
            edits=[{"old_string": "a", "new_string": "b"}],
        ),
        tool_use("toolu_3", "Bash", command="cd /home/dev/shop &&\nmake test", description="x"),
    )
    t.tool_result("toolu_1", "1→import csv")
    t.tool_result("toolu_2", "Applied 1 edit")
    t.tool_result("toolu_3", "Exit code 2\nmake: *** [test] Error 2", is_error=True)
    t.assistant("msg_2", text("Renamed; `make test` fails on an unrelated target."))
    path = t.write(tmp_path / f"{t.session}.jsonl")
    mx = fast_memex(tmp_path / "home")
    try:
        mx.ingest(path, embed=False)
        summary = build_summary(mx, t.session)
    finally:
        mx.close()
    assert summary is not None
    assert summary.files_changed == ("importer.py",)
    assert summary.files_read == ()  # read, then changed: listed once, as changed
    assert summary.commands == ("cd /home/dev/shop && …",)
    assert [(e.tool, e.line) for e in summary.errors] == [
        ("Bash", "exit 2: make: *** [test] Error 2")
    ]


# -- storing the summary --------------------------------------------------------------------


def _summaries(mx: Memex, session: str) -> list[Any]:
    return [f for f in mx.conversation(session) if f.metadata.get(SUMMARY_FLAG)]


def test_summary_is_one_fragment_replaced_as_the_session_grows(
    exports: Path, tmp_path: Path
) -> None:
    source = exports / "claude_code" / "marot_spotter" / "tool_heavy.jsonl"
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    transcript = tmp_path / "projects" / f"{TOOL_HEAVY}.jsonl"
    transcript.parent.mkdir()
    transcript.write_text("".join(lines[:12]), encoding="utf-8")
    mx = fast_memex(tmp_path / "home")
    try:
        mx.ingest(transcript, embed=False)
        before = {f.id for f in mx.conversation(TOOL_HEAVY)}
        first = write_session_summary(mx, TOOL_HEAVY)
        assert first is not None
        assert first.role == "system" and first.conversation_id == TOOL_HEAVY
        assert first.metadata[SUMMARY_FLAG] is True
        assert first.metadata["summarizer"] == "rules"
        assert first.metadata["session_id"] == TOOL_HEAVY
        assert first.provenance.source_path == ORIGIN_PREFIX + TOOL_HEAVY
        assert {f.id for f in mx.conversation(TOOL_HEAVY)} == before | {first.id}
        # The same summary again is the same fragment: nothing added.
        assert write_session_summary(mx, TOOL_HEAVY) == first
        assert [f.id for f in _summaries(mx, TOOL_HEAVY)] == [first.id]

        transcript.write_text("".join(lines), encoding="utf-8")  # the session went on
        mx.ingest(transcript, embed=False)
        second = write_session_summary(mx, TOOL_HEAVY)
        assert second is not None and second.id != first.id
        assert [f.id for f in _summaries(mx, TOOL_HEAVY)] == [second.id]
        assert not mx.get([first.id])
        assert "scrolling back in xterm.js" not in first.content
        assert "2 prompts" in second.content
        hits = mx.search("Session summary claude_code", mode="keyword", limit=50)
        found = {h.fragment.id for h in hits}
        assert second.id in found and first.id not in found  # the index forgot the old one
        hybrid = mx.search("Session summary claude_code tool calls", limit=50)
        assert second.id in {h.fragment.id for h in hybrid}
        # Ingesting the transcript again keeps the summary (it has its own origin).
        mx.ingest(transcript, embed=False)
        assert [f.id for f in _summaries(mx, TOOL_HEAVY)] == [second.id]
    finally:
        mx.close()


def test_unknown_session_gives_no_summary(fast_mx: Memex) -> None:
    assert write_session_summary(fast_mx, "no-such-session") is None


# -- the LLM summarizer ---------------------------------------------------------------------


def test_llm_summary_from_a_configured_chat_model(exports: Path, tmp_path: Path) -> None:
    reply = "Started the Phoenix server in the background, then researched xterm.js scrolling."
    mx = fast_memex(
        tmp_path / "home",
        capture={"llm": {"chat_model": FAKE_MODEL, "chat_model_args": {"responses": [reply]}}},
    )
    try:
        mx.ingest(exports / "claude_code" / "marot_spotter" / "tool_heavy.jsonl", embed=False)
        fragment = write_session_summary(mx, TOOL_HEAVY, embed=False)
    finally:
        mx.close()
    assert fragment is not None
    assert fragment.metadata["summarizer"] == "llm"
    header, body = fragment.content.split("\n", 1)
    assert header.startswith("Session summary (claude_code, ")
    assert body == reply


def test_llm_summary_falls_back_to_rules_on_model_errors(
    exports: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # An empty reply list makes the fake model raise IndexError when invoked.
    mx = fast_memex(
        tmp_path / "home",
        capture={"llm": {"chat_model": FAKE_MODEL, "chat_model_args": {"responses": []}}},
    )
    try:
        mx.ingest(exports / "claude_code" / "marot_spotter" / "short.jsonl", embed=False)
        with caplog.at_level(logging.WARNING, logger="memex_capture.summary"):
            fragment = write_session_summary(mx, SHORT, embed=False)
        expected = build_summary(mx, SHORT)
    finally:
        mx.close()
    assert fragment is not None and expected is not None
    assert fragment.metadata["summarizer"] == "rules"
    assert fragment.content == expected.render()
    assert "IndexError" in caplog.text and SHORT in caplog.text


def test_llm_model_that_cannot_be_built_falls_back(
    exports: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    mx = fast_memex(
        tmp_path / "home", capture={"llm": {"chat_model": "no_such_package.models:Chat"}}
    )
    try:
        mx.ingest(exports / "claude_code" / "marot_spotter" / "short.jsonl", embed=False)
        with caplog.at_level(logging.WARNING, logger="memex_capture.summary"):
            fragment = write_session_summary(mx, SHORT, embed=False)
    finally:
        mx.close()
    assert fragment is not None and fragment.metadata["summarizer"] == "rules"
    assert "no_such_package" in caplog.text


def test_llm_prompt_is_bounded_and_holds_the_facts(real: Memex) -> None:
    summary = build_summary(real, FULL)
    assert summary is not None
    prompt = llm_prompt(summary, session_fragments(real, FULL))
    assert summary.render() in prompt
    assert "Work on bead spotter-4te" in prompt and "All done." in prompt
    assert len(prompt) < len(summary.render()) + 12 * 310 + 2100


def test_injected_model_and_rules_setting(real: Memex) -> None:
    model = FakeListChatModel(responses=["A short account."])
    settings = parse_settings({"summarizer": "rules"})
    assert not settings.use_llm
    # An injected model is used whatever the settings (tests, callers holding one).
    fragment = write_session_summary(real, SHORT, settings=settings, chat_model=model, embed=False)
    assert fragment is not None and fragment.content.endswith("\nA short account.")


# -- settings -------------------------------------------------------------------------------


def test_capture_settings_defaults_and_auto() -> None:
    defaults = parse_settings({})
    assert (defaults.session_start_budget, defaults.summarizer) == (2000, "auto")
    assert (defaults.worker_idle_minutes, defaults.settle_seconds) == (10.0, 1.0)
    assert not defaults.use_llm
    # auto falls back to the llm extractor's chat model.
    borrowed = parse_settings({}, extractor_llm={"chat_model": "pkg.mod:Chat"})
    assert borrowed.use_llm and borrowed.llm_table == "extractor.llm"
    own = parse_settings({"llm": {"chat_model": "pkg.mod:Chat"}})
    assert own.use_llm and own.llm_table == "capture.llm"


@pytest.mark.parametrize(
    ("table", "named"),
    [
        ({"session_start_budget": 50}, "session_start_budget = 50"),
        ({"session_start_budget": True}, "session_start_budget = True"),
        ({"summarizer": "gpt"}, "summarizer = 'gpt'"),
        ({"summarizer": "llm"}, 'summarizer = "llm" but no chat model'),
        ({"worker_idle_minutes": 0}, "worker_idle_minutes = 0"),
        ({"settle_seconds": -1}, "settle_seconds = -1"),
        ({"budget": 10}, "unknown setting(s) budget"),
        ({"llm": {"chat_model": "ChatOpenAI"}}, "[capture.llm] chat_model = 'ChatOpenAI'"),
        ({"llm": {"chat_model": "a.b:C", "temperature": 0}}, "unknown setting(s) temperature"),
    ],
)
def test_capture_settings_errors_name_the_key(table: dict[str, Any], named: str) -> None:
    with pytest.raises(CaptureSettingError) as caught:
        parse_settings(table, path="/h/config.toml")
    assert named in str(caught.value)
    assert "/h/config.toml" in str(caught.value)
