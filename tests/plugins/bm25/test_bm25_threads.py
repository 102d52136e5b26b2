"""BM25Store under threads: searches run together and never see half a write."""

from __future__ import annotations

import threading
from pathlib import Path

from memex_bm25.store import BM25Store
from memex_core.domain import SearchFilters
from tests.support.catalog_builders import text_fragment

BATCH = 10
ROUNDS = 24
READERS = 6


def test_searches_during_adds_deletes_and_flushes_see_whole_writes(tmp_path: Path) -> None:
    store = BM25Store(tmp_path / "bm25")
    base = [text_fragment(f"a{n}", f"alpha note {n} " + "filler " * (n % 7)) for n in range(200)]
    store.add(base)
    store.flush()
    other = BM25Store(tmp_path / "bm25")  # a second store on the folder: reloads flushes
    alpha_ids = {f.id for f in base}
    failures: list[BaseException] = []
    seen_beta: set[int] = set()
    stop = threading.Event()

    def write() -> None:
        try:
            for round_ in range(ROUNDS):
                batch = [text_fragment(f"b{round_}-{n}", f"beta item {n}") for n in range(BATCH)]
                store.add(batch)  # buffered: a search takes it in, whole
                if round_ % 3 == 0:
                    store.flush()  # the other store loads the new generation mid-stream
                store.delete([f.id for f in batch])
                if round_ % 5 == 0:
                    store.flush()
        except BaseException as exc:
            failures.append(exc)
        finally:
            stop.set()

    def read(index: BM25Store) -> None:
        try:
            while not stop.is_set():
                alpha = index.search("alpha note", 500, SearchFilters(owners=("",)))
                assert {h.id for h in alpha} == alpha_ids
                scores = [h.score for h in alpha]
                assert scores == sorted(scores, reverse=True)
                beta = index.search("beta", 100, SearchFilters())
                assert len(beta) in (0, BATCH), [h.id for h in beta]
                assert len({h.id.split("-")[0] for h in beta}) <= 1  # one batch at a time
                seen_beta.add(len(beta))
                shares = index.query_share("alpha note", [h.id for h in alpha[:40]])
                assert len(shares) == min(40, len(alpha))
                assert all(0.0 < share <= 1.0 for share in shares.values())
        except BaseException as exc:
            failures.append(exc)
            stop.set()

    threads = [threading.Thread(target=write)]
    threads += [
        threading.Thread(target=read, args=(store if n % 2 else other,)) for n in range(READERS)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert not failures, failures[0]
    assert BATCH in seen_beta  # the readers did run while batches were in
    store.flush()
    assert other.count() == store.count() == len(base)
