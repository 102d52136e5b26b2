"""Facts that change over time: which current facts a new one closes, and the closing itself.

A new fact is offered to the supersession judge together with the owner's current facts
closest to it. Only facts of the same owner *and* the same collection are offered: a fact
of alice's never closes one of bob's or a shared one (the catalog refuses such a write
anyway), and an agent key bounded to a collection never closes a fact outside its bound.
The earlier facts the judge names are closed (``valid_until`` = the new fact's
``valid_from``, ``superseded_by`` = its id) by a ``supersede`` revision written in the same
transaction as the new fact; nothing is deleted, and the closed fact stays searchable for
reading by time. A current fact that became true *later* than the new one is offered the
other way round: when it supersedes the new fact ("Alice lived in Rome in 2019" told after
"Alice lives in Berlin"), the new fact is stored already closed by it.

A judge may name an earlier fact that the new one only says again in other words ("Alice
goes to yoga on Wednesdays" / "Alice goes to yoga every Wednesday"): no change, so nothing is
closed and the new words fold into the earlier memory (:func:`reworded`), as a repeat does.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace

from memex_core.domain import Consolidator, MemoryFact, SearchFilters, SimilarMemory
from memex_core.domain.contracts import NONE
from memex_core.domain.memory.facts import text_similarity
from memex_core.domain.memory.records import (
    ACTIVE,
    CONVERSATION_KIND,
    FILE_KIND,
    MEMORY_SOURCE,
    SUPERSEDE,
    MemoryRecord,
    Revision,
    Scope,
)
from memex_core.domain.memory.timestamps import iso_utc
from memex_core.domain.memory.validity import (
    Supersession,
    SupersessionJudge,
    TimedFact,
    unknown_start,
)

#: How many of the owner's closest current facts a judge sees for each new fact.
CANDIDATES = 8
#: The id the new fact is shown under when a consolidator is asked about it the other way.
NEW_FACT = "new-fact"


def is_fact(kind: str) -> bool:
    """Whether memories of ``kind`` are facts (conversations and files never supersede)."""
    return kind not in (CONVERSATION_KIND, FILE_KIND)


@dataclass
class Plan:
    """What writing one new fact does to time: when it holds from, what it closes, and
    (for a fact told late about an earlier time) the later fact that closes it."""

    memory_id: str
    valid_from: float
    closes: list[tuple[MemoryRecord, Supersession]] = field(default_factory=list)
    closed_by: MemoryRecord | None = None
    #: When the fact stopped holding by its own words ("Back in 2020 prod was on Heroku"),
    #: None when its words name no closed past period (or the judge reads no ends).
    valid_until: float | None = None


class NearestOnce:
    """``nearest(text, filters, limit)`` asked once per text between writes: remembering
    with ``--consolidate`` asks for a fact's neighbours twice (the judge's candidates, then
    the consolidator's similar memories), and the second is the first's head, without
    embedding the text again. :meth:`forget` after every write."""

    def __init__(
        self, nearest: Callable[[str, SearchFilters, int], list[tuple[str, float]] | None]
    ) -> None:
        self.nearest = nearest
        self._last: tuple[str, SearchFilters, int, list[tuple[str, float]] | None] | None = None

    def __call__(
        self, text: str, filters: SearchFilters, limit: int
    ) -> list[tuple[str, float]] | None:
        last = self._last
        if last is not None and last[:2] == (text, filters) and last[2] >= limit:
            return None if last[3] is None else last[3][:limit]
        found = self.nearest(text, filters, limit)
        self._last = (text, filters, limit, found)
        return found

    def forget(self) -> None:
        self._last = None


def facts_filters(owner: str, collection: str) -> SearchFilters:
    """A search over one owner's memory facts in one collection, private ones included."""
    return SearchFilters(
        owners=(owner,),
        collections=(collection,),
        source_kinds=(MEMORY_SOURCE,),
        include_private=True,
    )


def first_hits(
    by_fragment: Mapping[str, str], hits: Sequence[tuple[str, float]], skip: set[str]
) -> Iterator[tuple[str, float]]:
    """Each memory behind ``hits`` (fragment id, score) once, with its first hit's score,
    in the hits' order; none in ``skip`` and none whose fragment is not a memory's."""
    seen: set[str] = set()
    for fragment, score in hits:
        memory_id = by_fragment.get(fragment)
        if memory_id is None or memory_id in skip or memory_id in seen:
            continue
        seen.add(memory_id)
        yield memory_id, score


