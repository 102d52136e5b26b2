"""A real ``memex serve`` for tests: uvicorn in a subprocess on 127.0.0.1 and a free port.

>>> with running_service(home) as service:                       # doctest: +SKIP
...     MemexClient(service.url, admin_secret=service.admin_secret)

A thin wrapper over :func:`memex_server.launch.served`: ``env`` goes over this process's
environment and the generated operator secret; the server's output is kept in
``<home>/serve.log`` for failures.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from memex_server.launch import RunningServer, served

STARTUP_TIMEOUT = 60.0
Service = RunningServer


@contextmanager
def running_service(
    home: Path, *, extra_args: tuple[str, ...] = (), env: dict[str, str] | None = None
) -> Iterator[Service]:
    with served(home, extra_args=extra_args, env=env, startup_timeout=STARTUP_TIMEOUT) as service:
        yield service
