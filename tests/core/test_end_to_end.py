"""End to end: the real exports, and the shipped examples through the real embedder and Chroma."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memex_core.api import Memex
from tests.conftest import EXAMPLES, REPO
from tests.support.component_doubles import fast_memex


def test_every_real_chat_export_ingests_once(fast_mx: Memex, shared_data: Path) -> None:
    folders = [shared_data / "exports" / "chatgpt", shared_data / "exports" / "claude_ai"]
    report = fast_mx.ingest(*folders)
    by_name = {Path(f.path).name: f for f in report.files}
    assert not report.failed, [(f.path, f.error) for f in report.failed]
    # Conversation files are read; licences and Claude's users/projects/memories are
    # skipped, each with why.
    assert by_name["yaleman_users.json"].status == "skipped"
    assert "Claude.ai account details" in str(by_name["yaleman_users.json"].error)
    assert by_name["LICENSE.librechat"].status == "skipped"
    read = [f for f in report.files if f.status != "skipped"]
    assert {f.source_kind for f in read} == {"chatgpt", "claude_ai"}
    assert by_name["librechat_chatgpt-export.json"].fragments_added > 10
    stats = fast_mx.stats()
    assert stats.fragments == report.fragments_added == stats.keyword_indexed
    assert stats.by_source.keys() == {"chatgpt", "claude_ai"}

    again = fast_mx.ingest(*folders)
    assert again.fragments_added == 0 and again.count("unchanged") == len(read)
    assert fast_mx.stats().fragments == stats.fragments


def test_real_claude_export_is_searchable_without_thinking(
    fast_mx: Memex, shared_data: Path
) -> None:
    fast_mx.ingest(shared_data / "exports" / "claude_ai" / "yaleman_conversations.json")
    hits = fast_mx.search("dog saliva", mode="keyword", source="claude_ai")
    assert hits.results
    assert all("staying concise per their preferences" not in h.fragment.content for h in hits)


@pytest.fixture
def real_mx(memex_home: Path) -> Memex:
    mx = Memex(home=memex_home)
    reason = mx.semantic_unavailable_reason()
    if reason:
        pytest.skip(reason)
    yield mx
    mx.close()


def test_examples_with_real_minilm_and_chroma(real_mx: Memex) -> None:
    report = real_mx.ingest(EXAMPLES)
    assert report.count("new") == 2 and not report.failed
    assert report.embedded == report.fragments_added > 30
    stats = real_mx.stats()
    assert (stats.embedder, stats.dimension) == ("minilm", 384)

    hits = real_mx.search("database is locked while another process writes", limit=5)
    assert hits[0].fragment.title == "SQLite database is locked with WAL"
    assert hits[0].ranks["keyword"] is not None and hits[0].ranks["semantic"] is not None

    # Meaning without shared words: only the semantic signal can find this.
    semantic = real_mx.search("bread fermentation at home", mode="semantic", limit=3)
    assert semantic[0].fragment.title == "Sourdough starter and first loaf"

    only_claude = real_mx.search("slow query after upgrade", source="claude_ai", limit=3)
    assert {h.fragment.source_kind for h in only_claude} == {"claude_ai"}


def test_cli_as_a_fresh_process(memex_home: Path, real_mx: Memex) -> None:
    env = {**os.environ, "MEMEX_HOME": str(memex_home)}

    def memex(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "memex_core", *args],
            env=env,
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=300,
        )

    ingest = memex("ingest", str(EXAMPLES), "--format", "json")
    assert ingest.returncode == 0, ingest.stderr
    assert json.loads(ingest.stdout)["new"] == 2
    dig = memex("dig", "kubernetes pod keeps restarting", "--format", "json", "--limit", "3")
    assert dig.returncode == 0, dig.stderr
    results = json.loads(dig.stdout)
    assert results[0]["title"] == "Kubernetes pod in CrashLoopBackOff"
    corpus = json.loads(memex("corpus", "--format", "json").stdout)
    assert corpus["fragments"] == corpus["embedded"] > 30


def test_fast_doubles_agree_with_the_api_contract(memex_home: Path) -> None:
    # The doubles used across the suite must behave like real components on the examples.
    mx = fast_memex(memex_home)
    mx.ingest(EXAMPLES)
    assert mx.search("WAL busy_timeout", mode="keyword")[0].fragment.title == (
        "SQLite database is locked with WAL"
    )


def test_a_real_chat_is_found_by_its_title(fast_mx: Memex, shared_data: Path) -> None:
    """The edge-case export's chat titled "Кириллица и 日本語" holds neither word in its
    turns; the keyword index sees the title with each turn."""
    fast_mx.ingest(shared_data / "exports" / "chatgpt" / "2015pulsar_edgecases_conversations.json")
    found = fast_mx.search("Кириллица", mode="keyword")
    assert found.results
    assert {r.fragment.title for r in found} == {"Кириллица и 日本語"}
