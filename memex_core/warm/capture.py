"""stdout and stderr per thread: what a warm request prints is captured for its client,
while the rest of the process (uvicorn's logs, an MCP server's stdio) writes where it
always did.

:func:`install` replaces ``sys.stdout``/``sys.stderr`` once with a :class:`Routed`
stream that writes to the capture of the current context when there is one and to
the original stream otherwise. click and rich look ``sys.stdout`` up at each write,
so the CLI's commands need no change. rich's consoles made during a capture take the
client's width, height, rendering variables and whether its stream is a terminal
(:func:`_lay_out_for_clients`), and a captured stream answers ``isatty`` as the
client's does (click strips colour codes from a stream that is not one), so panels
come out as the client would have printed them to the same pipe or terminal.
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, TextIO

#: (fd, text) pieces in the order they were written, so stdout and stderr interleave
#: for the client as they would have in its own process.
Output = list[tuple[int, str]]

_capture: ContextVar[Output | None] = ContextVar("memex_warm_capture", default=None)
#: The client's ``render`` settings (memex_core.warm.socket_client.render_settings) while captured.
_render: ContextVar[Mapping[str, Any] | None] = ContextVar("memex_warm_render", default=None)
_install_lock = threading.Lock()


class Routed:
    """A text stream writing to the current context's capture, else to ``original``."""

    def __init__(self, original: TextIO, fd: int) -> None:
        self._original = original
        self._fd = fd

    @property
    def encoding(self) -> str:
        # click rewraps a stream whose encoding looks ASCII; captures are UTF-8 text.
        return "utf-8"

    @property
    def errors(self) -> str:
        return "strict"

    def write(self, text: str) -> int:
        if not isinstance(text, str):
            # click probes a stream with write(b"") to tell binary from text.
            raise TypeError(f"write() argument must be str, not {type(text).__name__}")
        captured = _capture.get()
        if captured is None:
            return self._original.write(text)
        captured.append((self._fd, text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if _capture.get() is None:
            self._original.flush()

    def isatty(self) -> bool:
        if _capture.get() is None:
            return self._original.isatty()
        return _client_tty(self._fd)

    def writable(self) -> bool:
        return True

    def readable(self) -> bool:
        return False

    def fileno(self) -> int:
        if _capture.get() is not None:
            # Nothing may write around the capture to the process's own descriptor.
            raise OSError("a captured stream has no file descriptor")
        return self._original.fileno()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._original, name)


def _client_tty(fd: int) -> bool:
    """Whether the client's stream ``fd`` (1 or 2) is a terminal (False when unsaid)."""
    render = _render.get()
    tty = render.get("tty") if render is not None else None
    return bool(tty.get(str(fd))) if isinstance(tty, Mapping) else False


def install() -> None:
    """Route ``sys.stdout`` and ``sys.stderr`` (once per process)."""
    with _install_lock:
        if not isinstance(sys.stdout, Routed):
            sys.stdout = Routed(sys.stdout, 1)
        if not isinstance(sys.stderr, Routed):
            sys.stderr = Routed(sys.stderr, 2)
        _lay_out_for_clients()


def _lay_out_for_clients() -> None:
    """Make every rich Console built during a capture use the client's size and variables
    (only what the caller left unset), never this process's terminal."""
    try:
        from rich.console import Console
    except ImportError:  # no rich, no panels
        return
    original = Console.__init__
    if getattr(original, "_memex_warm", False):
        return

    @functools.wraps(original)
    def init(self: Console, *args: Any, **kwargs: Any) -> None:
        render = _render.get()
        if render is not None and _capture.get() is not None:
            kwargs.setdefault("width", render["width"])
            kwargs.setdefault("height", render["height"])
            kwargs.setdefault("_environ", dict(render["env"]))
            if "file" not in kwargs:
                kwargs.setdefault("force_terminal", _client_tty(2 if kwargs.get("stderr") else 1))
        original(self, *args, **kwargs)

    init._memex_warm = True  # type: ignore[attr-defined]
    Console.__init__ = init  # type: ignore[method-assign]


@contextmanager
def captured(render: Mapping[str, Any] | None = None) -> Iterator[Output]:
    """Collect what this context writes to stdout and stderr (after :func:`install`), with
    rich laying out for ``render`` (the client's settings)."""
    output: Output = []
    token = _capture.set(output)
    render_token = _render.set(render)
    try:
        yield output
    finally:
        _render.reset(render_token)
        _capture.reset(token)
