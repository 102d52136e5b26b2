"""Debian's Chromium, driven by Playwright for Python: never a browser download.

Playwright is pointed at the system browser through ``executable_path`` (``playwright
install`` is never run). The flags keep Chromium off the network it would otherwise reach
on start (component updates, sync, field trials): on a closed machine those connections are
refused and on an open one they are traffic nobody asked for. Playwright gives every
launch a fresh temporary profile (user-data-dir) and removes it on close.

Shared by the browser tests (``tests/browser``), ``nox -s screenshots`` and the ``viewer``
benchmark.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Playwright

#: Where Debian's ``chromium`` package puts the browser; ``MEMEX_CHROMIUM`` overrides it.
DEFAULT_CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = (
    "--no-sandbox",  # CI containers run as root, where Chromium's sandbox cannot start
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
#: The screenshots' and the tests' window: what the issue asks the screenshots to show.
VIEWPORT = {"width": 1280, "height": 800}


def chromium_path() -> Path:
    return Path(os.environ.get("MEMEX_CHROMIUM") or DEFAULT_CHROMIUM)


def unavailable_reason() -> str | None:
    """Why the browser cannot run here, or None when it can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed: pip install -e '.[browser]'"
    path = chromium_path()
    if not (path.is_file() and os.access(path, os.X_OK)):
        found = shutil.which("chromium")
        hint = f" (chromium is at {found}: set MEMEX_CHROMIUM={found})" if found else ""
        return (
            f"no Chromium at {path}: install Debian's browser (sudo apt-get install chromium) "
            f"or set MEMEX_CHROMIUM to its path{hint}"
        )
    return None


def required() -> bool:
    """In CI the browser tests must run, never skip: a missing browser is a failure there."""
    return bool(os.environ.get("CI") or os.environ.get("MEMEX_BROWSER_REQUIRED"))


def launch(playwright: Playwright) -> Browser:
    return playwright.chromium.launch(
        executable_path=str(chromium_path()), headless=True, args=list(CHROMIUM_ARGS)
    )
