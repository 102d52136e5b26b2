"""``MemexClient``: a remote memex with the handles of the local one.

>>> alice = MemexClient("http://127.0.0.1:8765", api_key=KEY).agent()      # doctest: +SKIP
>>> alice.remember("Alice prefers tea")                                    # doctest: +SKIP
>>> ops = MemexClient("http://127.0.0.1:8765", admin_secret=S).operator()  # doctest: +SKIP
>>> ops.history("mem_...")                                                 # doctest: +SKIP

The LangChain and LlamaIndex adapters and ``memex mcp --url`` take a client where
they take a local ``Memex``: both have ``view(user, ...)``.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import httpx

from memex_client.errors import AuthenticationError, MemexClientError
from memex_client.handles import RemoteAgentMemory, RemoteOperatorMemory, RemoteView
from memex_client.transport import Transport, decode
from memex_core.closing import ClosesOnExit
from memex_core.domain.agent_keys import AgentKey
from memex_core.domain.memory.records import MemoryRecord
from memex_core.domain.results import CorpusStats, IngestReport
from memex_core.handles import MemoryHit, RememberResult
from memex_core.memex_like import ViewOpener

URL_ENV = "MEMEX_URL"
API_KEY_ENV = "MEMEX_API_KEY"


@dataclass(frozen=True)
class RemoteFactType:
    """A fact kind the server's ``remember`` accepts (``mx.fact_types()`` items' name)."""

    name: str


@dataclass(frozen=True)
class Identity:
    """What the client's credentials reach (``GET /v1/whoami``)."""

    kind: str  # "agent" or "operator"
    name: str
    user_id: str | None
    collection: str
    corpus: bool
    key_id: str | None = None


