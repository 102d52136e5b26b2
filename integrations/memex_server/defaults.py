"""Defaults the ``serve`` command shows in its help, kept apart from the server's modules so
that ``memex --help`` does not import FastAPI (:mod:`memex_server.limits` needs Starlette)."""

from __future__ import annotations

DEFAULT_MAX_BODY = 1 << 20  # 1 MiB: a remembered conversation of a few hundred turns
DEFAULT_MAX_UPLOAD = 1 << 30  # 1 GiB: a large ChatGPT export
#: What ``memex serve`` prints, followed by its URL, once it listens (memex_server.launch
#: reads it to learn the port ``--port 0`` picked).
LISTENING = "memex serve: listening on"
