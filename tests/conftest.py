"""Shared fixtures: an isolated MEMEX_HOME, the shared real-data folder, fast test components;
and how many pytest-xdist workers ``-n auto`` (pyproject's addopts) starts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.support._data import shared_data_dir
from tests.support.slow_tests import mark_slow

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples" / "exports"

# A read command that finds no warm process starts one in the background by default; here no
# command may leave one behind. Every process the tests start inherits this (the tests of
# autostart itself set it again).
os.environ["MEMEX_WARM_AUTOSTART"] = "0"

pytest_plugins = [
    "tests.support.component_doubles",
    "tests.support.postgres_fixtures",
    "tests.support.catalog_fixtures",
]


#: Workers for a whole run. One more than this machine's 2 cores: many tests wait on a server
#: in another process (memex serve, chroma run, PostgreSQL) rather than compute.
WORKERS_PER_CORE_PLUS = 1
#: A run naming at most this many test files (or test ids) and no folder stays in one process.
SMALL_RUN_FILES = 2


@pytest.hookimpl(optionalhook=True)  # only when pytest-xdist is loaded
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """``-n auto``: 0 (no workers: start at once, ``--pdb`` and ``-x`` as usual) for a run of a
    file or two, else the cores this process may use plus one. ``-n N`` on the command line
    overrides it."""
    args = [a.split("::", 1)[0] for a in config.args]
    if args and len(args) <= SMALL_RUN_FILES and all(Path(a).is_file() for a in args):
        return 0
    return len(os.sched_getaffinity(0)) + WORKERS_PER_CORE_PLUS


@pytest.hookimpl(optionalhook=True)  # only when pytest-xdist is loaded
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """Under ``--dist loadgroup``: a file or an xdist_group per unit, slow files first."""
    from tests.support.xdist_scheduling import make_scheduler

    return make_scheduler(config, log)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The tests measured slow (tests/support/slow_tests.txt) carry the ``slow`` mark."""
    mark_slow(items)


@pytest.fixture
def shared_data() -> Path:
    """The real exports and benchmark sets in ../shared/data; skips when absent."""
    return shared_data_dir()


@pytest.fixture
def memex_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh, empty MEMEX_HOME for one test."""
    home = tmp_path / "memex-home"
    monkeypatch.setenv("MEMEX_HOME", str(home))
    monkeypatch.delenv("MEMEX_CHROMA_URL", raising=False)
    monkeypatch.delenv("MEMEX_CATALOG_URL", raising=False)  # a developer's own server
    monkeypatch.setenv("MEMEX_LOCK_TIMEOUT", "0.5")
    return home
