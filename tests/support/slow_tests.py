"""The measured-slow tests: marked ``slow`` at collection, so ``-m "not slow"`` is the fast loop.

``slow_tests.txt`` beside this module lists node ids, one a line, of tests that took
:data:`THRESHOLD_S` or more in a measured run of the suite (setup, call and teardown together,
measured on the 2-core machine under load), on top of the tests marked ``slow`` in their
modules; after a tab, the seconds measured, which the xdist scheduler uses to hand out the
longest work first (tests/support/xdist_scheduling.py). Nothing is skipped by it: the whole
suite still runs every test; ``-m "not slow"`` (``nox -s fast``) leaves these out.
Refresh it after a change of speed from a run's JUnit file::

    python -m pytest --junitxml=/tmp/run.xml
    python -m tests.support.slow_tests /tmp/run.xml
"""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

LIST = Path(__file__).with_name("slow_tests.txt")
#: Seconds (a whole run's figure) from which a test counts as slow.
THRESHOLD_S = 1.0


#: What a test not on the list takes, for the scheduler's estimates (a run's mean of those).
TYPICAL_S = 0.08


def measured_seconds() -> dict[str, float]:
    """Each listed test and the seconds it took (:data:`THRESHOLD_S` where none is written)."""
    if not LIST.exists():
        return {}
    found: dict[str, float] = {}
    for line in LIST.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            nodeid, _, seconds = line.partition("\t")
            found[nodeid] = float(seconds) if seconds else THRESHOLD_S
    return found


def slow_ids() -> frozenset[str]:
    return frozenset(measured_seconds())


def plain_id(nodeid: str) -> str:
    """``nodeid`` without the ``@group`` pytest-xdist appends under ``--dist loadgroup``."""
    return nodeid.rsplit("@", 1)[0] if nodeid.rfind("@") > nodeid.rfind("]") else nodeid


def mark_slow(items: list[pytest.Item]) -> None:
    """Add the ``slow`` mark to every collected test on the list."""
    ids = slow_ids()
    for item in items:
        if plain_id(item.nodeid) in ids:
            item.add_marker(pytest.mark.slow)


def node_id(classname: str, name: str) -> str:
    """A JUnit testcase's pytest node id: ``tests.core.test_x.Class`` + ``test_y[p]``."""
    parts = classname.split(".")
    module = max(i for i, part in enumerate(parts) if part.startswith("test_"))
    path = "/".join(parts[: module + 1]) + ".py"
    return plain_id("::".join([path, *parts[module + 1 :], name]))


def measured_slow(junit: Path, threshold: float = THRESHOLD_S) -> dict[str, float]:
    """The tests of a JUnit file that took ``threshold`` seconds or more, with their time."""
    found: dict[str, float] = {}
    for case in ET.parse(junit).iter("testcase"):
        seconds = float(case.get("time") or 0)
        if seconds >= threshold:
            found[node_id(case.get("classname", ""), case.get("name", ""))] = seconds
    return found


def main(argv: list[str]) -> None:
    """Write the list from one or more JUnit files (a test slow in any of them is listed,
    with the most seconds any of them measured)."""
    merged: dict[str, float] = {}
    for junit in argv:
        for nodeid, seconds in measured_slow(Path(junit)).items():
            merged[nodeid] = max(seconds, merged.get(nodeid, 0.0))
    header = f"# took {THRESHOLD_S:g} s or more in a whole run, then the seconds (slow_tests.py)"
    rows = [f"{nodeid}\t{merged[nodeid]:.1f}" for nodeid in sorted(merged)]
    LIST.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    print(f"{len(rows)} slow tests written to {LIST}")


if __name__ == "__main__":
    main(sys.argv[1:])
