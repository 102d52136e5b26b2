"""The catalog contract, part 1, run on every engine (``catalog`` is parametrized over SQLite
and PostgreSQL, tests/support/catalog_fixtures.py): schema and migrations, fragments and files,
ingest runs, the change journal, settings, read-only SQL, and the ``catalog`` role.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import pytest

from memex_core.api import Memex
from memex_core.catalog import SqlCatalog
from memex_core.catalog import base as catalog_base
from memex_core.config import Config, load_config
from memex_core.domain import Fragment, Provenance
from memex_core.domain.chunking import message_fragments
from memex_core.errors import MemexError, ReadOnlyQueryError
from memex_core.hookspecs import hookimpl
from memex_core.plugins import load_registry


def make_fragments(conversation: str = "c1", n: int = 3, prefix: str = "hello") -> list[Fragment]:
    out: list[Fragment] = []
    for i in range(n):
        out += list(
            message_fragments(
                source_kind="test",
                source_path="/x/conversations.json",
                conversation_id=conversation,
                message_id=f"m{i}",
                role="user" if i % 2 == 0 else "assistant",
                text=f"{prefix} number {i}",
                timestamp=1_700_000_000.0 + i,
                title="A title",
            )
        )
    return out


def add(
    catalog: SqlCatalog,
    fragments: list[Fragment],
    path: str = "/x/conversations.json",
    sha: str = "abc",
) -> list[Fragment]:
    run = catalog.start_run("test")
    return catalog.add_file(
        run_id=run, path=path, sha256=sha, size=1, source_kind="test", fragments=fragments
    )


def fragment(fid: str, conversation: str = "c", **fields: Any) -> Fragment:
    defaults: dict[str, Any] = {
        "role": "user",
        "content": f"text of {fid}",
        "timestamp": 1_700_000_000.0,
        "metadata": {},
    }
    defaults.update(fields)
    return Fragment(
        id=fid,
        conversation_id=conversation,
        role=defaults["role"],
        content=defaults["content"],
        provenance=Provenance(
            source_kind="test",
            source_path=defaults.get("path", "/x/file.json"),
            source_id=fid,
            locator="l",
            timestamp=defaults["timestamp"],
        ),
        timestamp=defaults["timestamp"],
        metadata=defaults["metadata"],
    )


# -- schema ------------------------------------------------------------------------------


def test_a_fresh_catalog_migrates_to_the_latest_version(
    open_catalog: Callable[[], SqlCatalog],
) -> None:
    fresh = open_catalog()
    assert fresh.schema_version() == 0 and fresh.needs_migration()
    fresh.migrate()
    assert fresh.schema_version() == fresh.latest_version
    assert not fresh.needs_migration()
    assert fresh.quick_check() == ["ok"]


def test_migrating_again_changes_nothing(
    catalog: SqlCatalog, open_catalog: Callable[[], SqlCatalog]
) -> None:
    add(catalog, make_fragments())
    before = catalog.schema_sql()
    other = open_catalog()
    assert not other.needs_migration()
    other.migrate()
    catalog.migrate()
    assert catalog.schema_sql() == before
    assert catalog.count_fragments() == 3


def test_two_processes_migrating_at_once_migrate_once(
    open_catalog: Callable[[], SqlCatalog],
) -> None:
    """Two replicas starting together: one migrates, the other finds nothing left to do."""
    first, second = open_catalog(), open_catalog()
    errors: list[BaseException] = []

    def migrate(handle: SqlCatalog) -> None:
        try:
            handle.migrate()
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=migrate, args=(h,)) for h in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert first.query("SELECT COUNT(*) FROM schema_version")[1] == [(first.latest_version,)]


def test_newer_schema_is_refused_with_upgrade_hint(catalog: SqlCatalog) -> None:
    with catalog.transaction() as db:
        db.execute("INSERT INTO schema_version VALUES (?, 0)", (catalog.latest_version + 1,))
    with pytest.raises(MemexError, match="newer memex"):
        catalog.needs_migration()


def test_schema_sql_names_every_table(catalog: SqlCatalog) -> None:
    schema = catalog.schema_sql()
    for table in ("fragments", "memories", "agent_keys", "fragment_changes", "access_log"):
        assert f"CREATE TABLE {table}" in schema


# -- fragments and files -------------------------------------------------------------------


def test_filter_fields_are_the_fields_filters_read_and_judge_as_the_fragment_does(
    catalog: SqlCatalog,
) -> None:
    from dataclasses import replace

    from memex_core.domain.filters import SearchFilters

    fragments = [
        fragment("a", role="assistant", timestamp=None),
        replace(fragment("b", conversation="d"), owner="alice", collection="notes", private=True),
        replace(fragment("c", timestamp=1_800_000_000.0), owner="bob"),
    ]
    add(catalog, fragments)
    ids = [f.id for f in fragments]
    fields = catalog.filter_fields([*ids, "missing", "\ud800"])
    stored = catalog.get_many(ids)
    assert set(fields) == set(ids)
    for fid in ids:
        got, full = fields[fid], stored[fid]
        assert (got.source_kind, got.conversation_id, got.role, got.owner) == (
            full.source_kind,
            full.conversation_id,
            full.role,
            full.owner,
        )
        assert (got.collection, got.private, got.timestamp) == (
            full.collection,
            full.private,
            full.timestamp,
        )
    for filters in (
        SearchFilters(),
        SearchFilters(include_private=True),
        SearchFilters(owners=("alice",), include_private=True),
        SearchFilters(owners=("bob",)),
        SearchFilters(collections=("notes",), include_private=True),
        SearchFilters(roles=("assistant",)),
        SearchFilters(conversation_ids=("d",), include_private=True),
        SearchFilters(source_kinds=("other",)),
        SearchFilters(since=1_750_000_000.0),
        SearchFilters(until=1_750_000_000.0, include_private=True),
    ):
        for fid in ids:
            assert filters.matches(fields[fid]) == filters.matches(stored[fid]), (filters, fid)


def test_adding_the_same_fragments_twice_adds_nothing(catalog: SqlCatalog) -> None:
    fragments = make_fragments()
    assert len(add(catalog, fragments)) == 3
    assert add(catalog, fragments, path="/elsewhere/copy.json", sha="def") == []
    assert catalog.count_fragments() == 3
    assert catalog.count_conversations() == 1
    assert catalog.file_ingested("/x/conversations.json", "abc")
    assert not catalog.file_ingested("/x/conversations.json", "zzz")


def test_round_trip_preserves_every_field(catalog: SqlCatalog) -> None:
    fragments = make_fragments()
    fragments[0] = fragment(
        "odd",
        content="ünïcödé 🚀 'quotes' \"double\" % _ \\ ?",
        metadata={"message_id": 7, "nested": {"a": [1, 2.5, None]}, "cwd": "/p"},
        timestamp=None,
    )
    add(catalog, fragments)
    got = catalog.get_many([f.id for f in fragments] + ["missing", "\ud800"])
    assert set(got) == {f.id for f in fragments}
    for original in fragments:
        assert got[original.id] == original
        assert got[original.id].metadata == original.metadata


def test_a_failing_file_transaction_leaves_nothing(
    catalog: SqlCatalog, monkeypatch: pytest.MonkeyPatch
) -> None:
    def explode(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(catalog_base, "upsert_conversations", explode)
    with pytest.raises(RuntimeError):
        add(catalog, make_fragments())
    assert catalog.count_fragments() == 0
    assert not catalog.file_ingested("/x/conversations.json", "abc")
    assert catalog.fragment_changes_since(0) == (0, [])
    monkeypatch.undo()
    assert len(add(catalog, make_fragments())) == 3  # the rerun finishes the job


def test_replace_file_drops_what_the_new_version_no_longer_yields(catalog: SqlCatalog) -> None:
    run = catalog.start_run("test")
    first = [fragment("a", path="/t.jsonl"), fragment("b", path="/t.jsonl")]
    new, removed = catalog.replace_file(
        run_id=run, path="/t.jsonl", sha256="1", size=1, source_kind="test", fragments=first
    )
    assert [f.id for f in new] == ["a", "b"] and removed == []
    second = [fragment("a", path="/t.jsonl"), fragment("c", path="/t.jsonl")]
    new, removed = catalog.replace_file(
        run_id=run, path="/t.jsonl", sha256="2", size=2, source_kind="test", fragments=second
    )
    assert [f.id for f in new] == ["c"] and removed == ["b"]
    assert catalog.all_ids() == {"a", "c"}
    assert catalog.pending_vector_deletes() == ["b"]
    catalog.clear_pending_vector_deletes(["b"])
    assert catalog.pending_vector_deletes() == []
    assert [f["sha256"] for f in catalog.ingested_files()] == ["1", "2"]


def test_a_conversation_continued_by_another_file_keeps_its_order(catalog: SqlCatalog) -> None:
    add(catalog, [fragment("a", "conv"), fragment("b", "conv")])
    add(catalog, [fragment("c", "conv")], path="/more.json", sha="2")
    assert [f.id for f in catalog.conversation_fragments("conv")] == ["a", "b", "c"]
    assert [f.id for f in catalog.neighbours("b", 1, 1)] == ["a", "b", "c"]
    assert catalog.neighbours("nope", 1, 1) == []


def test_fragment_positions_tell_which_fragments_are_next_to_each_other(
    catalog: SqlCatalog,
) -> None:
    """What a rerank reads to find a candidate's neighbours among the others (issue 33)."""
    add(catalog, [fragment("a", "conv"), fragment("b", "conv"), fragment("x", "other")])
    add(catalog, [fragment("c", "conv")], path="/more.json", sha="2")
    found = catalog.fragment_positions(["c", "a", "b", "x", "nope"])
    assert set(found) == {"a", "b", "c", "x"}
    assert [found[i][0] for i in "abc"] == ["conv"] * 3
    assert [found[i][1] - found["a"][1] for i in "abc"] == [0, 1, 2]


