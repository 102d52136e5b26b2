"""``memex mcp``: the command that starts the server.

Imports nothing but click and memex at module level; the SDK is imported when
the command runs, so ``memex --help`` stays fast and works without it.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import click

from memex_core.cli.opening import number_option
from memex_mcp.bearer import Token, resolve_token
from memex_mcp.guard import is_loopback
from memex_mcp.scope import DEFAULT_USER, USER_ENV, ServerScope, default_user

if TYPE_CHECKING:
    from memex_client import MemexClient
    from memex_core.memex_like import MemexLike
    from memex_server.throttle import AuthLimits

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
@click.option(
    "--url",
    help="Serve the memory of this memex serve (e.g. http://memex.internal:8765) instead of a "
    "local home (default: $MEMEX_URL when $MEMEX_API_KEY is set too).",
)
@click.option(
    "--api-key",
    help="With --url: the agent key (memex keys create) whose user's memory the tools reach, "
    "or the operator secret (default: $MEMEX_API_KEY).",
)
@click.option("--http", "use_http", is_flag=True, help="Serve streamable HTTP instead of stdio.")
@click.option("--host", default=DEFAULT_HOST, show_default=True, help="With --http: address.")
@number_option("--port", DEFAULT_PORT, "With --http: port.", maximum=65535)
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
    url: str | None,
    api_key: str | None,
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
    The memory of a memex serve, through an agent key (its user is the user):
      memex mcp --url http://memex.internal:8765 --api-key mxk_...

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
    remote = _remote(ctx, url, api_key)
    try:
        if remote is None:
            scope = ServerScope(user=user, collection=collection, corpus=not no_corpus)
        else:
            scope = _remote_scope(ctx, remote, user, collection, no_corpus)
    except MemexError as exc:
        raise click.UsageError(str(exc)) from exc
    try:
        from memex_mcp.server import build_server
    except ImportError as exc:
        raise click.ClickException(
            f"memex mcp needs the MCP SDK, which is not installed ({exc}). "
            f"Install it with: {INSTALL_HINT}"
        ) from exc
    from memex_core.cli.opening import open_memex
    from memex_core.cli.remote import describe_client
    from memex_mcp.tools import MemexTools
    from memex_mcp.transports import run_http, run_stdio

    memex: MemexLike = open_memex(ctx) if remote is None else remote
    server = build_server(MemexTools(memex, scope))
    served = scope.describe()
    if remote is not None:
        served += f" of the {describe_client(remote)}"
    if not use_http:
        click.echo(f"memex mcp: serving {served} on stdio.", err=True)
    else:
        chosen = resolve_token(token, _home_path(ctx))
        try:
            limits = _auth_limits(memex)
        except MemexError as exc:
            raise click.UsageError(str(exc)) from exc
        _explain_http(served, host, port, chosen)
    warm = None
    if remote is None:
        from memex_core.api import Memex
        from memex_core.cli.app import run_on
        from memex_core.warm.socket_listener import start_for

        assert isinstance(memex, Memex)
        # Fresh `memex dig` processes on this home answer through this server's open home.
        warm = start_for(memex, "memex mcp", lambda line: click.echo(line, err=True), run_on)
    try:
        if not use_http:
            run_stdio(server)
        else:
            run_http(
                server,
                host=host,
                port=port,
                token=chosen.value,
                local_only=is_loopback(host),
                auth_limits=limits,
            )
    finally:
        if warm is not None:
            warm.close()


def _auth_limits(memex: Any) -> AuthLimits | None:
    """The wrong-token limits of ``[serve] auth_*`` in the home's config.toml (shared with
    memex serve); None (the defaults) when serving a remote memex, which has no home here."""
    from memex_server.throttle import AuthLimits

    config = getattr(memex, "config", None)
    if config is None or not hasattr(config, "table"):
        return None
    return AuthLimits.from_table(config.table("serve"), config.config_path)


def _home_path(ctx: click.Context) -> Path:
    """The local home (where the HTTP token is kept), without opening it."""
    from memex_core.config import default_home

    home = (ctx.find_root().obj or {}).get("home")
    return Path(home).expanduser() if home else default_home()


def _remote(ctx: click.Context, url: str | None, api_key: str | None) -> MemexClient | None:
    """The memex serve to serve from: ``--url``/``--api-key``, else ``$MEMEX_URL`` and
    ``$MEMEX_API_KEY`` when both are set (and no --home on the command line); else None."""
    import os

    from memex_core.cli.opening import API_KEY_ENV, URL_ENV
    from memex_core.cli.remote import connect

    env_url = os.environ.get(URL_ENV, "").strip()
    env_key = os.environ.get(API_KEY_ENV, "").strip()
    if url is None and api_key is None:
        home_given = (
            ctx.find_root().get_parameter_source("home") == click.core.ParameterSource.COMMANDLINE
        )
        if home_given or not (env_url and env_key):
            return None  # a local home ($MEMEX_URL alone does not switch to a service)
    url = url or env_url
    if not url:
        raise click.UsageError(f"--api-key goes with --url (or ${URL_ENV}): say which memex serve.")
    key = api_key or env_key
    if not key:
        raise click.UsageError(
            f"--url needs credentials: --api-key mxk_... (an agent key from `memex keys "
            f"create`) or ${API_KEY_ENV}."
        )
    from memex_core.errors import MemexError

    try:
        # memex_client's connect, found through the memex.remote entry point
        return cast("MemexClient", connect(url, key))
    except MemexError as exc:
        raise click.ClickException(f"memex mcp: {exc}") from exc


def _remote_scope(
    ctx: click.Context, client: MemexClient, user: str, collection: str, no_corpus: bool
) -> ServerScope:
    """The scope over a memex serve: an agent key's user (``--user`` may only repeat it),
    collection and corpus bound; the operator secret acts for ``--user``."""
    import os

    from memex_core.domain.memory.namespaces import covers

    identity = client.whoami()
    if identity.kind != "agent":
        return ServerScope(user=user, collection=collection, corpus=not no_corpus)
    own = identity.user_id
    assert own is not None  # an agent key always has its user
    asked = ctx.get_parameter_source("user") == click.core.ParameterSource.COMMANDLINE
    if not asked and os.environ.get(USER_ENV, "").strip():
        asked = True
    if asked and user != own:
        raise click.UsageError(
            f"The agent key acts for user {own!r}, not {user!r}: leave --user (and "
            f"${USER_ENV}) out, or use a key of user {user!r}."
        )
    bound = identity.collection or ""
    if collection and not covers(bound, collection):
        raise click.UsageError(
            f"The agent key is limited to collection {bound!r} and below; --collection "
            f"{collection!r} is outside it."
        )
    return ServerScope(
        user=own,
        collection=collection or bound,
        corpus=identity.corpus and not no_corpus,
    )


def _explain_http(served: str, host: str, port: int, token: Token) -> None:
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
        f"memex mcp: serving {served}",
        f"  at {url} (streamable HTTP); {reach}",
        f"  token: {where}",
        "  clients send it as the header  Authorization: Bearer <token>",
        f"  e.g. claude mcp add --transport http memex {url} {header}",
        "Stop with Ctrl-C.",
    ]
    click.echo("\n".join(lines), err=True)
