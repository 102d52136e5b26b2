"""The ``http`` surface: the isolation home behind a real ``memex serve`` on 127.0.0.1.

Alice's agent keys reach it through the Python client (``RemoteAgentMemory``, ``RemoteView``)
and through raw bodies that try what the client would never send. The catalog is read
from the test process (read-only), so the cases check what the server stored without
going through the server.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

import httpx

from memex_client import MemexClient, RemoteAgentMemory
from memex_client.errors import MemexClientError, NotFoundError
from memex_core.errors import MemexError
from tests.isolation.surfaces import (
    ACCESS_LOG,
    AGENTS_FOR_ANY_USER,
    CORPUS_OWNER,
    HANDLE,
    MEMORY_SEARCH,
    PATHS,
    RAW_HTTP,
    Surface,
)
from tests.isolation.world import ALICE_BOT, READABLE
from tests.support.memex_service import Service
from tests.support.server_fixtures import (
    CLIENT_TIMEOUT,
    CatalogReader,
    Raw,
    assert_clean_response,
    error_of,
)

ACME_BOT, MEMORY_ONLY_BOT = "alice-acme", "alice-memory-only"
STATUS_OUTCOMES = {404: "not_found", 403: "denied", 422: "invalid"}


@dataclass
class Http(Surface):
    """Alice's keys (``alice-bot``; ``alice-acme`` bound to collection acme;
    ``alice-memory-only`` without the corpus) on a running server."""

    name: ClassVar[str] = "http"
    caps: ClassVar[frozenset[str]] = frozenset(
        {PATHS, HANDLE, MEMORY_SEARCH, ACCESS_LOG, RAW_HTTP, AGENTS_FOR_ANY_USER}
    )
    id_operations: ClassVar[tuple[str, ...]] = ("get", "forget", "undelete", "links")
    forged_id_operations: ClassVar[tuple[str, ...]] = id_operations
    schema_first: ClassVar[bool] = True
    fragment_routes: ClassVar[tuple[str, ...]] = ("fragments", "timeline", "explore")
    note_routes: ClassVar[tuple[str, ...]] = ("explore",)
    collection_calls: ClassVar[tuple[str, ...]] = (
        "memory-search",
        "memory-list",
        "memory-dream",
        "memory-remember",
        "memory-write",
        "view-search",
        "view-context",
    )  # INVALID_COLLECTION_CALLS' keys
    time_routes: ClassVar[tuple[str, ...]] = ("/v1/memory/search", "/v1/search")
    semantic: ClassVar[bool] = False  # a keyword-only server: semantic search finds nothing

    service: Service
    ids: dict[str, str]
    catalog: CatalogReader
    keys: dict[str, str]
    op: MemexClient = field(init=False)
    op_raw: Raw = field(init=False)
    _clients: dict[str, MemexClient] = field(default_factory=dict)
    _raws: dict[str, Raw] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.op = MemexClient(
            self.service.url, admin_secret=self.service.admin_secret, timeout=CLIENT_TIMEOUT
        )
        self.op_raw = Raw(self.service.url, self.service.admin_secret)
        # Fixed at start: what the home held before any case ran (alice's later writes
        # are hers, so these sets do not change).
        self._foreign_ids = super().foreign_ids()
        self._foreign_fragments = super().foreign_fragments()

    def rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return self.catalog.rows(sql, params)

    def foreign_ids(self) -> set[str]:
        return self._foreign_ids

    def foreign_fragments(self) -> set[str]:
        return self._foreign_fragments

    def foreign_state(self, *, shared: bool = True) -> dict[str, list[Any]]:
        return self.catalog.foreign_state()

    def client(self, name: str = ALICE_BOT) -> MemexClient:
        if name not in self._clients:
            self._clients[name] = MemexClient(
                self.service.url, api_key=self.keys[name], timeout=CLIENT_TIMEOUT
            )
        return self._clients[name]

    def alice(self, name: str = ALICE_BOT) -> RemoteAgentMemory:
        return self.client(name).agent()

    def raw(self, name: str = ALICE_BOT) -> Raw:
        if name not in self._raws:
            self._raws[name] = Raw(self.service.url, self.keys[name])
        return self._raws[name]

    def key_client(self, key: str) -> MemexClient:
        return MemexClient(self.service.url, api_key=key, timeout=CLIENT_TIMEOUT)

    def is_refusal(self, result: object) -> bool:
        if isinstance(result, httpx.Response):  # a raw request: refused by status
            return result.status_code in (404, 422)
        return isinstance(result, MemexClientError) and result.status in (403, 404, 422)

    def is_not_found(self, result: object) -> bool:
        if isinstance(result, httpx.Response):
            return result.status_code == 404
        return isinstance(result, NotFoundError)

    def outcome_of(self, result: object) -> str:
        if isinstance(result, httpx.Response):
            return STATUS_OUTCOMES.get(result.status_code, "ok")
        if isinstance(result, MemexClientError):
            return STATUS_OUTCOMES[result.status]
        assert not isinstance(result, MemexError), result
        return "ok"

    def log(self, *, actor: str | None = None, user_id: str | None = None) -> list[dict[str, Any]]:
        body: dict[str, Any] = {"limit": 1 if actor and not user_id else 10_000}
        if actor:
            body["actor"] = actor
        if user_id:
            body["user_id"] = user_id
        return [
            dict(e) for e in assert_clean_response(self.op_raw.post("/v1/admin/access-log", body))
        ]

    def assert_fragments_confined(self, fragments: list[dict[str, Any]], corpus: bool) -> None:
        allowed = set(READABLE) | ({CORPUS_OWNER} if corpus else set())
        for fragment in fragments:
            assert fragment["owner"] in allowed, fragment
            assert fragment["id"] not in self.foreign_fragments(), fragment

    def fragment_shape(self, response: Any, ref: str) -> tuple[Any, ...]:
        if response.status_code == 200:
            return 200, response.json()
        status, code, message = error_of(response)
        return status, code, message.replace(ref, "<id>")

    def refer(self, operation: str, ref: str) -> object:
        return self.raw().post(f"/v1/memory/{operation}", {"ref": ref})

    def answer_shape(self, result: object, ref: str) -> tuple[Any, ...]:
        status, code, message = error_of(result)  # type: ignore[arg-type]
        assert (status, code) == (404, "not_found"), (status, code, message)
        return status, code, message.replace(repr(ref), "<ref>")

    def fragment_request(self, route: str, fragment: str) -> Any:
        raw = self.raw()
        if route == "fragments":
            return raw.post("/v1/fragments", {"ids": [fragment]})
        if route == "timeline":
            return raw.post("/v1/timeline", {"fragment_id": fragment})
        return raw.post("/v1/explore", {"note": fragment})

    def note_request(self, route: str, name: str) -> Any:
        return self.raw().post("/v1/explore", {"note": name})

    def note_refused(self, result: object) -> bool:
        if result.status_code != 422:  # type: ignore[attr-defined]
            return False
        assert error_of(result)[1] == "invalid_request"  # type: ignore[arg-type]
        return True

    def note_shape(self, result: object, name: str) -> tuple[Any, ...]:
        status, code, message = error_of(result)  # type: ignore[arg-type]
        assert (status, code) == (404, "not_found"), (status, code, message)
        return status, code, message.replace(repr(name), "<n>")

    def refuse_collection(self, call: str, collection: str) -> None:
        route, body = INVALID_COLLECTION_CALLS[call]
        rows = len(self.memory_rows())
        status, code, message = error_of(self.raw().post(route, {**body, "collection": collection}))
        assert (status, code) == (422, "invalid_request"), message
        assert len(self.memory_rows()) == rows


INVALID_COLLECTION_CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "memory-search": ("/v1/memory/search", {"query": "tea"}),
    "memory-list": ("/v1/memory/list", {}),
    "memory-dream": ("/v1/memory/dream", {"dry_run": True}),
    "memory-remember": ("/v1/memory/remember", {"text": "Alice likes tea"}),
    "memory-write": ("/v1/memory/write", {"path": "user/c.md", "content": "x"}),
    "view-search": ("/v1/search", {"query": "tea"}),
    "view-context": ("/v1/context", {"query": "tea"}),
}
