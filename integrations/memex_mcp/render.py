"""memex results as the two things a tool returns: JSON-ready data and text a model reads.

Pure functions over memex's domain objects; no SDK, no I/O. The text is short
and names the next step (which tool, with which id), because the text is often
all an agent sees; the data carries every field for clients that read
structured content.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from memex_core.cli.render import fragment_to_dict, iso, timeline_to_dict
from memex_core.domain import Fragment
from memex_core.domain.disclosure import CompactHit, ContextPack, Timeline
from memex_core.domain.memory.validity import START_UNKNOWN, START_UNKNOWN_BEFORE_1970
from memex_core.domain.results import SearchResult

#: When a remembered fact held, as ``recall`` gives it; search and context hits carry these
#: when they were asked for facts by time (``as_of`` or ``include_superseded``).
VALIDITY_FIELDS = ("valid_from", "valid_until", "superseded_by")

NEXT_AFTER_SEARCH = (
    "Next: `timeline` with a hit's id shows what surrounds it; `get` with ids returns full text."
)


def _day(timestamp: float | None) -> str:
    return (iso(timestamp) or "undated")[:10]


def _label(fragment: Fragment) -> str:
    heading = fragment.metadata.get("heading") if fragment.role == "note" else None
    title = fragment.title or fragment.conversation_id
    return f"{title} > {heading}" if heading else title


def fragment_data(fragment: Fragment) -> dict[str, Any]:
    """A fragment in full, as ``memex get --format json`` shows it (plus its collection)."""
    data = fragment_to_dict(fragment)
    if fragment.collection:
        data["collection"] = fragment.collection
    return data


def _fragment_text(fragment: Fragment, mark: str = "") -> str:
    head = f"{mark}[{fragment.id}] {_label(fragment)} · {fragment.source_kind} · "
    head += f"{fragment.role} · {_day(fragment.timestamp)}"
    return f"{head}\n{fragment.content}"


def _held_text(held: Mapping[str, Any] | None) -> str:
    """' · valid from D, current' or ' · valid from D until E, superseded by mem_...' for a
    remembered fact whose validity was looked up; '' for any other hit."""
    if held is None:
        return ""
    text = f" · {_valid_from(held.get('valid_from'))}"
    if held.get("valid_until"):
        text += f" until {held['valid_until'][:10]}, {_ended_by(held.get('superseded_by'))}"
        return text
    return text + ", current"


def _valid_from(since: str | None) -> str:
    """'valid from D', 'start unknown' (a fact whose own words give only its end: stored
    from the epoch, :data:`~memex_core.domain.memory.validity.START_UNKNOWN`) or 'valid'."""
    if not since:
        return "valid"
    unknown = since in (iso(START_UNKNOWN), iso(START_UNKNOWN_BEFORE_1970))
    return "start unknown" if unknown else f"valid from {since[:10]}"


def _ended_by(superseded_by: str | None) -> str:
    """What ended a closed fact: a later one, or its own words ("back in 2020")."""
    return f"superseded by {superseded_by}" if superseded_by else "by its own words"


# -- search ---------------------------------------------------------------------------------


def compact_search(
    query: str,
    mode: str,
    hits: Sequence[CompactHit],
    notes: Sequence[str],
    held: Mapping[str, Mapping[str, Any]] | None = None,
) -> tuple[str, dict[str, Any]]:
    """``held``: when each remembered fact among the hits held, by hit id (only when the
    search asked for facts by time)."""
    held = held or {}
    found = [
        {**hit.to_dict(), "timestamp": iso(hit.timestamp), **held.get(hit.id, {})} for hit in hits
    ]
    data = _search_data(query, mode, found, notes, concise=True)
    lines = [_hits_heading(len(hits), query, notes)]
    for n, hit in enumerate(hits, start=1):
        lines.append(f"{n}. [{hit.id}] {hit.title} · {hit.source_kind} · {hit.role} · ")
        lines[-1] += f"{_day(hit.timestamp)} · score {hit.score:.4f}{_held_text(held.get(hit.id))}"
        lines.append(f"   {hit.why}")  # says "kept on meaning alone" where it was
        lines.append(f"   {hit.snippet}")
    if hits:
        lines.append(NEXT_AFTER_SEARCH)
    return "\n".join(lines), data


def full_search(
    query: str,
    mode: str,
    results: Sequence[SearchResult],
    notes: Sequence[str],
    held: Mapping[str, Mapping[str, Any]] | None = None,
) -> tuple[str, dict[str, Any]]:
    held = held or {}
    hits = [
        {
            **fragment_data(r.fragment),
            "score": r.score,
            "ranks": r.ranks,
            "scores": r.scores,
            "evidence": r.evidence,
            "reasons": list(r.reasons),  # what the default rerank says moved it
            **held.get(r.fragment.id, {}),
        }
        for r in results
    ]
    data = _search_data(query, mode, hits, notes, concise=False)
    lines = [_hits_heading(len(results), query, notes)]
    for n, result in enumerate(results, start=1):
        evidence = f"evidence {result.evidence} · " if result.evidence else ""
        validity = _held_text(held.get(result.fragment.id)).removeprefix(" · ")
        validity = f"{validity} · " if validity else ""
        lines.append(
            f"{n}. score {result.score:.4f} · {evidence}{validity}"
            + _fragment_text(result.fragment)
        )
    if results:
        lines.append("Next: `timeline` with a hit's id shows the turns around it.")
    return "\n\n".join(lines), data


def _search_data(
    query: str, mode: str, hits: list[dict[str, Any]], notes: Sequence[str], *, concise: bool
) -> dict[str, Any]:
    return {"query": query, "mode": mode, "concise": concise, "hits": hits, "notes": list(notes)}


def _hits_heading(count: int, query: str, notes: Sequence[str]) -> str:
    heading = f"{count} hit(s) for {query!r}."
    if notes:
        heading += " Notes: " + "; ".join(notes)
    if not count:
        heading += (
            " Try other words, mode 'keyword' for exact terms, or fewer filters"
            " (source, since, until, collection)."
        )
    return heading


# -- timeline, get ----------------------------------------------------------------------------


def timeline(found: Timeline) -> tuple[str, dict[str, Any]]:
    data = timeline_to_dict(found, fragment_data)
    blocks = [f"{found.title}: {len(found.fragments)} fragment(s) around {found.anchor_id}."]
    for offset, fragment in zip(found.offsets, found.fragments, strict=True):
        mark = ">> " if fragment.id == found.anchor_id else f"{offset:+d} "
        blocks.append(_fragment_text(fragment, mark))
    blocks.append("Next: `get` with ids returns fragments whole; a wider before/after shows more.")
    return "\n\n".join(blocks), data


def fragments(
    found: Sequence[Fragment], memories: Sequence[dict[str, Any]], missing: Sequence[str]
) -> tuple[str, dict[str, Any]]:
    data = {
        "fragments": [fragment_data(f) for f in found],
        "memories": list(memories),
        "missing": list(missing),
    }
    blocks = [_fragment_text(f) for f in found]
    for memory in memories:
        where = memory.get("path") or memory.get("collection") or "memory"
        head = f"[{memory['id']}] memory · {memory['kind']} · {where}"
        if memory.get("valid_until"):  # a fact a later one replaced: say so, with when
            head += f" · held until {memory['valid_until'][:10]}"
            head += f", {_ended_by(memory.get('superseded_by'))}"
        blocks.append(f"{head}\n{memory['content']}")
    if missing:
        blocks.append(
            f"Not found: {', '.join(missing)}. Ids come from search (or remember, for mem_ "
            "ids); give the full id."
        )
    return "\n\n".join(blocks), data


# -- explore, context, remember ---------------------------------------------------------------


def exploration(found: Any, concise: bool) -> tuple[str, dict[str, Any]]:
    """``found`` is a :class:`memex_core.services.explore.Exploration`."""
    data = found.to_dict(concise)
    lines = [f"{found.note.title} ({found.note.path})"]
    lines.append(f"Links to ({len(found.outlinks)}):")
    for link in found.outlinks:
        where = link.target_path or "unresolved: no such note"
        embed = " (embed)" if link.kind == "embed" else ""
        lines.append(f"  - {link.label}{embed} ({where})")
    lines.append(f"Linked from ({len(found.backlinks)}):")
    for backlink in found.backlinks:
        lines.append(f"  - {backlink.source_title} ({backlink.source_path})")
        if not concise and backlink.context:
            lines.append(f"    {backlink.context}")
    if found.similar:
        lines.append(f"Similar, not linked ({len(found.similar)}):")
        lines.extend(f"  - {s.title} ({s.path}, {s.score:.2f})" for s in found.similar)
    lines.extend(f"Note: {note}" for note in found.notes)
    lines.append("Next: `explore` a linked note by its path, or `search` within the topic.")
    return "\n".join(lines), data


def context_pack(
    pack: ContextPack, held: Mapping[str, Mapping[str, Any]] | None = None
) -> tuple[str, dict[str, Any]]:
    """``held``: when each remembered fact in the pack held, by item id (only when the
    context asked for facts by time)."""
    held = held or {}
    data = pack.to_dict()
    for item in data["items"]:
        item["timestamp"] = iso(item["timestamp"])
        item.update(held.get(item["id"], {}))
    if not pack.items:
        return (
            f"Nothing in scope matches {pack.query!r}. Try other words or `search` with "
            "fewer filters.",
            data,
        )
    blocks = [
        f"Context for {pack.query!r}: {len(pack.items)} item(s), {pack.used_chars:,} of "
        f"{pack.budget_chars:,} characters."
    ]
    for item in pack.items:
        cut = " (cut; `get` returns it whole)" if item.truncated else ""
        validity = _held_text(held.get(item.id))
        blocks.append(f"[{item.id}] {item.reason} · {item.title}{validity}{cut}\n{item.text}")
    return "\n\n".join(blocks), data


def remembered(result: Any, user: str, collection: str) -> tuple[str, dict[str, Any]]:
    """``result`` is a :class:`memex_core.handles.RememberResult`."""
    data = {
        "user_id": user,
        "collection": collection,
        **result.to_dict(),
        "memory_ids": result.memory_ids,
    }
    lines = []
    for applied in result.decisions:
        decision = applied.decision
        if decision.action == "ADD":
            lines.append(f"Remembered as {applied.memory_id}: {decision.fact.text}")
        elif decision.action == "NONE":
            lines.append(f"Already known ({applied.memory_id}): {decision.fact.text}")
        else:
            lines.append(f"{decision.action} {applied.memory_id}: {decision.reason}")
    if not result.decisions:
        lines.append("Nothing was stored: the text was empty once private parts were removed.")
    if result.redacted:
        lines.append(f"Redacted before storing: {', '.join(result.redacted)}.")
    if result.private_removed:
        lines.append(f"Left out {result.private_removed} <private> span(s).")
    if any(applied.decision.action == "ADD" for applied in result.decisions):
        where = f"collection {collection!r}" if collection else "the default collection"
        lines.append(f"Stored for user {user!r} in {where}; `search` finds it from now on.")
    return "\n".join(lines), data


def recalled(
    query: str, hits: Sequence[Any], as_of: str | None, include_superseded: bool
) -> tuple[str, dict[str, Any]]:
    """``hits`` are :class:`memex_core.handles.MemoryHit`: each fact with when it held."""
    found = [hit.to_dict() for hit in hits]
    asked = (
        f"as of {as_of}" if as_of else "all, superseded too" if include_superseded else "current"
    )
    data = {"query": query, "as_of": as_of, "include_superseded": include_superseded}
    lines = [f"{len(hits)} remembered fact(s) for {query!r} ({asked})."]
    for n, (hit, shown) in enumerate(zip(hits, found, strict=True), start=1):
        held = _valid_from(shown["valid_from"])
        if shown["valid_until"]:
            held += f" until {shown['valid_until'][:10]}, {_ended_by(hit.superseded_by)}"
        else:
            held += ", current"
        lines.append(f"{n}. [{hit.memory_id}] {hit.kind} · {held}")
        lines.append(f"   {hit.text}")
    if not hits and not (as_of or include_superseded):
        lines.append("None current; superseded facts show with as_of or include_superseded.")
    return "\n".join(lines), {**data, "hits": found}


def ask_pack(result: Any) -> tuple[str, dict[str, Any]]:
    """``result`` is a :class:`memex_core.services.ask_fusion.AskResult`: numbered items, each
    labelled memory or code, then the answer (when a chat model is configured)."""
    data = result.to_dict()
    where = f"memory and the code of {result.repo}" if result.repo else "memory only"
    blocks = [
        f"Ask {result.question!r} ({where}): {len(result.items)} item(s), "
        f"{result.used_chars:,} of {result.budget_chars:,} characters."
    ]
    for item in result.items:
        cut = " (cut; `get` returns it whole)" if item.truncated else ""
        blocks.append(
            f"[{item.number}] {item.kind} · {item.location} · {item.title} · id {item.id}{cut}\n"
            f"why: {item.reason}\n{item.text}"
        )
    if result.answer is not None:
        blocks.append(f"Answer ({result.model}):\n{result.answer}")
    if result.notes:
        blocks.append("Notes: " + " | ".join(result.notes))
    return "\n\n".join(blocks), data
