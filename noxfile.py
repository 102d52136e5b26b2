"""Developer sessions: `nox -s tests`, `nox -s lint`, `nox -s bench`, `nox -s docs`.

PyTorch is installed as torch==2.13.0 before anything that depends on it: an
unpinned torch pulls several GB of CUDA packages.
"""

from __future__ import annotations

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
def lint(session: nox.Session) -> None:
    """ruff (lint and format check) and mypy."""
    session.install(TORCH)
    session.install("-e", ".[dev]")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("mypy")


@nox.session(python="3.11")
def bench(session: nox.Session) -> None:
    """Benchmarks against peers in the same run; writes docs/benchmarks.md."""
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
