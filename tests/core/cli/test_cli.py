"""The command line as a user drives it (doubles for vectors; real parts in test_end_to_end)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from memex_core.cli import cli
from memex_core.config import default_home
from tests.support.component_doubles import fast_memex
from tests.support.export_builders import write_chatgpt_export

RESULT_KEYS = {
    "id",
    "score",
    "content",
    "role",
    "conversation_id",
    "source_kind",
    "timestamp",
    "ranks",
    "reasons",
}


@pytest.fixture
def run(memex_home: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(
        "memex_core.cli.opening.Memex",
        lambda home=None: fast_memex(Path(home) if home else default_home()),
    )
    runner = CliRunner()

    def invoke(*args: str, code: int = 0):
        result = runner.invoke(cli, list(args), catch_exceptions=False)
        assert result.exit_code == code, result.output
        return result

    return invoke


@pytest.fixture
def ingested(run, tmp_path: Path) -> Path:
    export = write_chatgpt_export(tmp_path / "conversations.json")
    run("ingest", str(export))
    return export


def test_ingest_reports_counts(run, tmp_path: Path) -> None:
    export = write_chatgpt_export(tmp_path / "conversations.json")
    out = run("ingest", str(export)).output
    assert "1 new, 0 unchanged, 0 failed file(s); 6 fragment(s) added, 6 embedded." in out
    again = json.loads(run("ingest", str(export), "--format", "json").stdout)
    assert (again["new"], again["unchanged"], again["fragments_added"]) == (0, 1, 0)


def test_ingest_bad_file_names_path_and_reason_and_exits_1(run, tmp_path: Path) -> None:
    export = write_chatgpt_export(tmp_path / "conversations.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"mapping": ')
    result = run("ingest", str(bad), str(export), code=1)
    assert "1 new, 0 unchanged, 1 failed" in result.output
    assert f"failed {bad}" in result.output.replace("\n", "")


def test_dig_json_has_the_documented_fields(run, ingested: Path) -> None:
    out = json.loads(run("dig", "sqlite database locked", "--format", "json").stdout)
    assert out and set(out[0]) >= RESULT_KEYS
    assert set(out[0]["ranks"]) == {"keyword", "semantic", "rerank"}  # the default ranker
    assert out[0]["conversation_id"] == "conv-sqlite"
    assert out[0]["timestamp"].endswith("Z")
    assert [r["score"] for r in out] == sorted((r["score"] for r in out), reverse=True)


def test_keyword_and_semantic_commands(run, ingested: Path) -> None:
    keyword = json.loads(run("keyword", "sourdough", "--format", "json").stdout)
    assert keyword[0]["ranks"] == {"keyword": 1, "semantic": None}
    semantic = json.loads(
        run("semantic", "sourdough bread", "--format", "json", "--min-score", "0.3").stdout
    )
    assert semantic and all(r["score"] >= 0.1 for r in semantic)
    assert semantic[0]["ranks"]["keyword"] is None


def test_ids_format_and_limit(run, ingested: Path) -> None:
    ids = run("dig", "sqlite lisbon sourdough", "--format", "ids", "--limit", "2").output.split()
    assert len(ids) == 2 and all(len(i) == 32 for i in ids)


def test_filters_on_the_command_line(run, ingested: Path) -> None:
    out = json.loads(
        run(
            "dig",
            "sqlite lisbon sourdough",
            "--role",
            "assistant",
            "--since",
            "2024-01-15",
            "--format",
            "json",
        ).stdout
    )
    assert out and {r["role"] for r in out} == {"assistant"}
    assert "conv-sqlite" not in {r["conversation_id"] for r in out}


def test_no_results_prints_guidance(run, ingested: Path) -> None:
    result = run("dig", "sqlite", "--source", "claude_ai")
    assert "No results among 6 fragments." in result.output
    assert "--source filter removed every match" in result.output


def test_bad_time_is_a_clear_error(run, ingested: Path) -> None:
    result = run("dig", "x", "--since", "someday", code=1)
    assert "use a date like 2024-05-01" in result.output


def test_panel_output_shows_title_and_ranks(run, ingested: Path) -> None:
    out = run("dig", "lisbon tram").output
    assert "Trip to Lisbon" in out and "keyword #" in out


def test_corpus_json(run, ingested: Path) -> None:
    stats = json.loads(run("corpus", "--format", "json").stdout)
    assert stats["fragments"] == 6 and stats["embedded"] == 6
    assert "Conversations" not in stats and stats["conversations"] == 3


def test_sources_plugins_schema(run, ingested: Path) -> None:
    sources = json.loads(run("sources", "--format", "json").stdout)
    assert {"chatgpt", "claude_ai"} <= {s["name"] for s in sources["sources"]}
    assert sources["files"][0]["path"] == str(ingested)
    plugins = json.loads(run("plugins", "--format", "json").stdout)
    assert {"bm25", "rrf"} <= {c["name"] for c in plugins["components"]}
    assert "CREATE TABLE fragments" in run("schema").output


def test_query_formats_and_refusal(run, ingested: Path) -> None:
    rows = json.loads(
        run(
            "query",
            "SELECT role, COUNT(*) AS n FROM fragments GROUP BY role ORDER BY role",
            "--format",
            "json",
        ).stdout
    )
    assert rows == [{"role": "assistant", "n": 3}, {"role": "user", "n": 3}]
    csv_out = run("query", "SELECT COUNT(*) AS n FROM fragments", "--format", "csv").output
    assert csv_out.split() == ["n", "6"]
    refused = run("query", "DELETE FROM fragments", code=1)
    assert "only reads the catalog" in refused.output


def test_sql_shell(run, ingested: Path) -> None:
    result = CliRunner().invoke(
        cli, ["sql"], input="SELECT COUNT(*)\nFROM fragments;\nDROP TABLE fragments;\n.quit\n"
    )
    assert result.exit_code == 0
    assert "6" in result.output and "Error:" in result.output


def test_backfill_and_rebuild(run, tmp_path: Path) -> None:
    export = write_chatgpt_export(tmp_path / "c.json")
    run("ingest", str(export), "--no-embed")
    assert json.loads(run("backfill", "--format", "json").stdout) == {"embedded": 6}
    assert json.loads(run("rebuild", "--format", "json").stdout) == {"keyword": 6}


def test_help_texts_explain(run) -> None:
    for command in ("ingest", "dig", "keyword", "semantic", "corpus", "query", "backfill"):
        assert "Usage:" in run(command, "--help").output
    assert "--semantic-weight" in run("dig", "--help").output
