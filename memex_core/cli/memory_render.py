"""Rendering agent memory for the command line: decisions, revisions, memories, the log.

Every function here takes what the handles return and prints it with rich; the
``*_json`` helpers give the dictionaries ``--format json`` prints. Ids are never
wrapped or cut, so they can be copied into the next command, and every piece of
stored or user-given text is escaped (a memory saying ``[bold]`` stays text).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from memex_core.cli.render import esc, iso
from memex_core.domain.memory.records import SHARED_OWNER, AccessEntry, MemoryRecord, Revision
from memex_core.domain.memory.validity import start_unknown

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from memex_core.handles import MemoryHit, RememberResult
    from memex_core.services.agent_memory import AppliedDecision, DreamReport

ACTION_STYLES = {"ADD": "green", "UPDATE": "yellow", "DELETE": "red", "NONE": "dim"}
SNIPPET = 70


def when(timestamp: float | None, seconds: bool = False) -> str:
    """``2024-05-01 09:30`` (UTC), short enough for a table column."""
    text = iso(timestamp) or "-"
    return text[: 19 if seconds else 16].replace("T", " ")


def snippet(text: str, width: int = SNIPPET) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= width else flat[: width - 1] + "…"


def owner_label(owner: str) -> str:
    """The user id for a user's memory, ``shared`` for shared memory."""
    return owner.removeprefix("users/") if owner != SHARED_OWNER else SHARED_OWNER


def _console() -> Console:
    from rich.console import Console

    return Console(highlight=False)


def _table(*columns: str, title: str | None = None, keep: Sequence[str] = ()) -> Table:
    """A table whose ``keep`` columns (ids, actions, times) are never wrapped or cut."""
    from rich.table import Table

    table = Table(title=esc(title) if title else None, title_justify="left")
    for column in columns:
        table.add_column(column, no_wrap=column in keep)
    return table


def _action(action: str) -> str:
    return f"[{ACTION_STYLES.get(action, 'white')}]{esc(action)}[/]"


def _two_lines(first: str, second: str) -> str:
    """A cell with a second, dimmed line (both escaped)."""
    return f"{esc(first)}\n[dim]{esc(second)}[/]" if second else esc(first)


# -- remember --------------------------------------------------------------------------------


def print_remembered(result: RememberResult, who: str) -> None:
    console = _console()
    if result.decisions:
        table = _table(
            "action", "memory", "kind", "fact", "reason", title=who, keep=("action", "memory")
        )
        for applied in result.decisions:
            decision = applied.decision
            table.add_row(
                _action(decision.action),
                esc(applied.memory_id or "-"),
                esc(decision.fact.kind),
                esc(snippet(decision.fact.text)),
                esc(decision.reason),
            )
        console.print(table)
    elif not result.conversation_id:
        console.print("Nothing to remember: no text was left once <private> spans went.")
    if result.conversation_id:
        found = "" if result.decisions else " The extractor found no facts in it."
        console.print(f"Conversation stored as [cyan]{esc(result.conversation_id)}[/].{found}")
    if result.redacted:
        kinds = esc(", ".join(sorted(set(result.redacted))))
        console.print(f"[yellow]Redacted {len(result.redacted)} likely secret(s):[/] {kinds}.")
    if result.private_removed:
        console.print(f"Left out {result.private_removed} <private> span(s); they were not stored.")


# -- dream ------------------------------------------------------------------------------------


def examined_id(applied: AppliedDecision) -> str | None:
    """The stored memory a dream decision was about (a dream offers each memory to the
    consolidator as a fact whose only source is the memory itself)."""
    sources = applied.decision.fact.source_fragment_ids
    return sources[0] if len(sources) == 1 and sources[0].startswith("mem_") else None


def effect(applied: AppliedDecision, dry_run: bool, ids: bool = True) -> str:
    """What a dream decision does (or would do) to stored memories, in words; without
    ``ids`` it says "memory" and "target" (the table's columns)."""
    decision = applied.decision
    memory, target = "memory", "target"
    if ids:
        memory, target = examined_id(applied) or "this memory", decision.target_id or ""
    verb = "would be" if dry_run else "was"
    if decision.target_id and decision.action == "UPDATE":
        return f"{target} {verb} rewritten; {memory} {verb} retired into it"
    if decision.target_id and decision.action == "DELETE":
        return f"{target} {verb} invalidated (contradicted by {memory})"
    if decision.target_id and decision.action == "NONE":
        return f"{memory} {verb} retired (repeats {target})"
    return "kept as it is"


