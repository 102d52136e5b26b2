"""The MiniLM query encoder under threads: same vectors, BLAS kept on one thread throughout."""

from __future__ import annotations

import threading

import numpy as np
import pytest

pytest.importorskip("threadpoolctl")

from memex_minilm import blas

WAIT = 10.0


def _blas_threads() -> list[int]:
    """Thread counts of the BLAS libraries the encoder's limit controls (numpy's), read
    now. Not every BLAS in the process: one loaded later (scipy's own OpenBLAS, when an
    earlier test imported scipy) is not numpy's and keeps its own count."""
    controller = blas._blas_controller()
    return [lib["num_threads"] for lib in controller.info()] if controller is not None else []


def test_one_thread_leaving_does_not_lift_the_limit_under_another() -> None:
    np.ones((2, 2)) @ np.ones((2, 2))  # BLAS loaded
    if not _blas_threads():
        pytest.skip("no BLAS library that threadpoolctl controls")
    before = _blas_threads()
    first_in, first_out, second_done = threading.Event(), threading.Event(), threading.Event()
    inside: list[list[int]] = []

    def first() -> None:
        with blas.single_threaded_blas():
            first_in.set()
        first_out.set()

    def second() -> None:
        with blas.single_threaded_blas():
            first_in.wait(WAIT)
            first_out.wait(WAIT)
            inside.append(_blas_threads())  # the first has left; this one is still in
        second_done.set()

    threads = [threading.Thread(target=second), threading.Thread(target=first)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(WAIT)
    assert second_done.is_set()
    assert inside == [[1] * len(before)]
    assert _blas_threads() == before


def test_queries_embedded_on_threads_equal_those_embedded_alone() -> None:
    from memex_minilm.embedder import MiniLMEmbedder

    try:
        embedder = MiniLMEmbedder(backend="numpy")
        embedder.embed_query("warm up")
    except Exception as exc:  # the model package is an optional extra
        pytest.skip(f"MiniLM is not available: {exc}")
    queries = [f"how does the {word} pathway work" for word in ("insulin", "wnt", "notch", "p53")]
    # On the main thread, one at a time. (A thread whose limit another thread's exit had
    # lifted ran its products on two BLAS threads and got vectors ~7e-8 off.)
    alone = {q: embedder.embed_query(q) for q in queries}
    found: dict[str, list[np.ndarray]] = {q: [] for q in queries}
    failures: list[BaseException] = []

    def embed(offset: int) -> None:
        try:
            for n in range(12):
                query = queries[(offset + n) % len(queries)]
                found[query].append(embedder.embed_query(query))
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=embed, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not failures, failures[0]
    for query, vectors in found.items():
        assert vectors and all(np.array_equal(v, alone[query]) for v in vectors)
    later: list[np.ndarray] = []
    thread = threading.Thread(target=lambda: later.append(embedder.embed_query(queries[0])))
    thread.start()
    thread.join(60)
    assert np.array_equal(later[0], alone[queries[0]])  # and alone on a thread of its own
