"""What a cold ``memex dig`` imports: only what the search needs.

A fresh process runs the ``memex`` entry point (:func:`memex_core.cli.main`) on a small home
just ingested (its first search), with no warm process, then lists ``sys.modules``. Commands
of other integrations (serve, the viewer, MCP, capture, migrate), memory extraction and
redaction, and the libraries of the server, the integrations and the other encoders must
not be among them: each is imported where it is used, and a search uses none of them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.export_builders import write_chatgpt_export

#: Imported by nothing a hybrid search on the default stack runs.
DEFERRED = (
    # other commands, added only when the command line names no built-in one
    "memex_server.command",
    "memex_viewer.command",
    "memex_mcp.command",
    "memex_capture.cli_capture",
    "memex_postgres.migration.command",
    # memory extraction, consolidation and redaction: only memory writes use them
    "memex_rules.extractor",
    "memex_rules.compare",
    "memex_rules.wording",
    "memex_secrets.redactor",
    "detect_secrets",
    # the server, the integrations, the other encoders, other stores
    "fastapi",
    "uvicorn",
    "starlette",
    "jinja2",
    "mcp",
    "langchain_core",
    "llama_index",
    "onnxruntime",
    "torch",
    "psycopg",
    # chromadb's package (its HTTP client, pydantic, OpenTelemetry: ~0.85 s): a search reads
    # the folder through chroma's Rust engine alone (memex_chroma.reader)
    "chromadb",
    # the event loop: only the integrations' async calls (memex_core.threads.acall) need it
    "asyncio",
    # archives (export/import, ~45 ms) and the supersession rules: only those commands and
    # memory writes use them
    "memex_core.services.archive_export",
    "memex_core.services.archive_import",
    "memex_rules.supersession",
)

DRIVER = """
import json, sys
from memex_core.cli import main
try:
    main(sys.argv[2:])
finally:
    with open(sys.argv[1], "w") as out:
        json.dump(sorted(sys.modules), out)
"""


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMEX_")}
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", MEMEX_WARM_AUTOSTART="0")
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def small_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cold-imports")
    export = write_chatgpt_export(root / "conversations.json")
    home = root / "home"
    done = subprocess.run(
        [sys.executable, "-m", "memex_core", "--home", str(home), "ingest", str(export)],
        capture_output=True,
        text=True,
        env=_env(MEMEX_NO_WARM="1"),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return home


def test_ingest_measures_the_relevance_floor_so_the_first_dig_does_not(small_home: Path) -> None:
    """The floor is calibrated by embedding reference texts through the document encoder
    (ONNX Runtime); ingest, which has it loaded, records it in the catalog."""
    from memex_core.api import Memex

    with Memex(home=small_home) as mx:
        recorded = mx.recorded_floor()
        assert recorded is not None and recorded.embedder == mx.floor_signature()


def test_a_cold_dig_imports_none_of_the_deferred_modules(small_home: Path, tmp_path: Path) -> None:
    listed = tmp_path / "modules.json"
    dig = ["--home", str(small_home), "dig", "database is locked", "--format", "json"]
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, str(listed), *dig],
        capture_output=True,
        text=True,
        env=_env(MEMEX_NO_WARM="1"),  # the cold path: no warm process may answer
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    hits = json.loads(done.stdout)
    assert hits and any("WAL" in hit["content"] for hit in hits)  # a real hybrid search ran
    modules = set(json.loads(listed.read_text()))
    assert "memex_chroma.store" in modules and "memex_bm25.store" in modules
    assert "chromadb_rust_bindings" in modules  # the vectors were searched
    loaded = sorted(
        name for name in modules if any(name == d or name.startswith(d + ".") for d in DEFERRED)
    )
    assert loaded == [], loaded


def test_a_plugin_command_still_runs(small_home: Path) -> None:
    """Plugin commands are loaded when the command line names no built-in command."""
    done = subprocess.run(
        [sys.executable, "-m", "memex_core", "--home", str(small_home), "serve", "--help"],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "Usage: memex serve" in done.stdout