def test_conversation_span_takes_the_earliest_and_latest(catalog: SqlCatalog) -> None:
    add(catalog, [fragment("a", "conv", timestamp=50.0), fragment("b", "conv", timestamp=None)])
    add(catalog, [fragment("c", "conv", timestamp=10.0)], path="/2", sha="2")
    add(catalog, [fragment("d", "conv", timestamp=90.0)], path="/3", sha="3")
    rows = catalog.query("SELECT first_at, last_at FROM conversations WHERE id = 'conv'")[1]
    assert rows == [(10.0, 90.0)]
    assert catalog.time_span() == (10.0, 90.0)


def test_file_unchanged_since_compares_size_and_mtime(catalog: SqlCatalog) -> None:
    run = catalog.start_run("test")
    catalog.add_file(
        run_id=run,
        path="/f",
        sha256="s",
        size=10,
        source_kind="test",
        fragments=[fragment("a")],
        mtime_ns=1_700_000_000_123_456_789,
    )
    assert catalog.file_unchanged_since("/f", 10, 1_700_000_000_123_456_789)
    assert not catalog.file_unchanged_since("/f", 11, 1_700_000_000_123_456_789)


def test_ids_with_a_prefix_come_in_order_and_stop_at_the_limit(catalog: SqlCatalog) -> None:
    add(catalog, [fragment(i) for i in ("ab1", "ab2", "ab3", "ac1", "b")])
    assert catalog.fragment_ids_with_prefix("ab", 2) == ["ab1", "ab2"]
    assert catalog.fragment_ids_with_prefix("a", 10) == ["ab1", "ab2", "ab3", "ac1"]
    assert catalog.fragment_ids_with_prefix("", 10) == []
    assert catalog.fragment_ids_with_prefix("\ud800", 10) == []


