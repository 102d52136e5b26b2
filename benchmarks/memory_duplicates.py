"""Benchmark 9: how many reworded repeats ``dream()`` folds away, and whether it loses facts.

:mod:`benchmarks.reworded_facts` gives each of a few users distinct facts and
one rewording of each (punctuation and case, "The user" for the name, filler,
contractions, synonyms, word order, or several at once), with the fact each
text states. Each user's agent remembers all of its texts, base and reworded
in a seeded random order, into one collection (``consolidate=False``: only the
exact-repeat check at write time applies). Then, per user:

1. ``dream(dry_run=True)``: must change nothing (memories, revisions, fragments);
2. ``dream()``: the ``rules`` consolidator over the collection, oldest first.

Measured before and after: the *duplicate rate*, the share of active memories
that repeat a fact another active memory states (active memories minus the
distinct facts among them, over the active memories), and the facts *lost*
(facts with no active memory left: a dream that merges "Alice likes sushi" into
"Alice likes ramen" loses one). A memory counts for the fact it was written
for, unless a dream rewrote its text into another fact's wording. Every dream
decision that points one fact's memory at another fact's memory is listed.

Two homes: the default (MiniLM and Chroma, so similar memories are found by
vectors) and keyword only (no embedder: word-overlap similarity).
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

from benchmarks.context import RunContext, log
from benchmarks.memory_throughput import (
    DEFAULT,
    KEYWORD_ONLY,
    default_home,
    keyword_only_home,
    missing_components,
)
from benchmarks.report import Check, Section, table
from benchmarks.reworded_facts import KINDS, FactSet, generate, interleaved, near_miss_pairs
from memex_core.api import Memex
from memex_core.domain.contracts import ADD, DELETE, NONE, UPDATE
from memex_core.handles import AgentMemory
from memex_core.services.agent_memory import DreamReport, fingerprint

COLLECTION = "bench:facts"
USERS, PER_USER = 5, 200
QUICK_USERS, QUICK_PER_USER = 2, 40
ACTIONS = (ADD, UPDATE, DELETE, NONE)
EXAMPLES = 8
LIMIT = 1_000_000  # list everything


@dataclass
class Ledger:
    """Ground truth for one home: which fact (and which pair kind) each memory states."""

    facts: FactSet
    fact_of_memory: dict[str, str] = field(default_factory=dict)
    text_of_memory: dict[str, str] = field(default_factory=dict)
    caught_at_write: Counter[str] = field(default_factory=Counter)  # by pair kind
    write_collisions: list[tuple[str, str]] = field(default_factory=list)  # (text, other text)
    write_seconds: float = 0.0
    remembered: int = 0

    def __post_init__(self) -> None:
        #: Each fact has its base text and one rewording: the rewording's kind names the pair.
        self.pair_kind = {w.fact_id: w.kind for w in self.facts.reworded}
        self.template = {f.fact_id: f.template for f in self.facts.facts}
        self._by_fingerprint: dict[tuple[str, str], set[str]] = {}
        for wording in self.facts.wordings():
            key = (wording.user, fingerprint(wording.text))
            self._by_fingerprint.setdefault(key, set()).add(wording.fact_id)

    def fact_of(self, user: str, memory_id: str, content: str) -> tuple[str, bool]:
        """The fact a memory states now, and whether a rewrite moved it to another fact."""
        own = self.fact_of_memory[memory_id]
        stated = self._by_fingerprint.get((user, fingerprint(content)), set())
        if not stated or own in stated:
            return own, False
        return sorted(stated)[0], True


def remember_set(mx: Memex, facts: FactSet) -> Ledger:
    """Each user's agent remembers all its wordings, one call each, in a seeded order."""
    ledger = Ledger(facts)
    started = time.perf_counter()
    for user in facts.users:
        agent = mx.agent(user, name="bench-agent")
        for wording in interleaved(facts, user):
            applied = agent.remember(wording.text, collection=COLLECTION).decisions[0]
            ledger.remembered += 1
            memory_id = applied.memory_id
            assert memory_id is not None, f"remember stored nothing for {wording.text!r}"
            if applied.decision.action == ADD:
                ledger.fact_of_memory[memory_id] = wording.fact_id
                ledger.text_of_memory[memory_id] = wording.text
            elif ledger.fact_of_memory[memory_id] == wording.fact_id:
                ledger.caught_at_write[ledger.pair_kind[wording.fact_id]] += 1
            else:  # the exact-repeat check took one fact for another
                ledger.write_collisions.append((wording.text, ledger.text_of_memory[memory_id]))
    ledger.write_seconds = time.perf_counter() - started
    return ledger


