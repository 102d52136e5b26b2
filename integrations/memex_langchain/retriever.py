"""``MemexRetriever``: memex search as a LangChain retriever.

>>> from memex_core import Memex
>>> from memex_langchain import MemexRetriever
>>> retriever = MemexRetriever(memex=Memex("~/.memex"), k=4, user="alice")  # doctest: +SKIP
>>> retriever.invoke("why was sqlite locked?", mode="keyword", since="last month")  # doctest: +SKIP

Every read goes through :meth:`memex_core.api.Memex.view`, which carries the
owner restriction into the indexes and checks each result again, so what a
retriever may return is decided by its scope (see :mod:`memex_langchain.scope`)
and nothing a call passes can reach past it.

``memex`` may also be a ``memex_client.MemexClient`` connected to ``memex serve``
(one changed line: ``memex=MemexClient(url, api_key=KEY)``). Its agent key then fixes
the user: a retriever without a user reads as the key's user, and one naming
another user is refused (:class:`~memex_langchain.scope.ScopeError`).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any, Literal

from langchain_core.callbacks import (
    AsyncCallbackManagerForRetrieverRun,
    CallbackManagerForRetrieverRun,
)
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever, LangSmithRetrieverParams
from pydantic import ConfigDict, Field, PrivateAttr, SkipValidation

from memex_core.api import MODES, Memex, TimeBound
from memex_core.domain.memory.namespaces import validate_collection
from memex_core.domain.memory.paths import validate_user_id
from memex_core.memex_like import MemexLike, acting_user
from memex_core.threads import reading
from memex_langchain.documents import to_document
from memex_langchain.scope import CallScope, ScopeError, narrow

Mode = Literal["hybrid", "keyword", "semantic"]
Filter = str | list[str] | tuple[str, ...] | None

#: Per-call keyword arguments and what they set (anything else is a TypeError).
SEARCH_ARGS = ("k", "mode", "time_phrases", "tool_call_id")
FILTER_ARGS = (
    "source",
    "conversation",
    "role",
    "since",
    "until",
    "tag",
    "as_of",
    "include_superseded",
)
SCOPE_ARGS = ("user", "collection", "corpus", "include_private")
#: Passed by ``BaseRetriever.invoke`` itself; not ours to act on.
IGNORED_ARGS = ("verbose",)


class MemexRetriever(BaseRetriever):
    """Hybrid (BM25 + embeddings, fused by RRF), keyword or semantic search over a memex home.

    Give ``memex`` (an open :class:`~memex_core.api.Memex`, shared and reused, or a
    ``memex_client.MemexClient`` of a ``memex serve``) or ``home`` (a ``MEMEX_HOME``
    folder this retriever opens on first use; neither: ``$MEMEX_HOME`` or ``~/.memex``).

    Every field below except ``memex``/``home`` can also be passed to ``invoke``,
    ``ainvoke`` and ``batch`` as a keyword argument for one call:
    ``retriever.invoke("query", k=8, mode="keyword", role="user")``. Filters and
    search settings replace the field for that call; the scope (``user``,
    ``collection``, ``corpus``, ``include_private``) can only be narrowed by a
    call (see :mod:`memex_langchain.scope`).

    Each ``Document`` has the fragment id as ``id``, the fragment text as
    ``page_content`` and flat metadata: provenance, the fused ``score`` and each
    signal's ``<signal>_rank`` and ``<signal>_score`` (see
    :mod:`memex_langchain.documents`).
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    memex: SkipValidation[MemexLike | None] = Field(default=None, exclude=True)
    """An open Memex, or a ``MemexClient`` of a ``memex serve``, to search (takes
    precedence over ``home``)."""
    home: Path | None = None
    """A MEMEX_HOME to open when ``memex`` is not given (default: ``$MEMEX_HOME``)."""

    k: int = Field(default=4, ge=1)
    """How many documents to return."""
    mode: Mode = "hybrid"
    """``hybrid`` (keyword and semantic fused), ``keyword`` (BM25) or ``semantic``."""
    time_phrases: bool = True
    """Read "last week", "in March"... in a query as a time filter (when none is set)."""

    source: Filter = None
    """Only these source kinds (``chatgpt``, ``claude_code``, ``obsidian``, ``memory``...)."""
    conversation: Filter = None
    """Only these conversations, notes or memories (by id)."""
    role: Filter = None
    """Only these roles (``user``, ``assistant``, ``system``, ``tool``, ``note``)."""
    since: TimeBound = None
    """Only fragments from this time on: epoch seconds, a date, ``2024-03-01``, ``last week``."""
    until: TimeBound = None
    """Only fragments up to this time (a day includes all of it)."""
    tag: Filter = None
    """Only notes with these tags or a tag nested under one (``project`` matches
    ``#project/memex``)."""
    as_of: TimeBound = None
    """Remembered facts as they stood then (a datetime, ISO 8601 date or time, or epoch
    seconds): those valid at that time, superseded ones included. None: current facts
    only (a fact a later one replaced is left out)."""
    include_superseded: bool = False
    """Every remembered fact, superseded ones too."""

    user: str | None = None
    """Read this user's memory and shared memory too; binds the retriever to that user.
    None: the corpus only, unless a call names a user."""
    collection: str = ""
    """Only memory in this collection and below (``acme:support``); the corpus has no
    collection, so a collection leaves it out. ``""``: no restriction."""
    corpus: bool = True
    """Read the operator's ingested corpus (exports, transcripts, vaults)."""
    include_private: bool = False
    """Include the user's memories marked private."""
    agent_name: str = "langchain"
    """The name this retriever's reads are logged under in the memory access log."""

    _opened: Memex | None = PrivateAttr(default=None)

    def model_post_init(self, context: Any, /) -> None:
        if self.memex is not None and not callable(getattr(self.memex, "view", None)):
            raise TypeError(
                f"memex must be a Memex or a memex_client.MemexClient, not "
                f"{type(self.memex).__name__}"
            )
        if self.user is not None:
            validate_user_id(self.user)
        validate_collection(self.collection)

    # -- memex ------------------------------------------------------------------------------

    def _memex(self) -> MemexLike:
        if self.memex is not None:
            return self.memex
        if self._opened is None:
            self._opened = Memex(self.home)
        return self._opened

    def _get_ls_params(self, **kwargs: Any) -> LangSmithRetrieverParams:
        params = super()._get_ls_params(**kwargs)
        params["ls_retriever_name"] = "memex"
        return params

    # -- search -----------------------------------------------------------------------------

    def search(self, query: str, **kwargs: Any) -> list[Document]:
        """What ``invoke`` does, without callbacks: the documents for ``query``."""
        unknown = set(kwargs) - {*SEARCH_ARGS, *FILTER_ARGS, *SCOPE_ARGS, *IGNORED_ARGS}
        if unknown:
            allowed = ", ".join((*SEARCH_ARGS, *FILTER_ARGS, *SCOPE_ARGS))
            raise TypeError(
                f"MemexRetriever got unexpected keyword argument(s) {', '.join(sorted(unknown))}; "
                f"it takes {allowed}."
            )
        k = kwargs.get("k", self.k)
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise ValueError(f"k must be a whole number of at least 1, not {k!r}")
        mode = kwargs.get("mode", self.mode)
        if mode not in MODES:
            raise ValueError(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
        scope = narrow(
            CallScope(self.user, self.collection, self.corpus, self.include_private),
            **{name: kwargs[name] for name in SCOPE_ARGS if name in kwargs},
        )
        filters = {name: kwargs.get(name, getattr(self, name)) for name in FILTER_ARGS}
        filters = {name: value for name, value in filters.items() if value is not None}
        memex = self._memex()
        # A remote memex's credentials decide the user: an agent key reads for its own.
        user = acting_user(memex, scope.user, what="This MemexRetriever", error=ScopeError)
        with reading(memex):  # alongside other searches, never beside a write
            view = memex.view(
                user, name=self.agent_name, collection=scope.collection, corpus=scope.corpus
            )
            found = view.search(
                query,
                mode,
                k,
                include_private=scope.include_private,
                time_phrases=kwargs.get("time_phrases", self.time_phrases),
                tool_call_id=kwargs.get("tool_call_id"),
                **filters,
            )
        return [to_document(r, mode=mode, user_id=user) for r in found.results[:k]]

    def _get_relevant_documents(
        self, query: str, *, run_manager: CallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        return self.search(query, **kwargs)

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun, **kwargs: Any
    ) -> list[Document]:
        # memex has no async API: its search is SQLite, BM25 and an embedder, all blocking.
        # A worker thread keeps the event loop free; the per-Memex lock serialises calls.
        return await asyncio.to_thread(self.search, query, **kwargs)