class Nearest:
    """The owner's current facts closest to a text, in one collection."""

    def __init__(
        self,
        catalog: object,
        nearest: Callable[[str, SearchFilters, int], list[tuple[str, float]] | None],
    ) -> None:
        self.catalog = catalog
        self.nearest = nearest

    def __call__(
        self,
        scope: Scope,
        owner: str,
        collection: str,
        text: str,
        *,
        exclude: Sequence[str] = (),
        limit: int = CANDIDATES,
    ) -> list[MemoryRecord]:
        catalog = self.catalog
        skip = set(exclude)
        filters = facts_filters(owner, collection)
        # Closed facts keep their fragments, so ask for more than needed: the closest
        # current facts may sit behind a few of their closed predecessors. Not many more:
        # a vector store's filtered search costs more the more it is asked for (chroma:
        # 4 * limit + 10 made the candidates' search ~23 ms of a remember at 10,000 facts,
        # this ~15 ms), and at most ``limit`` of the facts found are read.
        hits = self.nearest(text, filters, 2 * limit + len(skip) + 4)
        if hits is None:  # no vectors in this home: compare words over the owner's facts
            pool = [
                r
                for r in catalog.memories(scope, owners=(owner,), collections=(collection,))  # type: ignore[attr-defined]
                if r.id not in skip and _offered(r)
            ]
            scored = [(text_similarity(text, r.content), r) for r in pool]
            scored.sort(key=lambda pair: (-pair[0], pair[1].created_at))
            return [r for score, r in scored[:limit] if score > 0]
        by_fragment = catalog.memories_by_fragment(scope, [f for f, _ in hits])  # type: ignore[attr-defined]
        found: list[MemoryRecord] = []
        for memory_id, _ in first_hits(by_fragment, hits, skip):
            record = catalog.memory(scope, memory_id)  # type: ignore[attr-defined]
            if record is None or record.owner != owner or not _offered(record):
                continue
            found.append(record)
            if len(found) >= limit:
                break
        return found


def _offered(record: MemoryRecord) -> bool:
    return record.status == ACTIVE and record.is_current and is_fact(record.kind)


def timed(record: MemoryRecord) -> TimedFact:
    return TimedFact(
        record.id, record.content, record.holds_from, record.created_at, record.valid_until
    )


def plan(
    judge: SupersessionJudge,
    memory_id: str,
    text: str,
    said_at: float,
    candidates: Sequence[MemoryRecord],
    valid_from: float | None = None,
) -> Plan:
    """Ask ``judge`` what a new fact (``memory_id``, ``text``, said at ``said_at``) closes
    among ``candidates`` (current facts of the same owner and collection), and whether a
    later one of them closes it."""
    start = judge.valid_from(text, said_at) if valid_from is None else valid_from
    ending = getattr(judge, "valid_until", None)  # optional: EndingJudge
    until = ending(text, said_at) if callable(ending) else None
    # "Until mid-2023 we paged through PagerDuty", told in 2024: its words give no start.
    # Then it is already over: it closes nothing and nothing that began after its end
    # closes it ("We page through Opsgenie", said before it, stays current).
    unknown = until is not None and until < start
    if until is not None and unknown:
        start = unknown_start(until)
    out = Plan(memory_id, start, valid_until=until)
    new = TimedFact(memory_id, text, start, said_at)
    # A fact that ended by its own words closes only facts that began before it ended
    # ("Before 2022 our CI was on Travis", start unknown, closes nothing said since).
    earlier = [
        r
        for r in candidates
        if r.holds_from <= start
        and r.id != memory_id
        and (until is None or r.holds_from < min(start, until))
    ]
    later = sorted(
        (
            r
            for r in candidates
            if r.holds_from > start
            and r.id != memory_id
            and not (unknown and until is not None and r.holds_from >= until)
        ),
        key=lambda r: r.holds_from,
    )
    by_id = {r.id: r for r in earlier}
    if earlier:
        for found in judge.supersedes(new, [timed(r) for r in earlier]):
            record = by_id.pop(found.memory_id, None)  # never trust an id it was not shown
            if record is not None:
                out.closes.append((record, found))
    for record in later:
        if any(s.memory_id == memory_id for s in judge.supersedes(timed(record), [new])):
            out.closed_by = record
            break
    return out


def same_fact(consolidator: Consolidator, text: str, kind: str, record: MemoryRecord) -> bool:
    """Whether ``text`` and ``record`` state one fact in other words, as ``consolidator``
    reads them: each a repeat (NONE) of the other. Asked both ways, so a fact that says
    less than the earlier one ("we use Go" after "we use Python and Go": a value dropped, a
    change) is not taken for a repeat of it. The similarity shown is word overlap."""
    similarity = text_similarity(text, record.content)
    ahead = consolidator.decide(
        MemoryFact(text, kind), [SimilarMemory(record.id, record.content, similarity, record.kind)]
    )
    if ahead.action != NONE or ahead.target_id != record.id:
        return False
    back = consolidator.decide(
        MemoryFact(record.content, record.kind), [SimilarMemory(NEW_FACT, text, similarity, kind)]
    )
    return back.action == NONE and back.target_id == NEW_FACT


