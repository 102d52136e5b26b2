"""Benchmark 7: ingesting the Obsidian Help vault into a fresh home, then re-syncing it.

The shared vault (173 notes, attachments beside them) is copied to the run's
temp folder first: the re-runs touch and edit a note, and the shared data must
never change. Each timed run opens a new :class:`Memex` on the home (as a new
``memex ingest`` process would, minus Python start-up and imports) and ingests
the vault folder, which the obsidian folder source syncs as a whole:

- first run, keyword only (``embed=False``), each repeat into its own fresh home;
- first run with embeddings, the real default embedder (model loading included);
- re-run with nothing changed (every note skipped on size and mtime), also on a
  ``Memex`` that is already open, to separate the scan from opening the home;
- re-run after moving one note's mtime forward without changing it (hashed, found
  unchanged, not parsed);
- re-run after appending a line to one note (parsed, its changed sections replaced
  and embedded, links re-resolved).
"""

from __future__ import annotations

import os
import shutil
import statistics
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.context import RunContext, log, write_config
from benchmarks.data import data_root, missing
from benchmarks.report import Check, Section, table
from memex_core.api import Memex
from memex_core.domain import IngestReport

REPEATS = 3
QUICK_REPEATS = 1
#: The note the touch and change re-runs act on (it holds the vault's demo links).
EDITED_NOTE = "Linking notes and files/Internal links.md"
#: --quick keeps only the notes of these folders (attachments all stay).
QUICK_FOLDERS = ("Linking notes and files", "Getting started")
STATUSES = ("new", "updated", "unchanged", "removed", "failed")


def vault_dir() -> Path:
    return data_root() / "obsidian-help" / "en"


def copy_vault(source: Path, target: Path, *, quick: bool) -> Path:
    """A private copy of the vault (mtimes kept); ``quick`` keeps only ``QUICK_FOLDERS``' notes."""

    def ignore(folder: str, names: list[str]) -> set[str]:
        if not quick:
            return set()
        rel = Path(folder).relative_to(source).as_posix()
        top = rel.split("/", 1)[0]
        return {n for n in names if n.endswith(".md") and top not in QUICK_FOLDERS}

    shutil.copytree(source, target, ignore=ignore)
    return target


@dataclass
class Scenario:
    """One way of running ingest, repeated; counts are those of the last repeat."""

    name: str
    seconds: list[float] = field(default_factory=list)
    statuses: Counter[str] = field(default_factory=Counter)
    fragments: int = 0  # in the home after the run
    fragments_added: int = 0
    fragments_removed: int = 0
    embedded: int = 0
    links: int = 0
    unresolved: int = 0

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    @property
    def notes(self) -> int:
        return sum(self.statuses[s] for s in ("new", "updated", "unchanged", "failed"))

    def record(self, seconds: float, report: IngestReport, mx: Memex) -> None:
        self.seconds.append(seconds)
        self.statuses = Counter(f.status for f in report.files)
        self.fragments = mx.catalog.count_fragments()
        self.fragments_added = report.fragments_added
        self.fragments_removed = report.fragments_removed
        self.embedded = report.embedded
        self.links, self.unresolved = mx.catalog.count_links()


@dataclass
class VaultFigures:
    notes: int  # Markdown files in the copied vault
    files: int  # every file in it, attachments included
    embedded: bool  # whether the re-runs used the embedded home
    scenarios: list[Scenario]


def new_home(ctx: RunContext, name: str) -> Path:
    """A fresh home configured with the real default components (no bench cache)."""
    home = ctx.home(name)
    write_config(home, cached_embedder=False)
    return home


def timed_ingest(
    scenario: Scenario, home: Path, vault: Path, *, embed: bool, mx: Memex | None = None
) -> None:
    """One timed ingest; opens (and closes) its own Memex unless ``mx`` is given."""
    started = time.perf_counter()
    own = mx is None
    handle = Memex(home=home) if mx is None else mx
    try:
        report = handle.ingest(vault, embed=embed)
        seconds = time.perf_counter() - started
        scenario.record(seconds, report, handle)
    finally:
        if own:
            handle.close()


def touch(note: Path, step: int) -> None:
    """Move the note's mtime ``step`` seconds past its current one; the content stays."""
    stat = note.stat()
    os.utime(note, ns=(stat.st_atime_ns, stat.st_mtime_ns + step * 1_000_000_000))


def edit(note: Path, step: int) -> None:
    with note.open("a", encoding="utf-8") as handle:
        handle.write(f"\n\nBenchmark edit {step}: one more closing line.\n")


