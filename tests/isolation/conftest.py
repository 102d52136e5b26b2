"""The isolation matrix's fixtures: one home per surface, built once per session.

Most cases only read, or write in alice's own space (each takes its own before/after
snapshot of what alice must not change), so one home per surface serves them all: the
in-process home, one ``memex serve`` (shared by the ``http`` and ``viewer`` surfaces),
one MCP home. ``surface`` is parametrised indirectly (:func:`tests.isolation.surfaces.on`),
so a surface's home is built only when one of its cases is selected. Cases that need a
known state or legitimately change shared memory use ``scratch`` or ``tiny``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memex_core.handles import SHARED_WRITE_ENV
from tests.isolation.surfaces import InProcess, Surface
from tests.isolation.world import ALICE, ALICE_BOT, Home, build_home, isolation_memex
from tests.support.memory_attacks import BOB_HIDDEN


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """One xdist group for the matrix: under ``--dist loadgroup`` its cases run on one
    worker, in order, on one set of homes, so the log checks of test_matrix_8_log read
    every attack before them. (Under ``--dist load`` each worker builds its own homes.)"""
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.xdist_group("isolation-matrix"))


@pytest.fixture(autouse=True)
def _shared_read_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(SHARED_WRITE_ENV, raising=False)


def _built(root: Path) -> Home:
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv(SHARED_WRITE_ENV, raising=False)
        return build_home(isolation_memex(root))


@pytest.fixture(scope="session")
def inprocess_surface(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcess]:
    home = _built(tmp_path_factory.mktemp("isolation") / "home")
    yield InProcess(home)
    home.mx.close()


@pytest.fixture(scope="session")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Iterator[InProcess]:
    """A second full home for attacks that legitimately change shared memory (rw mode), so
    that the main home keeps alice's agent out of shared/ for every other check."""
    home = _built(tmp_path_factory.mktemp("scratch") / "home")
    yield InProcess(home)
    home.mx.close()


@pytest.fixture
def tiny(tmp_path: Path) -> Iterator[InProcess]:
    """A home of its own (one fact each for bob and alice), for cases that need a known
    state. Kept small: every memory write flushes the keyword index to disk."""
    mx = isolation_memex(tmp_path / "home")
    home = Home(mx)
    home.ids["bob_fact"] = home.bob().remember(f"Bob likes oolong {BOB_HIDDEN}").memory_ids[0]
    home.ids["alice_fact"] = home.alice().remember("Alice prefers green tea").memory_ids[0]
    yield InProcess(home)
    mx.close()


@pytest.fixture(scope="session")
def http_surface(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Surface]:
    pytest.importorskip("fastapi", reason="memex serve needs memex[server]")
    pytest.importorskip("uvicorn", reason="memex serve needs memex[server]")
    from memex_client import MemexClient
    from tests.isolation.surface_http import ACME_BOT, MEMORY_ONLY_BOT, Http
    from tests.support.server_fixtures import (
        CLIENT_TIMEOUT,
        CatalogReader,
        build_isolation_home,
        served,
    )

    home, ids = build_isolation_home(tmp_path_factory.mktemp("server-isolation") / "home")
    with served(home) as service:
        op = MemexClient(service.url, admin_secret=service.admin_secret, timeout=CLIENT_TIMEOUT)
        keys = {
            ALICE_BOT: op.create_key(ALICE, name=ALICE_BOT)["key"],
            ACME_BOT: op.create_key(ALICE, name=ACME_BOT, collection="acme")["key"],
            MEMORY_ONLY_BOT: op.create_key(ALICE, name=MEMORY_ONLY_BOT, corpus=False)["key"],
        }
        yield Http(service, ids, CatalogReader(home), keys)


@pytest.fixture(scope="session")
def viewer_surface(http_surface: Surface) -> Iterator[Surface]:
    pytest.importorskip("jinja2", reason="the viewer needs memex[server]")
    from tests.isolation.surface_http import Http
    from tests.isolation.surfaces_tools import VIEWER_ACTOR, Viewer

    assert isinstance(http_surface, Http)
    # corpus=False: the corpus canary must stay out of alice's pages too.
    key = http_surface.op.create_key(ALICE, name=VIEWER_ACTOR, corpus=False)["key"]
    viewer = Viewer(http_surface, key)
    yield viewer
    viewer.close()


@pytest.fixture(scope="session")
def mcp_surface(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Surface]:
    pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'memex[mcp]')")
    from anyio.from_thread import start_blocking_portal

    from tests.isolation.surfaces_tools import Mcp

    home = _built(tmp_path_factory.mktemp("mcp-isolation") / "home")
    with start_blocking_portal() as portal:
        surface = Mcp(InProcess(home), portal)
        yield surface
        surface.close()
    home.mx.close()


@pytest.fixture
def surface(request: pytest.FixtureRequest) -> Surface:
    """The surface a case runs on (parametrised by name; its home is session-wide)."""
    found = request.getfixturevalue(f"{request.param}_surface")
    assert isinstance(found, Surface)
    return found
