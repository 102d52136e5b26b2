"""The ``memex`` command line: a thin layer over :class:`memex_core.api.Memex`.

This module stays light on purpose: :func:`main` first offers a read command to a
warm memex process on the home (:mod:`memex_core.warm.socket_client`, stdlib only) and
imports click and the commands (:mod:`memex_core.cli.app`) only when it has to
run the command here.
"""

from __future__ import annotations

import sys

# Not ``typing.TYPE_CHECKING``: importing typing costs the warm path's client ~5 ms.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from memex_core.cli.app import MemexGroup, cli

__all__ = ["MemexGroup", "cli", "main"]


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``memex`` console script."""
    from memex_core.warm.socket_client import answer_warm

    args = sys.argv[1:] if argv is None else list(argv)
    status = answer_warm(args)
    if status is None:  # no warm process took it: run it here
        from memex_core.cli.app import run

        status = run(args)
    if status:
        sys.exit(status)


def __getattr__(name: str) -> Any:
    # The click group and its helpers load on first use (tests, docs generators).
    if name in ("cli", "MemexGroup", "run", "_add_plugin_commands"):
        from memex_core.cli import app

        return getattr(app, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
