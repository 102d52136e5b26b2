"""Benchmark 15's measuring processes: ``python -m benchmarks.scale_out_processes COMMAND
SPEC`` runs one (a build, timed queries, a catch-up, the replicas' clients) in a fresh
process and prints its figures as a last JSON line; :func:`run_process` starts one."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks import scale, service
from benchmarks.context import RunContext
from benchmarks.data import REPO_ROOT
from benchmarks.scale_out_settings import STEP_MARK

# -- subprocesses ----------------------------------------------------------------------------


def process_env(catalog_url: str | None = None) -> dict[str, str]:
    env = scale._env()
    env.pop("MEMEX_CATALOG_URL", None)
    if catalog_url:
        env["MEMEX_CATALOG_URL"] = catalog_url
    return env


def run_process(
    ctx: RunContext, module: str, command: str, spec: dict[str, Any], url: str | None = None
) -> dict[str, Any]:
    """``python -m MODULE COMMAND SPEC`` in a fresh process; its last JSON line."""
    spec_path = ctx.tmp / f"scale-out-{command}-{time.monotonic_ns()}.json"
    spec_path.write_text(json.dumps(spec), encoding="utf-8")
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", module, command, str(spec_path)],
        capture_output=True,
        text=True,
        env=process_env(url),
        cwd=REPO_ROOT,
    )
    if done.returncode != 0:
        raise RuntimeError(f"{module} {command!r} failed: {done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    result["process_seconds"] = time.perf_counter() - started
    return result


# -- in the measuring processes --------------------------------------------------------------


def query_main(spec: dict[str, Any]) -> dict[str, Any]:
    """Open every home, warm each, then time the same query on each in turn (the order
    rotating query by query); the ids each engine found, to compare."""
    from memex_core.api import Memex

    homes: dict[str, str] = spec["homes"]
    mode: str = spec["mode"]
    opened = {name: Memex(home=home) for name, home in homes.items()}
    for mx in opened.values():
        for query in spec["warmup"]:
            mx.search(query, mode, 10)
    names = list(opened)
    times: dict[str, list[float]] = {n: [] for n in names}
    ids: dict[str, list[list[str]]] = {n: [] for n in names}
    modes: set[str] = set()
    for number, query in enumerate(spec["queries"]):
        for name in names[number % len(names) :] + names[: number % len(names)]:
            began = time.perf_counter()
            found = opened[name].search(query, mode, 10)
            times[name].append(time.perf_counter() - began)
            ids[name].append([r.fragment.id for r in found])
            modes.add(found.mode)
    for mx in opened.values():
        mx.close()
    return {"times": times, "ids": ids, "modes": sorted(modes)}


def catchup_main(spec: dict[str, Any]) -> dict[str, Any]:
    """A fresh home on a populated catalog: time to its first keyword answer."""
    from memex_core.api import Memex

    queries: list[str] = spec["queries"]
    started = time.perf_counter()
    mx = Memex(home=spec["home"])
    first = mx.search(queries[0], "keyword", 10)
    first_seconds = time.perf_counter() - started
    ids = [[r.fragment.id for r in first]]
    ids += [[r.fragment.id for r in mx.search(q, "keyword", 10)] for q in queries[1:]]
    indexed = mx.keyword_store.count()
    fragments = mx.stats().fragments
    mx.close()
    return {"first_seconds": first_seconds, "ids": ids, "indexed": indexed, "stored": fragments}


def keyword_ids_main(spec: dict[str, Any]) -> dict[str, Any]:
    from memex_core.api import Memex

    with Memex(home=spec["home"]) as mx:
        return {
            "ids": [[r.fragment.id for r in mx.search(q, "keyword", 10)] for q in spec["queries"]]
        }


def _timed_search(view: Any, mode: str, times: list[float]) -> Callable[[str], list[str]]:
    """A caller for timed_concurrently that also notes each latency in ``times``."""

    def call(query: str) -> list[str]:
        began = time.perf_counter()
        found = view.search(query, mode, 10)
        times.append(time.perf_counter() - began)
        return [r.fragment.id for r in found]

    return call


def clients_main(spec: dict[str, Any]) -> dict[str, Any]:
    """``clients`` threads, each with its own MemexClient on the replicas in turn (thread i ->
    replica i mod R); per mode the replica counts run in the order given (e.g. 1, 2, 2, 1),
    each run sending its share of the queries (every query once per replica count); each
    replica's latencies and the CPU seconds the servers used meanwhile."""
    from memex_client import MemexClient

    servers: list[dict[str, Any]] = spec["servers"]
    order: list[int] = spec["replicas"]
    runs: list[dict[str, Any]] = []
    for mode in spec["modes"]:
        for turn, replicas in enumerate(order):
            runs_with = [n for n, r in enumerate(order) if r == replicas]
            share = spec["queries"][runs_with.index(turn) :: len(runs_with)]
            chosen = servers[:replicas]
            opened = [
                MemexClient(chosen[n % replicas]["url"], api_key=chosen[n % replicas]["key"])
                for n in range(spec["clients"])
            ]
            views = [c.view() for c in opened]
            for view in views:
                for query in spec["warmup"][: service.WARMUP_PER_CLIENT]:
                    view.search(query, mode, 10)
            per_server: list[list[float]] = [[] for _ in chosen]

            callers = [
                _timed_search(v, mode, per_server[n % replicas]) for n, v in enumerate(views)
            ]
            cpu = [service.process_cpu(s["pid"]) for s in chosen]
            client_cpu = time.process_time()
            latencies, wall, _ids = service.timed_concurrently(callers, share)
            server_cpu = [
                service.process_cpu(s["pid"]) - c for s, c in zip(chosen, cpu, strict=True)
            ]
            runs.append(
                {
                    "mode": mode,
                    "replicas": replicas,
                    "latencies": latencies,
                    "per_server": per_server,
                    "wall": wall,
                    "server_cpu": sum(server_cpu),
                    "per_server_cpu": server_cpu,
                    "client_cpu": time.process_time() - client_cpu,
                }
            )
            for client in opened:
                client.close()
    return {"runs": runs}


def build_steps_main(spec: dict[str, Any]) -> dict[str, Any]:
    """A home built step by step as the parent asks on stdin (``batch``, ``vectors``,
    ``finish``), each answer one line after :data:`STEP_MARK` (see :func:`interleaved`)."""
    from benchmarks.worker import Builder

    def answer(value: Any) -> None:
        sys.stdout.write(STEP_MARK + json.dumps(value) + "\n")
        sys.stdout.flush()

    builder = Builder(spec)
    answer({"ready": True})
    steps = {"batch": builder.batch, "vectors": builder.vectors, "finish": builder.finish}
    for line in sys.stdin:
        command = line.strip()
        answer(steps[command]())
        if command == "finish":
            break
    return {}


COMMANDS = {
    "build_steps": build_steps_main,
    "query": query_main,
    "catchup": catchup_main,
    "keyword_ids": keyword_ids_main,
    "clients": clients_main,
}


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in COMMANDS:
        raise SystemExit(
            f"usage: python -m benchmarks.scale_out_processes {{{','.join(COMMANDS)}}} SPEC"
        )
    spec = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    print("\n" + json.dumps(COMMANDS[argv[0]](spec)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
