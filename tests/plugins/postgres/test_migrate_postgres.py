"""``memex migrate --to postgresql://...``: a home's catalog copied into PostgreSQL.

A template home (the sample exports, a small vault with links, agent memories with
revisions, an access log, agent keys, memory files with links) is built once; each
test copies it and migrates the copy into a fresh database (``postgres_url``, a real
PostgreSQL from tests/support/postgres_server.py). What is checked:

- every table holds exactly the source's rows (compared row by row here, not only by
  the command's own checksums), identity sequences continue past the copied rows
  (the change journal's past SQLite's AUTOINCREMENT), the source home is not written;
- a run killed with SIGKILL at any step resumes on the next run, doubling nothing;
- a database holding another catalog is refused and left exactly as it was;
- a copy that does not verify is reported per table with a non-zero exit;
- after the switch (``--apply-config``), the home's searches return what they returned
  before, with no index rebuilt.
"""

from __future__ import annotations

import json
import shutil
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from memex_core.config import load_config
from tests.conftest import REPO
from tests.support import component_doubles
from tests.support.archive_builders import fill_home
from tests.support.component_doubles import fast_memex
from tests.support.doctor_home import (
    EVERYTHING,
    ListingVectorStore,
    doctor_memex,
    search_results,
    write_vault,
)

psycopg = pytest.importorskip("psycopg")

from tests.support.migration_runs import (  # noqa: E402  (after the skip)
    home_files,
    next_identity,
    postgres_tables,
    run_child,
    run_migrate,
    sqlite_tables,
    target_digest,
    with_password,
)


@dataclass
class Template:
    home: Path
    store: ListingVectorStore
    results: dict[str, dict[str, float]]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Template]:
    root = tmp_path_factory.mktemp("migrate")
    home = root / "home"
    mx = doctor_memex(home)
    fill_home(mx, root)  # exports, a vault, two users' memory with revisions, an access log
    mx.agent_keys().create("alice", name="support-bot")
    mx.agent_keys().create("bob", name="night-agent", collection="work")
    mx.agent_keys().revoke("night-agent")
    assert mx.doctor().healthy
    results = search_results(mx)
    store = component_doubles._STORES[home]
    assert isinstance(store, ListingVectorStore)
    mx.close()
    yield Template(home, store, results)


@pytest.fixture
def home(template: Template, tmp_path: Path) -> Path:
    copy = tmp_path / "home"
    shutil.copytree(template.home, copy)
    component_doubles._STORES[copy] = template.store.clone()
    return copy


# -- a whole copy ------------------------------------------------------------------------------


def test_every_table_is_copied_exactly_and_verified(home: Path, postgres_url: str) -> None:
    before = home_files(home)
    result = run_migrate(home, "--to", postgres_url, "--format", "json", "--batch-size", "17")
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["ok"] and not report["resumed"]

    source = sqlite_tables(home)
    assert {
        "fragments",
        "memories",
        "memory_revisions",
        "access_log",
        "agent_keys",
        "documents",
        "links",
        "settings",
        "fragment_changes",
    } <= set(source)
    assert source["memory_revisions"] and source["access_log"] and source["links"]
    assert len(source["agent_keys"]) == 2 and len(source["fragments"]) > 50
    copied = postgres_tables(postgres_url, source)
    for name, rows in source.items():
        assert copied[name] == rows, name
    by_table = {t["table"]: t for t in report["tables"]}
    assert set(by_table) == set(source)
    for name, rows in source.items():
        assert by_table[name]["source_rows"] == by_table[name]["target_rows"] == len(rows)
        assert by_table[name]["source_checksum"] == by_table[name]["target_checksum"]
    assert report["copied"] == sum(map(len, source.values()))
    assert home_files(home) == before  # the source home was only read


def test_identity_sequences_continue_past_the_copied_rows(home: Path, postgres_url: str) -> None:
    db = sqlite3.connect(home / "catalog.sqlite")
    journal = db.execute(
        "SELECT seq FROM sqlite_sequence WHERE name='fragment_changes'"
    ).fetchone()[0]
    highest = {
        (table, target): db.execute(f"SELECT COALESCE(MAX({column}), 0) FROM {table}").fetchone()[0]
        for table, column, target in (
            ("fragments", "seq", "seq"),
            ("access_log", "id", "id"),
            ("links", "id", "id"),
            ("ingest_runs", "id", "id"),
            ("memories", "rowid", "seq"),  # PostgreSQL's stand-in for SQLite's rowid
        )
    }
    db.close()
    assert journal > 0
    assert run_migrate(home, "--to", postgres_url).exit_code == 0
    # The journal was pruned after the last index flush: its numbers go on after SQLite's.
    assert next_identity(postgres_url, "fragment_changes", "seq") == journal + 1
    for (table, column), top in highest.items():
        assert top > 0 and next_identity(postgres_url, table, column) == top + 1, table


