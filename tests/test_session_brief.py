"""The session-start brief: only its project's material, within budget, summaries first."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from memex_capture import layout
from memex_capture.briefing import (
    SESSION_SUMMARY,
    Brief,
    build_brief,
    project_sessions,
    write_brief,
)
from memex_capture.cli_brief import brief as brief_command
from memex_capture.summary import write_session_summary
from memex_core import Memex
from memex_core.domain.disclosure import QUERY_MATCH, RECENCY
from tests import codex_builders as cx
from tests.claude_code_builders import Transcript, text, tool_use
from tests.component_doubles import fast_memex

PROJECT_A = "/work/shop"
PROJECT_B = "/work/billing"
REASONS = {SESSION_SUMMARY, QUERY_MATCH, RECENCY}


def _session(
    folder: Path,
    session: str,
    cwd: str,
    hours: int,
    prompt: str,
    answer: str,
    *,
    edits: tuple[str, ...] = (),
    command: str | None = None,
) -> Path:
    """A small Claude Code transcript, ``hours`` after the builders' start time."""
    t = Transcript(session, cwd=cwd)
    t.user(prompt)
    blocks: list[dict[str, Any]] = [text("Looking at it.")]
    blocks += [
        tool_use(f"toolu_{session[:4]}_{n}", "Edit", file_path=f"{cwd}/{name}", old_string="a")
        for n, name in enumerate(edits)
    ]
    if command:
        blocks.append(tool_use(f"toolu_{session[:4]}_cmd", "Bash", command=command))
    t.assistant(f"msg_{session[:4]}_1", *blocks)
    for n, _ in enumerate(edits):
        t.tool_result(f"toolu_{session[:4]}_{n}", "The file has been updated.")
    if command:
        t.tool_result(f"toolu_{session[:4]}_cmd", "ok")
    t.user(f"{prompt} (second part)")
    t.assistant(f"msg_{session[:4]}_2", text(answer))
    shift = timedelta(hours=hours)
    for record in t.records:
        if "timestamp" in record and record.get("type") in ("user", "assistant"):
            moment = datetime.fromisoformat(record["timestamp"].replace("Z", "+00:00")) + shift
            record["timestamp"] = moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return t.write(folder / f"{session}.jsonl")


A_SESSIONS = {
    "aaaa0001-0000-4000-8000-000000000001": (
        PROJECT_A,
        1,
        "add a CSV import to the shop catalogue",
        "CSV import added; quoted commas still break the parser.",
        ("shop/importer.py",),
        "pytest -q tests/test_importer.py",
    ),
    "aaaa0002-0000-4000-8000-000000000002": (
        f"{PROJECT_A}/shop",
        5,
        "fix quoted commas in the CSV importer",
        "Fixed: the importer now uses the csv module; all importer tests pass.",
        ("importer.py", "tests/test_importer.py"),
        "pytest -q",
    ),
}
B_SESSIONS = {
    "bbbb0001-0000-4000-8000-000000000001": (
        PROJECT_B,
        3,
        "raise the postgres pool size for invoices",
        "Raised the invoice pool to 20 connections.",
        ("db/pool.py",),
        "make migrate",
    ),
    # A sibling folder whose name starts like project A's is another project.
    "cccc0001-0000-4000-8000-000000000001": (
        f"{PROJECT_A}-legacy",
        8,
        "port the CSV export of the legacy shop",
        "Ported the legacy CSV export.",
        (),
        None,
    ),
}
CODEX_A = "0199a0b1-1111-7222-8333-aaaaaaaaaaaa"


