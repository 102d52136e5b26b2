"""The ``mcp`` and ``viewer`` surfaces: the isolation home through an agent's tools and pages.

* ``mcp``: the MCP server of ``memex mcp --user alice`` (its tools and scope), built over the
  in-process isolation home and driven through the SDK's in-process client on a blocking
  portal (one event loop in a thread for the whole session, no subprocess).
* ``viewer``: the web viewer on the ``http`` surface's ``memex serve``, signed in with a key
  of alice's made without the corpus (``alice-viewer``), read as a browser reads it.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from types import SimpleNamespace
from typing import Any, ClassVar

import httpx

from tests.isolation.surface_http import Http
from tests.isolation.surfaces import (
    ACCESS_LOG,
    AGENTS_FOR_ANY_USER,
    MEMORY_SEARCH,
    SEARCH_PAGE,
    TOOLS,
    InProcess,
    Surface,
)
from tests.isolation.world import ALICE
from tests.support.server_fixtures import CLIENT_TIMEOUT
from tests.support.viewer_fixtures import post_signin

MCP_ACTOR, VIEWER_ACTOR = "alice-mcp", "alice-viewer"


class McpSession:
    """One in-process MCP client session on a server, called synchronously."""

    def __init__(self, portal: Any, server: Any) -> None:
        from mcp import Client

        self.portal = portal
        self._session: AbstractContextManager[Any] = portal.wrap_async_context_manager(
            Client(server)
        )
        self.client = self._session.__enter__()

    def call(self, tool: str, arguments: dict[str, Any]) -> Any:
        return self.portal.call(self.client.call_tool, tool, arguments)

    def close(self) -> None:
        self._session.__exit__(None, None, None)


def tool_text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if block.type == "text")


class McpResult(SimpleNamespace):
    """What a tool call showed the model: its text, its data, whether it failed."""

    def to_dict(self) -> dict[str, Any]:
        return {"is_error": self.is_error, "text": self.text, "data": self.data}


class Mcp(Surface):
    """``memex mcp --user alice`` (actor ``alice-mcp``) over the in-process home."""

    name: ClassVar[str] = "mcp"
    caps: ClassVar[frozenset[str]] = frozenset(
        {MEMORY_SEARCH, ACCESS_LOG, AGENTS_FOR_ANY_USER, TOOLS}
    )
    id_operations: ClassVar[tuple[str, ...]] = ("get",)
    forged_id_operations: ClassVar[tuple[str, ...]] = ("get",)
    #: An id without the mem_ prefix is a fragment id to the get tool, whose misses are
    #: logged as a get that found nothing (outcome ok), not as a refused read.
    logs_every_miss: ClassVar[bool] = False
    fragment_routes: ClassVar[tuple[str, ...]] = ("get", "timeline")
    note_routes: ClassVar[tuple[str, ...]] = ("explore",)
    collection_calls: ClassVar[tuple[str, ...]] = ("search", "context", "remember")

    def __init__(self, local: InProcess, portal: Any) -> None:
        self.local = local
        self.ids = local.ids
        self.portal = portal
        self.actor = MCP_ACTOR
        self._sessions: dict[tuple[str, str, bool], McpSession] = {}

    def session(self, user: str = ALICE, name: str = MCP_ACTOR, corpus: bool = True) -> McpSession:
        """The session of a server acting for ``user`` (its scope fixed at start-up)."""
        key = (user, name, corpus)
        if key not in self._sessions:
            from memex_mcp.scope import ServerScope
            from memex_mcp.server import build_server
            from memex_mcp.tools import MemexTools

            scope = ServerScope(user=user, name=name, corpus=corpus)
            server = build_server(MemexTools(self.local.mx, scope))
            self._sessions[key] = McpSession(self.portal, server)
        return self._sessions[key]

    def close(self) -> None:
        for session in self._sessions.values():
            session.close()

    def call(self, tool: str, arguments: dict[str, Any], **session: Any) -> McpResult:
        result = self.session(**session).call(tool, arguments)
        return McpResult(
            is_error=bool(result.is_error),
            text=tool_text(result),
            data=result.structured_content,
        )

    def rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return self.local.rows(sql, params)

    def foreign_state(self, *, shared: bool = True) -> dict[str, list[Any]]:
        return self.local.foreign_state(shared=shared)

    def log(self, *, actor: str | None = None, user_id: str | None = None) -> list[dict[str, Any]]:
        entries = [e.to_dict() for e in self.local.mx.catalog.access_log(limit=1_000_000)]
        return [
            e
            for e in entries
            if (actor is None or e["actor"] == actor)
            and (user_id is None or e["user_id"] == user_id)
        ]

    def outcome_of(self, result: object) -> str:
        if not isinstance(result, McpResult):  # hits, already unpacked from a tool result
            return "ok"
        return "ok" if not result.is_error else "not_found"

    def memory_search(self, query: str, **options: Any) -> list[SimpleNamespace]:
        """A search of memory alone (source memory, full text), as memory hits."""
        name = options.pop("name", MCP_ACTOR)
        user = options.pop("user", ALICE)
        arguments = {"query": query, "source": ["memory"], "concise": False, **options}
        found = self.call("search", arguments, user=user, name=name)
        assert not found.is_error, found.text
        return [
            SimpleNamespace(
                memory_id=hit["conversation_id"],
                fragment_id=hit["id"],
                path=None,
                text=hit["content"],
            )
            for hit in found.data["hits"]
        ]

    def refer(self, operation: str, ref: str) -> McpResult:
        assert operation == "get", operation
        return self.call("get", {"ids": [ref]})

    def answer_shape(self, result: object, ref: str) -> tuple[Any, ...]:
        assert isinstance(result, McpResult) and result.is_error, result
        return result.is_error, result.text.replace(repr(ref), "<ref>")

    def echo(self, ref: str) -> str:
        return ref.strip()  # the get tool strips each id

    def is_refusal(self, result: object) -> bool:
        return isinstance(result, McpResult) and result.is_error

    def is_not_found(self, result: object) -> bool:
        return self.is_refusal(result)

    def note_request(self, route: str, name: str) -> McpResult:
        return self.call("explore", {"note": name})

    def note_shape(self, result: object, name: str) -> tuple[Any, ...]:
        assert isinstance(result, McpResult), result
        return result.is_error, result.text.replace(repr(name), "<n>")

    def fragment_shape(self, result: object, ref: str) -> tuple[Any, ...]:
        assert isinstance(result, McpResult), result
        return result.is_error, result.text.replace(ref, "<id>")

    def logged_action(self, operation: str) -> str:
        return "read"

    def fragment_request(self, route: str, fragment: str) -> McpResult:
        if route == "get":
            return self.call("get", {"ids": [fragment]})
        return self.call("timeline", {"fragment_id": fragment})

    def refuse_collection(self, call: str, collection: str) -> None:
        rows = len(self.memory_rows())
        arguments: dict[str, Any] = {
            "search": {"query": "tea"},
            "context": {"query": "tea"},
            "remember": {"text": "Alice likes tea"},
        }[call]
        result = self.call(call, {**arguments, "collection": collection})
        assert result.is_error, result.text
        assert len(self.memory_rows()) == rows


class Viewer(Surface):
    """The viewer's pages on the ``http`` surface's server, as alice's key signs in."""

    name: ClassVar[str] = "viewer"
    caps: ClassVar[frozenset[str]] = frozenset({ACCESS_LOG, SEARCH_PAGE})
    #: (``reopen``: the Reopen button's confirmation page, for a fact a later one closed.)
    id_operations: ClassVar[tuple[str, ...]] = ("get", "forget", "undelete", "reopen")
    fragment_routes: ClassVar[tuple[str, ...]] = ("timeline",)
    collection_calls: ClassVar[tuple[str, ...]] = ("memory-page", "search-page")

    def __init__(self, http: Http, key: str) -> None:
        self.http = http
        self.ids = http.ids
        self.actor = VIEWER_ACTOR
        self.browser = httpx.Client(base_url=http.service.url, timeout=CLIENT_TIMEOUT)
        response = post_signin(self.browser, key)
        assert response.status_code == 303, response.text[:300]

    def close(self) -> None:
        self.browser.close()

    def page(self, path: str, **params: Any) -> httpx.Response:
        response = self.browser.get(path, params=params or None, follow_redirects=False)
        assert response.status_code < 500, (path, response.status_code, response.text[:300])
        assert response.status_code != 303, f"{path}: signed out"
        return response

    def rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return self.http.rows(sql, params)

    def foreign_ids(self) -> set[str]:
        return self.http.foreign_ids()

    def foreign_fragments(self) -> set[str]:
        return self.http.foreign_fragments()

    def foreign_state(self, *, shared: bool = True) -> dict[str, list[Any]]:
        return self.http.foreign_state()

    def log(self, *, actor: str | None = None, user_id: str | None = None) -> list[dict[str, Any]]:
        return self.http.log(actor=actor, user_id=user_id)

    def outcome_of(self, result: object) -> str:
        assert isinstance(result, httpx.Response), result
        return {200: "ok", 404: "not_found", 403: "denied", 422: "invalid"}[result.status_code]

    def refer(self, operation: str, ref: str) -> httpx.Response:
        path = f"/memory/{ref}" if operation == "get" else f"/memory/{ref}/{operation}"
        return self.page(path)

    def answer_shape(self, result: object, ref: str) -> tuple[Any, ...]:
        assert isinstance(result, httpx.Response), result
        assert result.status_code == 404, result.status_code
        return result.status_code, result.text.replace(ref, "<ref>")

    def fragment_shape(self, result: object, ref: str) -> tuple[Any, ...]:
        assert isinstance(result, httpx.Response), result
        return result.status_code, result.text.replace(ref, "<id>")

    def logged_action(self, operation: str) -> str:
        return "read"  # the confirm pages of forget and undelete read the record first

    def fragment_request(self, route: str, fragment: str) -> httpx.Response:
        assert route == "timeline", route
        return self.page(f"/timeline/{fragment}")

    def refuse_collection(self, call: str, collection: str) -> None:
        rows = len(self.memory_rows())
        if call == "memory-page":
            response = self.page("/memory", collection=collection)
        else:
            response = self.page("/", q="tea", mode="keyword", collection=collection)
        assert response.status_code == 422, (call, collection, response.status_code)
        assert len(self.memory_rows()) == rows
