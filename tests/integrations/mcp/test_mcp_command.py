"""``memex mcp`` without a running server: the plugin hook, option checks, the install hint,
the bearer token's storage and the HTTP guard's decisions."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import click
import pytest
from click.testing import CliRunner

import memex_mcp
from memex_core.errors import MemexError
from memex_core.plugins import load_registry
from memex_mcp.bearer import TOKEN_ENV, matches, resolve_token
from memex_mcp.guard import LoopbackGuard, host_header_is_loopback, is_loopback, origin_is_loopback
from memex_mcp.scope import DEFAULT_USER, USER_ENV, ServerScope, default_user
from memex_server.throttle import AuthLimits, FailedAuth

TOKEN = "s3cret-token-for-tests-0123456789"


@pytest.fixture
def root() -> click.Group:
    """A root group like memex's, with the plugin's commands added through the hook."""

    @click.group()
    @click.option("--home")
    @click.pass_context
    def cli(ctx: click.Context, home: str | None) -> None:
        ctx.obj = {"home": home}

    registry = load_registry()
    if registry.manager.get_plugin("mcp") is None:  # the entry point is not installed yet
        registry.register_plugin(memex_mcp, name="mcp")
    registry.add_commands(cli)
    return cli


def invoke(root: click.Group, *args: str) -> Any:
    return CliRunner().invoke(root, list(args))


def test_the_plugin_adds_the_mcp_command(root: click.Group) -> None:
    result = invoke(root, "mcp", "--help")
    assert result.exit_code == 0, result.output
    for option in ("--user", "--collection", "--no-corpus", "--http", "--port", "--token"):
        assert option in result.output
    assert "claude mcp add memex -- memex mcp" in result.output


def test_importing_the_plugin_does_not_import_the_sdk() -> None:
    code = (
        "import sys, memex_mcp, memex_mcp.command\n"
        "loaded = sorted(m for m in sys.modules if m == 'mcp' or m.startswith('mcp.'))\n"
        "assert not loaded, loaded\n"
    )
    package_root = str(Path(memex_mcp.__file__).resolve().parent.parent)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([package_root, os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_without_the_sdk_the_command_says_how_to_install_it(
    root: click.Group, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    for name in [m for m in sys.modules if m.startswith(("mcp.", "memex_mcp.server"))]:
        monkeypatch.delitem(sys.modules, name)  # put back afterwards
    monkeypatch.setitem(sys.modules, "mcp", None)  # import mcp now raises ImportError
    result = invoke(root, "--home", str(tmp_path), "mcp")
    assert result.exit_code == 1
    assert "pip install 'memex[mcp]'" in result.output


def test_http_options_need_http(root: click.Group) -> None:
    result = invoke(root, "mcp", "--port", "9000", "--token", TOKEN)
    assert result.exit_code == 2
    assert "--port, --token are only for the HTTP server: add --http" in result.output


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.20", "::", "example.com"])
def test_non_loopback_hosts_are_refused_without_the_loud_flag(root: click.Group, host: str) -> None:
    result = invoke(root, "mcp", "--http", "--host", host)
    assert result.exit_code == 2
    assert f"Refusing to listen on {host}" in result.output
    assert "--dangerously-allow-remote" in result.output


@pytest.mark.parametrize("option", [("--user", "../bob"), ("--user", ""), ("--collection", "a::b")])
def test_a_bad_scope_is_a_usage_error(root: click.Group, option: tuple[str, str]) -> None:
    result = invoke(root, "mcp", *option)
    assert result.exit_code == 2
    assert "Error" in result.output


def test_the_user_defaults_to_memex_user_then_local(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(USER_ENV, raising=False)
    assert default_user() == DEFAULT_USER == "local"
    monkeypatch.setenv(USER_ENV, "  dana ")
    assert default_user() == "dana"


def test_scope_narrows_collections_and_never_widens() -> None:
    scope = ServerScope(user="alice", collection="acme:support")
    assert scope.narrow(None) is None and scope.narrow("") is None
    assert scope.narrow("acme:support") == "acme:support"
    assert scope.narrow("acme:support:vip") == "acme:support:vip"
    for wider in ("acme", "acme:sales", "other"):
        with pytest.raises(MemexError, match="limited to collection 'acme:support'"):
            scope.narrow(wider)
    assert ServerScope(user="alice").narrow("anything") == "anything"


# -- the bearer token --------------------------------------------------------------------------


def test_token_precedence_option_environment_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    generated = resolve_token(None, tmp_path)
    assert generated.origin == "generated" and generated.path == tmp_path / "mcp-token"
    assert stat.S_IMODE(generated.path.stat().st_mode) == 0o600
    again = resolve_token(None, tmp_path)
    assert (again.origin, again.value) == ("file", generated.value)  # reused across starts
    monkeypatch.setenv(TOKEN_ENV, "from-the-environment-123")
    assert resolve_token(None, tmp_path).value == "from-the-environment-123"
    assert resolve_token(TOKEN, tmp_path).value == TOKEN


def test_a_token_file_readable_by_others_is_tightened(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    path = tmp_path / "mcp-token"
    path.write_text(TOKEN + "\n")
    path.chmod(0o644)
    assert resolve_token(None, tmp_path).value == TOKEN
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


@pytest.mark.parametrize("weak", ["short", "has a space in the middle of it"])
def test_weak_tokens_are_refused(tmp_path: Path, weak: str) -> None:
    with pytest.raises(MemexError, match="at least 16 characters"):
        resolve_token(weak, tmp_path)


def test_tokens_match_exactly() -> None:
    assert matches(TOKEN, TOKEN)
    assert not matches(TOKEN, TOKEN[:-1])
    assert not matches(TOKEN, TOKEN + "x")
    assert not matches(TOKEN, "")


# -- the HTTP guard ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("host", "loopback"),
    [
        ("127.0.0.1", True),
        ("127.1.2.3", True),
        ("localhost", True),
        ("::1", True),
        ("[::1]", True),
        ("0.0.0.0", False),
        ("::", False),
        ("10.0.0.5", False),
        ("localhost.evil.test", False),
        ("", False),
    ],
)
def test_is_loopback(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_origins_and_host_headers() -> None:
    assert origin_is_loopback("http://localhost:5173")
    assert origin_is_loopback("https://127.0.0.1")
    assert origin_is_loopback("http://[::1]:8080")
    for foreign in (
        "null",
        "http://evil.test",
        "file://",
        "http://127.0.0.1.evil.test",
        "ftp://localhost",
    ):
        assert not origin_is_loopback(foreign), foreign
    assert host_header_is_loopback("127.0.0.1:8765")
    assert host_header_is_loopback("[::1]:8765")
    assert host_header_is_loopback("localhost")
    assert not host_header_is_loopback("evil.test:8765")
    assert not host_header_is_loopback(None)


def _call(
    guard: LoopbackGuard,
    headers: list[tuple[bytes, bytes]],
    kind: str = "http",
    client: tuple[str, int] | None = None,
) -> list[Any]:
    sent: list[Any] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b""}

    async def send(message: Any) -> None:
        sent.append(message)

    scope: dict[str, Any] = {"type": kind, "headers": headers}
    if client is not None:
        scope["client"] = client
    anyio.run(guard, scope, receive, send)
    return sent


def _guard() -> tuple[LoopbackGuard, list[str]]:
    reached: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope["type"])

    return LoopbackGuard(app, TOKEN), reached


GOOD = [(b"host", b"127.0.0.1:8765"), (b"authorization", f"Bearer {TOKEN}".encode())]


def test_the_guard_lets_a_local_client_with_the_token_through() -> None:
    guard, reached = _guard()
    assert _call(guard, GOOD) == [] and reached == ["http"]
    assert _call(guard, [*GOOD, (b"origin", b"http://localhost:3000")]) == []
    assert (
        _call(guard, [(b"Host", b"localhost:1"), (b"Authorization", f"bearer {TOKEN}".encode())])
        == []
    )
    assert len(reached) == 3


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ([(b"host", b"127.0.0.1:8765")], 401),
        ([(b"host", b"127.0.0.1:8765"), (b"authorization", b"Bearer nope")], 401),
        ([*GOOD, (b"authorization", f"Bearer {TOKEN}".encode())], 401),  # two tokens
        ([*GOOD, (b"origin", b"http://evil.test")], 403),
        ([*GOOD, (b"origin", b"http://localhost"), (b"origin", b"http://evil.test")], 403),
        ([(b"host", b"evil.test:8765"), GOOD[1]], 403),
        ([GOOD[1]], 403),  # no Host at all
        ([(b"origin", b"http://evil.test"), (b"host", b"127.0.0.1:1")], 403),  # Origin first
    ],
)
def test_the_guard_refuses(headers: list[tuple[bytes, bytes]], status: int) -> None:
    guard, reached = _guard()
    sent = _call(guard, headers)
    assert sent[0]["status"] == status and reached == []


def test_the_guard_passes_lifespan_and_closes_websockets() -> None:
    guard, reached = _guard()
    assert _call(guard, [], kind="lifespan") == [] and reached == ["lifespan"]
    assert _call(guard, GOOD, kind="websocket") == [{"type": "websocket.close", "code": 1008}]
    assert reached == ["lifespan"]


def test_wrong_tokens_are_limited_per_address_as_memex_serve_limits_them() -> None:
    now = [1000.0]
    failures = FailedAuth(AuthLimits(failures=2, window_s=60), clock=lambda: now[0])
    reached: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope["type"])

    guard = LoopbackGuard(app, TOKEN, failures=failures)
    guesser, other = ("127.0.0.9", 5000), ("127.0.0.2", 5000)
    host = (b"host", b"127.0.0.1:8765")
    wrong = [host, (b"authorization", b"Bearer " + b"x" * 43)]
    # No token at all is not a guess: it never counts.
    for _ in range(3):
        assert _call(guard, [host], client=guesser)[0]["status"] == 401
    assert failures.wait(guesser[0]) == 0
    for _ in range(2):
        assert _call(guard, wrong, client=guesser)[0]["status"] == 401
    # Now even the right token is refused unchecked, with when to come back.
    refused = _call(guard, GOOD, client=guesser)
    assert refused[0]["status"] == 429
    headers = dict(refused[0]["headers"])
    assert headers[b"retry-after"] == b"60"
    body = json.loads(refused[1]["body"])
    assert body["error"] == "too_many_failures" and "Wait 60 s" in body["error_description"]
    assert reached == []
    # Another address is not locked out; the guesser is let in once the window has passed.
    assert _call(guard, GOOD, client=other) == [] and reached == ["http"]
    now[0] += 61
    assert _call(guard, GOOD, client=guesser) == [] and reached == ["http", "http"]


def test_bad_auth_limits_in_config_stop_mcp_http_before_it_listens(
    root: click.Group, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text("[serve]\nauth_failures = -1\n", encoding="utf-8")
    result = CliRunner().invoke(
        root, ["--home", str(home), "mcp", "--http", "--token", "t" * 43], catch_exceptions=False
    )
    assert result.exit_code == 2
    assert "[serve] auth_failures = -1" in result.output and "config.toml" in result.output


# -- the guide stays true ------------------------------------------------------------------------


def test_the_guide_documents_every_tool_prompt_and_option(
    root: click.Group, tmp_path: Path
) -> None:
    pytest.importorskip("mcp")
    from memex_core.api import Memex
    from memex_mcp.server import build_server
    from memex_mcp.tools import MemexTools

    guide = (Path(__file__).parents[3] / "docs" / "integrations" / "mcp.md").read_text()
    with Memex(tmp_path) as mx:
        server = build_server(MemexTools(mx, ServerScope()))
        tools = anyio.run(server.list_tools)
        prompts = anyio.run(server.list_prompts)
    for item in [*tools, *prompts]:
        assert f"| `{item.name}` |" in guide, item.name
    command = root.commands["mcp"]
    for param in command.params:
        for option in param.opts:
            assert option in guide, option