@pytest.fixture
def two_projects(tmp_path: Path) -> Iterator[Memex]:
    folder = tmp_path / "transcripts"
    folder.mkdir()
    for session, (cwd, hours, prompt, answer, edits, command) in {
        **A_SESSIONS,
        **B_SESSIONS,
    }.items():
        _session(folder, session, cwd, hours, prompt, answer, edits=edits, command=command)
    cx.write_rollout(
        folder / f"rollout-2025-10-01T09-00-00-{CODEX_A}.jsonl",
        [
            cx.session_meta(CODEX_A, cwd=PROJECT_A),
            cx.user("speed up the CSV import of large catalogues"),
            cx.function_call("shell", {"command": ["bash", "-lc", "python bench.py"]}, "c1"),
            cx.function_output("c1", "Exit code: 0\nOutput:\n12.3 s"),
            cx.assistant("The CSV import of 100k rows takes 12.3 s now."),
        ],
    )
    mx = fast_memex(tmp_path / "home")
    mx.ingest(folder)
    yield mx
    mx.close()


def _session_of(mx: Memex, fragment_id: str) -> str:
    (fragment,) = mx.get([fragment_id])
    return str(fragment.metadata.get("session_id", fragment.conversation_id))


def test_project_sessions_are_those_under_its_folder(two_projects: Memex) -> None:
    found = [s.session_id for s in project_sessions(two_projects, PROJECT_A)]
    assert set(found) == {*A_SESSIONS, CODEX_A}
    # Newest first: the codex rollout is dated 2025, the transcripts 2026 (+5 h newest).
    assert found[0] == "aaaa0002-0000-4000-8000-000000000002"
    assert found[-1] == CODEX_A
    assert {s.session_id for s in project_sessions(two_projects, PROJECT_B)} == {
        "bbbb0001-0000-4000-8000-000000000001"
    }


def test_brief_holds_only_its_projects_material(two_projects: Memex) -> None:
    brief = build_brief(two_projects, PROJECT_A)
    assert brief.items
    own = {*A_SESSIONS, CODEX_A}
    assert {_session_of(two_projects, item.id) for item in brief.items} <= own
    text = brief.render()
    assert "postgres" not in text and "legacy" not in text
    assert "quoted commas" in text


def test_brief_puts_summaries_first_each_item_with_a_reason(two_projects: Memex) -> None:
    brief = build_brief(two_projects, PROJECT_A)
    reasons = [item.reason for item in brief.items]
    assert set(reasons) <= REASONS
    assert reasons[: len(A_SESSIONS) + 1] == [SESSION_SUMMARY] * (len(A_SESSIONS) + 1)
    assert reasons == sorted(reasons, key=lambda r: r != SESSION_SUMMARY)
    first = brief.items[0]
    assert first.detail.startswith("last session in this project, 2026-02-11 02:00 UTC")
    assert "fix quoted commas" in first.title
    assert "Outcome: Fixed: the importer now uses the csv module" in first.text
    assert "Files changed (2): importer.py, tests/test_importer.py" in first.text
    assert all(item.detail and item.title and item.id for item in brief.items)
    assert len({item.id for item in brief.items}) == len(brief.items)


@pytest.mark.parametrize("budget", [200, 400, 700, 1200, 2000, 6000])
def test_brief_stays_within_its_budget(two_projects: Memex, budget: int) -> None:
    brief = build_brief(two_projects, PROJECT_A, budget=budget)
    assert len(brief.render()) <= budget
    if budget >= 700:
        assert brief.items and brief.items[0].reason == SESSION_SUMMARY


def test_budget_comes_from_the_capture_settings(two_projects: Memex, tmp_path: Path) -> None:
    configured = fast_memex(two_projects.home, capture={"session_start_budget": 500})
    try:
        brief = build_brief(configured, PROJECT_A)
    finally:
        configured.close()
    assert brief.budget == 500 and len(brief.render()) <= 500


def test_brief_is_deterministic_and_uses_stored_summaries(two_projects: Memex) -> None:
    first = build_brief(two_projects, PROJECT_A).render()
    assert build_brief(two_projects, PROJECT_A).render() == first
    stored = write_session_summary(two_projects, "aaaa0002-0000-4000-8000-000000000002")
    assert stored is not None
    brief = build_brief(two_projects, PROJECT_A)
    assert brief.items[0].id == stored.id
    assert "summary built now" not in brief.items[0].detail
    assert "summary built now" in brief.items[1].detail
    # The stored summary is not offered again as a search hit or recent item.
    assert [item.id for item in brief.items].count(stored.id) == 1


