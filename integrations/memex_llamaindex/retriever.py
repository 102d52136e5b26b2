"""``MemexRetriever``: memex's hybrid search as a LlamaIndex retriever.

>>> retriever = MemexRetriever(Memex(), similarity_top_k=5)          # doctest: +SKIP
>>> for hit in retriever.retrieve("sqlite database is locked"):      # doctest: +SKIP
...     print(hit.score, hit.node.metadata["title"], hit.node.node_id)

Every search goes through an :class:`~memex_core.agent_view.AgentView`, so the
retriever reads exactly the scope it was built with: the operator's corpus
(``corpus=True``) and, with a ``user``, that user's and shared memory,
optionally narrowed to a ``collection``. LlamaIndex's ``retrieve`` takes only
a query, so the scope cannot change per call; build another retriever (they
are cheap) for another user.

``memex`` may be a ``memex_client.MemexClient`` of a ``memex serve`` instead of
a local ``Memex``: ``MemexRetriever(MemexClient(url, api_key=KEY))`` searches
the key's user's scope (naming another user is refused when it is built).
"""

from __future__ import annotations

from llama_index.core.base.base_retriever import BaseRetriever
from llama_index.core.callbacks.base import CallbackManager
from llama_index.core.schema import NodeWithScore, QueryBundle

from memex_core.api import MODES, TimeBound
from memex_core.errors import MemexError
from memex_core.memex_like import MemexLike, ViewLike, acting_user
from memex_core.threads import acall, call, reads
from memex_llamaindex.filters import Filters, filter_options
from memex_llamaindex.nodes import to_node

DEFAULT_NAME = "llamaindex"  # how the access log names this agent


class MemexRetriever(BaseRetriever):
    """Retrieve memex fragments as ``NodeWithScore`` (id = fragment id, score = fused score).

    Args:
        memex: the memex home to search: a ``Memex``, or a ``memex_client.MemexClient``
            of a ``memex serve`` (its agent key fixes the user).
        similarity_top_k: how many nodes to return.
        mode: ``"hybrid"`` (BM25 and embeddings fused by RRF), ``"keyword"`` or
            ``"semantic"``.
        filters: a dict of ``source``, ``conversation``, ``role``, ``since``, ``until``,
            ``tag`` (as :func:`memex_core.api.make_filters` takes them), or LlamaIndex
            ``MetadataFilters`` on ``source_kind``, ``conversation_id``, ``role``,
            ``timestamp`` and ``tags`` (a note's tags; ``project`` matches
            ``project/memex``).
        user: also search this user's memory (and shared memory). Without one the
            retriever reads the corpus only.
        collection: only memory in this collection and below (the corpus has no
            collections, so it drops out); needs ``user``.
        corpus: whether the operator's ingested corpus is searched.
        include_private: include the user's memory marked private.
        time_phrases: read "last week", "in March" in a query as a time filter.
        as_of: the user's remembered facts as they stood then (a datetime, ISO 8601 date
            or time, or epoch seconds), superseded ones included; default: current facts
            only (a fact a later one replaced is left out).
        include_superseded: every remembered fact, superseded ones too.
        agent_name: the name the access log files searches under.
    """

    def __init__(
        self,
        memex: MemexLike,
        *,
        similarity_top_k: int = 10,
        mode: str = "hybrid",
        filters: Filters | None = None,
        user: str | None = None,
        collection: str | None = None,
        corpus: bool = True,
        include_private: bool = False,
        time_phrases: bool = True,
        as_of: TimeBound = None,
        include_superseded: bool = False,
        agent_name: str = DEFAULT_NAME,
        callback_manager: CallbackManager | None = None,
        verbose: bool = False,
    ) -> None:
        if mode not in MODES:
            raise MemexError(f"Unknown search mode {mode!r}: use one of {', '.join(MODES)}.")
        if isinstance(similarity_top_k, bool) or not isinstance(similarity_top_k, int):
            raise MemexError(f"similarity_top_k must be a whole number, not {similarity_top_k!r}")
        if similarity_top_k < 1:
            raise MemexError("similarity_top_k must be at least 1")
        user = acting_user(memex, user, what="This MemexRetriever")
        if collection and user is None:
            raise MemexError(
                "A collection names memory, which belongs to a user: pass user= as well "
                "(the corpus has no collections)."
            )
        if not corpus and user is None:
            raise MemexError(
                "Nothing to search: corpus=False leaves only memory, which needs a user."
            )
        super().__init__(callback_manager=callback_manager, verbose=verbose)
        self.memex = memex
        self.similarity_top_k = similarity_top_k
        self.mode = mode
        self.include_private = include_private
        self.time_phrases = time_phrases
        self.as_of = as_of
        self.include_superseded = include_superseded
        self._filter_options = filter_options(filters)
        # Built once: it validates user and collection now, and holds no per-query state.
        self._view: ViewLike = memex.view(
            user=user, name=agent_name, collection=collection or "", corpus=corpus
        )

    @property
    def user(self) -> str | None:
        return self._view.user_id

    @property
    def collection(self) -> str:
        return self._view.collection

    @property
    def corpus(self) -> bool:
        return self._view.corpus

    def __repr__(self) -> str:
        return (
            f"MemexRetriever(user={self.user!r}, collection={self.collection!r}, "
            f"corpus={self.corpus}, mode={self.mode!r}, similarity_top_k={self.similarity_top_k})"
        )

    @reads  # alongside other searches on the same Memex (memex_core.threads)
    def _search(self, query: str) -> list[NodeWithScore]:
        # An empty query raises EmptyQueryError: ranking against nothing is noise.
        found = self._view.search(
            query,
            self.mode,
            self.similarity_top_k,
            include_private=self.include_private,
            time_phrases=self.time_phrases,
            as_of=self.as_of,
            include_superseded=self.include_superseded,
            **self._filter_options,
        )
        return [to_node(result) for result in found]

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return call(self.memex, self._search, query_bundle.query_str)

    async def _aretrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        # memex is synchronous (SQLite, an embedder): run it off the event loop.
        return await acall(self.memex, self._search, query_bundle.query_str)


__all__ = ["MemexRetriever"]
