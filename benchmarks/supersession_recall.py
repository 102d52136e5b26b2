"""Benchmark: does superseding (issue 30) cost the memory benchmarks any recall?

Benchmark 9's set (``benchmarks.reworded_facts``: 1,000 distinct facts of 5 users and one
rewording each, 4,940 same-user pairs one slot apart, "likes sushi" / "likes ramen", that
must both stay) remembered as benchmark 9 does (each user's 400 texts one ``remember`` call
each, seeded order, ``consolidate=False``), then ``dream`` per user with the ``rules``
consolidator, in two homes of today's code: the default (``[supersession] use = "rules"``)
and ``use = "none"``. MiniLM + Chroma, with every text's vector taken from the bench vector
cache (``benchmarks/vector_cache.py``) so neither home pays for MiniLM.

Measured in each home, after the remembers and again after the dream: facts closed by
supersession, facts with no current memory left (*lost*), the duplicate rate (benchmark
9's), and recall: each fact asked for by its other wording (``Memex.recall(text,
user=...)``, current facts, hybrid), a hit when a memory stating the fact is first
(recall@1) or in the top 5. Prints JSON.

Each figure names the closings too: whether the closer states the same fact of the set (a
rewording the judge took for a change) or another one.

Standalone: ``nice python -m benchmarks.supersession_recall`` (``--store``: as section 21c
of docs/benchmarks.md, :mod:`benchmarks.fact_updates_cost`).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import fact_updates_cost
from benchmarks.memory_duplicates import COLLECTION, PER_USER, USERS, dream_all, remember_set, state
from benchmarks.remember_cost import embed
from benchmarks.reworded_facts import FactSet, Wording, generate
from memex_core.api import Memex

JUDGES = ("rules", "none")
TOP = 5


def cached_embedder(mx: Memex, vectors: dict[str, np.ndarray]) -> None:
    """Make the home's embedder answer from ``vectors`` (MiniLM for any text it lacks)."""
    embedder: Any = mx.embedder  # its methods are replaced below
    documents, query = embedder.embed_documents, embedder.embed_query

    def embed_documents(texts: list[str]) -> Any:
        missing = [t for t in texts if t not in vectors]
        if missing:
            vectors.update(zip(missing, documents(missing), strict=True))
        return np.stack([vectors[t] for t in texts])

    def embed_query(text: str) -> Any:
        return vectors[text] if text in vectors else query(text)

    embedder.embed_documents = embed_documents
    embedder.embed_query = embed_query


#: How many closings of each kind the figures list by their texts.
EXAMPLES = 5


def closed(home: Path) -> list[tuple[str, str]]:
    """Every closed memory and the memory that closed it."""
    db = sqlite3.connect(home / "catalog.sqlite")
    try:
        rows = db.execute(
            "SELECT id, superseded_by FROM memories WHERE valid_until IS NOT NULL ORDER BY id"
        ).fetchall()
        return [(str(a), str(b)) for a, b in rows]
    finally:
        db.close()


def closings(mx: Memex, home: Path, ledger: Any) -> dict[str, Any]:
    """The closings, by whether the closer states the same fact of the set (a rewording)
    or another one (the set's facts all stand together: it was built for duplicates)."""
    operator = mx.operator()
    same: list[tuple[str, str]] = []
    other: list[tuple[str, str]] = []
    for old, by in closed(home):
        texts = (operator.get(old).content, operator.get(by).content)
        mine, theirs = ledger.fact_of_memory.get(old), ledger.fact_of_memory.get(by)
        (same if mine is not None and mine == theirs else other).append(texts)
    return {
        "closed": len(same) + len(other),
        "closed_same_fact": len(same),
        "closed_other_fact": len(other),
        "same_fact_examples": same[:EXAMPLES],
        "other_fact_examples": other[:EXAMPLES],
    }


def recall(mx: Memex, facts: FactSet, ledger: Any) -> dict[str, float]:
    """Each fact asked for by its other wording: is a memory stating it first, or in the top
    ``TOP``? (A memory states a fact by the ledger: its own, or the one a rewrite moved it to.)"""
    other: dict[str, list[Wording]] = {}
    for wording in facts.wordings():
        other.setdefault(wording.fact_id, []).append(wording)
    first = top = 0
    for fact in facts.facts:
        asked = next(w for w in other[fact.fact_id] if w.text != fact.text).text
        hits = mx.recall(asked, user=fact.user, limit=TOP, collection=COLLECTION)
        stated = [ledger.fact_of(fact.user, h.memory_id, h.text)[0] for h in hits]
        first += bool(stated) and stated[0] == fact.fact_id
        top += fact.fact_id in stated
    count = len(facts.facts)
    return {"recall_at_1": first / count, f"recall_at_{TOP}": top / count, "asked": count}


def figures(mx: Memex, home: Path, facts: FactSet, ledger: Any) -> dict[str, Any]:
    now = state(mx, ledger)
    return {
        **closings(mx, home, ledger),
        "active": now.active,
        "lost": len(now.lost),
        "duplicate_rate": now.rate,
        **recall(mx, facts, ledger),
    }


def measure(root: Path, users: int, per_user: int) -> dict[str, Any]:
    facts = generate(users=users, per_user=per_user)
    texts = list(dict.fromkeys(w.text for w in facts.wordings()))
    vectors = dict(zip(texts, embed(texts), strict=True))
    out: dict[str, Any] = {"facts": len(facts.facts), "texts": len(facts.wordings())}
    for judge in JUDGES:
        home = root / judge
        home.mkdir()
        (home / "config.toml").write_text(f'[supersession]\nuse = "{judge}"\n', encoding="utf-8")
        with Memex(home=home) as mx:
            cached_embedder(mx, vectors)
            started = time.perf_counter()
            ledger = remember_set(mx, facts)
            row: dict[str, Any] = {"remember_s": time.perf_counter() - started}
            row["after_remember"] = figures(mx, home, facts, ledger)
            dreamt = dream_all(mx, ledger, dry_run=False)
            row["dream_s"] = dreamt.seconds
            row["after_dream"] = figures(mx, home, facts, ledger)
        out[judge] = row
    return out


def main(argv: list[str] | None = None) -> None:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", type=int, default=USERS)
    parser.add_argument("--per-user", type=int, default=PER_USER)
    parser.add_argument(
        "--store",
        action="store_true",
        help="store the figures as section 21c of docs/benchmarks.md and reassemble the page",
    )
    args = parser.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="memex-supersession-recall-"))
    started = time.time()
    timer = fact_updates_cost.Timer(" ".join(["python -m benchmarks.supersession_recall", *argv]))
    try:
        result = measure(root, args.users, args.per_user)
        result["wall_s"] = time.time() - started
        result["load_end"] = os.getloadavg()
        print(json.dumps(result, indent=1))
        if args.store:
            run, seconds = timer.finished()
            page = fact_updates_cost.store(fact_updates_cost.recall_section(result), run, seconds)
            print(f"stored section 21c; wrote {page}", file=sys.stderr)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
