"""Pages from Jinja2 templates, with autoescaping on for every template and the headers
every page carries (a strict Content-Security-Policy: scripts and styles from this site
only, no inline script; no framing; no caching of pages that show memory)."""

from __future__ import annotations

from datetime import UTC, datetime
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from jinja2 import Environment, FileSystemLoader, StrictUndefined

from memex_core.domain.memory.validity import start_unknown

if TYPE_CHECKING:
    from memex_viewer.viewer import Viewer

TEMPLATES = Path(__file__).parent / "templates"

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
        "connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


def when(epoch: float | None) -> str:
    """A fragment's time as the pages show it (UTC, to the minute), or an empty string."""
    if epoch is None:
        return ""
    return datetime.fromtimestamp(epoch, tz=UTC).strftime("%Y-%m-%d %H:%M UTC")


def since(epoch: float | None) -> str:
    """When a fact became true as the pages show it: "start unknown" for a fact whose own
    words give only its end (stored from the epoch), else :func:`when`."""
    return "start unknown" if start_unknown(epoch) else when(epoch)


def iso(epoch: float | None) -> str:
    if epoch is None:
        return ""
    return datetime.fromtimestamp(epoch, tz=UTC).isoformat(timespec="seconds")


@lru_cache(maxsize=1)
def environment() -> Environment:
    # autoescape=True for every template, whatever its name: stored text is never trusted.
    env = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["when"] = when
    env.filters["iso"] = iso
    env.filters["since"] = since
    return env


def render(
    request: Request,
    template: str,
    viewer: Viewer | None,
    *,
    status: int = 200,
    **context: Any,
) -> HTMLResponse:
    """``template`` with ``viewer`` (None on the sign-in page) and ``context``."""
    page = environment().get_template(template)
    html = page.render(request=request, viewer=viewer, **context)
    return HTMLResponse(html, status_code=status, headers=SECURITY_HEADERS)


def error_page(
    request: Request, viewer: Viewer | None, status: int, title: str, message: str
) -> HTMLResponse:
    return render(request, "error.html", viewer, status=status, title=title, message=message)
