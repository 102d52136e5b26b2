"""How pytest-xdist hands the suite to its workers (``--dist loadgroup``, pyproject's addopts).

Work goes out a unit at a time: the tests of one ``xdist_group`` (the isolation matrix, whose
later checks read the access log the earlier attacks wrote), else the tests of one file, so a
module fixture (a built home, a served home, a browser) is built once per run, on one worker.
Files holding tests measured slow (tests/support/slow_tests.txt) go out first, the most slow
tests first: a long test handed out last would keep one worker busy while the others idle.
"""

from __future__ import annotations

from collections import Counter

import pytest
from xdist.scheduler import LoadScopeScheduling

from tests.support.slow_tests import plain_id, slow_ids

#: Folders whose tests run on one worker, in order: the isolation matrix (its log checks read
#: what the attacks before them did, on one set of homes), the browser tests (one Chromium).
#: The matrix also marks itself ``xdist_group``, but xdist may read the marks before that
#: folder's conftest adds them.
ONE_WORKER_FOLDERS = ("tests/isolation/", "tests/browser/")


class FileOrGroupScheduling(LoadScopeScheduling):
    """``loadgroup`` with a file, rather than a single test, as the unit of ungrouped work."""

    def _split_scope(self, nodeid: str) -> str:
        if nodeid.rfind("@") > nodeid.rfind("]"):  # "...::test@group": xdist's group suffix
            return "group:" + nodeid.rsplit("@", 1)[1]
        for folder in ONE_WORKER_FOLDERS:
            if nodeid.startswith(folder):
                return folder
        return nodeid.split("::", 1)[0]

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
        slow = slow_ids()
        for nodeid in self.collection:
            scope = self._split_scope(nodeid)
            units.setdefault(scope, {})[nodeid] = False
            weight[scope] += plain_id(nodeid) in slow
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
