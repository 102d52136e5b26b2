"""Shared pieces of the ``memex serve`` tests (``tests/test_server_*.py``).

The servers are real: ``python -m memex_core --home H serve --port 0`` in a subprocess
(:func:`tests.support.memex_service.running_service`), reached over loopback HTTP with the
Python client and with raw ``httpx`` requests. The homes are keyword-only
(``[embedder] use = "none"``) so a server starts in about a second without a model.

:func:`build_isolation_service_home` builds the isolation home of ``tests/isolation/world.py``
(bob's and carol's memories with their canaries, the operator's corpus fragment) on disk;
:class:`CatalogReader` reads its catalog read-only from the test process while the server
runs, so the tests can check what the server stored without going through the server.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from memex_core.api import Memex
from memex_core.handles import SHARED_WRITE_ENV
from tests.support.memex_service import Service, running_service

#: Generous: a loaded CI machine (or one shared with other test runs) answers slowly.
CLIENT_TIMEOUT = 120.0
KEYWORD_ONLY_CONFIG = '[embedder]\nuse = "none"\n'

#: Text that must never be in a response: a Python traceback or a frame of one.
TRACEBACK_MARKERS = ("Traceback (most recent call last)", 'File "', '.py", line ')


def keyword_only_home(home: Path) -> Path:
    """An empty home whose searches need no embedding model."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(KEYWORD_ONLY_CONFIG, encoding="utf-8")
    return home


def source_roots() -> tuple[str, ...]:
    """Where the server's code lives: no response may name these directories."""
    import memex_core
    import memex_server

    files = [str(m.__file__) for m in (memex_core, memex_server)]
    roots = {str(Path(f).resolve().parent) for f in files} | {str(Path(f).parent) for f in files}
    return tuple(sorted(roots))


def assert_clean_response(response: httpx.Response) -> Any:
    """Every response: JSON, no traceback, no source path, never a 500; an error has the
    ``{"error": {"code", "message"}}`` shape with a message (never an empty one). Returns the
    decoded body."""
    text = response.text
    for marker in TRACEBACK_MARKERS:
        assert marker not in text, f"{response.request.url}: {text[:500]}"
    for root in source_roots():
        assert root not in text, f"{response.request.url} names the source: {text[:500]}"
    assert response.status_code < 500 or response.status_code == 503, (
        f"{response.request.method} {response.request.url} -> {response.status_code}: {text[:500]}"
    )
    assert response.headers.get("content-type", "").startswith("application/json"), (
        response.headers,
        text[:200],
    )
    body = response.json()
    if response.status_code >= 400:
        assert set(body) == {"error"}, body
        error = body["error"]
        assert set(error) == {"code", "message"}, error
        assert re.fullmatch(r"[a-z_]+", error["code"]), error
        assert len(error["message"]) >= 20, error
    return body


def error_of(response: httpx.Response) -> tuple[int, str, str]:
    """(status, code, message) of an error response (checked clean)."""
    body = assert_clean_response(response)
    assert response.status_code >= 400, (response.status_code, body)
    return response.status_code, body["error"]["code"], body["error"]["message"]


