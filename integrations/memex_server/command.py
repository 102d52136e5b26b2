"""``memex serve`` (the HTTP API) and ``memex keys`` (its agent keys).

Imports nothing but click and memex at module level; FastAPI and uvicorn are
imported when ``serve`` runs, so ``memex --help`` stays fast and works without
``memex[server]``.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
from datetime import datetime
from pathlib import Path

import click

from memex_core.cli.opening import format_option, number_option, open_memex
from memex_core.errors import MemexError
from memex_server.defaults import DEFAULT_MAX_BODY, DEFAULT_MAX_UPLOAD, LISTENING

INSTALL_HINT = "pip install 'memex[server]'"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8765
LOOPBACK = ("127.0.0.1", "::1", "localhost")


@click.command()
@click.option(
    "--host",
    default=DEFAULT_HOST,
    show_default=True,
    help="Address to listen on. Anything but this machine's loopback needs TLS in "
    "front (see the deployment guide).",
)
@number_option(
    "--port", DEFAULT_PORT, "Port (0: any free one, printed at start).", minimum=0, maximum=65535
)
@number_option("--max-body", DEFAULT_MAX_BODY, "Largest JSON request body, in bytes (413 above).")
@number_option(
    "--max-upload",
    DEFAULT_MAX_UPLOAD,
    "Largest upload (an export to /v1/admin/ingest, an archive to /v1/admin/import), in bytes.",
)
@click.option(
    "--log-level",
    default="warning",
    show_default=True,
    type=click.Choice(["critical", "error", "warning", "info", "debug"]),
    help="uvicorn's log level (info logs every request).",
)
@click.pass_context
def serve(
    ctx: click.Context, host: str, port: int, max_body: int, max_upload: int, log_level: str
) -> None:
    """Serve this memex over HTTP to agents and people (an API with agent keys).

    \b
    Credentials, checked on every /v1 route:
      agent keys     memex keys create --user alice --name support-bot
                     (acts for alice exactly as mx.agent("alice") does)
      operator       $MEMEX_ADMIN_SECRET, else <home>/admin-secret (made once, 0600)
    \b
    From Python:
      from memex_client import MemexClient
      alice = MemexClient("http://127.0.0.1:8765", api_key=KEY).agent()
    The schema is at /openapi.json; /healthz and /readyz answer without credentials.
    Agents may write shared/ memory only with MEMEX_SHARED_WRITE_MODE=rw.
    People sign in to the web viewer at / with the same credentials (memex view).
    """
    try:
        import uvicorn

        from memex_server.app import build_app
    except ImportError as exc:
        raise click.ClickException(
            f"memex serve needs FastAPI and uvicorn, which are not installed ({exc}). "
            f"Install them with: {INSTALL_HINT}"
        ) from exc
    from memex_server.admin_secret import resolve_admin_secret
    from memex_server.follower import FollowSettings
    from memex_server.hosts import known_hosts
    from memex_server.network import NetworkSettings
    from memex_server.throttle import AuthLimits

    memex = open_memex(ctx)
    try:
        secret = resolve_admin_secret(Path(memex.home))
        follow = FollowSettings.from_table(memex.config.table("serve"), memex.config.config_path)
        auth_limits = AuthLimits.from_table(memex.config.table("serve"), memex.config.config_path)
        network = NetworkSettings.from_table(memex.config.table("serve"), memex.config.config_path)
        memex.catalog  # noqa: B018  # migrate now, not on the first request
        memex.keyword_store  # noqa: B018  # load the index before the first request
        # Every component a search uses open from the start, so that searches share the
        # call lock from the first one (Memex.reads_may_share), keyword ones included.
        memex.ranker  # noqa: B018
        if memex.semantic_unavailable_reason() is None:
            memex.embedder  # noqa: B018
            memex.vector_store  # noqa: B018
    except MemexError as exc:
        raise click.ClickException(str(exc)) from exc
    app = build_app(
        memex,
        admin_secret=secret.value,
        max_body=max_body,
        max_upload=max_upload,
        auth_limits=auth_limits,
        allowed_hosts=known_hosts(host, network.allowed_hosts),
    )
    # The keyword index follows what other processes and replicas write to the catalog.
    app.state.memex.follow(follow)
    # Forwarded headers from [serve] trusted_proxies only (uvicorn's default trusts this
    # machine: any local process could then claim a new address with every wrong guess).
    config = uvicorn.Config(
        app,
        log_level=log_level,
        access_log=log_level in ("info", "debug"),
        lifespan="off",
        **network.uvicorn_options(),
    )
    server = uvicorn.Server(config)
    # Long-lived responses (the viewer's event streams) end when this turns true: uvicorn's
    # graceful shutdown waits for every open response, and a stream never ends by itself.
    app.state.stopping = lambda: server.should_exit
    try:
        sock = _bind(host, port)
    except OSError as exc:
        raise click.ClickException(
            f"Cannot listen on {host}:{port} ({exc.strerror or exc}). Is another server "
            "running there? Pick another --port (0: any free one)."
        ) from exc
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    where = {
        "environment": "$MEMEX_ADMIN_SECRET",
        "file": f"{secret.path}",
        "generated": f"{secret.path} (new, readable by you only)",
    }.get(secret.origin, secret.origin)
    reach = "this machine only" if host in LOOPBACK else "OTHER MACHINES TOO: put TLS in front"
    live = len(memex.agent_keys().list())
    from memex_core.cli.app import run_on
    from memex_core.warm.socket_listener import start_for

    # Fresh `memex dig` processes on this home answer through this process's open indexes
    # (listening before LISTENING is printed, so whoever waits for that line finds it).
    warm_lines: list[str] = []
    warm = start_for(memex, "memex serve", warm_lines.append, run_on)
    queries = app.state.memex.queries
    # A server lives long: its query engine loads now, and is waited for here, so that
    # the first search does not pay for it and the line below says what it got. (Not in
    # build_app: a process that builds the app and exits, such as the docs generator,
    # would leave ONNX Runtime half-loaded on a thread at exit, which aborts the process.)
    if queries is not None:
        queries.warm()
    engine = [f"  query embeddings: {queries.engine()}"] if queries is not None else []
    lines = [
        f"memex serve: {memex.home}",
        f"  operator secret: {where}",
        f"  agent keys: {live} live (memex keys create --user <id> --name <name>)",
        f"  reachable from {reach}",
        *_proxy_lines(network.trusted_proxies),
        *engine,
        *warm_lines,
        f"{LISTENING} http://{shown}:{bound} (stop with Ctrl-C)",
    ]
    from memex_server.runfile import clear_on_sigterm, clear_run_file, write_run_file
    from memex_server.sigterm import on_sigterm

    # Where `memex view` finds this server, written before LISTENING is printed (loopback
    # for a wildcard address, which is not one a browser can open). Advisory: a home it
    # cannot write to still serves.
    local = "127.0.0.1" if host in ("0.0.0.0", "") else ("[::1]" if host == "::" else shown)
    with contextlib.suppress(OSError):
        write_run_file(Path(memex.home), f"http://{local}:{bound}")
    # On SIGTERM uvicorn shuts down, then hands the signal on; the finally below never
    # runs then. Chained here, the follower stops and flushes (clear_on_sigterm passes the
    # signal on to this handler).
    on_sigterm(app.state.memex.stop_following)
    clear_on_sigterm(Path(memex.home))
    click.echo("\n".join(lines), err=True)
    try:
        server.run(sockets=[sock])
    finally:
        app.state.memex.stop_following()
        clear_run_file(Path(memex.home))
        if warm is not None:
            warm.close()


def _proxy_lines(trusted: tuple[str, ...]) -> list[str]:
    """What the start-up lines say of forwarded headers: whom they are believed from, and
    that uvicorn's own variable no longer decides it."""
    from memex_server.network import UVICORN_ENV

    lines = [f"  forwarded client addresses: from {', '.join(trusted)} only"] if trusted else []
    if os.environ.get(UVICORN_ENV) is not None:
        lines.append(f"  {UVICORN_ENV} is ignored: list your proxies in [serve] trusted_proxies")
    return lines