def test_iter_fragments_streams_everything_in_insertion_order(catalog: SqlCatalog) -> None:
    ids = [f"f{i:03}" for i in range(7)][::-1]
    add(catalog, [fragment(i) for i in ids])
    assert [f.id for f in catalog.iter_fragments(batch_size=3)] == ids
    assert catalog.count_fragments() == 7
    assert catalog.fragment_owners() == [""]
    assert catalog.group_counts("role") == {"user": 7}


def test_embedding_bookkeeping(catalog: SqlCatalog) -> None:
    fragments = make_fragments(n=5)
    add(catalog, fragments)
    batches = list(catalog.iter_unembedded("m", batch_size=2))
    assert [len(b) for b in batches] == [2, 2, 1]
    catalog.mark_embedded([f.id for f in fragments[:3]], "m")
    assert catalog.count_embedded("m") == 3
    assert catalog.embedded_ids() == {f.id: "m" for f in fragments[:3]}
    assert [f.id for b in catalog.iter_unembedded("m") for f in b] == [f.id for f in fragments[3:]]
    catalog.unmark_embedded([fragments[0].id])
    assert catalog.count_embedded() == 2
    catalog.clear_embedded()
    assert catalog.count_embedded() == 0


# -- ingest runs -----------------------------------------------------------------------------


