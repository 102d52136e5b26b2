"""Fixtures for a real PostgreSQL (see tests/support/postgres_server.py), loaded by
tests/conftest.py.

- ``postgres_server`` / ``pgvector_server`` (session): one server for the whole run.
- ``postgres_url`` / ``pgvector_url`` (function): a fresh, empty database on it per test,
  dropped afterwards.

They skip with the reason when the binaries are absent, and fail instead when
``MEMEX_POSTGRES_REQUIRED=1`` (CI sets it, so a broken install cannot pass as skips).
A test that stops or kills PostgreSQL starts its own :class:`PostgresServer`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.support.postgres_server import (
    REQUIRED_ENV,
    PostgresServer,
    find_postgres_bin,
    missing_reason,
)


def _server(need_vector: bool) -> Iterator[PostgresServer]:
    bin_dir = find_postgres_bin(need_vector=need_vector)
    if bin_dir is None:
        reason = missing_reason(need_vector)
        if os.environ.get(REQUIRED_ENV) == "1":
            pytest.fail(f"{REQUIRED_ENV}=1 but {reason}")
        pytest.skip(reason)
    try:
        import psycopg  # noqa: F401
    except ImportError:
        pytest.skip("psycopg is not installed: pip install -e '.[test]'")
    server = PostgresServer(bin_dir).start()
    try:
        yield server
    finally:
        server.destroy()


def _database(server: PostgresServer, request: pytest.FixtureRequest) -> Iterator[str]:
    url = server.create_database()
    try:
        yield url
    finally:
        server.drop_database(url.rsplit("/", 1)[1])


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server (Debian's) shared by the session; never stop it in a test."""
    yield from _server(need_vector=False)


@pytest.fixture(scope="session")
def pgvector_server() -> Iterator[PostgresServer]:
    """A PostgreSQL server with the ``vector`` extension, shared by the session."""
    yield from _server(need_vector=True)


@pytest.fixture
def postgres_url(postgres_server: PostgresServer, request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh empty database for one test: ``postgresql://memex@127.0.0.1:PORT/test_N``."""
    yield from _database(postgres_server, request)


@pytest.fixture
def pgvector_url(pgvector_server: PostgresServer, request: pytest.FixtureRequest) -> Iterator[str]:
    """A fresh empty database on the pgvector server for one test."""
    yield from _database(pgvector_server, request)
