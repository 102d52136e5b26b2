"""Whom ``memex serve`` answers and believes: the Host header (DNS rebinding of a server on
loopback), ``nosniff`` on every response, and the ``[serve] trusted_proxies`` and
``allowed_hosts`` settings (memex_server.hosts, memex_server.network).

The app is driven with Starlette's TestClient (``headers={"Host": ...}`` as a rebinding
page's request would carry), and once as a real ``memex serve`` on loopback. The limit on
wrong credentials behind a proxy is in test_auth_throttle.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

pytest.importorskip("fastapi", reason="memex serve needs memex[server]")
from fastapi.testclient import TestClient

from memex_core.api import Memex
from memex_core.errors import MemexError
from memex_server.app import build_app
from memex_server.hosts import HostGuard, known_hosts
from memex_server.network import NetworkSettings
from tests.support.server_fixtures import (
    CLIENT_TIMEOUT,
    assert_clean_response,
    error_of,
    keyword_only_home,
    served,
)
from tests.support.viewer_fixtures import SECRET

OPERATOR = {"Authorization": f"Bearer {SECRET}"}


@pytest.fixture(scope="module")
def home_mx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memex]:
    mx = Memex(keyword_only_home(tmp_path_factory.mktemp("hosts") / "home"))
    yield mx
    mx.close()


@pytest.fixture(scope="module")
def guarded(home_mx: Memex) -> TestClient:
    """An app that knows itself by loopback names and memex.example.com (as ``memex
    serve --host 127.0.0.1`` with ``allowed_hosts = ["memex.example.com"]``)."""
    app = build_app(
        home_mx, admin_secret=SECRET, allowed_hosts=known_hosts("127.0.0.1", ["memex.example.com"])
    )
    return TestClient(app, base_url="http://127.0.0.1:8765", follow_redirects=False)


@pytest.mark.parametrize(
    "host",
    ["evil.example", "evil.example:8765", "127.0.0.1.evil.example", "memex.example.com.evil", ""],
)
def test_a_foreign_host_is_refused_on_the_api_and_the_viewer(
    guarded: TestClient, host: str
) -> None:
    for path in ("/v1/whoami", "/", "/signin", "/openapi.json"):
        response = guarded.get(path, headers={**OPERATOR, "Host": host})
        status, code, message = error_of(response)
        assert (status, code) == (403, "forbidden_host"), (path, host)
        assert "[serve] allowed_hosts" in message
        assert "memex.example.com" not in message  # a rebinding page reads this answer
        assert response.headers["x-content-type-options"] == "nosniff"


@pytest.mark.parametrize(
    "host", ["127.0.0.1:8765", "localhost:8765", "[::1]:8765", "LOCALHOST", "memex.example.com"]
)
def test_loopback_and_allowed_names_are_answered(guarded: TestClient, host: str) -> None:
    response = guarded.get("/v1/whoami", headers={**OPERATOR, "Host": host})
    assert assert_clean_response(response)["kind"] == "operator"


def test_health_routes_answer_any_host(guarded: TestClient) -> None:
    # Load balancers and probes reach a replica by its address.
    for path in ("/healthz", "/readyz"):
        assert guarded.get(path, headers={"Host": "10.1.2.3:8765"}).status_code == 200


def test_two_host_headers_are_refused(home_mx: Memex) -> None:
    guard = HostGuard(app=None, allowed=known_hosts("127.0.0.1", []))  # type: ignore[arg-type]
    assert guard.accepts([(b"host", b"127.0.0.1:8765")])
    assert not guard.accepts([(b"host", b"127.0.0.1:8765"), (b"host", b"evil.example")])
    assert not guard.accepts([])


def test_which_hosts_a_server_knows_itself_by() -> None:
    assert known_hosts("127.0.0.1", []) == frozenset({"127.0.0.1"})
    assert known_hosts("::1", ["Memex.Example.com"]) == frozenset({"::1", "memex.example.com"})
    # On every interface, or another address, without allowed_hosts: it cannot know its
    # public names, so any Host passes (as memex mcp --http --dangerously-allow-remote).
    assert known_hosts("0.0.0.0", []) is None
    assert known_hosts("192.0.2.10", []) is None
    assert known_hosts("0.0.0.0", ["memex.example.com"]) == frozenset({"memex.example.com"})
    assert known_hosts("192.0.2.10", ["m.example"]) == frozenset({"192.0.2.10", "m.example"})


def test_json_errors_say_nosniff_without_a_host_check(home_mx: Memex) -> None:
    client = TestClient(build_app(home_mx, admin_secret=SECRET), follow_redirects=False)
    responses: list[Any] = [
        client.get("/v1/whoami"),  # 401
        client.get("/v1/whoami", headers={"Authorization": "Bearer wrong-credential-0123"}),
        client.get("/v1/no-such-route", headers=OPERATOR),  # 404
        client.post("/v1/search", headers=OPERATOR, content=b"{"),  # 422
        client.post("/v1/search", headers=OPERATOR, content=b"x" * (2 << 20)),  # 413
        client.get("/healthz"),
    ]
    for response in responses:
        assert response.headers.get("x-content-type-options") == "nosniff", response
    assert [r.status_code for r in responses] == [401, 401, 404, 422, 413, 200]
    # Pages keep their own security headers, once.
    page = client.get("/signin")
    assert page.headers.get_list("x-content-type-options") == ["nosniff"]


def test_memex_serve_on_loopback_refuses_a_rebinding_host(tmp_path: Path) -> None:
    with served(keyword_only_home(tmp_path / "home")) as service:
        http = httpx.Client(base_url=service.url, timeout=CLIENT_TIMEOUT)
        token = {"Authorization": f"Bearer {service.admin_secret}"}
        assert http.get("/v1/whoami", headers=token).status_code == 200
        rebound = http.get("/v1/whoami", headers={**token, "Host": "attacker.example:8765"})
        assert error_of(rebound)[:2] == (403, "forbidden_host")
        page = http.get("/signin", headers={"Host": "attacker.example"})
        assert page.status_code == 403
        assert rebound.headers["x-content-type-options"] == "nosniff"


# -- the settings ---------------------------------------------------------------------------------


def test_network_settings_default_to_trusting_no_proxy() -> None:
    settings = NetworkSettings.from_table({"auth_failures": 3}, "/h/config.toml")
    assert settings == NetworkSettings((), ())
    assert settings.uvicorn_options() == {"proxy_headers": False, "forwarded_allow_ips": []}
    configured = NetworkSettings.from_table(
        {"trusted_proxies": ["127.0.0.1", "10.0.0.0/24", "::1"], "allowed_hosts": ["M.Example"]},
        "/h/config.toml",
    )
    assert configured.uvicorn_options() == {
        "proxy_headers": True,
        "forwarded_allow_ips": ["127.0.0.1", "10.0.0.0/24", "::1"],
    }
    assert configured.allowed_hosts == ("m.example",)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("trusted_proxies", "127.0.0.1"),  # not a list
        ("trusted_proxies", ["*"]),
        ("trusted_proxies", ["proxy.example"]),
        ("trusted_proxies", [1]),
        ("allowed_hosts", ["https://memex.example.com"]),
        ("allowed_hosts", ["memex.example.com:443"]),
        ("allowed_hosts", [""]),
        ("allowed_hosts", "memex.example.com"),
    ],
)
def test_bad_network_settings_name_the_file_the_key_and_the_fix(key: str, value: Any) -> None:
    with pytest.raises(MemexError) as refused:
        NetworkSettings.from_table({key: value}, "/h/config.toml")
    message = str(refused.value)
    assert message.startswith(f"/h/config.toml [serve] {key} = {value!r}: use a list of")
    assert "(default [], " in message
