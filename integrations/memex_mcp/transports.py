"""Running the server on a transport: stdio, or streamable HTTP behind :class:`LoopbackGuard`."""

from __future__ import annotations

from typing import Any

from memex_mcp.guard import LoopbackGuard
from memex_server.throttle import AuthLimits, FailedAuth

MCP_PATH = "/mcp"


def run_stdio(server: Any) -> None:
    """Serve on stdin/stdout until the client closes them. Nothing else may write to stdout."""
    server.run("stdio")


def run_http(
    server: Any,
    *,
    host: str,
    port: int,
    token: str,
    local_only: bool = True,
    auth_limits: AuthLimits | None = None,
) -> None:
    """Serve streamable HTTP at ``http://host:port/mcp`` until interrupted.

    ``local_only`` (listening on loopback) also makes the guard and the SDK check
    the Host header; a server deliberately exposed elsewhere cannot know its
    public name, so only the Origin and the token protect it. ``auth_limits``: how
    many wrong tokens an address may send (``[serve] auth_*``; default: memex
    serve's defaults).
    """
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    # The SDK's own DNS-rebinding check stays on behind the guard (defence in depth); with
    # transport_security=None it turns itself on for loopback hosts only.
    security = (
        None if local_only else TransportSecuritySettings(enable_dns_rebinding_protection=False)
    )
    app = server.streamable_http_app(
        streamable_http_path=MCP_PATH, transport_security=security, host=host
    )
    guarded = LoopbackGuard(
        app, token, check_host=local_only, failures=FailedAuth(auth_limits or AuthLimits())
    )
    # proxy_headers=False: the guard counts wrong tokens per address, and uvicorn by default
    # takes the address from X-Forwarded-For when this machine sends it, so a local process
    # naming a new address with each guess would never be limited (as memex serve, which
    # trusts only [serve] trusted_proxies: memex_server.network).
    config = uvicorn.Config(
        guarded,
        host=host,
        port=port,
        log_level="warning",
        lifespan="on",
        proxy_headers=False,
    )
    uvicorn.Server(config).run()
