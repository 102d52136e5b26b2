"""Rendering search results as panels, JSON or ids."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from memex_core.domain import Fragment, SearchResult
from memex_core.domain.disclosure import CompactHit, ContextPack, Timeline

if TYPE_CHECKING:
    from rich.text import Text


def iso(timestamp: float | None) -> str | None:
    if timestamp is None:
        return None
    return datetime.fromtimestamp(timestamp, tz=UTC).isoformat().replace("+00:00", "Z")


def result_to_dict(result: SearchResult, fallback: str | None = None) -> dict[str, Any]:
    """One search result for JSON. ``fallback`` is why these are keyword results standing in
    for a failed semantic search (``SearchResults.fallback``), else None."""
    fragment = result.fragment
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
        "evidence": result.evidence,
        "reasons": list(result.reasons),
        "fallback": fallback,
        "provenance": provenance_to_dict(fragment),
        "metadata": fragment.metadata,
    }


def provenance_to_dict(fragment: Fragment) -> dict[str, Any]:
    """Where a fragment came from, as every JSON output shows it."""
    provenance = fragment.provenance
    return {
        "source_path": provenance.source_path,
        "source_id": provenance.source_id,
        "locator": provenance.locator,
    }


def results_json(results: Iterable[SearchResult], fallback: str | None = None) -> str:
    return json.dumps([result_to_dict(r, fallback) for r in results], indent=2, ensure_ascii=False)


def snippet(text: str, query: str, width: int = 360) -> str:
    """A window of ``text`` around the first query word it contains."""
    words = [w for w in re.findall(r"\w+", query.lower()) if len(w) > 2]
    lowered = text.lower()
    positions = [p for p in (lowered.find(w) for w in words) if p >= 0]
    start = max(0, min(positions) - width // 3) if positions else 0
    piece = text[start : start + width].strip()
    return ("…" if start else "") + piece + ("…" if start + width < len(text) else "")


def esc(text: object) -> str:
    """``text`` as literal rich markup: a title, path or message holding ``[bold]`` or
    ``[/]`` prints as written instead of styling (or breaking) the output."""
    from rich.markup import escape

    return escape(str(text))


def id_line(fragment_id: str, *facts: str) -> Text:
    """A dim line that starts with the whole id. Ids live in a panel's body, never in its
    border, where rich cuts what does not fit the width."""
    from rich.text import Text

    return Text(" · ".join((fragment_id, *(f for f in facts if f))), style="dim")


#: How the panels name a result's evidence (SearchResult.evidence).
EVIDENCE_LABELS = {
    "keyword": "evidence: words",
    "semantic": "evidence: meaning alone",
    "both": "evidence: words + meaning",
    "slot": "evidence: sets what the question asks",
    "chain": "evidence: closed the fact that matched",
}


def print_panels(results: list[SearchResult], query: str) -> None:
    from rich.console import Console, Group
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
        facts = [f"score {result.score:.4f}", ranks]
        if result.evidence:
            facts.append(EVIDENCE_LABELS.get(result.evidence, result.evidence))
        console.print(
            Panel(
                Group(id_line(fragment.id, *facts), body),
                title=Text.assemble(
                    (f"{position}. ", "bold"),
                    title,
                    (f" · {fragment.source_kind} · {fragment.role} · {when}", "dim"),
                ),
                title_align="left",
            )
        )


def fragment_to_dict(fragment: Fragment) -> dict[str, Any]:
    """A fragment in full, for ``get`` and ``timeline`` JSON."""
    return {
        "id": fragment.id,
        "conversation_id": fragment.conversation_id,
        "title": fragment.title,
        "role": fragment.role,
        "timestamp": iso(fragment.timestamp),
        "source_kind": fragment.source_kind,
        "content": fragment.content,
        "provenance": provenance_to_dict(fragment),
        "metadata": fragment.metadata,
    }


def print_compact(hits: list[CompactHit]) -> None:
    """One short block per hit: number, id and score; title; why it matched; snippet.

    Plain lines rather than a table, so the id stays whole and copyable in any width.
    """
    from rich.console import Console
    from rich.text import Text

    console = Console()
    for position, hit in enumerate(hits, start=1):
        when = (iso(hit.timestamp) or "undated")[:10]
        head = Text.assemble(
            (f"{position:>2}. ", "bold"),
            (hit.id, "cyan"),
            (f"  score {hit.score:.4f}", "dim"),
        )
        title = Text.assemble(
            "    ", (hit.title, "bold"), (f"  {hit.source_kind} · {hit.role} · {when}", "dim")
        )
        console.print(head)
        console.print(title)
        console.print(Text("    " + hit.why, "dim"))
        console.print(Text("    " + hit.snippet), highlight=False)


def print_fragments(fragments: list[Fragment], marks: dict[str, str] | None = None) -> None:
    """Full fragments as panels; ``marks`` adds a label to some (e.g. the timeline anchor)."""
    from rich.console import Console, Group
    from rich.panel import Panel
    from rich.text import Text

    console = Console()
    for fragment in fragments:
        when = (iso(fragment.timestamp) or "undated")[:19]
        heading = fragment.metadata.get("heading")
        title = fragment.title or fragment.conversation_id
        label = (marks or {}).get(fragment.id, "")
        console.print(
            Panel(
                Group(id_line(fragment.id), Text(fragment.content)),
                title=Text.assemble(
                    (label, "yellow"),
                    (title, "bold"),
                    f" > {heading}" if heading else "",
                    (f" · {fragment.role} · {when}", "dim"),
                ),
                title_align="left",
                border_style="yellow" if label else "blue",
            )
        )


def timeline_to_dict(
    timeline: Timeline, item: Callable[[Fragment], dict[str, Any]] = fragment_to_dict
) -> dict[str, Any]:
    """A timeline for JSON, each fragment as ``item`` shows it."""
    return {
        "anchor_id": timeline.anchor_id,
        "conversation_id": timeline.conversation_id,
        "title": timeline.title,
        "items": [
            {"offset": offset, **item(fragment)}
            for offset, fragment in zip(timeline.offsets, timeline.fragments, strict=True)
        ],
    }


def print_context(pack: ContextPack) -> None:
    from rich.console import Console, Group
    from rich.panel import Panel
    from rich.text import Text

    console = Console()
    colours = {"query_match": "green", "linked": "magenta", "recency": "blue"}
    for item in pack.items:
        cut = ("  (cut; `memex get` for all)", "dim") if item.truncated else ""
        console.print(
            Panel(
                Group(id_line(item.id, item.detail), Text(item.text)),
                title=Text.assemble(
                    (item.reason, colours.get(item.reason, "white")), " ", (item.title, "bold"), cut
                ),
                title_align="left",
            )
        )
    console.print(
        f"[dim]{len(pack.items)} item(s), {pack.used_chars:,} of "
        f"{pack.budget_chars:,} characters.[/]"
    )
