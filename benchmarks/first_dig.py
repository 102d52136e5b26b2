"""The first ``memex dig`` of a session and the ones after it, on a small home.

What a user sees in a new shell: the first read command finds no warm process, answers
in its own process (cold) and starts ``memex warm`` in the background; the later ones
are answered by it. Timed as the user runs them, each a fresh ``python -m memex_core``
process, wall clock from start to exit:

- ``python -c pass``: the floor of any Python process here;
- cold: a ``dig`` with no warm process and ``MEMEX_WARM_AUTOSTART=0`` (nothing started),
  with its CPU time (user + system, which the load of a shared machine inflates less);
- first: a ``dig`` with no warm process and the default environment (it starts one);
- later: ``dig`` after the process it started listens.

``--compare TREE`` times another source tree (a ``git archive`` of an older commit) in
the same rounds, through ``PYTHONPATH``: with both in one sitting, the load on a shared
machine falls on both alike. Each round runs every measurement once, in turn; the
figures are the min, median and max over the rounds. Run from the repository root::

    python -m benchmarks.first_dig --rounds 10 --tree /tmp/new-tree --compare /tmp/old-tree

(``--tree`` defaults to this repository.) ``--home H`` times an existing home instead of
the examples' (built by this repository's code): give one both trees can read, built by
the older of them, when their catalog schemas differ.

Its figures are recorded by hand in ``docs/benchmarks-first-dig.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples" / "exports"
QUERIES = (
    "database is locked",
    "undo a pushed git commit",
    "sourdough starter",
    "slow startup",
    "python packaging",
    "sqlite WAL mode",
    "travel plans",
    "unit tests flaky",
    "bread recipe",
    "deploy to production",
)
LATER_PER_ROUND = 3
MEMEX = (sys.executable, "-m", "memex_core")


def _env(tree: Path | None, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMEX_")}
    env.update(HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    if tree is not None:
        env["PYTHONPATH"] = os.pathsep.join(
            str(tree / part) for part in ("", "plugins", "integrations")
        )
    env.update(extra)
    return env


#: CPU seconds (user + system) of the last command :func:`_timed` ran: what a cold dig costs
#: whatever else the shared machine runs, where its wall time grows with the load.
_last_cpu = 0.0


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(command: list[str], env: dict[str, str], cwd: Path) -> float:
    global _last_cpu
    cpu = _children_cpu()
    start = time.perf_counter()
    done = subprocess.run(command, env=env, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    _last_cpu = _children_cpu() - cpu
    if done.returncode != 0:
        raise RuntimeError(f"{command} failed: {done.stderr[-2000:]}")
    return elapsed


def _dig(home: Path, query: str) -> list[str]:
    return [*MEMEX, "--home", str(home), "dig", query, "--format", "json"]


def _ping(home: Path) -> bool:
    """Whether a warm process answers on the home's socket (asked here: no new process)."""
    from memex_core.warm import protocol, socket_client

    try:
        socket_client.exchange(
            protocol.socket_path(str(home)), {"v": protocol.VERSION, "op": "ping"}, 5.0
        )
    except socket_client.Declined:
        return False
    return True


def _stop(home: Path, tree: Path | None, cwd: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "memex_core", "--home", str(home), "warm", "stop"],
        env=_env(tree, MEMEX_WARM_AUTOSTART="0"),
        cwd=cwd,
        capture_output=True,
    )
    lock = home / "run" / "autostart.lock"
    deadline = time.monotonic() + 30
    while lock.exists() and time.monotonic() < deadline:
        try:  # free once the process is gone; removed so the next round may start one
            import fcntl

            with open(lock) as held:
                fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
            lock.unlink()
        except BlockingIOError:
            time.sleep(0.1)


def build_home(root: Path) -> Path:
    home = root / "home"
    exports = sorted(str(p) for p in EXAMPLES.glob("*.json"))
    env = _env(None, MEMEX_NO_WARM="1")
    subprocess.run(
        [sys.executable, "-m", "memex_core", "--home", str(home), "ingest", *exports],
        env=env,
        cwd=REPO,
        check=True,
        capture_output=True,
    )
    # The first search of a home calibrates its relevance floor once: not what is measured.
    subprocess.run(_dig(home, "calibrate"), env=env, cwd=REPO, check=True, capture_output=True)
    return home


def measure(home: Path, rounds: int, tree: Path, compare: Path | None) -> dict[str, list[float]]:
    cwd = Path(tempfile.gettempdir())  # not the repository: its tree would shadow --compare
    trees: dict[str, Path] = {"new": tree}
    if compare is not None:
        trees["old"] = compare
    times: dict[str, list[float]] = {"python -c pass": []}
    for round_ in range(rounds):
        query = QUERIES[round_ % len(QUERIES)]
        times["python -c pass"].append(
            _timed([sys.executable, "-c", "pass"], os.environ.copy(), cwd)
        )
        for name, tree in trees.items():
            off = _env(tree, MEMEX_WARM_AUTOSTART="0")
            times.setdefault(f"{name}: cold dig, no warm process", []).append(
                _timed(_dig(home, query), off, cwd)
            )
            times.setdefault(f"{name}: cold dig, CPU time (user + system)", []).append(_last_cpu)
        # The session as a user has it, with the default environment.
        for name, tree in trees.items():
            _stop(home, tree, cwd)
            times.setdefault(f"{name}: first dig of a session", []).append(
                _timed(_dig(home, query), _env(tree), cwd)
            )
            started = time.perf_counter()
            deadline = started + 120
            while name == "new" and not _ping(home) and time.perf_counter() < deadline:
                time.sleep(0.1)
            if name == "new":
                times.setdefault("new: warm process listening after", []).append(
                    time.perf_counter() - started
                )
            for later in range(LATER_PER_ROUND):
                times.setdefault(f"{name}: later digs", []).append(
                    _timed(
                        _dig(home, QUERIES[(round_ + later + 1) % len(QUERIES)]), _env(tree), cwd
                    )
                )
            _stop(home, tree, cwd)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.first_dig")
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--home", type=Path, help="a home to search (default: the examples)")
    parser.add_argument("--tree", type=Path, default=REPO, help="the source tree timed")
    parser.add_argument("--compare", type=Path, help="another source tree timed alongside")
    parser.add_argument("--output", type=Path, help="write the raw times here (JSON)")
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="first-dig-"))
    try:
        home = args.home or build_home(root)
        load_before = os.getloadavg()
        times = measure(home, args.rounds, args.tree, args.compare)
        load_after = os.getloadavg()
    finally:
        if args.home is None:
            shutil.rmtree(root, ignore_errors=True)
    print(f"load average before {load_before}, after {load_after}; {args.rounds} rounds")
    print("| measurement | min | median | max |\n|---|---|---|---|")
    for name, values in times.items():
        print(
            f"| {name} | {min(values):.3f} s | {statistics.median(values):.3f} s "
            f"| {max(values):.3f} s |"
        )
    if args.output is not None:
        record = {"load": [load_before, load_after], "rounds": args.rounds, "times": times}
        args.output.write_text(json.dumps(record, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
