"""A real ``memex serve`` for tests: uvicorn in a subprocess on 127.0.0.1 and a free port.

>>> with running_service(home) as service:                       # doctest: +SKIP
...     MemexClient(service.url, admin_secret=service.admin_secret)

The operator secret is passed through ``MEMEX_ADMIN_SECRET``; the port is chosen by
the server (``--port 0``) and read from the line it prints when listening, so two tests never
race for one. The server's output is kept in ``<home>/serve.log`` for failures.
"""

from __future__ import annotations

import os
import re
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

STARTUP_TIMEOUT = 60.0
_RUNNING = re.compile(r"memex serve: listening on (http://\S+)")


@dataclass
class Service:
    url: str
    home: Path
    admin_secret: str
    process: subprocess.Popen[bytes]
    log: Path

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")


@contextmanager
def running_service(
    home: Path, *, extra_args: tuple[str, ...] = (), env: dict[str, str] | None = None
) -> Iterator[Service]:
    home.mkdir(parents=True, exist_ok=True)
    secret = secrets.token_urlsafe(24)
    log = home / "serve.log"
    environment = {
        **os.environ,
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
        url = _wait_for_url(process, log)
        yield Service(url, home, secret, process, log)
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def _wait_for_url(process: subprocess.Popen[bytes], log: Path) -> str:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        text = log.read_text(encoding="utf-8", errors="replace")
        found = _RUNNING.search(text)
        if found:
            return found.group(1)
        if process.poll() is not None:
            raise RuntimeError(f"memex serve exited with {process.returncode}:\n{text}")
        time.sleep(0.05)
    raise RuntimeError(f"memex serve did not start within {STARTUP_TIMEOUT} s:\n{log.read_text()}")
