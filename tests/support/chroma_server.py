"""A real ``chroma run`` server for tests, on 127.0.0.1, a free port and a temp folder.

Import the fixture into a test module
(``from tests.support.chroma_server import chroma_server_url``) or use
:func:`running_chroma_server` directly. Tests using it should be marked
``@pytest.mark.chroma_server``. When the ``chroma`` CLI is not installed the
fixture skips, saying so.

:class:`ChromaServer` (fixture ``chroma_server``) is a server a test can stop
(SIGTERM or SIGKILL), pause (SIGSTOP: it accepts connections but never answers)
and start again on the same port and folder, for outage tests.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

#: How long a server may take to answer its first heartbeat (it takes ~1 s here).
STARTUP_TIMEOUT = 30.0
HEARTBEAT_PATH = "/api/v2/heartbeat"


def find_chroma_cli() -> str | None:
    """The ``chroma`` executable: on PATH, or next to this interpreter (an unactivated venv)."""
    found = shutil.which("chroma")
    if found:
        return found
    beside = Path(sys.executable).parent / "chroma"
    return str(beside) if beside.exists() else None


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _heartbeat(url: str) -> bool:
    try:
        with urllib.request.urlopen(url + HEARTBEAT_PATH, timeout=1) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return False


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)


class ChromaServer:
    """One ``chroma run`` on 127.0.0.1 that can be stopped, paused and started again.

    The port is chosen once, so a restarted server is the same URL, as it would be
    for a user whose server came back.
    """

    def __init__(self, data_path: Path, cli: str, port: int | None = None) -> None:
        self.data_path = data_path
        self.cli = cli
        self.port = port or _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = data_path.parent / f"{data_path.name}-server.log"
        self.process: subprocess.Popen[bytes] | None = None
        self.paused = False

    def start(self) -> None:
        """Start it and wait for its heartbeat; RuntimeError (with its log) if it never answers."""
        assert self.process is None, "already running"
        self.data_path.mkdir(parents=True, exist_ok=True)
        command = [self.cli, "run", "--path", str(self.data_path)]
        command += ["--host", "127.0.0.1", "--port", str(self.port)]
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                command,
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        deadline = time.monotonic() + STARTUP_TIMEOUT
        while self.process.poll() is None and time.monotonic() < deadline:
            if _heartbeat(self.url):
                return
            time.sleep(0.1)
        self.stop()
        log_tail = self.log_path.read_text(errors="replace")[-2000:]
        raise RuntimeError(
            f"chroma run did not answer at {self.url}{HEARTBEAT_PATH}; its log ends:\n{log_tail}"
        )

    def stop(self, *, kill: bool = False) -> None:
        """SIGTERM (or SIGKILL) and wait for it to exit."""
        if self.process is None:
            return
        if self.paused:
            self.resume()  # a stopped process would only see SIGTERM once continued
        if kill and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=10)
        _stop(self.process)
        self.process = None

    def pause(self) -> None:
        """SIGSTOP: the kernel still accepts connections, the server never answers.

        Returns once every thread of the server has stopped: ``kill`` only marks the
        signal pending, and a server thread already running could still answer the
        next request (CI saw a "paused" server answer a query).
        """
        assert self.process is not None
        self.process.send_signal(signal.SIGSTOP)
        _, status = os.waitpid(self.process.pid, os.WUNTRACED)
        assert os.WIFSTOPPED(status), f"the chroma server did not stop (status {status})"
        self.paused = True

    def resume(self) -> None:
        assert self.process is not None
        self.process.send_signal(signal.SIGCONT)
        _, status = os.waitpid(self.process.pid, os.WCONTINUED)
        assert os.WIFCONTINUED(status), f"the chroma server did not resume (status {status})"
        self.paused = False

    @property
    def answering(self) -> bool:
        return _heartbeat(self.url)


@contextmanager
def running_chroma_server(data_path: Path, cli: str | None = None) -> Iterator[str]:
    """Start ``chroma run`` on a free port, wait for its heartbeat, yield its URL, stop it.

    A port can be taken between choosing and binding it, so a server that dies
    before answering is retried on another port a couple of times.
    """
    with controllable_chroma_server(data_path, cli) as server:
        yield server.url


@contextmanager
def controllable_chroma_server(data_path: Path, cli: str | None = None) -> Iterator[ChromaServer]:
    """A started :class:`ChromaServer` (on another port if it dies at once), stopped after."""
    cli = cli or find_chroma_cli()
    if cli is None:
        raise FileNotFoundError("the chroma CLI is not installed")
    for attempt in range(3):
        server = ChromaServer(data_path, cli)
        try:
            server.start()
        except RuntimeError:
            if attempt == 2:
                raise
            continue
        try:
            yield server
        finally:
            server.stop()
        return


@pytest.fixture
def chroma_server_url(tmp_path: Path) -> Iterator[str]:
    """URL of a fresh chroma server with its data in ``tmp_path``."""
    cli = find_chroma_cli()
    if cli is None:
        pytest.skip("the `chroma` CLI is not installed (pip install 'memex[chroma]')")
    with running_chroma_server(tmp_path / "chroma-server", cli) as url:
        yield url


@pytest.fixture
def chroma_server(tmp_path: Path) -> Iterator[ChromaServer]:
    """A fresh :class:`ChromaServer` with its data in ``tmp_path``, running; stopped after."""
    cli = find_chroma_cli()
    if cli is None:
        pytest.skip("the `chroma` CLI is not installed (pip install 'memex[chroma]')")
    with controllable_chroma_server(tmp_path / "chroma-server", cli) as server:
        yield server
