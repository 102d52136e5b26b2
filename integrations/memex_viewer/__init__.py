"""The memex viewer: web pages over a memex, served by ``memex serve`` at ``/``.

A layer over the public Python API and :class:`memex_server.state.ServerState`;
memex_core never imports it. Server-rendered Jinja2 pages (autoescape on everywhere)
with a little plain JavaScript (``static/viewer.js``); nothing is loaded from outside.

Where things live:

* :mod:`memex_viewer.app`: :func:`build_router` (every page) and :func:`mount`, which
  ``memex_server.app.build_app`` calls.
* :mod:`memex_viewer.sessions`: the signed ``memex_session`` cookie and CSRF tokens.
* :mod:`memex_viewer.revocation`: signing out ends a principal's sessions in the catalog.
* :mod:`memex_viewer.principal`: who is signed in (``SignedIn``, ``OperatorOnly``),
  ``CheckedForm`` (a POST's form, its ``csrf_token`` checked), ``PageExit``.
* :mod:`memex_viewer.rendering`: ``render(request, template, viewer, **context)``,
  ``error_page``, the security headers.
* :mod:`memex_viewer.signin`: ``/signin``, ``/signout``.
* :mod:`memex_viewer.search`: ``/``, the search page.
* :mod:`memex_viewer.assets`: ``/static/<name>`` from ``static/``.
* :mod:`memex_viewer.timeline`: ``/timeline/<fragment id>``.
* :mod:`memex_viewer.events`: ``/events`` (server-sent events of new fragments) and
  ``/activity`` (the newest fragments, live).
* :mod:`memex_viewer.notes`: ``/notes`` and ``/note/<id, path or title>``.
* :mod:`memex_viewer.corpus`: ``/corpus`` and ``/corpus/doctor`` (operator only).
* :mod:`memex_viewer.command`: ``memex view``.

Adding pages (the memory pages, say): a module ``memory_collections.py`` with its own
``router = APIRouter(include_in_schema=False)``, listed in ``build_router``; handlers take
``viewer: SignedIn`` (or ``OperatorOnly``), and those that write ``form: CheckedForm``;
they read through ``state_of(request)`` and ``state.reader(viewer.caller)`` /
``state.agent_memory(viewer.caller)`` / ``state.operator_memory(viewer.caller)``, never a
path of their own. Templates ``memory_*.html`` extend ``base.html`` (blocks ``title`` and
``main``); a writing form includes ``{{ csrf_field(viewer) }}``, a macro of
``forms.html`` (``{% from "forms.html" import csrf_field %}``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["build_router", "mount"]


def __getattr__(name: str) -> Any:
    # Lazily: ``memex view`` (memex_viewer.command) is registered with every CLI start, and
    # ``memex --help`` must not import FastAPI and Jinja2 (or need them installed).
    if name in __all__:
        from memex_viewer import app

        return getattr(app, name)
    raise AttributeError(f"module 'memex_viewer' has no attribute {name!r}")
