"""``memex mcp --http``: loopback only, a bearer token, foreign pages refused.

One server process serves the module; raw HTTP requests check the refusals (401, 403)
and the official streamable HTTP client checks that a client with the token works.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import stat
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

pytest.importorskip("mcp", reason="the MCP SDK is not installed (pip install 'memex[mcp]')")

import anyio
import httpx2  # the SDK's HTTP client library
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from tests.support.mcp_harness import (
    SESSION_TIMEOUT,
    Home,
    build_home,
    memex_command,
    run,
    server_env,
    text_of,
)

START_TIMEOUT = 60.0
#: The developer's own settings must not leak into the server under test.
SCOPE_VARIABLES = ("MEMEX_HOME", "MEMEX_USER", "MEMEX_MCP_TOKEN")
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw-test", "version": "0"},
    },
}


@dataclass(frozen=True)
class Served:
    home: Home
    port: int
    token: str
    log: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_until_listening(port: int, process: subprocess.Popen[bytes], log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(f"memex mcp --http exited early:\n{log.read_text()}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    pytest.fail(f"memex mcp --http did not listen within {START_TIMEOUT:.0f}s:\n{log.read_text()}")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("mcp-http")
    with serving(build_home(root / "home"), root) as server:
        yield server


@contextmanager
def serving(home: Home, root: Path) -> Iterator[Served]:
    """``memex mcp --http`` on ``home`` until the block ends, its output in root/server.log."""
    port = _free_port()
    log = root / "server.log"
    command = memex_command(home.path, "mcp", "--user", "alice", "--http", "--port", str(port))
    inherited = {k: v for k, v in os.environ.items() if k not in SCOPE_VARIABLES}
    env = {**inherited, **server_env()}
    with log.open("wb") as errlog:
        process = subprocess.Popen(
            command, env=env, stdin=subprocess.DEVNULL, stdout=errlog, stderr=errlog
        )
    try:
        _wait_until_listening(port, process, log)
        token = (home.path / "mcp-token").read_text(encoding="utf-8").strip()
        yield Served(home, port, token, log)
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=15)


def _post(served: Served, headers: dict[str, str]) -> tuple[int, dict[str, str], bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=30)
    try:
        body = json.dumps(INITIALIZE).encode()
        base = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        connection.request("POST", "/mcp", body=body, headers={**base, **headers})
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


def test_a_generated_token_is_stored_for_its_owner_only_and_explained(served: Served) -> None:
    path = served.home.path / "mcp-token"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(served.token) >= 32
    message = served.log.read_text()
    assert f"new, stored in {path} (readable by you only)" in message
    assert "Authorization: Bearer <token>" in message
    assert f"claude mcp add --transport http memex {served.url}" in message
    assert served.token not in message  # the secret itself is never printed


@pytest.mark.parametrize(
    "authorization",
    [None, "Bearer wrong-token-wrong-token-wrong", "Basic dXNlcjpwYXNz", "Bearer"],
)
def test_requests_without_the_right_token_get_401(
    served: Served, authorization: str | None
) -> None:
    headers = {} if authorization is None else {"Authorization": authorization}
    status, response_headers, body = _post(served, headers)
    assert status == 401
    assert response_headers["www-authenticate"].startswith("Bearer")
    assert "Authorization: Bearer <token>" in json.loads(body)["error_description"]


def test_a_prefix_of_the_token_is_not_the_token(served: Served) -> None:
    status, _, _ = _post(served, {"Authorization": f"Bearer {served.token[:-1]}"})
    assert status == 401
    status, _, _ = _post(served, {"Authorization": f"Bearer {served.token}x"})
    assert status == 401


@pytest.mark.parametrize(
    "origin",
    ["http://evil.example", "https://attacker.test:8765", "null", "http://127.0.0.1.evil.test"],
)
def test_a_foreign_origin_gets_403_even_with_the_token(served: Served, origin: str) -> None:
    status, _, body = _post(served, {"Authorization": f"Bearer {served.token}", "Origin": origin})
    assert status == 403
    assert "DNS rebinding" in json.loads(body)["error_description"]


def test_a_foreign_host_header_gets_403(served: Served) -> None:
    """A DNS-rebinding page reaches 127.0.0.1 under its own host name."""
    status, _, _ = _post(
        served, {"Authorization": f"Bearer {served.token}", "Host": f"evil.test:{served.port}"}
    )
    assert status == 403


def test_a_local_client_cannot_escape_the_token_limit_by_naming_other_addresses(
    tmp_path: Path,
) -> None:
    # uvicorn takes the client's address from X-Forwarded-For sent from this machine by
    # default: each wrong token under a new address was never limited.
    home = tmp_path / "home"
    home.mkdir()
    config = '[embedder]\nuse = "none"\n[serve]\nauth_failures = 2\n'
    (home / "config.toml").write_text(config, encoding="utf-8")
    empty = Home(home, *[""] * 6)  # nothing in it: only the token is asked for
    with serving(empty, tmp_path) as server:
        statuses = [
            _post(server, {"Authorization": "Bearer wrong-token-wrong-token-wrong", **forged})[0]
            for forged in (
                {"X-Forwarded-For": "203.0.113.1"},
                {"X-Forwarded-For": "203.0.113.2"},
                {"X-Forwarded-For": "203.0.113.3"},
                {"X-Forwarded-For": "203.0.113.4"},
            )
        ]
        assert statuses == [401, 401, 429, 429]


def test_a_local_page_with_the_token_is_served(served: Served) -> None:
    status, _, body = _post(
        served, {"Authorization": f"Bearer {served.token}", "Origin": "http://localhost:5173"}
    )
    assert status == 200, body
    assert b"memex" in body


def test_the_official_client_with_the_token_works(served: Served) -> None:
    async def body() -> None:
        headers = {"Authorization": f"Bearer {served.token}"}
        with anyio.fail_after(SESSION_TIMEOUT):
            async with (
                httpx2.AsyncClient(headers=headers, timeout=SESSION_TIMEOUT) as http,
                streamable_http_client(served.url, http_client=http) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                tools = {tool.name for tool in (await session.list_tools()).tools}
                readers = {"search", "recall", "timeline", "get", "explore", "context"}
                assert readers | {"remember", "ask"} == tools
                found = await session.call_tool("search", {"query": "sqlite database locked"})
                assert found.structured_content["hits"][0]["id"] == served.home.corpus_fragment
                stored = await session.call_tool("remember", {"text": "Alice uses HTTP too"})
                assert stored.structured_content["user_id"] == "alice"
                bob = await session.call_tool("get", {"ids": [served.home.bob_fact]})
                assert bob.is_error and "Ids come from search" in text_of(bob)

    run(body)


def _other_local_addresses() -> list[str]:
    """Addresses of this machine that are not loopback (to check nothing listens there)."""
    found = set()
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.connect(("192.0.2.1", 9))  # TEST-NET-1: no packet is sent for UDP connect
            found.add(probe.getsockname()[0])
    except OSError:
        pass
    return sorted(a for a in found if not a.startswith("127.") and a != "0.0.0.0")


def test_it_listens_on_127_0_0_1_only(served: Served) -> None:
    with socket.create_connection(("127.0.0.1", served.port), timeout=5):
        pass
    # Linux routes all of 127/8 to lo: a socket bound to 0.0.0.0 would answer 127.0.0.2.
    for address in ["127.0.0.2", *_other_local_addresses()]:
        with pytest.raises(OSError):
            socket.create_connection((address, served.port), timeout=2).close()