@dataclass
class State:
    """The active memories of every user's collection, against the ground truth."""

    active: int
    per_fact: Counter[str]  # fact id -> active memories stating it
    lost: list[str]  # fact ids with no active memory
    rewritten_to_other: int  # memories whose text now states another fact

    @property
    def distinct(self) -> int:
        return len(self.per_fact)

    @property
    def duplicates(self) -> int:
        return self.active - self.distinct

    @property
    def rate(self) -> float:
        return self.duplicates / self.active if self.active else 0.0


def state(mx: Memex, ledger: Ledger) -> State:
    per_fact: Counter[str] = Counter()
    active = rewritten = 0
    for user in ledger.facts.users:
        for record in mx.agent(user, name="bench-agent").list(COLLECTION, limit=LIMIT):
            fact, moved = ledger.fact_of(user, record.id, record.content)
            per_fact[fact] += 1
            active += 1
            rewritten += moved
    lost = [f.fact_id for f in ledger.facts.facts if f.fact_id not in per_fact]
    return State(active, per_fact, lost, rewritten)


def snapshot(mx: Memex) -> tuple[object, ...]:
    """Everything a dry run must leave alone: every memory (any status) and the fragments."""
    records = mx.operator().list(include_deleted=True, limit=LIMIT)
    rows = sorted((r.id, r.revision, r.status, r.content) for r in records)
    return (tuple(rows), mx.catalog.count_fragments())


@dataclass(frozen=True)
class CrossFact:
    """A dream decision that pointed one fact's memory at another fact's memory."""

    action: str
    text: str  # the memory examined
    target_text: str
    reason: str
    same_template: bool


@dataclass
class DreamRun:
    """One pass of ``dream`` over every user's collection."""

    dry_run: bool
    seconds: float = 0.0
    examined: int = 0
    counts: Counter[str] = field(default_factory=Counter)
    same_fact: Counter[str] = field(default_factory=Counter)  # by action: repeats folded
    cross: list[CrossFact] = field(default_factory=list)
    decisions: list[tuple[str, str, str | None]] = field(default_factory=list)

    def add(self, report: DreamReport, ledger: Ledger) -> None:
        self.examined += report.examined
        for applied in report.decisions:
            decision = applied.decision
            examined = applied.examined_id or decision.fact.source_fragment_ids[0]
            self.counts[decision.action] += 1
            self.decisions.append((examined, decision.action, decision.target_id))
            target = decision.target_id
            if decision.action == ADD or target is None:
                continue
            mine, theirs = ledger.fact_of_memory[examined], ledger.fact_of_memory.get(target)
            if mine == theirs:
                self.same_fact[decision.action] += 1
                continue
            self.cross.append(
                CrossFact(
                    decision.action,
                    ledger.text_of_memory[examined],
                    ledger.text_of_memory.get(target, target),
                    decision.reason,
                    theirs is not None and ledger.template[mine] == ledger.template[theirs],
                )
            )


def dream_all(mx: Memex, ledger: Ledger, *, dry_run: bool) -> DreamRun:
    run = DreamRun(dry_run)
    for user in ledger.facts.users:
        agent: AgentMemory = mx.agent(user, name="bench-agent")
        started = time.perf_counter()
        report = agent.dream(COLLECTION, dry_run=dry_run)
        run.seconds += time.perf_counter() - started
        run.add(report, ledger)
    return run


@dataclass
class HomeFigures:
    name: str
    ledger: Ledger
    before: State
    dry: DreamRun
    dry_changed_nothing: bool
    after_dry: State
    real: DreamRun
    after: State
    missed: list[tuple[str, ...]]  # texts of facts still stated more than once after the dream


