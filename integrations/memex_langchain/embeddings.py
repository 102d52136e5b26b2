"""Any LangChain ``Embeddings`` as a memex embedder, registered from code.

>>> from langchain_openai import OpenAIEmbeddings                       # doctest: +SKIP
>>> from memex_core import Memex
>>> from memex_core.plugins import load_registry
>>> registry = load_registry()
>>> embeddings = OpenAIEmbeddings(model="text-embedding-3-small")     # doctest: +SKIP
>>> name = register_embeddings(registry, embeddings, name="openai-3-small")  # doctest: +SKIP
>>> mx = Memex(home, registry=registry, config=with_embedder(home, name))  # doctest: +SKIP

memex's :class:`~memex_core.domain.Embedder` contract is a ``name`` and a
``dimension`` (both recorded in the catalog next to the vectors, so a later
run with another model is refused instead of mixing vector spaces),
``embed_documents`` and ``embed_query``, both L2-normalised. LangChain
embeddings have the two methods but neither attribute, and many (fakes, some
local models) do not normalise; :class:`LangChainEmbedder` supplies the rest.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings

from memex_core.config import Config, load_config
from memex_core.domain import PluginContext
from memex_core.errors import MemexError
from memex_core.hookspecs import hookimpl
from memex_core.plugins import PluginRegistry

#: Text embedded once to learn the dimension of a model that does not say it.
_PROBE = "memex dimension probe"


def _normalised(vector: Sequence[float]) -> list[float]:
    values = [float(x) for x in vector]
    norm = math.sqrt(math.fsum(x * x for x in values))
    return [x / norm for x in values] if norm else values


class LangChainEmbedder:
    """Adapts a LangChain ``Embeddings`` to memex's ``Embedder`` contract.

    ``name`` identifies the vectors in the catalog: change it when you change
    the model (``memex rebuild --vectors`` re-embeds with the new one).
    ``dimension`` is probed with one embedding call the first time it is read
    unless given, or unless the model has a ``dimensions``/``size`` attribute.
    """

    def __init__(self, embeddings: Embeddings, name: str, dimension: int | None = None) -> None:
        if not name:
            raise MemexError("an embedder needs a name, e.g. name='openai-text-embedding-3-small'")
        self.embeddings = embeddings
        self.name = name
        self._dimension = dimension or _declared_dimension(embeddings)

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            self._dimension = len(self.embeddings.embed_query(_PROBE))
        return self._dimension

    def _checked(self, vectors: Sequence[Sequence[float]], texts: int) -> list[list[float]]:
        if len(vectors) != texts:
            raise MemexError(
                f"embedder {self.name!r} returned {len(vectors)} vectors for {texts} texts; "
                "check the LangChain embeddings model."
            )
        out = [_normalised(v) for v in vectors]
        for vector in out:
            if len(vector) != self.dimension:
                raise MemexError(
                    f"embedder {self.name!r} returned a {len(vector)}-dimensional vector, "
                    f"expected {self.dimension}. Pass the model's dimension to "
                    "register_embeddings(..., dimension=N) or fix the model's settings."
                )
        return out

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        return self._checked(self.embeddings.embed_documents(list(texts)), len(texts))

    def embed_query(self, text: str) -> list[float]:
        return self._checked([self.embeddings.embed_query(text)], 1)[0]

    def __repr__(self) -> str:
        return f"LangChainEmbedder({type(self.embeddings).__name__}, name={self.name!r})"


def _declared_dimension(embeddings: Embeddings) -> int | None:
    """The dimension a model states (``dimensions`` on OpenAI's, ``size`` on the fakes)."""
    for attribute in ("dimensions", "size"):
        value = getattr(embeddings, attribute, None)
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


class _EmbeddingsPlugin:
    """A plugin registered from code whose one embedder is ``embedder``."""

    def __init__(self, embedder: LangChainEmbedder) -> None:
        self.embedder = embedder

    @hookimpl
    def register_embedders(self, register: Any) -> None:
        embedder = self.embedder

        def build(context: PluginContext) -> LangChainEmbedder:
            return embedder

        register(
            embedder.name,
            build,
            description=f"LangChain {type(embedder.embeddings).__name__} (from code)",
        )


def register_embeddings(
    registry: PluginRegistry,
    embeddings: Embeddings,
    *,
    name: str,
    dimension: int | None = None,
) -> str:
    """Register ``embeddings`` in ``registry`` as the memex embedder ``name``; returns ``name``.

    Select it with ``[embedder] use = "<name>"`` in the home's config.toml, or
    from code with :func:`with_embedder`, and pass the same ``registry`` to
    ``Memex(..., registry=registry)``.
    """
    embedder = LangChainEmbedder(embeddings, name, dimension)
    plugin_name = f"langchain-embeddings:{name}"
    if registry.manager.get_plugin(plugin_name) is not None:
        raise MemexError(
            f"An embedder named {name!r} is already registered in this registry. Pick another "
            "name, or use a fresh registry (memex_core.plugins.load_registry())."
        )
    registry.register_plugin(_EmbeddingsPlugin(embedder), name=plugin_name)
    return name


def with_embedder(home: str | Path | None, name: str, config: Config | None = None) -> Config:
    """The home's configuration (or ``config``) with the embedder role set to ``name``."""
    base = config or load_config(home)
    return dataclasses.replace(base, components={**base.components, "embedder": name})