def _bind(host: str, port: int) -> socket.socket:
    """The listening socket, bound here so the real port (with --port 0) can be printed.

    It listens before LISTENING is printed: whoever waits for that line may connect at
    once, and until uvicorn starts (it listens again, harmlessly) a bound socket that is
    not listening refuses connections (seen in CI under load)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
        sock.listen(2048)  # uvicorn's default backlog
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


# -- keys --------------------------------------------------------------------------------------


@click.group()
def keys() -> None:
    """Agent API keys for `memex serve`: each acts for one user.

    \b
      memex keys create --user alice --name support-bot   # prints the key once
      memex keys list
      memex keys revoke support-bot                      # stops working at once
    Only a salted hash of each key is stored.
    """


def _when(epoch: float | None) -> str:
    return "-" if epoch is None else datetime.fromtimestamp(epoch).strftime("%Y-%m-%d %H:%M")


@keys.command("create")
@click.option("--user", required=True, help="The user whose memory the key reads and writes.")
@click.option("--name", required=True, help="A name for the agent (the actor in the access log).")
@click.option("--collection", default="", help="Bound the key to this collection and below.")
@click.option(
    "--corpus/--no-corpus",
    default=True,
    show_default=True,
    help="Whether the key may read the corpus you ingested (exports, notes).",
)
@format_option("text", "json")
def create_key(
    ctx: click.Context, user: str, name: str, collection: str, corpus: bool, output_format: str
) -> None:
    """Create a key for USER's agent and print it (it is shown only this once)."""
    memex = open_memex(ctx)
    try:
        key, token = memex.agent_keys().create(
            user, name=name, collection=collection, corpus=corpus
        )
    except MemexError as exc:
        raise click.ClickException(str(exc)) from exc
    if output_format == "json":
        click.echo(json.dumps({"key": token, "user": key.user_id, "name": key.name, "id": key.id}))
        return
    reach = [f"{key.user_id}'s memory", "shared memory"] + (["the corpus"] if key.corpus else [])
    bound = f" (collection {key.collection!r} and below)" if key.collection else ""
    click.echo(token)
    click.echo(
        f"Key {key.id} ({key.name!r}) reads {', '.join(reach)}{bound}. It is shown only now: "
        "keep it in the agent's secret store. Revoke with: memex keys revoke " + key.name,
        err=True,
    )


