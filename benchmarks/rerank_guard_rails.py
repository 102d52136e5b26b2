"""Benchmark: issue 33's guard rails for the ``rerank`` ranker against ``rrf`` (the defaults
before the rerank became the default; each home names its ranker).

Three measurements, each comparing the two rankers under the same load (interleaved):

- ``latency``: a home of benchmark 10's first ``--size`` passages with their cached MiniLM
  vectors (fill the cache first: ``benchmarks.corpus.ensure_vectors``), copied and the copy
  given ``[ranker] use = "rerank"``; both open in one process and time the first SciFact
  queries, alternating query by query, query embedding included.
- ``ingest``: ``--rounds`` homes of 10,000 passages per ranker, alternating, keyword-only
  ingest and storing the cached vectors.
- ``known``: a known-item test over the real chat exports: for each conversation of three
  fragments or more, its last five user or assistant turns (after the first, 8 words or more)
  are the answers and each query is the turn's 5-word window with the highest sum of
  1/document frequency (a distinctive phrase copied from the turn, not a paraphrase).

Prints the figures as JSON; docs/benchmarks-rerank-guard-rails.md quotes them.
Standalone only (the 100,000-passage home takes minutes): ``nice python -m
benchmarks.rerank_guard_rails latency|ingest|known``.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks import corpus, scale
from benchmarks.data import data_root
from benchmarks.metrics import percentile
from benchmarks.vector_cache import default_cache
from benchmarks.worker import Builder, _registry_with, write_corpus
from memex_core.api import Memex

RERANK_CONFIG = '\n[ranker]\nuse = "rerank"\n'
#: The baseline names its ranker: without it a home ranks with the default, now ``rerank``.
RRF_CONFIG = '\n[ranker]\nuse = "rrf"\n'
WORDS = re.compile(r"[a-z][a-z0-9']{2,}")


def build(root: Path, size: int, rerank: bool) -> tuple[Path, dict[str, Any]]:
    """A home of the first ``size`` passages with cached vectors (``rerank``: that ranker)."""
    corpus_file = root / f"corpus-{size}.jsonl"
    if not corpus_file.exists():
        write_corpus(corpus_file, corpus.passages(size))
    home = root / f"home-{size}-{'rerank' if rerank else 'rrf'}-{time.monotonic_ns()}"
    spec = {"home": str(home), "corpus": str(corpus_file), "vectors": "cache"}
    builder = Builder({**spec, "cache": str(default_cache().folder), "model_warmup": 64})
    # Reopened so that the home's config names its ranker while it ingests.
    builder.mx.close()
    config = home / "config.toml"
    added = RERANK_CONFIG if rerank else RRF_CONFIG
    config.write_text(config.read_text(encoding="utf-8") + added, encoding="utf-8")
    builder.mx = Memex(home=home, registry=_registry_with(builder.embedder))
    while builder.batch() is not None:
        pass
    builder.vectors()
    return home, builder.finish()


def latency(root: Path, size: int, count: int) -> dict[str, Any]:
    home, built = build(root, size, rerank=False)
    copy = root / "home-rerank-copy"
    shutil.copytree(home, copy)
    (copy / "config.toml").write_text(RERANK_CONFIG, encoding="utf-8")
    timed, warmup = scale.queries()
    homes = {"rrf": Memex(home=home), "rerank": Memex(home=copy)}
    for query in warmup:
        for mx in homes.values():
            mx.search(query, "hybrid", 10)
    times: dict[str, list[float]] = {"rrf": [], "rerank": []}
    reranked = 0
    for i, query in enumerate(timed[:count]):
        for name in ("rrf", "rerank") if i % 2 == 0 else ("rerank", "rrf"):
            started = time.perf_counter()
            found = homes[name].search(query, "hybrid", 10)
            times[name].append(time.perf_counter() - started)
            if name == "rerank":
                reranked += any("rerank" in r.ranks for r in found)
    out: dict[str, Any] = {"size": size, "queries": count, "reranked": reranked}
    out["build"] = {k: built[k] for k in ("keyword_seconds", "vector_seconds", "stored")}
    for name, values in times.items():
        out[name] = {"p50": percentile(values, 50), "p95": percentile(values, 95)}
    return out


def ingest(root: Path, rounds: int) -> dict[str, Any]:
    rates: dict[str, list[tuple[float, float]]] = {"rrf": [], "rerank": []}
    for number in range(rounds):
        for name in ("rrf", "rerank") if number % 2 == 0 else ("rerank", "rrf"):
            home, built = build(root, 10_000, rerank=name == "rerank")
            rates[name].append(
                (
                    built["fragments"] / built["keyword_seconds"],
                    built["fragments"] / built["vector_seconds"],
                )
            )
            shutil.rmtree(home)
    return {
        name: {
            "keyword_median": statistics.median(r[0] for r in values),
            "vectors_median": statistics.median(r[1] for r in values),
            "rounds": values,
        }
        for name, values in rates.items()
    }


def known_items(mx: Memex) -> list[tuple[str, str]]:
    """(key phrase, fragment id) pairs, as the module's docstring describes them."""
    sql = "SELECT id, conversation_id, role, content FROM fragments ORDER BY conversation_id, rowid"
    rows = mx.query(sql, None)[1]
    frequency = Counter(w for row in rows for w in set(WORDS.findall(row[3].lower())))
    conversations: dict[str, list[tuple[str, str, str]]] = {}
    for fid, conversation, role, content in rows:
        conversations.setdefault(conversation, []).append((fid, role, content))
    cases = []
    for turns in conversations.values():
        if len(turns) < 3:
            continue
        later = [t for t in turns[1:] if t[1] in ("user", "assistant")]
        for fid, _, text in [t for t in later if len(WORDS.findall(t[2].lower())) >= 8][-5:]:
            words = WORDS.findall(text.lower())
            best = max(
                range(len(words) - 4), key=lambda i: sum(1 / frequency[w] for w in words[i : i + 5])
            )
            cases.append((" ".join(words[best : best + 5]), fid))
    return cases


def known(root: Path) -> dict[str, Any]:
    home = root / "exports-rrf"
    home.mkdir()
    (home / "config.toml").write_text(RRF_CONFIG)
    with Memex(home=home) as mx:
        mx.ingest(data_root() / "exports")
    copy = root / "exports-rerank"
    shutil.copytree(home, copy)
    (copy / "config.toml").write_text(RERANK_CONFIG)
    homes = {"rrf": Memex(home=home), "rerank": Memex(home=copy)}
    cases = known_items(homes["rrf"])
    out: dict[str, Any] = {"queries": len(cases)}
    for name, mx in homes.items():
        ranked = [[r.id for r in mx.search(q, "hybrid", 10)] for q, _ in cases]
        out[name] = {
            "hit@1": sum(ids[:1] == [fid] for ids, (_, fid) in zip(ranked, cases, strict=True))
            / len(cases),
            "hit@10": sum(fid in ids for ids, (_, fid) in zip(ranked, cases, strict=True))
            / len(cases),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("latency", "ingest", "known"))
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--queries", type=int, default=290)
    parser.add_argument("--rounds", type=int, default=6)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="rerank-guard-"))
    try:
        if args.what == "latency":
            figures = latency(root, args.size, args.queries)
        elif args.what == "ingest":
            figures = ingest(root, args.rounds)
        else:
            figures = known(root)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