def reworded(
    consolidator: Consolidator | None, text: str, kind: str, found: Plan | None
) -> MemoryRecord | None:
    """The first of the facts ``found`` closes that ``text`` only says again in other words
    (:func:`same_fact`), or None. Such a closing is no change: the fact folds into that
    memory instead (a consolidator is asked only when the judge closes something)."""
    if consolidator is None or found is None:
        return None
    for record, _ in found.closes:
        if same_fact(consolidator, text, kind, record):
            return record
    return None


def first_closer(
    judge: SupersessionJudge,
    found: Plan,
    text: str,
    said_at: float,
    chain: Sequence[MemoryRecord],
) -> MemoryRecord | None:
    """For a fact told late that a current fact closes: the earliest fact of that fact's
    chain (``chain``, oldest first, the current one last) that became true after it and
    supersedes it. "Alice lived in Rome in 2019", told after Paris (2024-01) was replaced by
    Berlin (2024-06), held until Paris, not until Berlin."""
    new = TimedFact(found.memory_id, text, found.valid_from, said_at)
    for record in chain:
        if record.holds_from <= found.valid_from or record.id == found.memory_id:
            continue
        if record.id == (found.closed_by.id if found.closed_by else None):
            return record
        if any(s.memory_id == found.memory_id for s in judge.supersedes(timed(record), [new])):
            return record
    return found.closed_by


def overlapped(
    judge: SupersessionJudge,
    found: Plan,
    text: str,
    said_at: float,
    chain: Sequence[MemoryRecord],
) -> list[tuple[MemoryRecord, Supersession]]:
    """For a fact told late: the closed facts of the chain that were holding when it became
    true and that it supersedes; they are closed again, at its start. Paris (2020) closed
    by Berlin (2024), then "Alice lived in Rome in 2022": Paris held until 2022."""
    new = TimedFact(found.memory_id, text, found.valid_from, said_at)
    out: list[tuple[MemoryRecord, Supersession]] = []
    for record in chain:
        until = record.valid_until
        if until is None or not record.holds_from <= found.valid_from < until:
            continue
        for verdict in judge.supersedes(new, [timed(record)]):
            if verdict.memory_id == record.id:
                out.append((record, verdict))
                break
    return out


def closed(record: MemoryRecord, until: float, by: str, now: float) -> MemoryRecord:
    """``record`` as a ``supersede`` revision leaves it: closed at ``until`` by ``by``."""
    return replace(
        record,
        revision=record.revision + 1,
        valid_until=until,
        superseded_by=by,
        updated_at=now,
    )


def closing_revision(record: MemoryRecord, actor: str, reason: str, by: str | None) -> Revision:
    """The revision that records ``record`` (already :func:`closed`) being closed, by
    ``by`` (None: ended by its own words, no successor)."""
    return Revision(
        memory_id=record.id,
        revision=record.revision,
        content=record.content,
        kind=record.kind,
        status=record.status,
        action=SUPERSEDE,
        actor=actor,
        created_at=record.updated_at,
        reason=reason,
        sources=(by,) if by else (),
    )


def ending(judge: SupersessionJudge | None, record: MemoryRecord) -> float | None:
    """When a stored current fact stopped holding by its own words (the judge's optional
    ``valid_until``, read against when it was recorded), or None."""
    reads = getattr(judge, "valid_until", None)
    if not callable(reads) or not record.is_current or not is_fact(record.kind):
        return None
    found: float | None = reads(record.content, record.created_at)
    return found


def ended(record: MemoryRecord, until: float, now: float) -> MemoryRecord:
    """``record`` closed at ``until`` by its own words (no successor): a new revision. A
    fact stored at its record time whose words end it earlier has no known start."""
    start = unknown_start(until) if until < record.holds_from else record.valid_from
    return replace(
        record, revision=record.revision + 1, valid_from=start, valid_until=until, updated_at=now
    )


def ended_reason(until: float) -> str:
    """The revision reason of a fact stored already ended by its own words."""
    return f"held until {iso_utc(until)[:10]} (by its own words)"


def reason_for(found: Supersession, by: str) -> str:
    what = found.reason or (f"same {found.key}" if found.key else "updated")
    return f"superseded by {by}: {what}"
