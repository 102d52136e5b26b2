"""A whole home on each catalog (``engine_memex`` is parametrized over SQLite and PostgreSQL):
ingest, keyword and hybrid search, memory, agent keys, doctor, rebuild, backfill and SQL give
the same answers whichever engine keeps the record of truth.
"""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from memex_core.api import Memex
from memex_core.cli import cli
from memex_server.command import keys
from tests.support.catalog_fixtures import home_memex

FIXTURES = Path(__file__).parents[2] / "fixtures"
EXPORTS = [FIXTURES / "chatgpt" / "conversations.json", FIXTURES / "claude_ai"]
JSON = ("--format", "json")


def _search(mx: Memex, query: str, mode: str) -> list[str]:
    return [hit.fragment.id for hit in mx.search(query, mode=mode, limit=5)]


def test_ingest_search_and_sql(engine_memex: Memex) -> None:
    mx = engine_memex
    report = mx.ingest(*EXPORTS)
    assert not report.failed and report.fragments_added > 0
    again = mx.ingest(*EXPORTS)
    assert again.fragments_added == 0  # nothing doubled
    stats = mx.stats()
    assert stats.fragments == report.fragments_added
    assert set(stats.by_source) == {"chatgpt", "claude_ai"}
    some = mx.catalog.iter_fragments(batch_size=1)
    word = next(w for w in next(some).content.split() if len(w) > 4)
    keyword = _search(mx, word, "keyword")
    assert keyword and _search(mx, word, "hybrid")
    columns, rows = mx.query(
        "SELECT source_kind, COUNT(*) AS n FROM fragments GROUP BY 1 ORDER BY 1"
    )
    assert columns == ["source_kind", "n"]
    assert dict(rows) == stats.by_source


def test_memory_remember_recall_history_forget(engine_memex: Memex) -> None:
    alice = engine_memex.agent("alice", name="bot")
    remembered = alice.remember("Alice prefers green tea in the morning.")
    memory_id = remembered.memory_ids[0]
    assert [hit.memory_id for hit in alice.search("green tea")][:1] == [memory_id]
    assert engine_memex.agent("bob").search("green tea") == []  # isolation
    alice.write("user/notes.md", "Alice keeps notes on [[tea]].")
    operator = engine_memex.operator()
    assert [r.action for r in operator.history(memory_id)] == ["create"]
    alice.forget(memory_id)
    assert memory_id not in [hit.memory_id for hit in alice.search("green tea")]
    assert [r.action for r in operator.history(memory_id)][-1] == "delete"
    assert {e.action for e in operator.access_log(user_id="alice")} >= {"remember", "forget"}


def test_keys_doctor_rebuild_and_backfill(engine_memex: Memex, memex_home: Path) -> None:
    mx = engine_memex
    mx.ingest(*EXPORTS, embed=False)
    result = CliRunner().invoke(
        keys,
        ["create", "--user", "alice", "--name", "support-bot", "--format", "json"],
        obj={"home": str(memex_home)},
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    made = json.loads(result.output)
    assert [k.name for k in mx.catalog.agent_keys()] == ["support-bot"]
    assert made["user"] == "alice"

    assert mx.backfill() > 0
    report = mx.doctor()
    assert report.healthy, report.to_dict()
    before = _search(mx, "python", "keyword")
    counts = mx.rebuild(keyword=True, vectors=True)
    assert counts["keyword"] == mx.catalog.count_fragments()
    assert _search(mx, "python", "keyword") == before
    assert mx.doctor().healthy


def test_the_cli_reads_the_configured_catalog(engine_memex: Memex, memex_home: Path) -> None:
    engine_memex.ingest(*EXPORTS, embed=False)
    engine_memex.close()
    result = CliRunner().invoke(
        cli,
        ["--home", str(memex_home), "query", "SELECT COUNT(*) AS n FROM fragments", *JSON],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)[0]["n"] > 0
    refused = CliRunner().invoke(cli, ["--home", str(memex_home), "query", "DELETE FROM fragments"])
    assert refused.exit_code != 0 and "only reads the catalog" in refused.output
    reopened = home_memex(memex_home)
    try:
        assert reopened.catalog.count_fragments() > 0
    finally:
        reopened.close()