def test_runs_are_numbered_finished_and_interrupted(catalog: SqlCatalog) -> None:
    first, second = catalog.start_run("ingest a"), catalog.start_run("ingest b")
    assert second > first
    catalog.finish_run(first, "finished", {"new": 1, "fragments_added": 3})
    assert [r[0] for r in catalog.interrupted_runs()] == [second]
    catalog.close_interrupted_runs()
    assert catalog.interrupted_runs() == []
    statuses = catalog.query("SELECT status, files_new FROM ingest_runs ORDER BY id")[1]
    assert statuses == [("finished", 1), ("interrupted", 0)]


# -- the change journal ----------------------------------------------------------------------


def test_the_journal_records_additions_and_removals_in_order(catalog: SqlCatalog) -> None:
    assert catalog.last_fragment_change() == 0
    assert catalog.fragment_changes_since(0) == (0, [])
    add(catalog, [fragment("a"), fragment("b")])
    catalog.retire_fragments(["a"])
    last, ids = catalog.fragment_changes_since(0)
    assert last == catalog.last_fragment_change() == 3
    assert ids == ["a", "b"]  # each once, in order of first change
    assert catalog.fragment_changes_since(2) == (3, ["a"])
    assert catalog.fragment_changes_since(3) == (3, [])


def test_the_journal_is_read_a_chunk_at_a_time(catalog: SqlCatalog) -> None:
    """With a limit, the oldest entries only and the last one's number: a follower
    replays a long journal chunk by chunk, each chunk going on where the last stopped."""
    add(catalog, [fragment("a"), fragment("b"), fragment("c")])
    catalog.retire_fragments(["a"])
    assert catalog.fragment_changes_since(0, 2) == (2, ["a", "b"])
    assert catalog.fragment_changes_since(2, 2) == (4, ["c", "a"])
    assert catalog.fragment_changes_since(4, 2) == (4, [])
    assert catalog.fragment_changes_since(0, 10) == catalog.fragment_changes_since(0)


def test_pruning_keeps_the_journal_numbers_going(catalog: SqlCatalog) -> None:
    add(catalog, [fragment("a"), fragment("b"), fragment("c")])
    catalog.prune_fragment_changes(3)
    assert catalog.last_fragment_change() == 3
    assert catalog.fragment_changes_since(0) == (3, [])
    catalog.prune_fragment_changes(1)  # an older prune never lowers the mark
    assert catalog.get_setting(catalog_base.PRUNED_SETTING) == "3"
    add(catalog, [fragment("d")], path="/2", sha="2")
    assert catalog.fragment_changes_since(3) == (4, ["d"])


def test_a_rolled_back_write_leaves_no_journal_entry(catalog: SqlCatalog) -> None:
    add(catalog, [fragment("a")])
    with pytest.raises(RuntimeError), catalog.transaction() as db:
        db.execute("DELETE FROM fragments WHERE id = ?", ("a",))
        raise RuntimeError("changed my mind")
    assert catalog.last_fragment_change() == 1
    assert catalog.all_ids() == {"a"}


def test_another_handle_sees_committed_changes_only(
    catalog: SqlCatalog, open_catalog: Callable[[], SqlCatalog]
) -> None:
    """What a second process (another replica) reads: every committed entry, in order."""
    reader = open_catalog()
    add(catalog, [fragment("a")])
    with catalog.transaction() as db:
        db.execute("DELETE FROM fragments WHERE id = ?", ("a",))
        assert reader.fragment_changes_since(0) == (1, ["a"])  # the delete is not committed
    assert reader.fragment_changes_since(1) == (2, ["a"])
    assert reader.all_ids() == set()


# -- settings ------------------------------------------------------------------------------


def test_settings_are_set_replaced_and_deleted(catalog: SqlCatalog) -> None:
    assert catalog.get_setting("k") is None
    catalog.set_setting("k", "1")
    catalog.set_setting("k", "2 ' % ?")
    assert catalog.get_setting("k") == "2 ' % ?"
    catalog.delete_setting("k")
    assert catalog.get_setting("k") is None


# -- read-only SQL ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "statement",
    [
        "DELETE FROM fragments",
        "INSERT INTO settings VALUES ('a', 'b')",
        "DROP TABLE fragments",
        "CREATE TABLE t(x)",
        "UPDATE fragments SET content='x'",
        "SELECT 1; DELETE FROM fragments",
        "WITH x AS (SELECT 1) DELETE FROM fragments",
    ],
)
def test_sql_escape_hatch_cannot_write(catalog: SqlCatalog, statement: str) -> None:
    add(catalog, make_fragments())
    with pytest.raises(ReadOnlyQueryError, match="only reads the catalog"):
        catalog.query(statement)
    assert catalog.count_fragments() == 3


