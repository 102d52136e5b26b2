"""Where a running ``memex serve`` of a home can be reached: ``<home>/run/serve.json``.

``memex serve`` writes ``{"url": ..., "pid": ...}`` there once it listens and removes it
when it stops (only if it is still its own: a second server on the home takes it over);
``memex view`` reads it to open the viewer of a server that already runs instead of
starting another. The file holds no secret. A file left by a server that died is ignored:
its process is gone, or its URL does not answer ``/healthz``.
"""

from __future__ import annotations

import contextlib
import json
import os
import urllib.request
from pathlib import Path

from memex_server.sigterm import on_sigterm

RUN_FILE = Path("run") / "serve.json"


def run_file(home: Path) -> Path:
    return Path(home) / RUN_FILE


def write_run_file(home: Path, url: str) -> Path:
    path = run_file(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(f".{os.getpid()}.tmp")
    temporary.write_text(json.dumps({"url": url, "pid": os.getpid()}), encoding="utf-8")
    temporary.replace(path)  # whoever reads it sees a whole file or none
    return path


def clear_run_file(home: Path) -> None:
    """Remove the run file if this process wrote it."""
    path = run_file(home)
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        if json.loads(path.read_text(encoding="utf-8"))["pid"] == os.getpid():
            path.unlink()


def clear_on_sigterm(home: Path) -> None:
    """Remove the run file when SIGTERM ends the process (:func:`memex_server.sigterm.on_sigterm`:
    uvicorn hands the signal on once it has shut down, so a ``finally`` never runs then)."""
    on_sigterm(lambda: clear_run_file(home))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: it exists
    return True


def answers(url: str, timeout: float = 2.0) -> bool:
    """Whether ``url`` is a memex serve that answers ``/healthz``."""
    try:
        with urllib.request.urlopen(url.rstrip("/") + "/healthz", timeout=timeout) as response:
            return bool(response.status == 200)
    except (OSError, ValueError):
        return False


def running_server(home: Path) -> str | None:
    """The URL of a live ``memex serve`` of ``home``, or None."""
    try:
        found = json.loads(run_file(home).read_text(encoding="utf-8"))
        url, pid = str(found["url"]), int(found["pid"])
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if not _alive(pid) or not answers(url):
        return None
    return url