def measure_home(mx: Memex, name: str, facts: FactSet) -> HomeFigures:
    log(f"dream duplicates, {name}: remembering {len(facts.wordings()):,} texts")
    ledger = remember_set(mx, facts)
    before = state(mx, ledger)
    log(f"dream duplicates, {name}: dry run")
    frozen = snapshot(mx)
    dry = dream_all(mx, ledger, dry_run=True)
    unchanged = snapshot(mx) == frozen
    after_dry = state(mx, ledger)
    log(f"dream duplicates, {name}: dream")
    real = dream_all(mx, ledger, dry_run=False)
    after = state(mx, ledger)
    missed: list[tuple[str, ...]] = []
    for user in facts.users:
        stating: dict[str, list[str]] = {}
        for record in mx.agent(user, name="bench-agent").list(COLLECTION, limit=LIMIT):
            stating.setdefault(ledger.fact_of(user, record.id, record.content)[0], []).append(
                record.content
            )
        missed.extend(tuple(texts) for texts in stating.values() if len(texts) > 1)
    return HomeFigures(name, ledger, before, dry, unchanged, after_dry, real, after, missed)


@dataclass
class DuplicateFigures:
    facts: FactSet
    homes: list[HomeFigures]
    semantic_skipped: str | None = None


def measure(
    ctx: RunContext, users: int | None = None, per_user: int | None = None
) -> DuplicateFigures:
    users = users or (QUICK_USERS if ctx.quick else USERS)
    per_user = per_user or (QUICK_PER_USER if ctx.quick else PER_USER)
    facts = generate(users=users, per_user=per_user)
    homes: list[HomeFigures] = []
    semantic_skipped = ctx.embedder_available()
    if semantic_skipped is None:
        with Memex(home=default_home(ctx, "memory-dream-default"), registry=ctx.registry()) as mx:
            homes.append(measure_home(mx, DEFAULT, facts))
    with Memex(home=keyword_only_home(ctx, "memory-dream-keyword"), registry=ctx.registry()) as mx:
        homes.append(measure_home(mx, KEYWORD_ONLY, facts))
    return DuplicateFigures(facts, homes, semantic_skipped)


# -- the report ---------------------------------------------------------------------------------


def _rate(s: State) -> str:
    return f"{s.rate:.1%} ({s.duplicates:,} of {s.active:,})"


def _counts(run: DreamRun) -> str:
    return " / ".join(f"{run.counts[a]:,}" for a in ACTIONS)


def _quote(text: str) -> str:
    return "`" + " ".join(text.split()).replace("`", "'") + "`"


def render(figures: DuplicateFigures, section: Section) -> Section:
    facts = figures.facts
    total = len(facts.wordings())
    for home in figures.homes:
        section.checks.append(
            Check(
                f"duplicate rate after `dream()`, {home.name}",
                f"{home.after.rate:.1%}",
                "-",
                f"before the dream {home.before.rate:.1%}",
            )
        )
        section.checks.append(
            Check(
                f"distinct facts lost by `dream()`, {home.name}",
                f"{len(home.after.lost)} of {len(facts.facts):,}",
                "0",
                "-",
                not home.after.lost,
            )
        )
    kinds = facts.kinds()
    section.add(
        f"{len(facts.facts):,} distinct facts about {len(facts.users)} users "
        f"({', '.join(facts.users)}; templates x attributes in `benchmarks/reworded_facts.py`, "
        "seed 4), and one rewording of each: "
        + ", ".join(f"{kinds[k]} {k.replace('_', ' ')}" for k in KINDS)
        + f". {near_miss_pairs(facts.facts):,} pairs of distinct facts of one user differ in "
        'a single slot ("likes sushi" / "likes ramen", "sister lives in Porto" / '
        '"brother lives in Porto"): they must not be merged. Each user\'s agent remembers its '
        f"{total // len(facts.users):,} texts (base and reworded in a seeded random order) "
        f"one call each into collection `{COLLECTION}` (default kind, `consolidate=False`: "
        "only the exact-repeat check after normalisation applies). Then per user "
        f"`dream({COLLECTION!r}, dry_run=True)`, then `dream({COLLECTION!r})` with the "
        "`rules` consolidator. *Duplicate rate*: active memories minus the distinct facts "
        "among them, over the active memories. *Lost*: facts with no active memory left. "
        "Decisions: ADD / UPDATE / DELETE / NONE; *across facts*: decisions that pointed one "
        "fact's memory at a memory of another fact (over-merging when it retires one).",
        table(
            [
                "home",
                "texts remembered",
                "stored (folded at write)",
                "duplicate rate before",
                "dry run: decisions",
                "dry run changed nothing",
                "dream: decisions",
                "dream: repeats folded",
                "dream: across facts",
                "duplicate rate after",
                "facts lost",
                "dream time",
                "remember time",
            ],
            [
                [
                    h.name,
                    f"{h.ledger.remembered:,}",
                    f"{h.before.active:,} ({sum(h.ledger.caught_at_write.values()):,})",
                    _rate(h.before),
                    _counts(h.dry),
                    "yes"
                    if h.dry_changed_nothing and h.after_dry.active == h.before.active
                    else "**NO**",
                    _counts(h.real),
                    f"{sum(h.real.same_fact.values()):,}",
                    f"{len(h.real.cross):,}",
                    _rate(h.after),
                    f"{len(h.after.lost)}",
                    f"{h.real.seconds:.1f} s ({h.real.examined / h.real.seconds:,.0f} memories/s)"
                    if h.real.seconds
                    else "-",
                    f"{h.ledger.write_seconds:.1f} s",
                ]
                for h in figures.homes
            ],
        ),
    )
    kind_rows: list[list[object]] = []
    for kind in KINDS:
        pairs = [f for f, k in figures.homes[0].ledger.pair_kind.items() if k == kind]
        if not pairs:
            continue
        row: list[object] = [kind.replace("_", " "), len(pairs)]
        row.append(figures.homes[0].ledger.caught_at_write[kind])
        for home in figures.homes:
            left = sum(1 for f in pairs if home.after.per_fact[f] > 1)
            row.append(f"{left} ({left / len(pairs):.0%})")
        kind_rows.append(row)
    section.add(
        "Pairs (a fact and its rewording) by rewording kind: folded by the exact-repeat check "
        "at write time, and still stated twice after the dream (a duplicate it missed):",
        table(
            [
                "rewording",
                "pairs",
                "folded at write",
                *(f"still duplicate after dream, {h.name}" for h in figures.homes),
            ],
            kind_rows,
        ),
    )
    for home in figures.homes:
        _render_home_details(home, section)
    if figures.semantic_skipped:
        section.add(f"The default home was not run: {figures.semantic_skipped}.")
    return section


