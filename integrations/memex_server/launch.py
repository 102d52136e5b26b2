"""A ``memex serve`` in a subprocess on a free loopback port, until a block ends.

>>> with served(home) as server:                                      # doctest: +SKIP
...     MemexClient(server.url, admin_secret=server.admin_secret)

For tests, benchmarks and tools that need a real server. The operator secret is made here
and passed through ``MEMEX_ADMIN_SECRET``; the port is chosen by the server (``--port 0``)
and read from the line it prints when listening, so two servers never race for one. Its
output goes to ``log`` (``<home>/serve.log`` by default), kept for failures.
"""

from __future__ import annotations

import os
import re
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from memex_server.defaults import LISTENING

_LISTENING = re.compile(re.escape(LISTENING) + r" (http://\S+)")


@dataclass
class RunningServer:
    url: str
    home: Path
    admin_secret: str  # the one generated here (the server's, unless ``env`` replaced it)
    process: subprocess.Popen[bytes]
    log: Path

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


@contextmanager
def served(
    home: Path,
    *,
    log: Path | None = None,
    extra_args: tuple[str, ...] = (),
    environ: Mapping[str, str] | None = None,
    env: Mapping[str, str] | None = None,
    startup_timeout: float = 60.0,
    stop_timeout: float = 15.0,
) -> Iterator[RunningServer]:
    """``memex --home HOME serve --port 0 EXTRA_ARGS`` in ``environ`` (default: this
    process's) with a fresh operator secret, then ``env`` over both (a test may set or
    empty ``MEMEX_ADMIN_SECRET`` there). Stopped with SIGTERM (SIGKILL after
    ``stop_timeout``) when the block ends; RuntimeError with the server's output if it
    does not start."""
    home.mkdir(parents=True, exist_ok=True)
    log = log or home / "serve.log"
    secret = secrets.token_urlsafe(24)
    environment = {
        **(os.environ if environ is None else environ),
        "MEMEX_ADMIN_SECRET": secret,
        "PYTHONUNBUFFERED": "1",
        **(env or {}),
    }
    command = [sys.executable, "-m", "memex_core", "--home", str(home), "serve", "--port", "0"]
    with log.open("wb") as out:
        process = subprocess.Popen(
            [*command, *extra_args], stdout=out, stderr=subprocess.STDOUT, env=environment
        )
    try:
        url = _wait_for_url(process, log, startup_timeout)
        yield RunningServer(url, home, secret, process, log)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=stop_timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait_for_url(process: subprocess.Popen[bytes], log: Path, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while True:
        text = log.read_text(encoding="utf-8", errors="replace")
        found = _LISTENING.search(text)
        if found:
            return found.group(1)
        if process.poll() is not None:
            raise RuntimeError(f"memex serve exited with {process.returncode}:\n{text[-3000:]}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"memex serve did not start within {timeout:g} s:\n{text[-3000:]}")
        time.sleep(0.05)