def test_the_output_says_how_to_point_the_home_at_the_database(
    home: Path, postgres_url: str
) -> None:
    url = with_password(postgres_url, "s3cret-pw")  # trust auth: the password is not checked
    result = run_migrate(home, "--to", url)
    assert result.exit_code == 0, result.output
    masked = with_password(postgres_url, "***")
    assert "s3cret-pw" not in result.output
    assert f'[catalog]\n    use = "postgres"\n\n    [catalog.postgres]\n    url = "{masked}"' in (
        result.output
    )
    assert f"MEMEX_CATALOG_URL={masked}" in result.output
    assert "no rebuild" in result.output
    assert not (home / "config.toml").exists()  # nothing applied unless asked
    again = run_migrate(home, "--to", url, "--format", "json")
    assert "s3cret-pw" not in again.output
    assert json.loads(again.stdout)["config"].endswith(f'url = "{masked}"\n')


def test_a_rerun_after_a_finished_copy_copies_nothing(home: Path, postgres_url: str) -> None:
    assert run_migrate(home, "--to", postgres_url).exit_code == 0
    again = run_migrate(home, "--to", postgres_url, "--format", "json")
    assert again.exit_code == 0, again.output
    report = json.loads(again.stdout)
    assert report["ok"] and report["copied"] == 0 and report["finished_before"]
    source = sqlite_tables(home)
    assert postgres_tables(postgres_url, source) == source


