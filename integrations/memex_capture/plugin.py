"""memex plugin ``capture``: the capture plane's commands and ``memex doctor`` checks.

Registered through the ``memex`` entry-point group (``capture =
"memex_capture.plugin"``); not ``memex_capture`` itself, whose ``__init__`` must
stay import-free for the ``python -S`` hook. Commands are imported when the
command line is built (click only); the worker and the search stack load when a
command runs, so ``memex --help`` stays fast.
"""

from __future__ import annotations

from typing import Any

from memex_core.hookspecs import hookimpl


@hookimpl
def register_commands(cli: Any) -> None:
    from memex_capture.cli import hooks
    from memex_capture.cli_capture import capture

    cli.add_command(capture)
    cli.add_command(hooks)


@hookimpl
def register_doctor_checks(register: Any) -> None:
    from memex_capture.doctor import capture_findings

    register("capture", capture_findings)


__all__ = ["register_commands", "register_doctor_checks"]
