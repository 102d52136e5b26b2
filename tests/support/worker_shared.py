"""Build an expensive, read-only thing once per test run, whichever pytest-xdist worker asks first.

A module or session fixture is built once per *worker*; a file whose tests are spread over
workers (tests/support/xdist_scheduling.py, ``SPLIT_FILES``) would build it on each. With
:func:`built_once` the first worker builds it in a folder all workers of the run share, under an
``flock``, and the others read the pickled result. The thing must not be changed by the tests
that use it (copy a home before writing to it).
"""

from __future__ import annotations

import fcntl
import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

T = TypeVar("T")


def run_folder(factory: pytest.TempPathFactory) -> Path:
    """The folder every worker of this run shares: under xdist each worker's base temp is a
    ``popen-gwN`` folder inside it; without xdist it is the run's own base temp."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


def built_once(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], T]) -> T:
    """``build(folder)`` run once per test run; its result (picklable) for every caller."""
    root = run_folder(factory) / f"built-once-{name}"
    root.mkdir(parents=True, exist_ok=True)
    result = root / "result.pickle"
    with open(root / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not result.exists():
            work = root / "work"
            work.mkdir(exist_ok=True)
            value = build(work)
            partial = result.with_suffix(".part")
            partial.write_bytes(pickle.dumps(value))
            partial.replace(result)
            return value
    loaded: T = pickle.loads(result.read_bytes())
    return loaded
