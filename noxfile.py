"""Developer sessions: `nox -s tests`, `nox -s fast`, `nox -s lint`, `nox -s bench`, `nox -s docs`,
`nox -s reliability`, `nox -s screenshots`.

PyTorch is installed as torch==2.13.0 before anything that depends on it: an
unpinned torch pulls several GB of CUDA packages.
"""

from __future__ import annotations

from pathlib import Path

import nox

nox.options.sessions = ["tests", "lint"]
nox.options.reuse_existing_virtualenvs = True

TORCH = "torch==2.13.0"


@nox.session(python="3.11")
def tests(session: nox.Session) -> None:
    """Run the test suite (the same command CI runs)."""
    session.install(TORCH)
    session.install("-e", ".[test]")
    session.run("python", "-m", "pytest", *session.posargs)


@nox.session(python="3.11")
def fast(session: nox.Session) -> None:
    """The contributor's loop, about 3 minutes on 2 cores: the import contracts, then the
    tests of every package but those marked ``slow`` (in their modules, or listed in
    tests/support/slow_tests.txt as measured at 1 s or more), across pytest-xdist workers.
    The same as ``lint-imports && python -m pytest -m "not slow"``; CI runs everything."""
    session.install(TORCH)
    session.install("-e", ".[test]")
    session.run("lint-imports")
    session.run("python", "-m", "pytest", "-m", "not slow", *session.posargs)


@nox.session(python="3.11")
def lint(session: nox.Session) -> None:
    """ruff (lint and format check), mypy, and the import contracts (`lint-imports`)."""
    session.install(TORCH)
    session.install("-e", ".[dev]")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("mypy")
    session.run("lint-imports")


@nox.session(python="3.11")
def bench(session: nox.Session) -> None:
    """Benchmarks against peers in the same run; updates docs/benchmarks.md and its charts.

    The peers (LangChain, LlamaIndex, rank_bm25) and matplotlib come from
    benchmarks/requirements.txt and are installed here only. `-- --only hybrid,growth`
    runs some sections: each is stored in docs/benchmarks/<key>.json and the page is
    reassembled, the other sections kept. `nox -s bench -- --quick --output /tmp/bench.md`
    is a smoke run (quick figures never go into the page). MiniLM vectors of the
    benchmark texts are cached in .memex-bench/ (gitignored): the first run embeds
    ~100,000 passages (about an hour on 2 cores), later runs reuse them. The
    vector_servers section starts its own `chroma run` and PostgreSQL with pgvector (the
    pgserver wheel of the test extra, or Debian's postgresql-NN-pgvector).
    """
    session.install(TORCH)
    session.install("-e", ".[test]")
    session.install("-r", "benchmarks/requirements.txt")
    session.run("python", "-m", "benchmarks.run", *session.posargs)


@nox.session(python="3.11")
def docs(session: nox.Session) -> None:
    """Check the generated references and build the site with warnings as errors.

    `nox -s docs -- serve` previews it at http://127.0.0.1:8000 instead. After changing a
    command or a hook, regenerate the references with `python docs/generate.py`.
    """
    session.install("-e", ".[docs]")
    session.run("python", "docs/generate.py", "--check")
    if session.posargs[:1] == ["serve"]:
        session.run("mkdocs", "serve", *session.posargs[1:])
    else:
        session.run("mkdocs", "build", "--strict", *session.posargs)


@nox.session(python="3.11")
def screenshots(session: nox.Session) -> None:
    """Serve the demo home and write docs/screenshots/<page>.png at 1280x800.

    Needs Debian's Chromium (`apt-get install chromium`; Playwright is pointed at
    /usr/bin/chromium, or MEMEX_CHROMIUM, and downloads no browser). See
    tests/browser/screenshots.py for the pages; `nox -s screenshots -- DIR` writes elsewhere.
    """
    session.install(TORCH)
    session.install("-e", ".[test]")
    session.run("python", "-m", "tests.browser.screenshots", *session.posargs)


RELIABILITY_TESTS = [
    "tests/core/test_crash_ingest.py",
    "tests/core/cli/test_doctor.py",
    "tests/core/catalog/test_disk_faults.py",
    "tests/core/test_concurrency.py",
    "tests/plugins/chroma/test_chroma_outage.py",
    "tests/core/test_vector_outage_writes.py",
    "tests/core/source_kit/test_hostile_sources.py",
    "tests/core/source_kit/test_hostile_archives.py",
    "tests/core/source_kit/test_hostile_vault.py",
    "tests/core/test_hostile_sql.py",
    "tests/core/test_hostile_queries.py",
    "tests/isolation",
    "tests/core/test_agent_view.py",
    "tests/integrations/langchain/test_langchain_retriever.py",
    "tests/integrations/langchain/test_langchain_store.py",
    "tests/integrations/llamaindex/test_llamaindex_retriever.py",
    "tests/integrations/llamaindex/test_llamaindex_memory.py",
    "tests/integrations/mcp/test_mcp_server.py",
    "tests/integrations/mcp/test_mcp_http.py",
]


@nox.session(python="3.11")
def reliability(session: nox.Session) -> None:
    """Run the fault, hostile-input and isolation families; rewrite docs/reliability.md."""
    session.install(TORCH)
    session.install("-e", ".[test]")
    tmp = Path(session.create_tmp())
    junit, counts = tmp / "reliability.xml", tmp / "hostile-counts.json"
    counts.unlink(missing_ok=True)
    session.run(
        "python",
        "-m",
        "pytest",
        "-q",
        f"--junitxml={junit}",
        *RELIABILITY_TESTS,
        *session.posargs,
        env={"MEMEX_RELIABILITY_COUNTS": str(counts)},
        success_codes=[0, 1],  # the report shows failures, and then fails the session
    )
    session.run("python", "docs/reliability_report.py", str(junit), str(counts))