@keys.command("list")
@click.option("--all", "include_revoked", is_flag=True, help="Include revoked keys.")
@format_option("text", "json")
def list_keys(ctx: click.Context, include_revoked: bool, output_format: str) -> None:
    """List agent keys (never their secrets)."""
    found = open_memex(ctx).agent_keys().list(include_revoked=include_revoked)
    if output_format == "json":
        click.echo(json.dumps([k.to_dict() for k in found], indent=2))
        return
    if not found:
        click.echo("No agent keys yet. Create one: memex keys create --user <id> --name <name>")
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    rows = []
    for key in found:
        cells = (
            key.id,
            key.name,
            key.user_id,
            key.collection or "-",
            "yes" if key.corpus else "no",
            _when(key.created_at),
            _when(key.last_used_at),
            "live" if key.active else f"revoked {_when(key.revoked_at)}",
        )
        rows.append((cells, key.active))
    table = Table(box=None)
    columns = ("id", "name", "user", "collection", "corpus", "created", "last used", "status")
    for index, column in enumerate(columns):
        # What `memex keys revoke` takes is never cut short, at any terminal width.
        whole = column in ("id", "name", "user", "collection")
        widest = max(len(column), *(len(cells[index]) for cells, _ in rows))
        table.add_column(column, min_width=widest if whole else None)
    for cells, active in rows:
        # Text, not str: a name with [brackets] is shown as typed, never read as markup.
        table.add_row(*(Text(c) for c in cells), style=None if active else "dim")
    Console(soft_wrap=True).print(table, markup=False, highlight=False)


@keys.command("revoke")
@click.argument("key")
@format_option("text", "json")
def revoke_key(ctx: click.Context, key: str, output_format: str) -> None:
    """Revoke KEY (its id or name). A server refuses it from the next request on."""
    try:
        revoked = open_memex(ctx).agent_keys().revoke(key)
    except MemexError as exc:
        raise click.ClickException(str(exc)) from exc
    if output_format == "json":
        click.echo(json.dumps(revoked.to_dict()))
        return
    click.echo(f"Revoked key {revoked.id} ({revoked.name!r}, user {revoked.user_id}).")
