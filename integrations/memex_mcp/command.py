"""``memex mcp``: the command that starts the server.

Imports nothing but click and memex at module level; the SDK is imported when
the command runs, so ``memex --help`` stays fast and works without it.
"""

from __future__ import annotations

from pathlib import Path

import click

from memex_mcp.bearer import Token, resolve_token
from memex_mcp.guard import is_loopback
from memex_mcp.scope import DEFAULT_USER, USER_ENV, ServerScope, default_user

INSTALL_HINT = "pip install 'memex[mcp]'"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
REMOTE_FLAG = "--dangerously-allow-remote"
HTTP_ONLY = ("host", "port", "token", "dangerously_allow_remote")


@click.command(name="mcp")
@click.option(
    "--user",
    default=default_user,
    show_default=f"${USER_ENV}, else {DEFAULT_USER!r}",
    help="Whose memory the agent reads and writes (besides shared memory).",
)
@click.option(
    "--collection",
    default="",
    help="Limit memory to this collection and those below it (e.g. 'work:acme'). "
    "The corpus has no collections, so it is then not searched.",
)
@click.option(
    "--no-corpus",
    is_flag=True,
    help="Do not let the agent read the corpus you ingested (exports, transcripts, notes): "
    "memory only.",
)
@click.option("--http", "use_http", is_flag=True, help="Serve streamable HTTP instead of stdio.")
@click.option("--host", default=DEFAULT_HOST, show_default=True, help="With --http: address.")
@click.option(
    "--port",
    default=DEFAULT_PORT,
    show_default=True,
    type=click.IntRange(1, 65535),
    help="With --http: port.",
)
@click.option(
    "--token",
    help="With --http: the bearer token clients must send (default: $MEMEX_MCP_TOKEN, else "
    "one generated once and kept in <home>/mcp-token, readable by you only).",
)
@click.option(
    REMOTE_FLAG,
    "dangerously_allow_remote",
    is_flag=True,
    help="With --http: allow a --host other than this machine. Anyone who can reach the port "
    "and has the token reads your memex, over plain HTTP unless you put TLS in front.",
)
@click.pass_context
def mcp(
    ctx: click.Context,
    user: str,
    collection: str,
    no_corpus: bool,
    use_http: bool,
    host: str,
    port: int,
    token: str | None,
    dangerously_allow_remote: bool,
) -> None:
    """Serve this memex to AI agents over the Model Context Protocol (MCP).

    \b
    Stdio (default), for clients that launch the server themselves:
      claude mcp add memex -- memex mcp
    Streamable HTTP on 127.0.0.1, with a bearer token:
      memex mcp --http --port 8765

    Tools: search, timeline, get, context, explore, remember. Prompts: handover,
    update-knowledge. Every call is limited to one user's memory (--user), shared
    memory and, unless --no-corpus, the corpus you ingested.
    """
    from memex_core.errors import MemexError

    if not use_http:
        given = [
            "--" + name.replace("_", "-")
            for name in HTTP_ONLY
            if ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE
        ]
        if given:
            one = len(given) == 1
            raise click.UsageError(
                f"{', '.join(given)} {'is' if one else 'are'} only for the HTTP server: add "
                f"--http, or leave {'it' if one else 'them'} out."
            )
    elif not is_loopback(host) and not dangerously_allow_remote:
        raise click.UsageError(
            f"Refusing to listen on {host}: memex mcp serves this machine only "
            f"({DEFAULT_HOST}). Clients on this machine connect to "
            f"http://{DEFAULT_HOST}:{port}/mcp. To expose it anyway, add {REMOTE_FLAG} "
            "(and put TLS in front)."
        )
    try:
        scope = ServerScope(user=user, collection=collection, corpus=not no_corpus)
    except MemexError as exc:
        raise click.UsageError(str(exc)) from exc
    try:
        from memex_mcp.server import build_server
    except ImportError as exc:
        raise click.ClickException(
            f"memex mcp needs the MCP SDK, which is not installed ({exc}). "
            f"Install it with: {INSTALL_HINT}"
        ) from exc
    from memex_core.cli.context import open_memex
    from memex_mcp.serve import run_http, run_stdio
    from memex_mcp.tools import MemexTools

    memex = open_memex(ctx)
    server = build_server(MemexTools(memex, scope))
    if not use_http:
        click.echo(f"memex mcp: serving {scope.describe()} on stdio.", err=True)
        run_stdio(server)
        return
    chosen = resolve_token(token, Path(memex.home))
    _explain_http(scope, host, port, chosen)
    run_http(server, host=host, port=port, token=chosen.value, local_only=is_loopback(host))


def _explain_http(scope: ServerScope, host: str, port: int, token: Token) -> None:
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}/mcp"
    where = {
        "option": "the one given with --token",
        "environment": "the one in $MEMEX_MCP_TOKEN",
        "file": f"stored in {token.path}",
        "generated": f"new, stored in {token.path} (readable by you only)",
    }[token.origin]
    secret = f"$(cat {token.path})" if token.path else "<token>"
    reach = (
        "only this machine can connect" if is_loopback(host) else "REACHABLE FROM OTHER MACHINES"
    )
    header = f'--header "Authorization: Bearer {secret}"'
    lines = [
        f"memex mcp: serving {scope.describe()}",
        f"  at {url} (streamable HTTP); {reach}",
        f"  token: {where}",
        "  clients send it as the header  Authorization: Bearer <token>",
        f"  e.g. claude mcp add --transport http memex {url} {header}",
        "Stop with Ctrl-C.",
    ]
    click.echo("\n".join(lines), err=True)
