"""The session-start brief: only its project's material, within budget, summaries first."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from memex_capture import folders, layout
from memex_capture.briefing import (
    SESSION_SUMMARY,
    Brief,
    build_brief,
    project_sessions,
    write_brief,
    write_briefs,
)
from memex_capture.cli_brief import brief as brief_command
from memex_capture.summary import write_session_summary
from memex_core import Memex
from memex_core.domain.disclosure import QUERY_MATCH, RECENCY
from tests.support import codex_builders as cx
from tests.support.claude_code_builders import Transcript, text, tool_use
from tests.support.component_doubles import fast_memex

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
    # Those that ran in the root itself first, newest first (the codex rollout is dated
    # 2025, the transcripts 2026), then the one that ran in the subfolder shop/.
    assert found == [
        "aaaa0001-0000-4000-8000-000000000001",
        CODEX_A,
        "aaaa0002-0000-4000-8000-000000000002",
    ]
    assert {s.session_id for s in project_sessions(two_projects, PROJECT_B)} == {
        "bbbb0001-0000-4000-8000-000000000001"
    }


def test_a_session_in_a_subfolder_gets_that_folders_sessions_first(two_projects: Memex) -> None:
    """The project is the repository: a session starting in shop/ is given the whole
    project's sessions, shop/'s own first."""
    sub = f"{PROJECT_A}/shop"
    found = project_sessions(two_projects, PROJECT_A, sub)
    assert [s.session_id for s in found] == [
        "aaaa0002-0000-4000-8000-000000000002",
        "aaaa0001-0000-4000-8000-000000000001",
        CODEX_A,
    ]
    assert [s.here for s in found] == [True, False, False]
    brief = build_brief(two_projects, PROJECT_A, cwd=sub)
    assert brief.header().startswith(
        f"# memex: memory of earlier work in shop ({PROJECT_A}); sessions in shop first"
    )
    details = [item.detail for item in brief.items if item.reason == SESSION_SUMMARY]
    assert details[0].startswith("last session in this folder, 2026-02-11 02:00 UTC")
    assert details[1].startswith("last session in this project, 2026-02-10 22:00 UTC")
    at_root = build_brief(two_projects, PROJECT_A)
    root_details = [item.detail for item in at_root.items if item.reason == SESSION_SUMMARY]
    assert root_details[0].startswith("last session in this project, 2026-02-10 22:00 UTC")
    assert root_details[2].startswith("last session in this project (shop), 2026-02-11 02:00")
    assert brief.to_dict()["cwd"] == sub and at_root.to_dict()["cwd"] == PROJECT_A


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
    assert first.detail.startswith("last session in this project, 2026-02-10 22:00 UTC")
    assert "add a CSV import" in first.title
    assert "Outcome: CSV import added; quoted commas still break the parser." in first.text
    assert "Files changed (1): shop/importer.py" in first.text
    sub = build_brief(two_projects, PROJECT_A, cwd=f"{PROJECT_A}/shop").items[0]
    assert "fix quoted commas" in sub.title
    assert "Outcome: Fixed: the importer now uses the csv module" in sub.text
    assert "Files changed (2): importer.py, tests/test_importer.py" in sub.text
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
    brief = build_brief(two_projects, PROJECT_A, cwd=f"{PROJECT_A}/shop")
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
    import memex_core.cli.opening as opening

    monkeypatch.setattr(opening, "Memex", lambda home: two_projects, raising=False)
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


# -- real folders: symlinks, repositories, one brief per folder -------------------------------


def _ingest(tmp_path: Path, sessions: dict[str, tuple[str, int, str]]) -> Memex:
    transcripts = tmp_path / "transcripts"
    transcripts.mkdir(exist_ok=True)
    for session, (cwd, hours, prompt) in sessions.items():
        _session(transcripts, session, cwd, hours, prompt, f"Done: {prompt}.")
    mx = fast_memex(tmp_path / "home")
    mx.ingest(transcripts)
    return mx


LINKED = "eeee0001-0000-4000-8000-000000000001"
REAL = "eeee0002-0000-4000-8000-000000000002"


def test_a_session_recorded_under_a_symlinked_folder_is_matched(tmp_path: Path) -> None:
    shop = tmp_path / "disk" / "shop"
    (shop / ".git").mkdir(parents=True)
    (shop / "api").mkdir()
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "disk")
    mx = _ingest(
        tmp_path,
        {
            LINKED: (str(link / "shop"), 1, "tune the importer through the symlink"),
            REAL: (str(shop / "api"), 2, "add the orders endpoint"),
        },
    )
    try:
        folder, root = layout.folder_and_root(str(link / "shop"))
        assert (folder, root) == (str(shop), str(shop))
        # The recorded path alone does not lie under the project's real root...
        assert {s.session_id for s in mx.catalog.project_sessions([root])} == {REAL}
        # ...but the brief resolves what nobody has resolved yet, on this host.
        found = project_sessions(mx, root, folder)
        assert [(s.session_id, s.here) for s in found] == [(LINKED, True), (REAL, False)]
        assert "tune the importer" in build_brief(mx, root, cwd=folder).render()

        # The capture worker records what the folders are; the index then finds them.
        assert mx.catalog.unresolved_session_folders() == sorted(
            [str(link / "shop"), str(shop / "api")]
        )
        assert folders.resolve_unresolved(mx) == 2
        assert mx.catalog.unresolved_session_folders() == []
        rows = {s.session_id: s for s in mx.catalog.project_sessions([root])}
        assert set(rows) == {LINKED, REAL}
        assert (rows[LINKED].real_path, rows[LINKED].repo_root) == (str(shop), str(shop))
        assert rows[REAL].repo_root == str(shop)
        assert [s.session_id for s in project_sessions(mx, root, folder)] == [LINKED, REAL]
        # A session starting under the symlinked path gets the same project.
        assert layout.project_root(str(link / "shop" / "api")) == str(shop)
    finally:
        mx.close()


def test_a_home_from_before_migration_7_is_backfilled_when_opened(tmp_path: Path) -> None:
    """A home whose catalog predates the session folders' table: opening it migrates, and
    the brief finds the same sessions through the new table."""
    mx = _ingest(
        tmp_path,
        {
            LINKED: ("/work/shop", 1, "add the CSV import"),
            REAL: ("/work/shop/api", 2, "add the orders endpoint"),
        },
    )
    home = mx.home
    before = [(s.session_id, s.conversations) for s in project_sessions(mx, "/work/shop")]
    brief = build_brief(mx, "/work/shop").render()
    mx.close()
    db = sqlite3.connect(home / "catalog.sqlite")
    db.execute("DROP TABLE session_projects")
    # Undo migration 9 too (facts' validity), so the catalog is as a version 6 home left it.
    db.execute("DROP INDEX memories_valid_until")
    db.execute("DROP INDEX memories_superseded_by")
    for column in ("valid_from", "valid_until", "superseded_by"):
        db.execute(f"ALTER TABLE memories DROP COLUMN {column}")
    db.execute("DELETE FROM schema_version WHERE version >= 7")
    db.commit()
    db.close()
    reopened = fast_memex(home)
    try:
        assert reopened.catalog.schema_version() == reopened.catalog.latest_version
        after = [(s.session_id, s.conversations) for s in project_sessions(reopened, "/work/shop")]
        assert after == before and len(after) == 2
        assert build_brief(reopened, "/work/shop").render() == brief
    finally:
        reopened.close()


def test_folders_missing_here_are_resolved_only_on_a_home_of_their_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mx = _ingest(tmp_path, {REAL: ("/nowhere/on/this/host", 1, "a session from elsewhere")})
    try:
        # A catalog shared by several hosts: another host may have it on disk.
        monkeypatch.setattr(type(mx.catalog), "shared", True)
        assert folders.resolve_unresolved(mx) == 0
        assert mx.catalog.unresolved_session_folders() == ["/nowhere/on/this/host"]
        assert [s.session_id for s in project_sessions(mx, "/nowhere/on")] == [REAL]
        monkeypatch.setattr(type(mx.catalog), "shared", False)
        assert folders.resolve_unresolved(mx) == 1  # its real path, no repository
        assert mx.catalog.unresolved_session_folders() == []
        (row,) = mx.catalog.project_sessions(["/nowhere/on"])
        assert (row.real_path, row.repo_root) == ("/nowhere/on/this/host", None)
        assert [s.session_id for s in project_sessions(mx, "/nowhere/on")] == [REAL]
    finally:
        mx.close()


def test_write_briefs_for_the_folder_the_project_and_its_other_folders(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    for sub in (".git", "api", "web"):
        (repo / sub).mkdir(parents=True)
    root_session = "ffff0001-0000-4000-8000-000000000001"
    api_session = "ffff0002-0000-4000-8000-000000000002"
    web_session = "ffff0003-0000-4000-8000-000000000003"
    mx = _ingest(
        tmp_path,
        {
            root_session: (str(repo), 1, "set up the monorepo tooling"),
            api_session: (str(repo / "api"), 2, "add pagination to the api"),
            web_session: (str(repo / "web"), 3, "restyle the web checkout"),
        },
    )
    home = str(mx.home)
    root_file = layout.brief_file(home, str(repo))
    api_file = layout.brief_file(home, str(repo / "api"))
    web_file = layout.brief_file(home, str(repo / "web"))
    try:
        assert write_briefs(mx, home, str(repo / "api")) == [root_file, api_file]
        assert not os.path.exists(web_file)  # written when a session starts or ends there
        api_text = Path(api_file).read_text(encoding="utf-8")
        root_text = Path(root_file).read_text(encoding="utf-8")
        # Each brief holds the whole repository, its own folder's sessions first.
        for text in (api_text, root_text):
            assert all(p in text for p in ("monorepo tooling", "pagination", "web checkout"))
        assert api_text.index("pagination") < api_text.index("web checkout")
        assert root_text.index("monorepo tooling") < root_text.index("web checkout")
        assert "sessions in api first" in api_text.splitlines()[0]
        # What the hook prints: the folder's own brief, else the project's.
        assert layout.brief_files(home, str(repo / "api")) == [api_file, root_file]
        assert layout.brief_files(home, str(repo / "web")) == [web_file, root_file]
        assert layout.brief_files(home, str(repo)) == [root_file]

        # A session ends in web/: web's and the project's briefs are written, and api's,
        # written before, is refreshed to hold it.
        _session(
            tmp_path / "transcripts",
            "ffff0004-0000-4000-8000-000000000004",
            str(repo / "web"),
            4,
            "fix the checkout button colour",
            "Fixed the colour.",
        )
        mx.ingest(tmp_path / "transcripts")
        assert write_briefs(mx, home, str(repo / "web")) == [root_file, web_file, api_file]
        assert "checkout button colour" in Path(api_file).read_text(encoding="utf-8")
        web_text = Path(web_file).read_text(encoding="utf-8")
        assert web_text.index("checkout button colour") < web_text.index("pagination")
    finally:
        mx.close()