# -- killed and resumed --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kill_at",
    [
        "migrate.batch_written:3",  # rows sent, their transaction not committed
        "migrate.batch_committed:3",  # a few batches in
        "migrate.batch_committed:9",  # further in: several tables done
        "migrate.copied:1",  # every row copied, sequences not moved, nothing verified
    ],
)
def test_a_killed_copy_resumes_and_doubles_nothing(
    home: Path, postgres_url: str, kill_at: str
) -> None:
    killed = run_child(home, "--to", postgres_url, "--batch-size", "5", crash_at=kill_at)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    with psycopg.connect(postgres_url) as conn:
        partial = conn.execute("SELECT COUNT(*) FROM fragments").fetchone()[0]
    source = sqlite_tables(home)
    assert partial <= len(source["fragments"])

    done = run_child(home, "--to", postgres_url, "--batch-size", "5", "--format", "json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] and report["resumed"]
    assert postgres_tables(postgres_url, source) == source
    assert (
        next_identity(postgres_url, "fragments", "seq")
        == max(k[0] for k in source["fragments"]) + 1
    )


def test_a_resumed_copy_refuses_when_its_rows_no_longer_match(
    home: Path, postgres_url: str
) -> None:
    killed = run_child(
        home, "--to", postgres_url, "--batch-size", "5", crash_at="migrate.batch_committed:4"
    )
    assert killed.returncode == -signal.SIGKILL
    with psycopg.connect(postgres_url) as conn:
        # access_log is copied first (no foreign keys, first by name).
        changed = conn.execute("UPDATE access_log SET target = 'changed behind its back'")
        assert changed.rowcount > 0
    before = target_digest(postgres_url)
    result = run_migrate(home, "--to", postgres_url)
    assert result.exit_code == 1
    assert "rows in access_log that differ" in result.output
    assert "Nothing was written" in result.output
    assert target_digest(postgres_url) == before


# -- refusals ----------------------------------------------------------------------------------


def test_a_copy_of_another_home_is_refused_and_left_alone(
    home: Path, tmp_path: Path, postgres_url: str
) -> None:
    other = tmp_path / "other"
    mx = doctor_memex(other)
    mx.agent("carol").remember("Carol keeps bees.")
    mx.close()
    assert run_migrate(other, "--to", postgres_url).exit_code == 0
    before = target_digest(postgres_url)
    result = run_migrate(home, "--to", postgres_url)
    assert result.exit_code == 1
    assert "another home's catalog" in result.output and str(other) in result.output
    assert "Nothing was written" in result.output
    assert target_digest(postgres_url) == before


def test_a_catalog_that_was_not_migrated_is_refused(home: Path, postgres_url: str) -> None:
    from memex_postgres.migration.command import target_schema

    target_schema().create(postgres_url)  # a catalog as the postgres component makes it
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("INSERT INTO settings (key, value) VALUES ('embedder', 'someone else')")
    before = target_digest(postgres_url)
    result = run_migrate(home, "--to", postgres_url)
    assert result.exit_code == 1
    assert "already holds a memex catalog that was not copied from this home" in result.output
    assert "1 rows in settings" in result.output
    assert target_digest(postgres_url) == before


def test_tables_memex_did_not_create_are_refused(home: Path, postgres_url: str) -> None:
    with psycopg.connect(postgres_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE settings (name TEXT, value INTEGER)")
        conn.execute("INSERT INTO settings VALUES ('theme', 1)")
    before = target_digest(postgres_url)
    result = run_migrate(home, "--to", postgres_url)
    assert result.exit_code == 1
    assert "tables named settings that are not a memex catalog" in result.output
    assert target_digest(postgres_url) == before


def test_an_unreachable_server_is_named_without_the_password(home: Path, tmp_path: Path) -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    result = run_migrate(home, "--to", f"postgresql://memex:hunter2@127.0.0.1:{port}/memex")
    assert result.exit_code == 1
    assert f"127.0.0.1:{port}/memex" in result.output and "hunter2" not in result.output


def test_not_a_postgres_url_and_no_catalog_are_clear_errors(tmp_path: Path) -> None:
    result = run_migrate(tmp_path / "home", "--to", "mysql://me@db/memex")
    assert result.exit_code != 0 and "must be a PostgreSQL URL" in result.output
    result = run_migrate(tmp_path / "home", "--to", "postgresql://me@db/memex")
    assert result.exit_code != 0 and "no catalog here" in result.output
    assert not (tmp_path / "home").exists()  # not even the lock file was made


# -- verification ---------------------------------------------------------------------------------


def test_a_copy_that_does_not_verify_is_reported_per_table(
    home: Path, postgres_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memex_postgres.migration import target as target_module

    original = target_module.PostgresTarget.write_batch

    def lossy(self: Any, table: str, columns: Any, rows: Any, *args: Any) -> None:
        rows = list(rows)
        if table == "memory_revisions":  # loses a row: as a faulty copy would
            rows = rows[:-1]
        if table == "documents":  # changes a title
            at = list(columns).index("title")
            rows = [(*r[:at], r[at] + "!", *r[at + 1 :]) for r in rows]
        original(self, table, columns, rows, *args)

    monkeypatch.setattr(target_module.PostgresTarget, "write_batch", lossy)
    result = run_migrate(home, "--to", postgres_url, "--format", "json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert not report["ok"]
    bad = {t["table"]: t for t in report["tables"] if not t["ok"]}
    assert set(bad) == {"memory_revisions", "documents"}
    assert bad["memory_revisions"]["target_rows"] == bad["memory_revisions"]["source_rows"] - 1
    assert bad["documents"]["target_rows"] == bad["documents"]["source_rows"]
    assert bad["documents"]["target_checksum"] != bad["documents"]["source_checksum"]
    text = run_migrate(home, "--to", postgres_url)
    assert text.exit_code == 1  # refused now: what is there differs from the source


# -- the switch -----------------------------------------------------------------------------------


def test_after_the_switch_searches_return_the_same_with_no_rebuild(
    home: Path, template: Template, postgres_url: str
) -> None:
    index = home / "index"
    index_files = {p: p.stat().st_mtime_ns for p in index.rglob("*") if p.is_file()}
    result = run_migrate(home, "--to", postgres_url, "--apply-config")
    assert result.exit_code == 0, result.output
    assert "Wrote the [catalog] lines" in result.output
    raw = load_config(home).raw
    assert raw["catalog"] == {"use": "postgres", "postgres": {"url": postgres_url}}
    (home / "catalog.sqlite").rename(home / "catalog.sqlite.bak")  # prove it is not read

    mx = fast_memex(home, **raw)  # the doubles' vector store of this home, as it was
    try:
        assert type(mx.catalog).__name__ == "PostgresCatalog"
        assert search_results(mx) == template.results
        assert mx.doctor().healthy
    finally:
        mx.close()
    assert {p: p.stat().st_mtime_ns for p in index.rglob("*") if p.is_file()} == index_files

    # New writes go on from where the copied numbers stopped, and are found.
    mx = fast_memex(home, **raw)
    try:
        fact = mx.agent("alice").remember("Alice learned to sail in Cascais.").memory_ids[0]
        report = mx.ingest(write_vault(home.parent / "vault2"))
        assert report.fragments_added > 0 and not report.failed
        hits = mx.search("sail cascais", mode="keyword", filters=EVERYTHING, time_phrases=False)
        assert hits and hits[0].fragment.conversation_id == fact
        assert mx.doctor().healthy
    finally:
        mx.close()


def test_apply_config_leaves_an_existing_catalog_table_alone(home: Path, postgres_url: str) -> None:
    (home / "config.toml").write_text('[catalog]\nuse = "sqlite"\n', encoding="utf-8")
    result = run_migrate(home, "--to", postgres_url, "--apply-config")
    assert result.exit_code == 1
    assert "already has a [catalog] table" in result.output
    assert (home / "config.toml").read_text(encoding="utf-8") == '[catalog]\nuse = "sqlite"\n'


# -- cost of being there ---------------------------------------------------------------------------


def test_memex_help_lists_migrate_without_loading_the_driver() -> None:
    code = (
        "import sys; from memex_core.cli.app import run; status = run(['--help']); "
        "assert status == 0; "
        "loaded = sorted(m for m in sys.modules if 'psycopg' in m or 'migration.' in m); "
        "assert loaded == ['memex_postgres.migration.command'], loaded"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "\n  migrate " in done.stdout


def test_nul_characters_are_copied_as_the_postgres_catalog_stores_them(
    home: Path, postgres_url: str
) -> None:
    db = sqlite3.connect(home / "catalog.sqlite")
    with db:
        seq = db.execute("SELECT MIN(seq) FROM fragments").fetchone()[0]
        db.execute(
            "UPDATE fragments SET content = 'before' || char(0) || 'after' WHERE seq = ?", (seq,)
        )
    db.close()
    result = run_migrate(home, "--to", postgres_url)
    assert result.exit_code == 0, result.output
    with psycopg.connect(postgres_url) as conn:
        found = conn.execute("SELECT content FROM fragments WHERE seq = %s", (seq,)).fetchone()[0]
    assert found == "before\ufffdafter"  # PostgreSQL text cannot hold NUL


# -- the parts, without a server -------------------------------------------------------------------


def test_values_compare_exactly_across_the_engines() -> None:
    from memex_postgres.migration.values import Digest, canonical, to_kind

    assert to_kind(3, "float") == 3.0 and isinstance(to_kind(3, "float"), float)
    assert to_kind(2.0, "int") == 2 and isinstance(to_kind(2.0, "int"), int)
    assert to_kind(True, "int") == 1
    for bad, kind in ((2.5, "int"), ("x", "float"), (b"x", "text")):
        with pytest.raises(ValueError):
            to_kind(bad, kind)  # type: ignore[arg-type]
    # A whole REAL from SQLite (handed back as an int) and PostgreSQL's double agree...
    same = Digest(["float", "text"]), Digest(["float", "text"])
    same[0].update([(1, "a"), (0.1 + 0.2, "b")])
    same[1].update([(1.0, "a"), (0.30000000000000004, "b")])
    assert same[0].hexdigest() == same[1].hexdigest() and same[0].rows == 2
    # ...but the last bit of a double counts, and so does row order.
    other = Digest(["float", "text"])
    other.update([(1.0, "a"), (0.3, "b")])
    assert other.hexdigest() != same[0].hexdigest()
    swapped = Digest(["float", "text"])
    swapped.update([(0.1 + 0.2, "b"), (1, "a")])
    assert swapped.hexdigest() != same[0].hexdigest()
    # JSON compares as a document (jsonb respaces and reorders keys), text as written.
    assert canonical('{"b": 1, "a": [1, 2]}', "json") == canonical('{"a":[1,2],"b":1}', "json")
    assert canonical('{"b": 1}', "text") != canonical('{"b":1}', "text")


def test_tables_are_copied_after_those_their_foreign_keys_point_at() -> None:
    from memex_postgres.migration.engine import _dependency_order
    from memex_postgres.migration.source import SourceTable

    tables = [
        SourceTable("a_revisions", ("id",), ("id",), ("memories",)),
        SourceTable("files", ("id",), ("id",), ("runs",)),
        SourceTable("memories", ("id",), ("id",), ()),
        SourceTable("runs", ("id",), ("id",), ()),
    ]
    order = [t.name for t in _dependency_order(tables)]
    assert order.index("memories") < order.index("a_revisions")
    assert order.index("runs") < order.index("files")


def test_urls_are_shown_without_their_password() -> None:
    from memex_postgres.urls import mask_password, where

    assert mask_password("postgresql://u:p%40ss@db:5433/m?sslmode=require") == (
        "postgresql://u:***@db:5433/m?sslmode=require"
    )
    assert mask_password("postgresql://u@db/m") == "postgresql://u@db/m"
    assert where("postgresql://u:secret@db/m") == "db:5432/m"


def test_the_password_stays_out_of_the_lock_file_and_the_config_is_private(
    home: Path, postgres_url: str
) -> None:
    url = with_password(postgres_url, "s3cret-pw")
    killed = run_child(home, "--to", url, "--batch-size", "5", crash_at="migrate.batch_committed:2")
    assert killed.returncode == -signal.SIGKILL
    holder = (home / "write.lock").read_text(encoding="utf-8")  # left as the killed run wrote it
    assert "migrate" in holder and "s3cret-pw" not in holder and "***" in holder
    done = run_child(home, "--to", url, "--apply-config")
    assert done.returncode == 0, done.stderr
    assert "s3cret-pw" not in done.stdout + done.stderr
    config = home / "config.toml"
    assert load_config(home).raw["catalog"]["postgres"]["url"] == url  # usable as written
    assert config.stat().st_mode & 0o777 == 0o600


def test_a_database_holding_memex_vectors_is_not_refused(home: Path, postgres_url: str) -> None:
    with psycopg.connect(postgres_url, autocommit=True) as conn:  # pgvector's table, say
        conn.execute("CREATE TABLE memex_vectors (id TEXT PRIMARY KEY, owner TEXT)")
        conn.execute("INSERT INTO memex_vectors VALUES ('f1', '')")
    result = run_migrate(home, "--to", postgres_url)
    assert result.exit_code == 0, result.output


def test_a_server_stopped_mid_copy_fails_cleanly_and_a_rerun_finishes(
    home: Path, postgres_server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memex_postgres.migration import target as target_module
    from tests.support.postgres_server import PostgresServer

    server = PostgresServer(postgres_server.bin_dir).start()  # ours to stop: not the shared one
    try:
        url = server.create_database("memex")
        original = target_module.PostgresTarget.write_batch
        batches = iter(range(1000))

        def crashing(self: Any, *args: Any) -> None:
            if next(batches) == 3:
                server.stop("immediate")  # a crash, as far as the database is concerned
            original(self, *args)

        monkeypatch.setattr(target_module.PostgresTarget, "write_batch", crashing)
        failed = run_migrate(home, "--to", url, "--batch-size", "5")
        assert failed.exit_code == 1
        assert f"Lost the connection to PostgreSQL at 127.0.0.1:{server.port}/memex" in (
            failed.output
        )
        assert "run memex migrate again" in failed.output and "Traceback" not in failed.output
        monkeypatch.undo()

        server.start()
        done = run_migrate(home, "--to", url, "--batch-size", "5", "--format", "json")
        assert done.exit_code == 0, done.output
        assert json.loads(done.stdout)["resumed"]
        source = sqlite_tables(home)
        assert postgres_tables(url, source) == source
    finally:
        server.destroy()


def test_without_the_driver_the_error_says_which_extra_to_install(home: Path) -> None:
    code = (
        "import sys; sys.modules['psycopg'] = None; sys.modules['psycopg_pool'] = None; "
        "from memex_core.cli.app import run; "
        f"sys.exit(run(['--home', {str(home)!r}, 'migrate', '--to', 'postgresql://u@h/db']))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 1, done.stderr
    assert "pip install 'memex[postgres]'" in done.stderr and "Traceback" not in done.stderr


def test_a_home_moved_elsewhere_continues_its_own_copy(
    home: Path, tmp_path: Path, postgres_url: str
) -> None:
    killed = run_child(
        home, "--to", postgres_url, "--batch-size", "5", crash_at="migrate.batch_committed:3"
    )
    assert killed.returncode == -signal.SIGKILL
    moved = tmp_path / "moved" / "home"
    shutil.copytree(home, moved)  # the same catalog in another folder (or on another host)
    done = run_migrate(moved, "--to", postgres_url, "--format", "json")
    assert done.exit_code == 0, done.output
    assert json.loads(done.stdout)["resumed"]
    source = sqlite_tables(moved)
    assert postgres_tables(postgres_url, source) == source
