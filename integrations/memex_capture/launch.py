"""Start the capture worker from a hook, without waiting for it (standard library only).

One worker runs per home: it holds an exclusive ``flock`` on
``layout.worker_lock(home)`` for as long as it lives, and the kernel drops the
lock when it dies, so a crashed worker never looks alive. A hook probes the
lock without blocking; when nobody holds it, the hook spawns
``python -m memex_capture.worker --home HOME`` in its own session (so the
agent's process group, and a Ctrl-C in it, never reach the worker) and returns
at once. Two hooks racing may both spawn one; the loser finds the lock taken
and exits.
"""

from __future__ import annotations

import fcntl
import os
import sys

from memex_capture import layout

#: Set to a non-empty value to keep hooks from starting a worker (tests, benchmarks).
NO_WORKER_ENV = "MEMEX_CAPTURE_NO_WORKER"
WORKER_MODULE = "memex_capture.worker"


def worker_running(home: str) -> bool:
    """Whether a worker holds ``home``'s worker lock right now."""
    try:
        fd = os.open(layout.worker_lock(home), os.O_RDONLY)
    except OSError:
        return False  # no lock file: no worker ever ran (or the home is unreadable)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def worker_command(home: str, python: str | None = None) -> list[str]:
    """The command line that starts a worker on ``home``."""
    return [python or sys.executable, "-m", WORKER_MODULE, "--home", home]


def start_worker(home: str, python: str | None = None) -> int:
    """Spawn a detached worker on ``home``; its output goes to /dev/null (it logs
    to ``layout.worker_log``). Returns its pid."""
    argv = worker_command(home, python)
    env = dict(os.environ)
    env[layout.HOME_ENV] = home
    devnull = os.devnull
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, devnull, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, devnull, os.O_WRONLY, 0),
    ]
    return os.posix_spawn(argv[0], argv, env, file_actions=actions, setsid=True)


def ensure_worker(home: str, python: str | None = None) -> bool:
    """Start a worker on ``home`` unless one runs or ``MEMEX_CAPTURE_NO_WORKER`` is set.

    Returns whether one was started.
    """
    if os.environ.get(NO_WORKER_ENV) or worker_running(home):
        return False
    start_worker(home, python)
    return True