class Raw:
    """Raw HTTP to a service with one credential (or none): nothing the client adds."""

    def __init__(self, url: str, token: str | None = None) -> None:
        self.url = url
        self.token = token
        self.http = httpx.Client(base_url=url, timeout=CLIENT_TIMEOUT)

    def headers(self, extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
        headers = {} if self.token is None else {"Authorization": f"Bearer {self.token}"}
        return {**headers, **(extra or {})}

    def post(
        self,
        path: str,
        body: Any = None,
        *,
        headers: Mapping[str, Any] | None = None,
        params: Mapping[str, Any] | None = None,
        content: bytes | str | None = None,
    ) -> httpx.Response:
        if content is not None:
            return self.http.post(
                path,
                content=content,
                headers={"Content-Type": "application/json", **self.headers(headers)},
                params=params,
            )
        return self.http.post(path, json=body, headers=self.headers(headers), params=params)

    def get(
        self,
        path: str,
        *,
        headers: Mapping[str, Any] | None = None,
        params: Mapping[str, Any] | None = None,
    ) -> httpx.Response:
        return self.http.get(path, headers=self.headers(headers), params=params)

    def request(self, method: str, path: str, **options: Any) -> httpx.Response:
        headers = self.headers(options.pop("headers", None))
        return self.http.request(method, path, headers=headers, **options)

    def close(self) -> None:
        self.http.close()


# -- catalog, read from the test process -------------------------------------------------------


class CatalogReader:
    """The home's catalog opened read-only: what the server stored, seen from outside."""

    def __init__(self, home: Path) -> None:
        self.path = home / "catalog.sqlite"
        self._db: sqlite3.Connection | None = None

    def rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        # One connection, in autocommit: each query reads the latest committed state.
        if self._db is None:
            self._db = sqlite3.connect(
                f"file:{self.path}?mode=ro",
                uri=True,
                timeout=30,
                isolation_level=None,
                check_same_thread=False,
            )
        return [tuple(r) for r in self._db.execute(sql, params).fetchall()]

    def memory_rows(self) -> list[tuple[Any, ...]]:
        return self.rows(
            "SELECT id, owner, collection, path, kind, status, revision, private, fingerprint, "
            "created_at, updated_at FROM memories ORDER BY id"
        )

    def owners(self) -> dict[str, Any]:
        return {row[0]: row[1] for row in self.memory_rows()}

    def foreign_state(self, *, mine: str = "users/alice") -> dict[str, list[Any]]:
        """Everything of every owner but ``mine``: memories, revisions, fragments, links."""
        kept = {row[0] for row in self.memory_rows() if row[1] != mine}
        return {
            "memories": [r for r in self.memory_rows() if r[0] in kept],
            "revisions": [
                r
                for r in self.rows(
                    "SELECT memory_id, revision, content, kind, status, action, actor, reason "
                    "FROM memory_revisions ORDER BY memory_id, revision"
                )
                if r[0] in kept
            ],
            "fragments": [
                r
                for r in self.rows(
                    "SELECT id, conversation_id, owner, collection, private, content "
                    "FROM fragments ORDER BY id"
                )
                if r[2] != mine
            ],
            "links": [
                r
                for r in self.rows(
                    "SELECT source_document, target, target_path, target_document "
                    "FROM links ORDER BY id"
                )
                if r[0] in kept or r[3] in kept
            ],
        }


# -- the isolation home, served ------------------------------------------------------------------


@dataclass
class IsolationService:
    """The isolation home behind a running server, with keys for alice's agents."""

    service: Service
    ids: dict[str, str]
    catalog: CatalogReader
    keys: dict[str, str] = field(default_factory=dict)  # name -> key text
    key_ids: dict[str, str] = field(default_factory=dict)  # name -> key id

    @property
    def url(self) -> str:
        return self.service.url

    def foreign_ids(self) -> set[str]:
        return {i for i, owner in self.catalog.owners().items() if owner not in READABLE}

    def foreign_fragment_ids(self) -> set[str]:
        return {
            str(i)
            for i, owner in self.catalog.rows("SELECT id, owner FROM fragments")
            if owner not in READABLE
        }


READABLE = ("users/alice", "shared")


def build_isolation_home(root: Path) -> tuple[Path, dict[str, str]]:
    """``tests/isolation/world.py``'s home (keyword-only, written to disk and closed)."""
    from tests.isolation.world import build_home

    home = keyword_only_home(root)
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv(SHARED_WRITE_ENV, raising=False)
        mx = Memex(home)
        try:
            built = build_home(mx)
            ids = dict(built.ids)
        finally:
            mx.close()
    return home, ids


@contextmanager
def served(
    home: Path, *, extra_args: tuple[str, ...] = (), env: dict[str, str] | None = None
) -> Iterator[Service]:
    """``running_service`` without the developer's MEMEX_SHARED_WRITE_MODE leaking in."""
    with pytest.MonkeyPatch.context() as patch:
        patch.delenv(SHARED_WRITE_ENV, raising=False)
        patch.delenv("MEMEX_HOME", raising=False)
        patch.delenv("MEMEX_USER", raising=False)
        with running_service(home, extra_args=extra_args, env=env) as service:
            yield service


def exposed(value: object) -> str:
    """Everything a caller sees in a value, as one string (dataclasses through their dicts)."""
    if isinstance(value, httpx.Response):
        return value.text
    if isinstance(value, BaseException):
        return f"{type(value).__name__}: {value}"
    to_dict = getattr(value, "to_dict", None)
    if to_dict is not None:
        return json.dumps(to_dict(), default=str, ensure_ascii=False)
    if isinstance(value, list | tuple):
        return "\n".join(exposed(v) for v in value)
    import dataclasses

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return json.dumps(dataclasses.asdict(value), default=str, ensure_ascii=False)
    return repr(value)