def measure(ctx: RunContext) -> VaultFigures:
    vault = copy_vault(vault_dir(), ctx.tmp / "vault" / "Obsidian Help", quick=ctx.quick)
    files = [p for p in vault.rglob("*") if p.is_file()]
    notes = [p for p in files if p.suffix == ".md"]
    edited = vault / EDITED_NOTE
    if not edited.is_file():
        edited = sorted(notes)[len(notes) // 2]
    repeats = QUICK_REPEATS if ctx.quick else REPEATS
    embed = ctx.embedder_available() is None
    scenarios: list[Scenario] = []

    def repeat(scenario: Scenario, once: Callable[[int], None], times: int = repeats) -> None:
        log(f"vault: {scenario.name} ({times}x)")
        for step in range(1, times + 1):
            once(step)
        scenarios.append(scenario)

    keyword_only = Scenario("first run, keyword only (`embed=False`)")
    repeat(
        keyword_only,
        lambda step: timed_ingest(
            keyword_only, new_home(ctx, f"vault-keyword-{step}"), vault, embed=False
        ),
    )
    home = ctx.tmp / "vault-keyword-1"
    if embed:
        home = new_home(ctx, "vault-embedded")
        first = Scenario("first run, with embeddings")
        repeat(first, lambda _: timed_ingest(first, home, vault, embed=True), times=1)

    unchanged = Scenario("re-run, nothing changed")
    repeat(unchanged, lambda _: timed_ingest(unchanged, home, vault, embed=embed))

    warm = Scenario("re-run, nothing changed, `Memex` already open")
    with Memex(home=home) as mx:
        mx.ingest(vault, embed=embed)  # untimed: opens the catalog and the indexes
        repeat(warm, lambda _: timed_ingest(warm, home, vault, embed=embed, mx=mx))

    touched = Scenario("re-run after touching one note (mtime only)")

    def touch_then_ingest(step: int) -> None:
        touch(edited, step)
        timed_ingest(touched, home, vault, embed=embed)

    repeat(touched, touch_then_ingest)

    changed = Scenario("re-run after changing one note")

    def edit_then_ingest(step: int) -> None:
        edit(edited, step)
        timed_ingest(changed, home, vault, embed=embed)

    repeat(changed, edit_then_ingest)
    return VaultFigures(len(notes), len(files), embed, scenarios)


def _statuses(scenario: Scenario) -> str:
    return ", ".join(f"{scenario.statuses[s]} {s}" for s in STATUSES if scenario.statuses[s])


def _seconds(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def render(figures: VaultFigures, section: Section) -> Section:
    by_name = {s.name: s for s in figures.scenarios}
    first = (
        by_name.get("first run, with embeddings")
        or by_name["first run, keyword only (`embed=False`)"]
    )
    unchanged = by_name["re-run, nothing changed"]
    section.checks.append(Check(f"Obsidian Help vault: {first.name}", _seconds(first.median), "-"))
    section.checks.append(
        Check(
            f"Obsidian Help vault: {unchanged.name} (median of {len(unchanged.seconds)})",
            _seconds(unchanged.median),
            "-",
        )
    )
    rows: list[list[object]] = [
        [
            s.name,
            len(s.seconds),
            _seconds(s.median),
            ", ".join(_seconds(x) for x in s.seconds) if len(s.seconds) > 1 else "-",
            _statuses(s),
            f"{s.fragments:,}",
            f"+{s.fragments_added:,} / -{s.fragments_removed:,}",
            f"{s.embedded:,}",
            f"{s.links:,}",
            s.unresolved,
            f"{s.fragments / s.median:,.0f}",
        ]
        for s in figures.scenarios
    ]
    rerun_home = "the embedded home" if figures.embedded else "the first keyword-only home"
    section.add(
        f"A copy of the Obsidian Help vault ({figures.notes} notes, {figures.files} files with "
        "the attachments) ingested with `Memex(home).ingest(vault)`; each timed run opens a new "
        "`Memex` (catalog, keyword index and, when embedding, the vector store and model), "
        "except the *already open* row. Real default components (bm25, chroma, minilm), no "
        f"bench embedding cache. The re-runs act on {rerun_home}, with `embed` as for it; "
        f"the touched and changed note is `{EDITED_NOTE}` (each repeat moves its mtime one "
        "more second on, or appends one more line). Times: median of the repeats; counts: "
        "those of the last repeat. Fragments per second: fragments in the home after the run "
        "divided by the median time.",
        table(
            [
                "run",
                "repeats",
                "median time",
                "each repeat",
                "notes",
                "fragments in home",
                "fragments added / removed",
                "embedded",
                "links",
                "unresolved links",
                "fragments per second",
            ],
            rows,
        ),
    )
    if not figures.embedded:
        section.add("No embedder or vector store is available here: keyword-only runs only.")
    return section


def run(ctx: RunContext) -> Section:
    section = Section("vault", "7. Obsidian vault ingest and re-sync")
    reason = missing(vault_dir())
    if reason:
        section.skipped = reason
        return section
    return render(measure(ctx), section)
