"""``memex warm start|status|stop``: a background process that keeps the home open, so
``memex dig`` and the other read commands answer without a cold start."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import click

from memex_core.cli.opening import number_option
from memex_core.errors import MemexError

#: How long ``memex warm start`` waits for the process to load the indexes and listen.
START_TIMEOUT = 120.0


def _home(ctx: click.Context) -> str:
    from memex_core.config import default_home

    home = (ctx.find_root().obj or {}).get("home")
    return str(Path(home).expanduser() if home else default_home())


def _ask(home: str, op: str) -> dict[str, object] | None:
    """The warm process's answer to ``op``, or None when none listens on ``home``."""
    from memex_core.warm import protocol, socket_client

    try:
        return socket_client.exchange(
            protocol.socket_path(home), {"v": protocol.VERSION, "op": op}, 5.0
        )
    except socket_client.Declined:
        return None


def _answer(ctx: click.Context, op: str) -> dict[str, object] | None:
    """The answer to ``op`` of this home's warm process; None, said, when there is none."""
    home = _home(ctx)
    found = _ask(home, op)
    if found is None:
        click.echo(f"No warm process for {home}.")
    return found


@click.group()
def warm() -> None:
    """Keep this home open in a background process, so read commands start warm.

    \b
      memex warm start                 # loads the indexes, then answers in ms
      memex warm status
      memex warm stop
    `memex dig`, `keyword`, `semantic`, `get`, `timeline` and `context` (any
    --format, to a pipe or a terminal) go through <home>/run/memex.sock
    when a process listens there (this one, a memex serve or a memex mcp on the
    home) and run here otherwise, with the same output. MEMEX_NO_WARM=1 turns
    this off.

    A read command that finds no warm process starts this one in the background
    (and still answers itself); it exits after 30 idle minutes. Never on a
    home that does not exist or is read-only, nor with MEMEX_URL set.
    MEMEX_WARM_AUTOSTART=0 turns that off; a number sets the idle minutes.
    """


@warm.command()
@number_option(
    "--idle-minutes", 30.0, "Exit after this many minutes without a request (0: never).", minimum=0
)
@click.pass_context
def start(ctx: click.Context, idle_minutes: float) -> None:
    """Start the warm process for this home in the background."""
    from memex_core.warm import protocol

    home = _home(ctx)
    found = _ask(home, "ping") or _being_started(home)
    if found is not None:
        click.echo(f"Already running: {found.get('owner')} (pid {found.get('pid')}) on {home}.")
        return
    run = Path(protocol.run_dir(home))
    run.mkdir(parents=True, exist_ok=True, mode=0o700)
    log_path = run / "warm.log"
    with open(log_path, "ab") as log:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "memex_core.cli.warm_daemon",
                "--home",
                home,
                "--idle-minutes",
                str(idle_minutes),
            ],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=log,
            start_new_session=True,  # outlives this shell's Ctrl-C
            close_fds=True,
        )
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise MemexError(f"The warm process exited ({process.returncode}); see {log_path}.")
        found = _ask(home, "ping")
        if found is not None and found.get("pid") == process.pid:
            click.echo(
                f"Warm process {process.pid} listens on {protocol.socket_path(home)}"
                + (f"; it exits after {idle_minutes:g} idle minutes." if idle_minutes else ".")
            )
            return
        time.sleep(0.1)
    raise MemexError(f"The warm process did not listen within {START_TIMEOUT:g} s; see {log_path}.")


def _being_started(home: str) -> dict[str, object] | None:
    """The answer of a warm process a read command started and that is still loading (it
    holds ``run/autostart.lock`` while it lives), once it listens; None when there is none."""
    import fcntl

    from memex_core.warm import protocol, socket_client

    path = Path(protocol.run_dir(home)) / socket_client.AUTOSTART_LOCK
    try:
        with open(path) as lock:  # never created here: its time says when one was started
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return None  # nobody holds it: no such process
    except BlockingIOError:
        pass
    except OSError:
        return None
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        found = _ask(home, "ping")
        if found is not None:
            return found
        time.sleep(0.1)
    return None


@warm.command()
@click.pass_context
def status(ctx: click.Context) -> None:
    """Say whether a warm process answers for this home (exit status 1 if none)."""
    found = _answer(ctx, "ping")
    if found is None:
        ctx.exit(1)
        return
    started = float(found.get("started") or 0)  # type: ignore[arg-type]
    click.echo(
        f"{found.get('owner')} (pid {found.get('pid')}) on {found.get('home')}: up "
        f"{(time.time() - started) / 60:.1f} min, {found.get('requests')} requests, idle "
        f"{found.get('idle_seconds')} s."
    )


@warm.command()
@click.pass_context
def stop(ctx: click.Context) -> None:
    """Stop the warm process of this home."""
    from memex_core.warm import protocol

    found = _answer(ctx, "stop")
    if found is None:
        return
    if found.get("status") != "ok":
        raise MemexError(str(found.get("reason")))
    path = protocol.socket_path(_home(ctx))
    deadline = time.monotonic() + 10
    while os.path.exists(path) and time.monotonic() < deadline:
        time.sleep(0.05)
    click.echo(f"Stopped the warm process {found.get('pid')}.")
