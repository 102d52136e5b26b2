"""How pytest-xdist hands the suite to its workers (``--dist loadgroup``, pyproject's addopts).

Work goes out a unit at a time: the tests of one ``xdist_group`` (the isolation matrix, whose
later checks read the access log the earlier attacks wrote), else the tests of one file, so a
module fixture (a built home, a served home, a browser) is built once per run, on one worker.
The units go out longest first, by the seconds measured in tests/support/slow_tests.txt: a long
test handed out last would keep one worker busy while the others idle.
"""

from __future__ import annotations

from collections import Counter

import pytest
from xdist.scheduler import LoadScopeScheduling

from tests.support.slow_tests import TYPICAL_S, measured_seconds, plain_id

#: Folders whose tests run on one worker, in order: the isolation matrix (its log checks read
#: what the attacks before them did, on one set of homes), the browser tests (one Chromium).
#: The matrix also marks itself ``xdist_group``, but xdist may read the marks before that
#: folder's conftest adds them.
ONE_WORKER_FOLDERS = ("tests/isolation/", "tests/browser/")
#: Files whose tests go out one at a time: long tests that share nothing a worker builds, or
#: share it through tests/support/worker_shared.py. As one unit each would hold one worker for
#: minutes (the crash-ingest kills: about 530 s of tests).
SPLIT_FILES = ("tests/core/test_crash_ingest.py",)


class FileOrGroupScheduling(LoadScopeScheduling):
    """``loadgroup`` with a file, rather than a single test, as the unit of ungrouped work."""

    def _split_scope(self, nodeid: str) -> str:
        if nodeid.rfind("@") > nodeid.rfind("]"):  # "...::test@group": xdist's group suffix
            return "group:" + nodeid.rsplit("@", 1)[1]
        for folder in ONE_WORKER_FOLDERS:
            if nodeid.startswith(folder):
                return folder
        path = nodeid.split("::", 1)[0]
        return nodeid if path in SPLIT_FILES else path

    def schedule(self) -> None:
        """LoadScopeScheduling.schedule, with the units ordered slowest first."""
        assert self.collection_is_completed
        if self.collection is not None:
            for node in self.nodes:
                self._reschedule(node)
            return
        if not self._check_nodes_have_same_collection():
            self.log("**Different tests collected, aborting run**")
            return
        self.collection = list(next(iter(self.registered_collections.values())))
        if not self.collection:
            return
        units: dict[str, dict[str, bool]] = {}
        weight: Counter[str] = Counter()
        seconds = measured_seconds()
        for nodeid in self.collection:
            scope = self._split_scope(nodeid)
            units.setdefault(scope, {})[nodeid] = False
            weight[scope] += seconds.get(plain_id(nodeid), TYPICAL_S)
        # The longest unit first (LPT): what is handed out last is short, so workers end together.
        for scope in sorted(units, key=lambda s: -weight[s]):  # stable: collection order
            self.workqueue[scope] = units[scope]
        for _ in range(len(self.nodes) - len(self.workqueue)):  # more workers than work
            unused, _work = self.assigned_work.popitem()
            unused.shutdown()
        for node in self.nodes:
            self._assign_work_unit(node)
        for node in self.nodes:
            self._reschedule(node)
        if not self.workqueue:
            for node in self.nodes:
                node.shutdown()


def make_scheduler(config: pytest.Config, log: object) -> LoadScopeScheduling | None:
    """Our scheduler for ``--dist loadgroup``; xdist's own for any other mode."""
    if config.getvalue("dist") != "loadgroup":
        return None
    return FileOrGroupScheduling(config, log)  # type: ignore[arg-type]
