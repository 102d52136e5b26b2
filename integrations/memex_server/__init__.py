"""memex plugin ``server``: memex as a shared service over HTTP.

``memex serve`` starts an HTTP API (FastAPI, served by uvicorn) on 127.0.0.1;
``memex keys`` creates, lists and revokes the agent API keys it accepts. An
agent key acts for one user exactly as ``mx.agent(user)`` does; the operator
secret (``MEMEX_ADMIN_SECRET`` or ``<home>/admin-secret``) reaches everything.
:mod:`memex_client` is the Python client.

Importing this package imports neither FastAPI nor uvicorn, so ``memex --help``
stays fast and works without ``memex[server]`` installed.
"""

from __future__ import annotations

from typing import Any

from memex_core.hookspecs import hookimpl


@hookimpl
def register_commands(cli: Any) -> None:
    from memex_server.command import keys, serve
    from memex_viewer.command import view

    cli.add_command(serve)
    cli.add_command(keys)
    cli.add_command(view)


__all__ = ["register_commands"]
