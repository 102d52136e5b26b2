"""Benchmark 14's measuring processes: ``python -m benchmarks.service_processes COMMAND
SPEC`` runs one (in-process searches, HTTP clients, the other users' memories) in a fresh
process and prints its figures as a last JSON line; :func:`benchmarks.service.run_script`
starts one."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.service import (
    AGENT,
    OTHER_USERS,
    USER,
    WARMUP_PER_CLIENT,
    Run,
    process_cpu,
    timed_concurrently,
)


def queries_for(spec: dict[str, Any], clients: int) -> list[str]:
    queries: list[str] = spec["queries"]
    return queries[: spec["solo_queries"]] if clients == 1 else queries


# -- the processes -------------------------------------------------------------------------


def warmed_memex(home: str) -> Any:
    """``Memex(home)`` with its query embeddings warmed as ``memex serve`` warms its own
    (the embedder's optional ``warm_queries``: MiniLM then embeds queries through ONNX
    Runtime), so that in-process and HTTP run the same query engine and their difference is
    what HTTP adds. A Python application gets the same with ``query_backend = "onnx"``."""
    from memex_core.api import Memex

    mx = Memex(home=home)
    warm = getattr(mx.embedder, "warm_queries", None)
    if callable(warm):
        warm()
    return mx


def inprocess_main(spec: dict[str, Any]) -> dict[str, Any]:
    """Time the view's searches in this process: N threads sharing the Memex through its
    call lock; then, one caller, the CPU of each part of a hybrid search."""
    from benchmarks.service_cpu import hybrid_parts
    from memex_core.threads import call

    mx = warmed_memex(spec["home"])
    runs: list[dict[str, Any]] = []
    for mode in spec["modes"]:
        view = mx.view(USER, name=AGENT)
        for query in spec["warmup"]:
            view.search(query, mode, 10)
        for clients in (n for n in spec["clients"] if n > 1):  # one caller: see paired()
            views = [mx.view(USER, name=AGENT) for _ in range(clients)]
            callers = [
                (lambda q, v=v, m=mode: [r.fragment.id for r in call(mx, v.search, q, m, 10)])
                for v in views
            ]
            client = time.process_time()
            latencies, wall, ids = timed_concurrently(callers, queries_for(spec, clients))
            client = time.process_time() - client
            run = Run("in-process", mode, clients, latencies, wall, ids, None, client)
            runs.append(run.__dict__)
    parts: dict[str, float] = {}
    queries = spec["queries"][: spec["breakdown_queries"]]
    if "hybrid" in spec["modes"]:
        parts = hybrid_parts(mx, mx.view(USER, name=AGENT), queries)
    mx.close()
    return {"runs": runs, "parts": parts, "parts_queries": len(queries)}


def clients_main(spec: dict[str, Any]) -> dict[str, Any]:
    """Time searches through MemexClient threads, and what the client adds per call."""
    import httpx

    from memex_client import MemexClient
    from memex_client.transport import decode
    from memex_core.services.search import SearchResults

    url, key = spec["url"], spec["key"]
    runs: list[dict[str, Any]] = paired(spec)
    for mode in spec["modes"]:
        for clients in (n for n in spec["clients"] if n > 1):
            opened = [MemexClient(url, api_key=key) for _ in range(clients)]
            views = [c.view() for c in opened]
            for view in views:
                for query in spec["warmup"][:WARMUP_PER_CLIENT]:
                    view.search(query, mode, 10)
            callers = [
                (lambda q, v=v, m=mode: [r.fragment.id for r in v.search(q, m, 10)]) for v in views
            ]
            server_cpu, client_cpu = process_cpu(spec["server_pid"]), time.process_time()
            latencies, wall, ids = timed_concurrently(callers, queries_for(spec, clients))
            server_cpu = process_cpu(spec["server_pid"]) - server_cpu
            client_cpu = time.process_time() - client_cpu
            run = Run("http", mode, clients, latencies, wall, ids, server_cpu, client_cpu)
            runs.append(run.__dict__)
            for client in opened:
                client.close()

    # What the client adds to a call: a bare round trip, and rebuilding the dataclasses.
    overhead: dict[str, list[float]] = {"client": [], "httpx": [], "decode": [], "bytes": []}
    client = MemexClient(url, api_key=key)
    raw = httpx.Client()
    headers = {"Authorization": f"Bearer {key}"}
    for _ in range(20):
        client.health()
        raw.get(url + "/healthz")
    for _ in range(spec["overhead_calls"]):
        began = time.perf_counter()
        client.health()
        overhead["client"].append(time.perf_counter() - began)
        began = time.perf_counter()
        raw.get(url + "/healthz").json()
        overhead["httpx"].append(time.perf_counter() - began)
    body = {"mode": "hybrid", "limit": 10}
    for query in spec["queries"][: spec["overhead_calls"] // 5]:
        response = raw.post(url + "/v1/search", json={**body, "query": query}, headers=headers)
        payload = response.json()
        began = time.perf_counter()
        decode(SearchResults, payload)
        overhead["decode"].append(time.perf_counter() - began)
        overhead["bytes"].append(float(len(response.content)))
    client.close()
    raw.close()
    return {"runs": runs, "overhead": overhead}


def paired(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """One caller, in-process and over HTTP in turn for each query (the same search through
    this process's own Memex on the home, then through the server), so that both see the
    same machine: the load of a shared machine drifts over the minutes between runs."""
    from memex_client import MemexClient

    mx = warmed_memex(spec["home"])
    client = MemexClient(spec["url"], api_key=spec["key"])
    local, remote = mx.view(USER, name=AGENT), client.view()
    runs: list[dict[str, Any]] = []
    for mode in spec["modes"]:
        for query in spec["warmup"]:
            local.search(query, mode, 10)
            remote.search(query, mode, 10)
        times: dict[str, list[float]] = {"in-process": [], "http": []}
        ids: dict[str, dict[str, list[str]]] = {"in-process": {}, "http": {}}
        # CPU seconds: this process's for the in-process search; for the HTTP one, the
        # server's and this process's (the client) apart.
        cpu = {"in-process": 0.0, "server": 0.0, "client": 0.0}
        for query in queries_for(spec, 1):
            for where, view in (("in-process", local), ("http", remote)):
                server = process_cpu(spec["server_pid"])
                own = time.process_time()
                began = time.perf_counter()
                found = view.search(query, mode, 10)
                times[where].append(time.perf_counter() - began)
                own = time.process_time() - own
                if where == "http":
                    cpu["server"] += process_cpu(spec["server_pid"]) - server
                    cpu["client"] += own
                else:
                    cpu["in-process"] += own
                ids[where][query] = [r.fragment.id for r in found]
        for where in ("in-process", "http"):
            run = Run(where, mode, 1, times[where], sum(times[where]), ids[where])
            if where == "http":
                run.server_cpu, run.client_cpu = cpu["server"], cpu["client"]
            else:
                run.client_cpu = cpu["in-process"]
            runs.append(run.__dict__)
    client.close()
    mx.close()
    return runs


def others_main(spec: dict[str, Any]) -> dict[str, Any]:
    """Give the home a few other users' memories (once), as a shared service's home has."""
    from memex_core.api import Memex

    with Memex(home=spec["home"]) as mx:
        added = 0
        for user in OTHER_USERS:
            agent = mx.agent(user, name="bench-setup")
            if not agent.list():
                agent.remember(f"{user} prefers answers with references to the abstracts")
                added += 1
    return {"added": added}


COMMANDS = {"inprocess": inprocess_main, "clients": clients_main, "others": others_main}


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in COMMANDS:
        commands = ",".join(COMMANDS)
        raise SystemExit(f"usage: python -m benchmarks.service_processes {{{commands}}} SPEC")
    spec = json.loads(Path(argv[1]).read_text(encoding="utf-8"))
    print(json.dumps(COMMANDS[argv[0]](spec)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
