"""Benchmark: what superseding (issue 30) costs a ``remember`` call at 10,000 stored facts.

One home of ``--facts`` distinct facts over 50 users (the base facts of
:mod:`benchmarks.reworded_facts`, their names swapped for 40 more), filled by the code
*before* issue 30 (a ``git worktree`` the caller made: ``--baseline-tree``) with MiniLM
vectors computed once (kept in the bench vector cache, ``benchmarks/vector_cache.py``).
The home is copied three times:

- *before issue 30*: the baseline tree's code (no validity, no judge);
- *today*: this tree's code, default settings (the ``rules`` supersession judge), which
  migrates the copied home on open (catalog migration 9, untimed);
- *today, supersession off*: this tree's code with ``[supersession] use = "none"``.

Each home is served by its own worker process (:mod:`benchmarks.remember_cost_worker`,
real MiniLM and Chroma, one untimed warm-up call). The same ``--timed`` new facts (not in
the home, users who hold ~200 facts each) are then remembered one call at a time,
``agent(user).remember(text, collection=...)`` as benchmark 8 does, **interleaved**: fact
*i* goes to all three homes before fact *i+1*, the order of the three rotating, so load
on the shared machine falls on all three alike. Prints the figures as JSON.

Standalone only (minutes of filling): ``git worktree add --detach /tmp/memex-pre30
<commit>`` then ``nice python -m benchmarks.remember_cost --baseline-tree /tmp/memex-pre30``.
With ``--root DIR`` the homes are kept; ``--fill-only`` fills the baseline home and stops,
and a later run with the same ``--root`` reuses it (re-measuring a newer tree then costs
only the timed calls).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import fact_updates_cost
from benchmarks.metrics import percentile
from benchmarks.report import git_commit
from benchmarks.reworded_facts import NAMES, candidate_count, generate
from benchmarks.vector_cache import default_cache
from memex_core.config import DEFAULT_COMPONENTS
from memex_core.domain import PluginContext
from memex_core.plugins import load_registry

HERE = Path(__file__).resolve().parent
WORKER = HERE / "remember_cost_worker.py"
TODAY_TREE = HERE.parent
#: 40 more first names; each of the generator's 10 users lends its facts to four of them.
MORE_NAMES = (
    "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tariq", "Uma", "Viktor", "Wen", "Ximena",
    "Yusuf", "Zara", "Aiko", "Bruno", "Carmen", "Dmitri", "Elena", "Farid", "Greta", "Hugo",
    "Ines", "Jonas", "Kira", "Luca", "Mei", "Nadia", "Oskar", "Paula", "Rafael", "Sana",
    "Tomas", "Ulla", "Vera", "Wiktor", "Yara", "Zeno", "Amara", "Bilal", "Clara", "Diego",
)  # fmt: skip
HOMES = ("before issue 30", "today", "today, supersession off")


def facts(total: int) -> list[dict[str, str]]:
    """Every distinct fact the generator has for its 10 users, and the same facts told of
    40 more people, round-robin over the 50 users (so any prefix spreads over all)."""
    base = generate(users=len(NAMES), per_user=candidate_count()).base
    by_user: dict[str, list[dict[str, str]]] = {}
    for wording in base:
        name = wording.user.capitalize()
        lenders = [name, *MORE_NAMES[NAMES.index(name) * 4 : NAMES.index(name) * 4 + 4]]
        for lender in lenders:
            text = re.sub(rf"\b{name}\b", lender, wording.text)
            by_user.setdefault(lender.lower(), []).append({"user": lender.lower(), "text": text})
    queues = list(by_user.values())
    out: list[dict[str, str]] = []
    for index in range(max(len(q) for q in queues)):
        out.extend(q[index] for q in queues if index < len(q))
    if len(out) < total:
        raise ValueError(f"only {len(out):,} distinct facts, asked for {total:,}")
    return out[:total]


def embed(texts: list[str]) -> np.ndarray:
    """MiniLM vectors of ``texts``, through the bench's on-disk cache."""
    embedder = load_registry().build(
        "embedder", DEFAULT_COMPONENTS["embedder"], PluginContext(home=Path(tempfile.gettempdir()))
    )
    cache = default_cache(embedder.name, embedder.dimension, getattr(embedder, "build", ""))
    embedded, seconds = cache.fill(
        texts, embedder.embed_documents, log=lambda m: print(m, file=sys.stderr)
    )
    print(f"  embedded {embedded:,} texts in {seconds:.0f} s (cached)", file=sys.stderr)
    return cache.matrix(texts)


