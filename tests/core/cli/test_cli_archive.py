"""``memex export`` and ``memex import`` (issue 31) on the command line: what they print,
``--format json``, ``--dry-run``, the filters, one-line errors with exit code 1."""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from memex_core.cli import cli
from tests.conftest import EXAMPLES
from tests.support.component_doubles import MemoryVectorStore
from tests.support.doctor_home import ListingVectorStore, doctor_memex

Run = Callable[..., Result]


@pytest.fixture
def run(monkeypatch: pytest.MonkeyPatch) -> Run:
    monkeypatch.setattr(
        "memex_core.cli.opening.Memex", lambda home=None: doctor_memex(Path(str(home)))
    )
    runner = CliRunner()

    def invoke(*args: str, code: int = 0) -> Result:
        result = runner.invoke(cli, list(args), catch_exceptions=False)
        assert result.exit_code == code, result.output
        if code == 1:
            assert "Traceback" not in result.output
            assert len(result.output.strip().splitlines()) == 1, result.output
        return result

    return invoke


@pytest.fixture
def source(run: Run, tmp_path: Path) -> Path:
    home = tmp_path / "source"
    run("--home", str(home), "ingest", str(EXAMPLES), "-q")
    mx = doctor_memex(home)
    mx.agent("alice").remember("Alice prefers green tea in the afternoon.")
    mx.close()
    return home


def test_export_then_import_into_a_new_home(run: Run, source: Path, tmp_path: Path) -> None:
    archive = tmp_path / "home.zip"
    done = run("--home", str(source), "export", str(archive), "-q")
    assert f"Wrote {archive}" in done.output and "fragments" in done.output
    target = tmp_path / "target"
    dry = run("--home", str(target), "import", str(archive), "--dry-run", "--format", "json")
    planned = json.loads(dry.output)
    assert planned["dry_run"] and planned["tables"]["fragments"]["added"] > 0
    assert not (target / "catalog.sqlite").exists() or _fragments(target) == 0
    done = run("--home", str(target), "import", str(archive), "-q")
    assert done.output.startswith("Added ") and "Embedded" in done.output
    again = run("--home", str(target), "import", str(archive), "-q")
    assert again.output.startswith("Added nothing")
    hits = run("--home", str(target), "keyword", "green tea", "--format", "json")
    assert "Alice prefers green tea" in hits.output


def _fragments(home: Path) -> int:
    mx = doctor_memex(home)
    try:
        return mx.catalog.count_fragments()
    finally:
        mx.close()


def test_export_json_and_filters(
    run: Run, source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    archive = tmp_path / "alice.zip"
    done = run(
        "--home", str(source), "export", str(archive), "--user", "alice", "--no-log",
        "--format", "json",
    )  # fmt: skip
    report = json.loads(done.output)
    assert report["filters"] == {"user": "alice"} and report["with_log"] is False
    assert report["members"]["memories.jsonl"] == 1
    with zipfile.ZipFile(archive) as zf:
        assert "access_log.jsonl" not in zf.namelist()
    run("--home", str(source), "export", str(tmp_path / "x.zip"), "--since", "someday", code=2)
    # A vector store that cannot hand its vectors out: said in one line, nothing written.
    monkeypatch.delattr(MemoryVectorStore, "stored_vectors")
    done = run("--home", str(source), "export", str(tmp_path / "v.zip"), "--with-vectors", code=1)
    assert "cannot hand its vectors out" in done.output
    assert not (tmp_path / "v.zip").exists()


def test_with_vectors_the_import_stores_them(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # One vector store per home for the whole test, as on disk (the run fixture's opens
    # start each with an empty one).
    stores: dict[Path, ListingVectorStore] = {}
    monkeypatch.setattr(
        "memex_core.cli.opening.Memex",
        lambda home=None: doctor_memex(
            Path(str(home)), stores.setdefault(Path(str(home)), ListingVectorStore())
        ),
    )
    runner = CliRunner()
    source, target, archive = tmp_path / "source", tmp_path / "target", tmp_path / "v.zip"
    runner.invoke(cli, ["--home", str(source), "ingest", str(EXAMPLES), "-q"])
    done = runner.invoke(cli, ["--home", str(source), "export", str(archive), "--with-vectors"])
    assert done.exit_code == 0 and " vectors." in done.output, done.output
    dry = runner.invoke(cli, ["--home", str(target), "import", str(archive), "--dry-run"])
    assert "Would store " in dry.output and "vector(s) from the archive." in dry.output
    assert "were applied" not in dry.output  # a dry run changes nothing, settings included
    done = runner.invoke(cli, ["--home", str(target), "import", str(archive), "-q"])
    assert "Stored " in done.output and "Embedded" not in done.output, done.output
    assert stores[target].vectors.keys() == stores[source].vectors.keys()


def test_a_bad_archive_is_one_line_and_exit_1(run: Run, source: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"PK\x03\x04 not really a zip")
    done = run("--home", str(source), "import", str(bad), code=1)
    assert "Nothing was imported" in done.output
    done = run("--home", str(source), "import", str(tmp_path / "missing.zip"), code=1)
    assert "file not found" in done.output


def test_help_explains_the_archive(run: Run) -> None:
    text = run("export", "--help").output
    assert "manifest" in text and "--with-vectors" in text and "--user" in text
    text = run("import", "--help").output
    assert "--dry-run" in text and "conflict" in text
