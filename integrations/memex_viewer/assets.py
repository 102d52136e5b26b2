"""``/static/<name>``: the viewer's CSS and JavaScript, shipped in the package (no CDN, no
build step). Only the files in ``static/`` are served, by exact name."""

from __future__ import annotations

from pathlib import Path

from fastapi import APIRouter
from fastapi.responses import Response

from memex_viewer.rendering import SECURITY_HEADERS

STATIC = Path(__file__).parent / "static"
TYPES = {".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8"}

router = APIRouter(include_in_schema=False)


def _assets() -> dict[str, Path]:
    return {p.name: p for p in STATIC.iterdir() if p.suffix in TYPES}


@router.get("/static/{name}")
def asset(name: str) -> Response:
    path = _assets().get(name)
    if path is None:
        return Response("No such asset.", status_code=404, media_type="text/plain")
    headers = {**SECURITY_HEADERS, "Cache-Control": "public, max-age=300"}
    return Response(path.read_bytes(), media_type=TYPES[path.suffix], headers=headers)
