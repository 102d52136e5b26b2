"""The process ``memex warm start`` leaves running: a Memex held open behind the warm
socket and nothing else, until ``memex warm stop``, a SIGTERM or ``--idle-minutes``
without a request.

``python -m memex_core.cli.warm_daemon --home H --idle-minutes N [--after-pid P]``. It loads
the catalog, both indexes and the embedder before it listens, so its first answer is as
quick as the next; with ``--after-pid`` (a read command that starts it on demand), only once
that command has exited. Its output goes to ``<home>/run/warm.log``.

It does not call the embedder's ``warm_queries()`` as ``memex serve`` does: it answers
CLI commands, which must print the bytes they print alone, and a query embedded through
ONNX Runtime rather than numpy differs by float32 rounding, which shows in JSON scores
(the warm server embeds its requests' queries as a cold process would in any case, see
:mod:`memex_core.warm.socket_listener`).

It lives beside the CLI, not in :mod:`memex_core.warm`, because it hands the server the
CLI's commands (:func:`memex_core.cli.app.run_on`): the warm package imports no CLI.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from types import FrameType

#: Longest a process started with ``--after-pid`` waits for that one to end.
AFTER_PID_WAIT = 120.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="memex-warm")
    parser.add_argument("--home", required=True)
    parser.add_argument("--idle-minutes", type=float, default=30.0)
    parser.add_argument("--after-pid", type=int, help="load only once this process has exited")
    args = parser.parse_args(argv)
    if args.after_pid:
        _wait_for_exit(args.after_pid)

    from memex_core.api import Memex
    from memex_core.cli.app import run_on
    from memex_core.warm.socket_listener import WarmServer, WarmUnavailable

    memex = Memex(home=args.home)
    _preload(memex)
    server = WarmServer(memex, owner="memex warm", run_command=run_on, reopen=True, allow_stop=True)

    def stop(signum: int, frame: FrameType | None) -> None:
        server.close()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    try:
        server.start()
    except WarmUnavailable as exc:
        print(f"memex warm: {exc}", file=sys.stderr, flush=True)
        return 1
    print(f"memex warm: listening on {server.path}", file=sys.stderr, flush=True)
    try:
        server.wait(idle_seconds=args.idle_minutes * 60 if args.idle_minutes > 0 else None)
    finally:
        server.close()
        memex.close()
    print("memex warm: stopped", file=sys.stderr, flush=True)
    return 0


def _wait_for_exit(pid: int, longest: float = AFTER_PID_WAIT) -> None:
    """Wait (at most ``longest`` seconds) until process ``pid`` is gone. A read command that
    starts this process on demand passes its own pid: loading the indexes beside it would
    take CPU from the command the user is waiting for."""
    import time

    deadline = time.monotonic() + longest
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        except PermissionError:  # another user's process now has that pid: ours is gone
            return
        if _exited(pid):
            return
        time.sleep(0.05)


def _exited(pid: int) -> bool:
    """Whether ``pid`` is a zombie: exited, not yet reaped by its parent (Linux's /proc)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except (OSError, IndexError):
        return False


def _preload(memex: object) -> None:
    """Open everything a hybrid search touches (whatever cannot open is opened, and
    reported, on the first request that needs it, as in a fresh process)."""
    from memex_core.api import Memex

    assert isinstance(memex, Memex)
    for step in (
        lambda: memex.catalog,
        lambda: memex.keyword_store,
        lambda: memex.search("warm up the indexes", mode="hybrid", limit=1),
    ):
        try:
            step()
        except Exception as exc:  # say it, keep going
            print(f"memex warm: preload: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    sys.exit(main())
