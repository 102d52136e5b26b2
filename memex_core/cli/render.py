"""Rendering search results as panels, JSON or ids."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any

from memex_core.domain import SearchResult


def iso(timestamp: float | None) -> str | None:
    if timestamp is None:
        return None
    return datetime.fromtimestamp(timestamp, tz=UTC).isoformat().replace("+00:00", "Z")


def result_to_dict(result: SearchResult) -> dict[str, Any]:
    fragment = result.fragment
    provenance = fragment.provenance
    return {
        "id": fragment.id,
        "score": result.score,
        "content": fragment.content,
        "role": fragment.role,
        "conversation_id": fragment.conversation_id,
        "title": fragment.title,
        "source_kind": fragment.source_kind,
        "timestamp": iso(fragment.timestamp),
        "ranks": result.ranks,
        "scores": result.scores,
        "provenance": {
            "source_path": provenance.source_path,
            "source_id": provenance.source_id,
            "locator": provenance.locator,
        },
        "metadata": fragment.metadata,
    }


def results_json(results: Iterable[SearchResult]) -> str:
    return json.dumps([result_to_dict(r) for r in results], indent=2, ensure_ascii=False)


def snippet(text: str, query: str, width: int = 360) -> str:
    """A window of ``text`` around the first query word it contains."""
    words = [w for w in re.findall(r"\w+", query.lower()) if len(w) > 2]
    lowered = text.lower()
    positions = [p for p in (lowered.find(w) for w in words) if p >= 0]
    start = max(0, min(positions) - width // 3) if positions else 0
    piece = text[start : start + width].strip()
    return ("…" if start else "") + piece + ("…" if start + width < len(text) else "")


def print_panels(results: list[SearchResult], query: str) -> None:
    from rich.console import Console
    from rich.panel import Panel
    from rich.text import Text

    console = Console()
    words = sorted({w for w in re.findall(r"\w+", query) if len(w) > 2}, key=len, reverse=True)
    for position, result in enumerate(results, start=1):
        fragment = result.fragment
        when = (iso(fragment.timestamp) or "undated")[:10]
        title = fragment.title or fragment.conversation_id
        body = Text(snippet(fragment.content, query))
        if words:
            body.highlight_words(words, style="bold yellow", case_sensitive=False)
        ranks = " · ".join(
            f"{name} #{rank}" for name, rank in result.ranks.items() if rank is not None
        )
        console.print(
            Panel(
                body,
                title=f"[bold]{position}.[/] {title} [dim]· {fragment.source_kind} · "
                f"{fragment.role} · {when}[/]",
                title_align="left",
                subtitle=f"[dim]score {result.score:.4f} · {ranks} · {fragment.id}[/]",
                subtitle_align="right",
            )
        )
