"""A real ``chroma run`` server for tests, on 127.0.0.1, a free port and a temp folder.

Import the fixture into a test module (``from tests.chroma_server import chroma_server_url``)
or use :func:`running_chroma_server` directly. Tests using it should be marked
``@pytest.mark.chroma_server``. When the ``chroma`` CLI is not installed the
fixture skips, saying so.
"""

from __future__ import annotations

import shutil
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


@contextmanager
def running_chroma_server(data_path: Path, cli: str | None = None) -> Iterator[str]:
    """Start ``chroma run`` on a free port, wait for its heartbeat, yield its URL, stop it.

    A port can be taken between choosing and binding it, so a server that dies
    before answering is retried on another port a couple of times.
    """
    cli = cli or find_chroma_cli()
    if cli is None:
        raise FileNotFoundError("the chroma CLI is not installed")
    data_path.mkdir(parents=True, exist_ok=True)
    log_path = data_path.parent / f"{data_path.name}-server.log"
    for _attempt in range(3):
        port = _free_port()
        url = f"http://127.0.0.1:{port}"
        with open(log_path, "wb") as log:
            process = subprocess.Popen(
                [cli, "run", "--path", str(data_path), "--host", "127.0.0.1", "--port", str(port)],
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        try:
            deadline = time.monotonic() + STARTUP_TIMEOUT
            while process.poll() is None and time.monotonic() < deadline:
                if _heartbeat(url):
                    yield url
                    return
                time.sleep(0.1)
        finally:
            _stop(process)
    log_tail = log_path.read_text(errors="replace")[-2000:]
    raise RuntimeError(f"chroma run did not answer at {HEARTBEAT_PATH}; its log ends:\n{log_tail}")


@pytest.fixture
def chroma_server_url(tmp_path: Path) -> Iterator[str]:
    """URL of a fresh chroma server with its data in ``tmp_path``."""
    cli = find_chroma_cli()
    if cli is None:
        pytest.skip("the `chroma` CLI is not installed (pip install 'memex[chroma]')")
    with running_chroma_server(tmp_path / "chroma-server", cli) as url:
        yield url