def env_for(tree: Path) -> dict[str, str]:
    """The environment of a worker running ``tree``'s code: its core, and its plugins and
    integrations too (without them first on the path, the editable install would import
    this checkout's plugins beside another tree's core)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        str(tree / part) for part in ("", "plugins", "integrations")
    )
    return env


def fill(root: Path, baseline: Path, rows: list[dict[str, str]]) -> dict[str, Any]:
    texts_path, vectors_path = root / "fill.json", root / "fill.npy"
    root.mkdir(parents=True, exist_ok=True)  # a new --root: nothing filled there yet
    texts_path.write_text(json.dumps(rows), encoding="utf-8")
    np.save(vectors_path, embed([r["text"] for r in rows]))
    home = root / "filled"
    home.mkdir()
    done = subprocess.run(
        [sys.executable, str(WORKER), "fill", str(home), str(texts_path), str(vectors_path)],
        env=env_for(baseline),
        cwd=baseline,
        check=True,
        stdout=subprocess.PIPE,
        text=True,
    )
    return dict(json.loads(done.stdout.splitlines()[-1]))


class Worker:
    def __init__(self, name: str, tree: Path, home: Path) -> None:
        self.name, self.home = name, home
        self.seconds: list[float] = []
        self.actions: dict[str, int] = {}
        self.process = subprocess.Popen(
            [sys.executable, str(WORKER), "serve", str(home)],
            env=env_for(tree),
            cwd=tree,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.ready = float(self._read()["ready"])

    def _read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the {self.name} worker stopped (see its stderr above)")
        return dict(json.loads(line))

    def remember(self, row: dict[str, str]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(row) + "\n")
        self.process.stdin.flush()
        answer = self._read()
        self.seconds.append(float(answer["s"]))
        for action in answer["actions"]:
            self.actions[action] = self.actions.get(action, 0) + 1

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write("\n")
        self.process.stdin.close()
        self.process.wait(timeout=120)

    def closed_facts(self) -> int | None:
        """Facts stored closed (today's homes), or None where the catalog has no validity."""
        db = sqlite3.connect(self.home / "catalog.sqlite")
        try:
            columns = {row[1] for row in db.execute("PRAGMA table_info(memories)")}
            if "valid_until" not in columns:
                return None
            return int(
                db.execute(
                    "SELECT count(*) FROM memories WHERE valid_until IS NOT NULL"
                ).fetchone()[0]
            )
        finally:
            db.close()


def figures(worker: Worker) -> dict[str, Any]:
    calls = worker.seconds
    return {
        "calls": len(calls),
        "p50_ms": percentile(calls, 50) * 1000,
        "p95_ms": percentile(calls, 95) * 1000,
        "mean_ms": sum(calls) / len(calls) * 1000,
        "first_call_s": worker.ready,
        "actions": worker.actions,
        "closed_facts": worker.closed_facts(),
    }


def filled(root: Path, baseline: Path, rows: list[dict[str, str]]) -> dict[str, Any]:
    """The baseline home of ``rows`` under ``root``: filled now, or the one an earlier run
    with the same ``--root`` filled (``fill.done`` holds its figures), so a re-measure on a
    newer tree pays only for the timed calls."""
    done, key = root / "fill.done", [len(rows), *(r["text"] for r in rows[:3])]
    if done.exists() and (root / "filled").is_dir():
        kept = dict(json.loads(done.read_text(encoding="utf-8")))
        if kept.get("texts") == key:
            return {**kept["fill"], "reused": True}
    result = fill(root, baseline, rows)
    done.write_text(json.dumps({"texts": key, "fill": result}), encoding="utf-8")
    return result


def measure(
    root: Path,
    baseline: Path,
    total: int,
    timed: int,
    *,
    fill_only: bool = False,
    today: Path = TODAY_TREE,
) -> dict[str, Any]:
    rows = facts(total + timed)
    out: dict[str, Any] = {"facts": total, "timed": timed, "users": len({r["user"] for r in rows})}
    out["fill"] = filled(root, baseline, rows[:total])
    if fill_only:
        return out
    trees = {HOMES[0]: baseline, HOMES[1]: today, HOMES[2]: today}
    workers: list[Worker] = []
    for name, tree in trees.items():
        home = root / name.replace(" ", "-").replace(",", "")
        shutil.rmtree(home, ignore_errors=True)  # an earlier run's copy, written to
        shutil.copytree(root / "filled", home)
        if name == HOMES[2]:
            (home / "config.toml").write_text('[supersession]\nuse = "none"\n', encoding="utf-8")
        workers.append(Worker(name, tree, home))
    started = time.perf_counter()
    for index, row in enumerate(rows[total:]):
        shift = index % len(workers)
        for worker in workers[shift:] + workers[:shift]:
            worker.remember(row)
    out["timed_wall_s"] = time.perf_counter() - started
    for worker in workers:
        worker.close()
    out["homes"] = {w.name: figures(w) for w in workers}
    base = out["homes"][HOMES[0]]["p50_ms"]
    for name in HOMES:
        out["homes"][name]["p50_vs_before"] = out["homes"][name]["p50_ms"] / base
    return out


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline-tree", type=Path, required=True)
    parser.add_argument("--facts", type=int, default=10_000)
    parser.add_argument("--timed", type=int, default=300)
    parser.add_argument(
        "--root",
        type=Path,
        default=None,
        help="keep the homes here; a later run with the same root reuses its filled home",
    )
    parser.add_argument(
        "--fill-only", action="store_true", help="fill the baseline home under --root and stop"
    )
    parser.add_argument(
        "--today-tree",
        type=Path,
        default=TODAY_TREE,
        help="the tree measured as today (default: this checkout; a clean worktree of a "
        "commit leaves others' uncommitted changes out)",
    )
    parser.add_argument(
        "--store",
        action="store_true",
        help="store the figures as section 21b of docs/benchmarks.md and reassemble the page",
    )
    args = parser.parse_args(argv)
    root = args.root or Path(tempfile.mkdtemp(prefix="memex-remember-cost-"))
    started = time.time()
    try:
        timer = fact_updates_cost.Timer(" ".join(["python -m benchmarks.remember_cost", *argv]))
        result = measure(
            root,
            args.baseline_tree.resolve(),
            args.facts,
            args.timed,
            fill_only=args.fill_only,
            today=args.today_tree.resolve(),
        )
        result["wall_s"] = time.time() - started
        result["load_end"] = os.getloadavg()
        result["today_commit"] = git_commit(args.today_tree.resolve())
        print(json.dumps(result, indent=1))
        if args.store and not args.fill_only:
            run, seconds = timer.finished()
            page = fact_updates_cost.store(fact_updates_cost.cost_section(result), run, seconds)
            print(f"stored section 21b; wrote {page}", file=sys.stderr)
    finally:
        if args.root is None:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
