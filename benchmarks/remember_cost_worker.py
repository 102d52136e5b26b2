"""One home's side of :mod:`benchmarks.remember_cost`, run as a script so that it imports
whichever memex the driver put first on ``PYTHONPATH`` (today's tree, or a worktree of the
commit before issue 30). Only the standard library, numpy and ``memex_core.api`` are
imported, all of which both trees have.

``fill HOME TEXTS.json VECTORS.npy``: remember every ``{"user", "text"}`` of the JSON file,
one call each, with the embedder's methods answering from the precomputed vectors (the
same MiniLM vectors, without paying for MiniLM 10,000 times).

``serve HOME``: open the home, make one untimed call, then read one JSON line per fact on
stdin and answer one JSON line with the call's seconds and what it decided.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from memex_core.api import Memex

COLLECTION = "bench:facts"
AGENT = "bench-agent"


def _lookup(vectors: dict[str, np.ndarray], inner: Any) -> Any:
    """embed_documents answering from ``vectors`` (MiniLM for any text it lacks)."""

    def embed_documents(texts: list[str]) -> Any:
        missing = [t for t in texts if t not in vectors]
        if missing:
            vectors.update(zip(missing, inner(missing), strict=True))
        return np.stack([vectors[t] for t in texts])

    return embed_documents


def fill(home: Path, texts_path: Path, vectors_path: Path) -> None:
    rows = json.loads(texts_path.read_text(encoding="utf-8"))
    matrix = np.load(vectors_path)
    vectors = {row["text"]: matrix[i] for i, row in enumerate(rows)}
    started = time.perf_counter()
    with Memex(home=home) as mx:
        embedder: Any = mx.embedder  # its methods are replaced below
        embedder.embed_documents = _lookup(vectors, embedder.embed_documents)
        agents: dict[str, Any] = {}
        for index, row in enumerate(rows):
            user = row["user"]
            if user not in agents:
                agents[user] = mx.agent(user, name=AGENT)
            agents[user].remember(row["text"], collection=COLLECTION)
            if (index + 1) % 1000 == 0:
                rate = (index + 1) / (time.perf_counter() - started)
                print(f"  filled {index + 1:,}/{len(rows):,} ({rate:.0f}/s)", file=sys.stderr)
    print(json.dumps({"filled": len(rows), "seconds": time.perf_counter() - started}))


def serve(home: Path) -> None:
    with Memex(home=home) as mx:
        agents: dict[str, Any] = {}
        started = time.perf_counter()
        mx.agent("warmup", name=AGENT).remember("The bench warms up", collection=COLLECTION)
        print(json.dumps({"ready": time.perf_counter() - started}), flush=True)
        for line in sys.stdin:
            if not line.strip():
                break
            row = json.loads(line)
            user = row["user"]
            if user not in agents:
                agents[user] = mx.agent(user, name=AGENT)
            started = time.perf_counter()
            result = agents[user].remember(row["text"], collection=COLLECTION)
            seconds = time.perf_counter() - started
            actions = [d.decision.action for d in result.decisions]
            print(json.dumps({"s": seconds, "actions": actions}), flush=True)


def main() -> None:
    command, home = sys.argv[1], Path(sys.argv[2])
    if command == "fill":
        fill(home, Path(sys.argv[3]), Path(sys.argv[4]))
    elif command == "serve":
        serve(home)
    else:
        raise SystemExit(f"unknown command {command!r}: use fill or serve")


if __name__ == "__main__":
    main()
