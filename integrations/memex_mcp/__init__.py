"""memex plugin ``mcp``: serve a memex home to agents over the Model Context Protocol.

``memex mcp`` serves stdio (what Claude Desktop, Claude Code and most MCP
clients launch); ``memex mcp --http`` serves streamable HTTP on 127.0.0.1 behind
a bearer token. The tools (``search``, ``timeline``, ``get``, ``explore``,
``context``, ``remember``) and prompts (``handover``, ``update-knowledge``) read
and write through one :class:`memex_core.agent_view.AgentView`, fixed when the
server starts (``--user``, ``--collection``, ``--no-corpus``): no tool argument
can reach another user's memory.

Importing this package does not import the MCP SDK, so ``memex --help`` stays
fast and works without ``memex[mcp]`` installed; the command says how to
install it when it is missing.
"""

from __future__ import annotations

from typing import Any

from memex_core.hookspecs import hookimpl


@hookimpl
def register_commands(cli: Any) -> None:
    from memex_mcp.command import mcp

    cli.add_command(mcp)


__all__ = ["register_commands"]