def changes(report: DreamReport) -> list[AppliedDecision]:
    """The decisions that change something (ADD, or NONE without a target, keep a memory)."""
    return [
        d
        for d in report.decisions
        if d.decision.action in ("UPDATE", "DELETE", "NONE") and d.decision.target_id
    ]


def dream_json(report: DreamReport) -> dict[str, Any]:
    data = report.to_dict()
    for row, applied in zip(data["decisions"], report.decisions, strict=True):
        row["examined_id"] = examined_id(applied)
        row["effect"] = effect(applied, report.dry_run)
    data["changed"] = len(changes(report))
    return data


def print_dream(report: DreamReport) -> None:
    console = _console()
    if not report.examined:
        console.print("Nothing to dream over: no stored facts in that scope.")
        return
    shown = report.decisions if report.dry_run else changes(report)
    if shown:
        title = "Planned decisions (dry run: nothing written)" if report.dry_run else "Changes"
        table = _table(
            "action",
            "memory → target",
            "effect and reason",
            title=title,
            keep=("action", "memory → target"),
        )
        for applied in shown:
            decision = applied.decision
            ids = (examined_id(applied) or "-") + (
                f"\n→ {decision.target_id}" if decision.target_id else ""
            )
            table.add_row(
                _action(decision.action),
                esc(ids),
                _two_lines(effect(applied, report.dry_run, ids=False), decision.reason),
            )
        console.print(table)
    counts = report.counts()
    summary = ", ".join(f"{n} {action}" for action, n in counts.items())
    changed = len(changes(report))
    if report.dry_run:
        console.print(
            f"Examined {report.examined} memories: {summary}. {changed} change(s) planned; "
            "run again without --dry-run to apply them."
        )
    else:
        console.print(
            f"Examined {report.examined} memories: {summary}. {changed} change(s) written as "
            "revisions; `memex history ID` shows them, `memex undelete ID` brings a retired "
            "memory back."
        )
    verb = "Would supersede" if report.dry_run else "Superseded"
    for closed, by in report.superseded:
        console.print(f"[yellow]{verb}[/] [cyan]{esc(closed)}[/] by [cyan]{esc(by)}[/]")
    verb = "Would end" if report.dry_run else "Ended"
    for ended, until in report.ended:
        console.print(
            f"[yellow]{verb}[/] [cyan]{esc(ended)}[/] at {when(until)} [dim](by its own words)[/]"
        )


# -- history, memories ----------------------------------------------------------------------


def print_history(revisions: Sequence[Revision], full: bool) -> None:
    """Revisions as a table; each cell pairs two fields so it reads at 80 columns."""
    if not revisions:
        _console().print("No revisions.")
        return
    table = _table(
        "rev",
        "action\nstatus",
        "actor\nwhen (UTC)",
        "reason",
        "content",
        title=f"History of {revisions[0].memory_id}",
        keep=("rev", "action\nstatus", "actor\nwhen (UTC)"),
    )
    for r in revisions:
        table.add_row(
            str(r.revision),
            _two_lines(r.action, r.status),
            _two_lines(r.actor, when(r.created_at)),
            esc(r.reason),
            esc(r.content if full else snippet(r.content, 60)),
        )
    console = _console()
    console.print(table)
    if not full:
        console.print(
            "[dim]--full shows whole contents; `memex restore ID REV` brings one back.[/]"
        )


def print_record(record: MemoryRecord, verb: str) -> None:
    where = record.path or record.collection or "(no collection)"
    _console().print(
        f"{esc(verb)} [cyan]{esc(record.id)}[/] ({esc(owner_label(record.owner))}, {esc(where)}): "
        f"now revision {record.revision}, {esc(record.status)}."
    )


def print_memories(records: Sequence[MemoryRecord], limit: int) -> None:
    """One short block per memory (id and facts on one line, content below), so the id
    stays whole and copyable at any terminal width."""
    console = _console()
    if not records:
        console.print("No memories here. `memex remember TEXT --user U` stores one.")
        return
    for r in records:
        status = "" if r.status == "active" else f" · [red]{esc(r.status)}[/]"
        private = " · [magenta]private[/]" if r.private else ""
        facts = f"{owner_label(r.owner)} · {r.collection or '-'} · {r.kind} · r{r.revision}"
        console.print(
            f"[cyan]{esc(r.id)}[/]  [dim]{esc(facts)} · {when(r.updated_at)}[/]{status}{private}"
        )
        text = f"{r.path}: {snippet(r.content, 90)}" if r.path else snippet(r.content, 110)
        console.print("    " + esc(text))
        if not r.is_current:
            console.print(superseded_line(r.holds_from, r.valid_until, r.superseded_by))
    more = f" (the first {limit}; --limit shows more)" if len(records) >= limit else ""
    console.print(f"[dim]{len(records)} memories{more}.[/]")