def _render_home_details(home: HomeFigures, section: Section) -> None:
    lines = [f"**{home.name}.**"]
    if home.ledger.write_collisions:
        lines.append(
            f"The exact-repeat check at write time folded {len(home.ledger.write_collisions)} "
            "text(s) into another fact's memory, e.g. "
            + "; ".join(
                f"{_quote(a)} into {_quote(b)}" for a, b in home.ledger.write_collisions[:3]
            )
            + "."
        )
    agree = sum(1 for a, b in zip(home.dry.decisions, home.real.decisions, strict=False) if a == b)
    lines.append(
        f"The dry run's decisions matched the real run's for {agree:,} of "
        f"{len(home.real.decisions):,} memories (the real run rewrites and retires as it goes, "
        f"so later comparisons can differ); dry run {home.dry.seconds:.1f} s."
    )
    if home.after.rewritten_to_other:
        lines.append(
            f"{home.after.rewritten_to_other} active memories were rewritten by UPDATE into "
            "another fact's wording."
        )
    by_template = Counter(home.ledger.template[f] for f in home.after.lost)
    if home.after.lost:
        lines.append(
            f"Facts lost ({len(home.after.lost)}) by template: "
            + ", ".join(f"{t} {n}" for t, n in by_template.most_common())
            + "."
        )
    section.add(" ".join(lines))
    if home.real.cross:
        near = sum(c.same_template for c in home.real.cross)
        actions = Counter(c.action for c in home.real.cross)
        section.add(
            f"Decisions across distinct facts ({len(home.real.cross)}: "
            + ", ".join(f"{a} {n}" for a, n in actions.most_common())
            + f"; {near} between facts of one template), first {EXAMPLES}:",
            table(
                ["action", "memory examined", "memory it was matched with", "reason"],
                [
                    [c.action, _quote(c.text), _quote(c.target_text), c.reason[:120] or "-"]
                    for c in home.real.cross[:EXAMPLES]
                ],
            ),
        )
    if home.missed:
        section.add(
            f"Duplicates the dream left ({len(home.missed)} facts stated more than once), first "
            f"{EXAMPLES}: "
            + "; ".join(" = ".join(_quote(t) for t in texts) for texts in home.missed[:EXAMPLES])
            + "."
        )


def run(ctx: RunContext) -> Section:
    section = Section("dream_duplicates", "9. Reworded duplicate facts and `dream()`")
    reason = missing_components(ctx.registry(), ("keyword_store", "redactor", "consolidator"))
    if reason:
        section.skipped = reason
        return section
    return render(measure(ctx), section)