def test_read_only_sql_reads(catalog: SqlCatalog) -> None:
    add(catalog, make_fragments())
    columns, rows = catalog.query(
        "SELECT role, COUNT(*) AS n FROM fragments GROUP BY role ORDER BY role"
    )
    assert columns == ["role", "n"]
    assert rows == [("assistant", 1), ("user", 2)]
    assert (
        catalog.query("SELECT id FROM fragments ORDER BY id", limit=2)[1]
        == sorted((f.id,) for f in make_fragments())[:2]
    )
    assert catalog.query("SELECT 'a%b' LIKE 'a%'")[1][0][0] in (1, True)
    with pytest.raises(MemexError, match="SQL error"):
        catalog.query("SELECT nonsense FROM nowhere")


# -- the catalog role ------------------------------------------------------------------------


def test_both_catalogs_register_through_the_hook() -> None:
    registry = load_registry()
    names = {r.name for r in registry.registrations("catalog")}
    assert {"sqlite", "postgres"} <= names
    assert registry.get("catalog", "postgres").extra == "postgres"


class _CountingCatalogs:
    """A plugin registering its own catalog component (here: SQLite, counted)."""

    built = 0

    @hookimpl
    def register_catalogs(self, register: Any) -> None:
        def build(context: Any) -> SqlCatalog:
            from memex_core.catalog.sqlite import SqliteCatalog

            _CountingCatalogs.built += 1
            return SqliteCatalog(context.home / "counted.sqlite")

        register("counted", build, description="a test catalog")


def test_the_configured_catalog_is_built_through_the_hook(tmp_path: Any) -> None:
    registry = load_registry()
    registry.register_plugin(_CountingCatalogs(), name="counting")
    config = Config(home=tmp_path, components={"catalog": "counted"})
    mx = Memex(registry=registry, config=config)
    try:
        assert mx.catalog.schema_version() == mx.catalog.latest_version  # migrated
        assert _CountingCatalogs.built == 1 and (tmp_path / "counted.sqlite").exists()
    finally:
        mx.close()


def test_the_catalog_url_variable_selects_postgres(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MEMEX_CATALOG_URL", "postgresql://memex@db.example:5432/memex")
    assert load_config(tmp_path).component("catalog") == "postgres"
    (tmp_path / "config.toml").write_text('[catalog]\nuse = "sqlite"\n', encoding="utf-8")
    assert load_config(tmp_path).component("catalog") == "sqlite"  # config.toml's choice wins
    monkeypatch.setenv("MEMEX_CATALOG_URL", "")
    (tmp_path / "config.toml").unlink()
    assert load_config(tmp_path).component("catalog") == "sqlite"


# -- what live views and the session brief read --------------------------------------------


def test_the_newest_fragments_for_live_views(catalog: SqlCatalog) -> None:
    assert catalog.newest_fragment_seq() == 0 and catalog.fragments_after(0, 10) == []
    add(catalog, [fragment("a"), fragment("b"), fragment("c")])
    with catalog.transaction() as db:
        db.execute("UPDATE fragments SET owner = 'users/bob' WHERE id = 'b'")
    assert catalog.newest_fragment_seq() == 3
    assert catalog.fragments_after(1, 10) == [(2, "b", "users/bob"), (3, "c", "")]
    assert catalog.fragments_after(0, 1) == [(1, "a", "")]
    assert catalog.newest_fragments(None, 2) == [("c", ""), ("b", "users/bob")]
    assert catalog.newest_fragments(["users/bob", "x'y"], 5) == [("b", "users/bob")]
    assert catalog.newest_fragments([], 5) == []


def test_notes_of_a_folder(catalog: SqlCatalog) -> None:
    def note(fid: str, path: str) -> Fragment:
        return fragment(fid, f"conv-{fid}", role="note", path=path)

    add(catalog, [note("a", "/vault/a.md"), note("b", "/vault/sub/b.md"), note("c", "/vault2/c.md"),
                  fragment("d", path="/vault/d.json")])  # fmt: skip
    assert catalog.notes_in_folder(["/vault"], "/") == ["conv-a", "conv-b"]
    assert catalog.notes_in_folder(["/vault/a.md"], "/") == ["conv-a"]
    assert catalog.notes_in_folder([], "/") == []