# -- the access log, recall -------------------------------------------------------------------


def log_json(entries: Sequence[AccessEntry]) -> list[dict[str, Any]]:
    return [{**e.to_dict(), "time": iso(e.at)} for e in entries]


def print_log(entries: Sequence[AccessEntry], limit: int) -> None:
    console = _console()
    if not entries:
        console.print("No access log entries match.")
        return
    table = _table(
        "when (UTC)",
        "actor\nuser",
        "action",
        "target",
        "outcome",
        "tool call",
        keep=("when (UTC)", "action", "outcome"),
    )
    for e in entries:
        stamp = when(e.at, seconds=True).replace(" ", "\n")
        outcome = esc(e.outcome) if e.outcome == "ok" else f"[red]{esc(e.outcome)}[/]"
        table.add_row(
            stamp,
            _two_lines(f"{e.actor_kind}:{e.actor}", f"for {e.user_id}" if e.user_id else ""),
            esc(e.action),
            esc(snippet(e.target, 60) or "-"),
            outcome,
            esc(e.tool_call_id or "-"),
        )
    console.print(table)
    more = f" (the newest {limit}; --limit shows more)" if len(entries) >= limit else ""
    console.print(f"[dim]{len(entries)} entries, newest first{more}.[/]")


def print_hits(hits: Sequence[MemoryHit]) -> None:
    console = _console()
    if not hits:
        console.print("No memory matches.")
        return
    for position, h in enumerate(hits, start=1):
        private = " · [magenta]private[/]" if h.private else ""
        where = f" · {h.path}" if h.path else ""
        facts = f"score {h.score:.4f} · {h.kind} · {h.collection or '-'}{where}"
        console.print(
            f"[bold]{position:>2}.[/] [cyan]{esc(h.memory_id)}[/]  [dim]{esc(facts)}[/]{private}"
        )
        console.print("    " + esc(snippet(h.text, 110)))
        if not h.is_current:  # asked for with --as-of or --include-superseded
            console.print(superseded_line(h.valid_from, h.valid_until, h.superseded_by))


# -- facts that change over time: validity and chains (lines within 80 columns) -------------


def validity(valid_from: float | None, valid_until: float | None) -> str:
    """``2023-11-14 22:13 → 2023-12-14 22:13`` (UTC), or ``since 2023-11-14 22:13`` while
    the fact holds."""
    unknown = start_unknown(valid_from)  # "Until mid-2023 ...": only its end is known
    if valid_until is None:
        return "since an unknown start" if unknown else f"since {when(valid_from)}"
    if unknown or (valid_from is not None and valid_until <= valid_from):
        return f"start unknown, until {when(valid_until)}"
    return f"{when(valid_from)} → {when(valid_until)}"


def superseded_line(valid_from: float | None, valid_until: float | None, by: str | None) -> str:
    """The line under a superseded hit: when it held and what replaced it (nothing, for a
    fact that says by its own words that it held in a closed past period)."""
    if not by:
        return (
            f"    [yellow]ended[/] [dim]{validity(valid_from, valid_until)} (by its own words)[/]"
        )
    return f"    [yellow]superseded[/] [dim]{validity(valid_from, valid_until)} by {esc(by)}[/]"


def print_chain(chain: Sequence[MemoryRecord], full: bool) -> None:
    """The facts one memory belongs to in time, oldest first, each with its validity."""
    console = _console()
    if not chain:
        console.print("No facts.")
        return
    if len(chain) == 1:
        console.print("[dim]Nothing superseded this fact and it superseded nothing.[/]")
    for position, record in enumerate(chain, start=1):
        state = (
            "[green]current[/]"
            if record.is_current
            else f"[yellow]superseded by[/] [cyan]{esc(record.superseded_by)}[/]"
            if record.superseded_by
            else f"[yellow]held until[/] {when(record.valid_until)} [dim](by its own words)[/]"
        )
        console.print(f"[bold]{position:>2}.[/] [cyan]{esc(record.id)}[/]  {state}")
        span = validity(record.holds_from, record.valid_until)
        console.print(f"    [dim]{span} (UTC) · recorded {when(record.created_at)}[/]")
        console.print("    " + esc(record.content if full else snippet(record.content, 74)))