def test_empty_project_gives_no_file(two_projects: Memex, tmp_path: Path) -> None:
    home = str(two_projects.home)
    empty = str(tmp_path / "nothing-here")
    brief = build_brief(two_projects, empty)
    assert brief.is_empty and brief.render() == ""
    path = layout.brief_file(home, os.path.abspath(empty))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    Path(path).write_text("stale", encoding="utf-8")
    assert write_brief(two_projects, home, empty) == path
    assert not os.path.exists(path)  # a stale brief is removed, never printed


def test_write_brief_is_atomic_and_private(two_projects: Memex) -> None:
    home = str(two_projects.home)
    path = write_brief(two_projects, home, PROJECT_A)
    assert path == layout.brief_file(home, PROJECT_A)
    content = Path(path).read_text(encoding="utf-8")
    assert content == build_brief(two_projects, PROJECT_A).render()
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert sorted(os.listdir(os.path.dirname(path))) == [os.path.basename(path)]  # no temp left
    write_brief(two_projects, home, PROJECT_A)  # rewriting replaces it
    assert Path(path).read_text(encoding="utf-8") == content


def test_rendered_brief_is_what_the_hook_prints(two_projects: Memex) -> None:
    brief = build_brief(two_projects, PROJECT_A)
    text = brief.render()
    header = text.split("\n\n", 1)[0]
    assert header.startswith(f"# memex: memory of earlier work in shop ({PROJECT_A})")
    assert "`memex get <id>`" in header and "MCP `get` tool" in header
    for item in brief.items:
        assert f"id {item.id}]" in text  # whole ids: the MCP get tool takes no prefixes
        assert f"## {item.title}\n" in text
    assert text.endswith("\n") and not text.endswith("\n\n")
    assert isinstance(brief, Brief) and brief.sessions == 3


def test_cli_brief_prints_text_and_json(
    two_projects: Memex, monkeypatch: pytest.MonkeyPatch
) -> None:
    import memex_core.cli.context as cli_context

    monkeypatch.setattr(cli_context, "Memex", lambda home: two_projects, raising=False)
    runner = CliRunner()
    home = {"home": str(two_projects.home)}
    result = runner.invoke(brief_command, ["--project", PROJECT_A, "--budget", "900"], obj=home)
    assert result.exit_code == 0, result.output
    assert result.output == build_brief(two_projects, PROJECT_A, budget=900).render()
    result = runner.invoke(brief_command, ["--project", PROJECT_A, "--format", "json"], obj=home)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["budget"] == 2000 and data["used_chars"] <= 2000
    assert data["items"][0]["reason"] == SESSION_SUMMARY
    assert data["text"].startswith("# memex:")


def test_project_notes_join_the_search_but_other_vaults_do_not(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    vault = project / "notes"
    vault.mkdir(parents=True)
    (vault / "csv quoting.md").write_text(
        "# CSV quoting\n\nQuoted commas in the importer: use csv.reader, never str.split.\n",
        encoding="utf-8",
    )
    elsewhere = tmp_path / "other-vault"
    elsewhere.mkdir()
    (elsewhere / "csv elsewhere.md").write_text(
        "# CSV elsewhere\n\nA CSV importer note of another project.\n", encoding="utf-8"
    )
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir()
    _session(
        transcripts,
        "dddd0001-0000-4000-8000-000000000001",
        str(project),
        1,
        "the CSV importer splits quoted commas",
        "Looked at the importer's CSV quoting.",
    )
    mx = fast_memex(tmp_path / "home")
    try:
        mx.ingest(transcripts, vault, elsewhere)
        brief = build_brief(mx, str(project))
        notes = [mx.get([item.id])[0] for item in brief.items if item.reason == QUERY_MATCH]
    finally:
        mx.close()
    assert brief.notes == 1
    titles = {fragment.title for fragment in notes if fragment.role == "note"}
    assert titles == {"csv quoting"}
    assert "another project" not in brief.render()
