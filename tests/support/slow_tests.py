"""The measured-slow tests: marked ``slow`` at collection, so ``-m "not slow"`` is the fast loop.

``slow_tests.txt`` beside this module lists node ids, one a line, of tests that took
:data:`THRESHOLD_S` or more in a measured run of the suite (setup, call and teardown together,
measured on the 2-core machine under load), on top of the tests marked ``slow`` in their
modules. Nothing is skipped by it: the whole suite still runs every test; ``-m "not slow"``
(``nox -s fast``) leaves these out. Refresh it after a change of speed from a run's JUnit file::

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
THRESHOLD_S = 2.0


def slow_ids() -> frozenset[str]:
    if not LIST.exists():
        return frozenset()
    lines = LIST.read_text(encoding="utf-8").splitlines()
    return frozenset(line for line in lines if line and not line.startswith("#"))


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


def measured_slow(junit: Path, threshold: float = THRESHOLD_S) -> list[str]:
    return sorted(
        node_id(case.get("classname", ""), case.get("name", ""))
        for case in ET.parse(junit).iter("testcase")
        if float(case.get("time") or 0) >= threshold
    )


def main(argv: list[str]) -> None:
    """Write the list from one or more JUnit files (a test slow in any of them is listed)."""
    ids = sorted({i for junit in argv for i in measured_slow(Path(junit))})
    header = f"# took {THRESHOLD_S:g} s or more in a whole run (tests/support/slow_tests.py)"
    LIST.write_text("\n".join([header, *ids]) + "\n", encoding="utf-8")
    print(f"{len(ids)} slow tests written to {LIST}")


if __name__ == "__main__":
    main(sys.argv[1:])
