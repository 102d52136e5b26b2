"""``memex view``: open the viewer of a local home in the browser, starting ``memex serve``
on loopback when none runs on the home.

A server already running on the home is found through its run file
(:mod:`memex_server.runfile`, written by ``memex serve``); otherwise ``memex serve`` starts
in the background (its own session, so closing this terminal does not stop it; output in
``<home>/run/view-serve.log``) and this command waits for its ``listening`` line. It prints
the URL and where the operator secret is (the file's path or the variable's name: never the
secret itself).

Imports nothing heavy: click, the standard library and memex_server's run-file helpers.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import webbrowser
from pathlib import Path

import click

from memex_core.cli.opening import open_memex
from memex_server.defaults import LISTENING

DEFAULT_PORT = 8765
START_TIMEOUT = 60.0
LOG_NAME = "view-serve.log"
_LISTENING = re.compile(re.escape(LISTENING) + r" (http://\S+)")


def _port_free(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def start_server(home: Path, port: int, timeout: float = START_TIMEOUT) -> tuple[str, int, Path]:
    """``memex serve`` on 127.0.0.1 for ``home`` in the background: its URL, pid and log."""
    log = home / "run" / LOG_NAME
    log.parent.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "memex_core", "--home", str(home), "serve"]
    command += ["--host", "127.0.0.1", "--port", str(port)]
    with log.open("wb") as out:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # outlives this command and its terminal
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
    deadline = time.monotonic() + timeout
    while True:
        text = log.read_text(encoding="utf-8", errors="replace")
        found = _LISTENING.search(text)
        if found:
            return found.group(1), process.pid, log
        if process.poll() is not None:
            raise click.ClickException(
                f"memex serve exited with {process.returncode} before listening; its output "
                f"is in {log}:\n{text[-2000:]}"
            )
        if time.monotonic() > deadline:
            raise click.ClickException(
                f"memex serve did not start within {timeout:g} s (see {log}); it is still "
                f"running as process {process.pid}."
            )
        time.sleep(0.1)


def secret_hint(home: Path) -> str:
    """Where the operator secret is, never what it is."""
    from memex_server.admin_secret import ADMIN_SECRET_ENV, admin_secret_path

    if os.environ.get(ADMIN_SECRET_ENV, "").strip():
        return f"the value of ${ADMIN_SECRET_ENV} (set in this environment)"
    return f"the contents of {admin_secret_path(home)} (cat it and paste it)"


@click.command()
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=None,
    help=f"Port for a server this starts (default {DEFAULT_PORT}, or any free one if that "
    "is taken). A server already running on the home is used as it is.",
)
@click.option("--no-browser", is_flag=True, help="Print the URL; do not open a browser.")
@click.pass_context
def view(ctx: click.Context, port: int | None, no_browser: bool) -> None:
    """Open the web viewer of this home in the browser (search, timelines, notes, memory).

    \b
    Uses the memex serve already running on the home, or starts one on 127.0.0.1
    in the background. Sign in with the operator secret (its file is printed, the
    secret never is) or an agent key (memex keys create --user <id> --name <name>).
    """
    from memex_server.runfile import running_server

    home = Path(open_memex(ctx).home)
    url = running_server(home)
    if url is not None:
        click.echo(f"memex view: a memex serve already runs on {home} at {url}", err=True)
    else:
        chosen = port if port is not None else DEFAULT_PORT
        if port is None and not _port_free(chosen):
            chosen = 0  # any free port: the default one is someone else's
        url, pid, log = start_server(home, chosen)
        click.echo(
            f"memex view: started memex serve for {home} (process {pid}, log {log}); "
            f"stop it with: kill {pid}",
            err=True,
        )
    click.echo(f"  sign in with the operator secret: {secret_hint(home)}", err=True)
    click.echo("  or with an agent key: memex keys create --user <id> --name <name>", err=True)
    click.echo(url + "/")
    if not no_browser:
        webbrowser.open(url + "/")
