"""The catalog contract, part 3, on every engine: the folders sessions ran in
(``session_projects``, migration 7): kept at ingest, found at or under a folder as recorded
or resolved, by repository, by session; and backfilled on a catalog built before it.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memex_core.catalog import SqlCatalog
from memex_core.catalog import base as catalog_base
from memex_core.catalog.sessions import SessionFolder
from memex_core.domain import Fragment
from tests.support.catalog_builders import fragment


def store(catalog: SqlCatalog, fragments: list[Fragment], path: str = "/t/a.jsonl") -> None:
    run = catalog.start_run("test")
    catalog.replace_file(
        run_id=run,
        path=path,
        sha256=str(len(fragments)),
        size=1,
        source_kind="claude_code",
        fragments=fragments,
    )


def sessions(found: list[SessionFolder]) -> list[tuple[str, str, str]]:
    return [(s.session_id, s.conversation_id, s.cwd) for s in found]


@pytest.fixture
def stocked(catalog: SqlCatalog) -> SqlCatalog:
    store(
        catalog,
        [
            fragment("a1", "s1", "/proj", metadata={"session_id": "s1"}, timestamp=5.0),
            fragment("a2", "s1", "/proj", metadata={"session_id": "s1"}, timestamp=9.0),
            # A sub-agent's conversation names its parent session.
            fragment("a3", "s1:agent-x", "/proj", metadata={"session_id": "s1"}, timestamp=7.0),
            fragment("b1", "s2", "/proj/sub/deeper", timestamp=7.0),
            fragment("c1", "s3", "/project-other"),  # a sibling whose name starts alike
            fragment("d1", "s4", "C:\\proj\\x"),
            fragment("e1", "s5", "/link/to/proj"),  # a symlink into /real/proj
            fragment("f1", "s6", None),  # no folder recorded
            # Agent memory and private fragments have no working folder to speak of.
            fragment("g1", "m1", "/proj", owner="users/alice"),
            fragment("h1", "s7", "/proj", private=True),
        ],
    )
    return catalog


def test_sessions_at_or_under_a_folder_through_the_table(stocked: SqlCatalog) -> None:
    found = stocked.project_sessions(["/proj", "C:\\proj"])
    assert sessions(found) == [
        ("s1", "s1", "/proj"),
        ("s1", "s1:agent-x", "/proj"),
        ("s2", "s2", "/proj/sub/deeper"),
        ("s4", "s4", "C:\\proj\\x"),
    ]
    first = found[0]
    assert (first.first_at, first.last_at) == (5.0, 9.0)  # the conversation's span
    assert first.real_path is None and first.repo_root is None  # nobody resolved it yet
    # A trailing separator names the same folder; the root holds everything under it.
    assert sessions(stocked.project_sessions(["/proj/"])) == sessions(found[:3])
    assert {s.conversation_id for s in stocked.project_sessions(["/"])} >= {"s1", "s3", "s5"}
    assert stocked.project_sessions([]) == []
    assert stocked.project_sessions(["/nowhere"]) == []


def test_exact_folders_and_the_unresolved_ones(stocked: SqlCatalog) -> None:
    assert sessions(stocked.project_sessions([], cwds=["/link/to/proj"])) == [
        ("s5", "s5", "/link/to/proj")
    ]
    assert stocked.unresolved_session_folders() == [
        "/link/to/proj",
        "/proj",
        "/proj/sub/deeper",
        "/project-other",
        "C:\\proj\\x",
    ]
    assert stocked.unresolved_session_folders(limit=2) == ["/link/to/proj", "/proj"]


def test_resolved_folders_match_by_real_path_and_repository(stocked: SqlCatalog) -> None:
    changed = stocked.resolve_session_folders(
        {
            "/link/to/proj": ("/real/proj", "/real/proj"),
            "/proj/sub/deeper": ("/proj/sub/deeper", "/proj"),
            "/project-other": ("/project-other", None),
        }
    )
    assert changed == 3
    # The symlinked session is found under the folder it really is.
    assert sessions(stocked.project_sessions(["/real/proj"])) == [("s5", "s5", "/link/to/proj")]
    found = stocked.project_sessions(["/elsewhere"], repo_roots=["/proj"])
    assert sessions(found) == [("s2", "s2", "/proj/sub/deeper")]
    assert (found[0].real_path, found[0].repo_root) == ("/proj/sub/deeper", "/proj")
    assert stocked.unresolved_session_folders() == ["/proj", "C:\\proj\\x"]
    # Reading a transcript again keeps what was resolved about its folder.
    store(stocked, [fragment("e2", "s5", "/link/to/proj")], path="/t/s5.jsonl")
    (again,) = stocked.project_sessions(["/real/proj"])
    assert again.real_path == "/real/proj" and again.repo_root == "/real/proj"


def test_a_sessions_conversations_include_its_sub_agents(stocked: SqlCatalog) -> None:
    assert stocked.session_conversations("s1") == ["s1", "s1:agent-x"]
    assert stocked.session_conversations("s6") == []  # no folder, no row
    assert stocked.session_conversations("nobody") == []


def test_migration_7_backfills_a_catalog_built_before_it(
    open_catalog: Callable[[], SqlCatalog], monkeypatch: pytest.MonkeyPatch
) -> None:
    old = open_catalog()
    old.migrations = [m for m in type(old).migrations if m[0] <= 6]  # the schema of before
    old.migrate()
    assert old.schema_version() == 6 and not old._table_exists("session_projects")
    with monkeypatch.context() as patched:  # that memex's ingest knew no such table
        patched.setattr(catalog_base, "upsert_session_folders", lambda db, fragments: None)
        store(
            old,
            [
                fragment("a1", "s1", "/proj", metadata={"session_id": "s1"}, timestamp=5.0),
                fragment("a2", "s1:agent-x", "/proj", metadata={"session_id": "s1"}),
                fragment("b1", "s2", "/proj/sub", timestamp=7.0),
                fragment("b2", "s2", "/proj/other", timestamp=8.0),
                fragment("c1", "s3", None, metadata={"cwd": 42}),  # not a folder
                fragment("d1", "m1", "/proj", owner="users/alice"),
            ],
        )
    new = open_catalog()
    assert new.needs_migration()
    new.migrate()
    assert new.schema_version() == new.latest_version >= 7
    assert sessions(new.project_sessions(["/proj"])) == [
        ("s1", "s1", "/proj"),
        ("s1", "s1:agent-x", "/proj"),
        ("s2", "s2", "/proj/other"),
        ("s2", "s2", "/proj/sub"),
    ]
    assert new.session_conversations("s1") == ["s1", "s1:agent-x"]
    assert new.quick_check() == ["ok"]
    # New ingests keep it from here on.
    store(new, [fragment("e1", "s4", "/proj/new")], path="/t/s4.jsonl")
    assert "s4" in {s.session_id for s in new.project_sessions(["/proj"])}


def test_notes_in_folder_by_range(catalog: SqlCatalog) -> None:
    notes = [
        fragment("n1", "vault/a", None, role="note", kind="obsidian", path="/vault/a.md"),
        fragment("n2", "vault/b", None, role="note", kind="obsidian", path="/vault/sub/b.md"),
        fragment("n3", "other", None, role="note", kind="obsidian", path="/vault-other/c.md"),
    ]
    store(catalog, notes, path="/vault")
    assert catalog.notes_in_folder(["/vault"], "/") == ["vault/a", "vault/b"]
    assert catalog.notes_in_folder(["/vault/sub/b.md"], "/") == ["vault/b"]
