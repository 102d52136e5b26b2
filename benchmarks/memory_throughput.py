"""Benchmark 8: facts remembered per second, one ``remember`` call per fact, as an agent does.

``Memex.agent(user).remember(text, collection=...)`` on the deterministic path
(default components: bm25 keyword index, the ``detect_secrets`` redactor, no
extractor and no consolidator call: a plain fact with ``consolidate=False``).
Each call is its own write: lock, redaction, the exact-repeat lookup, the
memory, its first revision, its fragment, the access-log row, a keyword-index
flush and, with vectors, embedding the fact and upserting it. The facts are
the distinct base facts of :mod:`benchmarks.reworded_facts` (10 users), taken
round-robin over the users.

Two homes: *keyword only* (no embedder configured, so memory is indexed by bm25
alone) and *default* (real MiniLM and Chroma, no bench embedding cache). Also
timed on the same texts: the redactor alone (``mx.redactor().redact``), and a
bare SQLite insert of the same rows, one transaction each, as a floor.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.context import RunContext, log, write_config
from benchmarks.metrics import percentile
from benchmarks.report import Check, Section, ms, table
from benchmarks.reworded_facts import Wording, generate
from memex_core.api import Memex
from memex_core.config import DEFAULT_COMPONENTS
from memex_core.plugins import PluginRegistry

COLLECTION = "bench:facts"
USERS = 10
FACTS = 1_000
QUICK_FACTS = 100
#: config.toml of a keyword-only home: no embedder is registered under this name, so
#: memory writes skip vectors (as on a machine without the model).
KEYWORD_ONLY_CONFIG = '[embedder]\nuse = "none"\n'
KEYWORD_ONLY, DEFAULT = "keyword only", "default (MiniLM + Chroma)"


def missing_components(registry: PluginRegistry, roles: Sequence[str]) -> str | None:
    """Why the default components of ``roles`` cannot be built here, or None."""
    for role in roles:
        name = DEFAULT_COMPONENTS[role]
        registered = {r.name: r for r in registry.registrations(role)}
        if name not in registered:
            return (
                f"no {role} named {name!r} is registered (install memex with `pip install -e .` "
                "so its entry points are found)"
            )
        if not registered[name].available:
            return f"the {name} {role} is unavailable ({registered[name].install_hint})"
    return None


def keyword_only_home(ctx: RunContext, name: str) -> Path:
    home = ctx.home(name)
    write_config(home, KEYWORD_ONLY_CONFIG, cached_embedder=False)
    return home


def default_home(ctx: RunContext, name: str) -> Path:
    home = ctx.home(name)
    write_config(home, cached_embedder=False)
    return home


def round_robin(wordings: Sequence[Wording]) -> list[Wording]:
    """Wordings taken in turn from each user (user 1's first, user 2's first, ...)."""
    by_user: dict[str, list[Wording]] = {}
    for wording in wordings:
        by_user.setdefault(wording.user, []).append(wording)
    queues = list(by_user.values())
    out: list[Wording] = []
    for index in range(max(len(q) for q in queues)):
        out.extend(q[index] for q in queues if index < len(q))
    return out


#: Component steps timed inside the calls: (label, component, method).
STEPS = (
    ("redaction", "redactor", "redact"),
    ("keyword index flush", "keyword_store", "flush"),
    ("embedding", "embedder", "embed_documents"),
    ("vector upsert", "vector_store", "upsert"),
)


class StepTimer:
    """Wraps a method on one component instance and adds up the seconds spent in it."""

    def __init__(self, component: object, method: str) -> None:
        self.seconds = 0.0
        self.calls = 0
        inner = getattr(component, method)

        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - started
                self.calls += 1

        setattr(component, method, timed)


def step_timers(mx: Memex, semantic: bool) -> dict[str, StepTimer]:
    """Timers on the components a ``remember`` call goes through (built already)."""
    components: dict[str, object] = {
        "redactor": mx.memory_service().redactor,
        "keyword_store": mx.keyword_store,
    }
    if semantic:
        components.update(embedder=mx.embedder, vector_store=mx.vector_store)
    return {
        label: StepTimer(components[role], method)
        for label, role, method in STEPS
        if role in components
    }


@dataclass
class RememberRun:
    """One home's ``remember`` calls, in order."""

    name: str
    calls: list[float] = field(default_factory=list)
    first_call: float = 0.0  # the untimed warm-up call that loads every component
    added: int = 0
    redacted: int = 0  # calls whose text the redactor changed
    semantic: bool = False  # whether the home indexed vectors
    steps: dict[str, float] = field(default_factory=dict)  # seconds inside the timed calls

    def tenth(self, last: bool) -> float:
        """Mean seconds per call over the first (or last) tenth of the calls."""
        size = max(len(self.calls) // 10, 1)
        part = self.calls[-size:] if last else self.calls[:size]
        return sum(part) / len(part)

    @property
    def total(self) -> float:
        return sum(self.calls)

    @property
    def per_second(self) -> float:
        return len(self.calls) / self.total if self.total else 0.0

    def quantile(self, q: float) -> float:
        return percentile(self.calls, q)


def remember_all(mx: Memex, name: str, wordings: Sequence[Wording]) -> RememberRun:
    """Time one ``remember`` per wording, after one untimed call that opens everything."""
    run = RememberRun(name, semantic=mx.semantic_unavailable_reason() is None)
    started = time.perf_counter()
    mx.agent("warmup", name="bench-agent").remember("The bench warms up", collection=COLLECTION)
    run.first_call = time.perf_counter() - started
    timers = step_timers(mx, run.semantic)
    agents = {u: mx.agent(u, name="bench-agent") for u in dict.fromkeys(w.user for w in wordings)}
    for wording in wordings:
        agent = agents[wording.user]
        started = time.perf_counter()
        result = agent.remember(wording.text, collection=COLLECTION)
        run.calls.append(time.perf_counter() - started)
        run.added += sum(1 for d in result.decisions if d.decision.action == "ADD")
        run.redacted += bool(result.redacted)
    run.steps = {label: timer.seconds for label, timer in timers.items()}
    return run


def time_redactor(mx: Memex, texts: Sequence[str]) -> float:
    """Seconds the configured redactor takes over ``texts``, one call each (built first)."""
    redactor = mx.redactor()
    redactor.redact("warm up")
    started = time.perf_counter()
    for text in texts:
        redactor.redact(text)
    return time.perf_counter() - started


def sqlite_floor(path: Path, wordings: Sequence[Wording]) -> list[float]:
    """Seconds per bare insert of each row (id, owner, collection, kind, content, time), one
    transaction each, with the catalog's journal settings (WAL, synchronous=NORMAL)."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute(
            "CREATE TABLE memories (id TEXT PRIMARY KEY, owner TEXT NOT NULL, "
            "collection TEXT NOT NULL, kind TEXT NOT NULL, content TEXT NOT NULL, "
            "created_at REAL NOT NULL)"
        )
        seconds: list[float] = []
        for index, wording in enumerate(wordings):
            row = (f"mem_{index:08d}", f"users/{wording.user}", COLLECTION, "misc", wording.text)
            started = time.perf_counter()
            db.execute("BEGIN")
            db.execute("INSERT INTO memories VALUES (?, ?, ?, ?, ?, ?)", (*row, time.time()))
            db.execute("COMMIT")
            seconds.append(time.perf_counter() - started)
        return seconds
    finally:
        db.close()


@dataclass
class ThroughputFigures:
    facts: int
    users: int
    runs: list[RememberRun]
    redactor_seconds: float
    floor: list[float]
    semantic_skipped: str | None = None  # why the default home was not run


def measure(ctx: RunContext, facts: int | None = None, users: int = USERS) -> ThroughputFigures:
    """Remember ``facts`` distinct facts over ``users`` users in each home."""
    count = facts or (QUICK_FACTS if ctx.quick else FACTS)
    per_user = -(-count // users)
    wordings = round_robin(generate(users=users, per_user=per_user).base)[:count]
    texts = [w.text for w in wordings]
    runs: list[RememberRun] = []

    log(f"memory throughput: {len(wordings):,} remember calls, keyword only")
    with Memex(
        home=keyword_only_home(ctx, "memory-remember-keyword"), registry=ctx.registry()
    ) as mx:
        runs.append(remember_all(mx, KEYWORD_ONLY, wordings))
        redactor_seconds = time_redactor(mx, texts)
    semantic_skipped = ctx.embedder_available()
    if semantic_skipped is None:
        log(f"memory throughput: {len(wordings):,} remember calls, MiniLM + Chroma")
        with Memex(
            home=default_home(ctx, "memory-remember-default"), registry=ctx.registry()
        ) as mx:
            runs.append(remember_all(mx, DEFAULT, wordings))
    floor = sqlite_floor(ctx.tmp / "memory-remember-floor.sqlite", wordings)
    return ThroughputFigures(
        facts=len(wordings),
        users=len({w.user for w in wordings}),
        runs=runs,
        redactor_seconds=redactor_seconds,
        floor=floor,
        semantic_skipped=semantic_skipped,
    )


def render(figures: ThroughputFigures, section: Section) -> Section:
    floor_total = sum(figures.floor)
    floor_rate = len(figures.floor) / floor_total
    for run in figures.runs:
        section.checks.append(
            Check(
                f"remember {figures.facts:,} facts one call each, {run.name}",
                f"{run.per_second:,.0f} facts/s",
                "-",
                f"bare SQLite insert {floor_rate:,.0f} rows/s ({run.total / floor_total:,.0f}x)",
            )
        )
    rows: list[list[object]] = [
        [
            run.name,
            f"{len(run.calls):,}",
            f"{run.total:.2f} s",
            f"{run.per_second:,.0f}",
            ms(run.quantile(50)),
            ms(run.quantile(95)),
            ms(max(run.calls)),
            ms(run.first_call),
            f"{figures.redactor_seconds / run.total:.2%}",
            f"{run.total / floor_total:,.0f}x",
        ]
        for run in figures.runs
    ]
    rows.append(
        [
            "peer: bare SQLite insert, one transaction per row",
            f"{len(figures.floor):,}",
            f"{floor_total:.3f} s",
            f"{floor_rate:,.0f}",
            ms(percentile(figures.floor, 50)),
            ms(percentile(figures.floor, 95)),
            ms(max(figures.floor)),
            "-",
            "-",
            "1x",
        ]
    )
    facts = figures.facts
    section.add(
        f"{facts:,} distinct facts about {figures.users} users (the base facts of "
        '`benchmarks/reworded_facts.py`, e.g. "Alice prefers green tea over coffee"), taken '
        "round-robin over the users; each one is a separate "
        f"`mx.agent(user).remember(text, collection={COLLECTION!r})` call (default kind, "
        "`consolidate=False`), timed alone. The home is already open and one untimed call "
        "came first (its time is the *first call* column: opening the catalog, the keyword "
        "index, the redactor and, in the default home, loading MiniLM and Chroma). Each "
        "call redacts, looks for an exact repeat, writes the memory, its revision, its "
        "fragment and an access-log row, flushes the keyword index and, in the default home, "
        'embeds and upserts the fact. *Keyword only*: `[embedder] use = "none"` (nothing '
        "registered under that name, so memory is indexed by bm25 alone). *Redactor share*: "
        f"`mx.redactor().redact` alone on the same {facts:,} texts "
        f"({figures.redactor_seconds * 1000:.0f} ms in all, "
        f"{figures.redactor_seconds / facts * 1e6:.0f} µs per text) over the home's total. "
        "The peer inserts the same rows (id, owner, collection, kind, text, time) into a bare "
        "SQLite table, one transaction each, WAL and `synchronous=NORMAL` as the catalog; "
        "the last column is memex's total over that floor.",
        table(
            [
                "home",
                "calls",
                "total",
                "facts per second",
                "p50 per call",
                "p95 per call",
                "max",
                "first call",
                "redactor share",
                "vs SQLite floor",
            ],
            rows,
        ),
    )
    labels = [label for label, _, _ in STEPS]
    step_rows: list[list[object]] = []
    for run in figures.runs:
        rest = run.total - sum(run.steps.values())
        cells = [
            f"{run.steps[label] / run.total:.1%} ({ms(run.steps[label] / len(run.calls))})"
            if label in run.steps
            else "-"
            for label in labels
        ]
        step_rows.append(
            [
                run.name,
                *cells,
                f"{rest / run.total:.1%} ({ms(rest / len(run.calls))})",
                ms(run.tenth(last=False)),
                ms(run.tenth(last=True)),
            ]
        )
    section.add(
        "Where the time of the timed calls goes: the components' own methods, timed in "
        "place during the same calls (share of the total, and per call); *the rest* is "
        "the catalog writes, the exact-repeat lookup, the write lock and the access log. "
        "The last two columns are the mean call over the first and the last tenth of the "
        "calls, as the home fills up.",
        table(
            [
                "home",
                *labels,
                "the rest",
                "mean call, first tenth",
                "mean call, last tenth",
            ],
            step_rows,
        ),
    )
    added = {run.name: run.added for run in figures.runs}
    redacted = {run.name: run.redacted for run in figures.runs}
    section.add(
        f"Facts added: {', '.join(f'{k} {v:,}' for k, v in added.items())} (all distinct, "
        "so every call is an ADD); calls whose text the redactor changed: "
        f"{', '.join(f'{k} {v}' for k, v in redacted.items())}."
    )
    if figures.semantic_skipped:
        section.add(f"The default home was not run: {figures.semantic_skipped}.")
    return section


def run(ctx: RunContext) -> Section:
    section = Section("remember_throughput", "8. Remembering facts one call at a time")
    reason = missing_components(ctx.registry(), ("keyword_store", "redactor"))
    if reason:
        section.skipped = reason
        return section
    return render(measure(ctx), section)