class MemexClient(ViewOpener[RemoteView], ClosesOnExit):
    """A connection to one ``memex serve``, with an agent key or the operator secret.

    ``url`` and ``api_key`` default to ``$MEMEX_URL`` and ``$MEMEX_API_KEY``.
    Credentials that the server refuses raise :class:`~memex_client.AuthenticationError`.
    """

    def __init__(
        self,
        url: str | None = None,
        *,
        api_key: str | None = None,
        admin_secret: str | None = None,
        timeout: float = 30.0,
        http_client: httpx.Client | None = None,
    ) -> None:
        url = url or os.environ.get(URL_ENV, "")
        if not url:
            raise MemexClientError(
                f"Say where memex serves: MemexClient('http://127.0.0.1:8765', ...) or ${URL_ENV}.",
                code="no_url",
            )
        if api_key is None and admin_secret is None:
            api_key = os.environ.get(API_KEY_ENV) or None
        if (api_key is None) == (admin_secret is None):
            raise MemexClientError(
                "Give exactly one credential: api_key= (an agent key from `memex keys "
                f"create`, or ${API_KEY_ENV}) or admin_secret= (the operator secret).",
                code="no_credentials",
            )
        self.url = url.rstrip("/")
        self._is_operator = admin_secret is not None
        token = admin_secret if admin_secret is not None else api_key
        assert token is not None
        self._t = Transport(self.url, token, timeout=timeout, client=http_client)
        self._identity: Identity | None = None
        # Integrations hold a Memex's call_lock around calls; HTTP needs no such lock.
        self.call_lock = contextlib.nullcontext()

    def __repr__(self) -> str:
        kind = "operator" if self._is_operator else "agent key"
        return f"MemexClient({self.url!r}, {kind})"

    def close(self) -> None:
        self._t.close()

    # -- who --------------------------------------------------------------------------------

    def whoami(self) -> Identity:
        """What the credentials reach; raises AuthenticationError if they are refused."""
        if self._identity is None:
            self._identity = Identity(**self._t.get("/v1/whoami"))
        return self._identity

    def health(self) -> dict[str, Any]:
        return dict(self._t.get("/healthz", authenticated=False))

    def ready(self) -> dict[str, Any]:
        """``/readyz``: whether the catalog answers and the indexes caught up (no raise on
        503: the report says why)."""
        try:
            return dict(self._t.get("/readyz", authenticated=False))
        except MemexClientError as exc:
            return {"ready": False, "error": str(exc)}

    def _agent_identity(self) -> Identity:
        identity = self.whoami()
        if identity.kind != "agent" or identity.user_id is None:
            raise AuthenticationError(
                "These are operator credentials: use client.operator(), or "
                "client.operator().agent(user) to act for one user.",
                code="agent_only",
            )
        return identity

    # -- handles ----------------------------------------------------------------------------

    def agent(self, user: str | None = None) -> RemoteAgentMemory:
        """The key's user's memory: ``mx.agent(user)`` with the user fixed by the key.
        Naming another user raises :class:`~memex_client.PermissionDeniedError`."""
        identity = self._agent_identity()
        self._same_user(identity, user)
        assert identity.user_id is not None
        return RemoteAgentMemory(
            self._t, identity.user_id, name=identity.name, collection=identity.collection
        )

    def _view(self, user: str | None, name: str, collection: str, corpus: bool) -> RemoteView:
        # view() is ViewOpener's: mx.view(user), what the credentials reach.
        if self._is_operator:
            memory = None if user is None else self.operator().agent(user, name=name)
            return RemoteView(self._t, memory, collection=collection, corpus=corpus, act_as=user)
        identity = self._agent_identity()
        self._same_user(identity, user)
        memory = None
        if user is not None:
            memory = RemoteAgentMemory(
                self._t, identity.user_id or user, name=identity.name, collection=collection
            )
        return RemoteView(self._t, memory, collection=collection, corpus=corpus)

    @staticmethod
    def _same_user(identity: Identity, user: str | None) -> None:
        if user is not None and user != identity.user_id:
            from memex_client.errors import PermissionDeniedError

            raise PermissionDeniedError(
                f"This key acts for user {identity.user_id!r}, not {user!r}: ask the operator "
                f"for a key of {user!r}'s.",
                status=403,
                code="forbidden",
            )

    def operator(self, name: str = "operator", *, collection: str = "") -> RemoteOperatorMemory:
        """``mx.operator()``: every user's memory (needs the operator secret)."""
        if not self._is_operator:
            from memex_client.errors import PermissionDeniedError

            raise PermissionDeniedError(
                "An agent key cannot act as the operator: use admin_secret=.",
                status=403,
                code="operator_only",
            )
        return RemoteOperatorMemory(self._t, name=name, collection=collection)

    # -- facts over time (Memex.remember / recall / history) ---------------------------------

    def _memory(self, user: str | None) -> RemoteAgentMemory | RemoteOperatorMemory:
        """An agent key's own memory; with the operator secret, ``user``'s (or everyone's)."""
        if self._is_operator:
            return self.operator() if user is None else self.operator().agent(user)
        return self.agent(user)

    def remember(
        self,
        text: str | None = None,
        *,
        user: str | None = None,
        at: Any = None,
        consolidate: bool = False,
        **options: Any,
    ) -> RememberResult:
        """``Memex.remember``: a fact as said at ``at`` (a datetime, date, ISO 8601 text or
        epoch seconds; default now). A fact updating an earlier one closes it from then.
        ``user`` is the key's own (naming another raises PermissionDeniedError); the
        operator must name one."""
        if self._is_operator and user is None:
            raise MemexClientError(
                "Say whose fact this is: client.remember(text, user=...) with the operator secret.",
                code="no_user",
            )
        return self._memory(user).remember(text, at=at, consolidate=consolidate, **options)

    def recall(
        self,
        query: str,
        *,
        user: str | None = None,
        as_of: Any = None,
        include_superseded: bool = False,
        **options: Any,
    ) -> list[MemoryHit]:
        """``Memex.recall``: current facts; those valid at ``as_of`` (a datetime, date,
        ISO 8601 text or epoch seconds); or with ``include_superseded`` every fact, each
        hit with its validity."""
        return self._memory(user).search(
            query, as_of=as_of, include_superseded=include_superseded, **options
        )

    def history(self, memory_id: str, *, user: str | None = None) -> list[MemoryRecord]:
        """``Memex.history``: the chain of facts ``memory_id`` belongs to, oldest first
        (Paris -> Berlin), each with its validity. A memory's revisions are
        ``client.operator().history(id)``."""
        return self._memory(user).chain(memory_id)

    def fact_types(self) -> list[RemoteFactType]:
        """The kinds ``remember`` accepts on this server."""
        return [RemoteFactType(n) for n in self._t.get("/v1/fact-types")]

    # -- operator ---------------------------------------------------------------------------

    def create_key(
        self, user: str, *, name: str, collection: str = "", corpus: bool = True
    ) -> dict[str, Any]:
        """A new agent key: ``{"key": ..., "user": ..., "name": ..., "id": ...}``."""
        body = {"user": user, "name": name, "collection": collection, "corpus": corpus}
        return dict(self._t.post("/v1/admin/keys", body))

    def list_keys(self, *, include_revoked: bool = False) -> list[AgentKey]:
        found = self._t.get("/v1/admin/keys", params={"include_revoked": include_revoked})
        return decode(list[AgentKey], found)

    def revoke_key(self, key: str) -> AgentKey:
        return decode(AgentKey, self._t.post("/v1/admin/keys/revoke", {"key": key}))

    def ingest(self, path: str | Path) -> IngestReport:
        """Upload an export (a file) and ingest it on the server."""
        source = Path(path)
        with source.open("rb") as data:
            found = self._t.request(
                "POST", "/v1/admin/ingest", params={"filename": source.name}, content=data
            )
        return decode(IngestReport, found)

    def export_archive(
        self,
        target: str | Path | IO[bytes],
        *,
        user: str | None = None,
        collection: str | None = None,
        source: str | None = None,
        since: Any = None,
        until: Any = None,
        with_log: bool = True,
    ) -> int:
        """Download an archive (``memex export``'s zip) to ``target``, a path or a binary
        file, as it streams; returns its size in bytes. The operator: the whole memex or
        the part the filters name. An agent key: its own user's memory, revisions and the
        access-log entries about them (naming another user raises PermissionDeniedError)."""
        from memex_client.archives import download_archive

        filters = {"collection": collection, "source": source, "since": since, "until": until}
        if not self._is_operator:
            if user is not None:
                self._same_user(self._agent_identity(), user)
            if any(value is not None for value in filters.values()):
                raise MemexClientError(
                    "An agent key exports its user's memory whole: give no collection, "
                    "source, since or until (the operator's export takes them).",
                    code="invalid_request",
                )
        filters["user"] = user
        return download_archive(
            self._t, target, operator=self._is_operator, with_log=with_log, filters=filters
        )

    def import_archive(
        self, source: str | Path | IO[bytes], *, dry_run: bool = False
    ) -> dict[str, Any]:
        """Upload an archive for the server to import (operator only); returns the report
        ``memex import --format json`` gives: rows added per table, conflicts, refusals."""
        from memex_client.archives import upload_archive

        return upload_archive(self._t, source, dry_run=dry_run)

    def stats(self) -> CorpusStats:
        return decode(CorpusStats, self._t.get("/v1/admin/stats"))
