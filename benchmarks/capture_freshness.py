"""Benchmark "freshness": how soon what happens in a session is searchable (issue 16).

A real Claude Code session from the shared exports is replayed as it happened
(:mod:`benchmarks.capture_replay`): its lines are written one by one into a growing
transcript, and at each point Claude Code runs a hook the installed hook program runs as
a cold process (``python -S memex_capture/hook.py claude-code --home H``), exactly as
the agent starts it. The first hook starts the capture worker, as in real use (the full
default stack: MiniLM and Chroma, ``settle_seconds`` 1.0). The pace is the transcript's
own timestamps with every gap between two events cut to at most :data:`MAX_GAP` seconds
(lines between two events are written at their event's time).

For each event whose lines carry prose (a typed prompt is the UserPromptSubmit's, the
assistant's text before a tool result or a Stop is that event's), this process polls a
keyword search through the public API (``Memex.search(mode="keyword")``, what ``memex
keyword`` runs) for a distinctive phrase of those lines, and records when a hit holding
every word of it appears, counted from the moment the line holding the phrase was
written: just before its hook runs (a typed prompt: just after its UserPromptSubmit).
A phrase already found before its line is written is not measured. Figures: the
share searchable within 5 s, p50/p95 delay, the events never found within
:data:`GIVE_UP` s, and the worker's start-up (from the first hook to its first log line,
and to its first ingest). Peer in the same run: a cold ``memex ingest`` of the final
transcript into a fresh home, what a user without capture waits for after the session.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from benchmarks.capture_replay import Step, claude_steps, fire, write_line
from benchmarks.context import RunContext, log
from benchmarks.data import data_root
from benchmarks.metrics import percentile
from benchmarks.report import Check, Section, table

TITLE = "17. Capture freshness: a live session's events searchable within 5 s"
WITHIN = 5.0
#: Longest pause between two events in the replay (seconds).
MAX_GAP = 1.0
#: An event not found this long after it fired counts as never found.
GIVE_UP = 60.0
POLL = 0.05
FULL = "ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"
QUICK = "tool_heavy.jsonl"


@dataclass
class Probe:
    """One measured event: what to search for, the line that brings it, when it was
    written (a few ms before its hook runs) and when a search first found it."""

    index: int
    event: str
    phrase: str
    line: int
    fired: float = 0.0
    found: float | None = None

    @property
    def delay(self) -> float | None:
        return None if self.found is None else self.found - self.fired


def probes(steps: list[Step]) -> dict[int, Probe]:
    """Step index of the line bringing an event's phrase -> the event's probe: a typed
    prompt's line is its UserPromptSubmit's; other lines belong to the next event after
    them (the last line with prose gives the phrase)."""
    out: dict[int, Probe] = {}
    phrase: tuple[int, str] | None = None
    for index, step in enumerate(steps):
        if step.is_event:
            if phrase and step.event != "UserPromptSubmit":
                out[phrase[0]] = Probe(index, str(step.event), phrase[1], phrase[0])
            phrase = None
            continue
        if index and steps[index - 1].event == "UserPromptSubmit":
            if step.phrase:
                out[index] = Probe(index - 1, "UserPromptSubmit", step.phrase, index)
            continue
        if step.phrase:
            phrase = (index, step.phrase)
    return out


def schedule(steps: list[Step]) -> list[float]:
    """Seconds from the start at which each step runs. Events keep the transcript's gaps,
    cut to :data:`MAX_GAP`; a typed prompt's line is written right after its
    UserPromptSubmit, every other line right before the next event (a tool result, then
    its PostToolUse; the answer, then Stop), as the agent writes them."""
    event_at: list[float] = []
    clock = 0.0
    previous: float | None = None
    for step in steps:
        if step.is_event:
            if previous is not None and step.at is not None:
                clock += min(max(step.at - previous, 0.0), MAX_GAP)
            previous = step.at if step.at is not None else previous
        event_at.append(clock)
    offsets = list(event_at)
    upcoming = event_at[-1] if event_at else 0.0
    for index in range(len(steps) - 1, -1, -1):
        step = steps[index]
        if step.is_event:
            upcoming = event_at[index]
        elif index and steps[index - 1].event == "UserPromptSubmit":
            offsets[index] = event_at[index - 1]
        else:
            offsets[index] = upcoming
    return offsets


def _words(phrase: str) -> list[str]:
    return phrase.lower().split()


def _found(mx: object, probe: Probe) -> bool:
    hits = mx.search(probe.phrase, mode="keyword", limit=5)  # type: ignore[attr-defined]
    words = _words(probe.phrase)
    return any(all(w in hit.fragment.content.lower() for w in words) for hit in hits)


def _found_now(mx: object, home: Path, probe: Probe) -> bool:
    return home.joinpath("catalog.sqlite").exists() and _found(mx, probe)


def _log_times(home: Path) -> tuple[float | None, float | None]:
    """When the worker logged its start and its first ingest (epoch seconds)."""
    from memex_capture import layout

    started = ingested = None
    path = Path(layout.worker_log(str(home)))
    if not path.exists():
        return None, None
    for line in path.read_text(errors="replace").splitlines():
        match = re.match(r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}) ", line)
        if not match:
            continue
        at = datetime.strptime(match.group(1), "%Y-%m-%d %H:%M:%S,%f").timestamp()
        if started is None and " started on " in line:
            started = at
        if ingested is None and " ingested " in line:
            ingested = at
    return started, ingested


def _stop_worker(home: Path) -> None:
    from memex_capture import launch, layout

    if not launch.worker_running(str(home)):
        return
    with contextlib.suppress(OSError, ValueError):
        text = Path(layout.worker_lock(str(home))).read_text()
        pid = int(text.split()[1])
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 60
        while launch.worker_running(str(home)) and time.monotonic() < deadline:
            time.sleep(0.1)


def replay_live(home: Path, steps: list[Step]) -> tuple[list[Probe], float, list[int]]:
    """Run the steps on schedule while polling; returns the probes, the first hook's
    start time and the exit statuses of hooks that did not exit 0."""
    from memex_core.api import Memex

    wanted = probes(steps)
    offsets = schedule(steps)
    env = dict(os.environ)
    env.pop("MEMEX_CAPTURE_NO_WORKER", None)
    mx = Memex(home)
    pending: list[Probe] = []
    done: list[Probe] = []
    failures: list[int] = []
    ambiguous: list[Probe] = []
    start = time.time()
    first_hook = 0.0
    index = 0
    try:
        while index < len(steps) or pending:
            now = time.time()
            while index < len(steps) and offsets[index] <= now - start:
                step = steps[index]
                if step.is_event:
                    first_hook = first_hook or time.time()
                    result = fire(step, home, env=env, start_worker=True)
                    if result.returncode != 0:
                        failures.append(result.returncode)
                else:
                    probe = wanted.get(index)
                    if probe is not None and _found_now(mx, home, probe):
                        ambiguous.append(probe)  # already in memory: not measurable
                        probe = None
                    write_line(step)
                    if probe is not None:
                        probe.fired = time.time()
                        pending.append(probe)
                index += 1
            for probe in list(pending):
                if not home.joinpath("catalog.sqlite").exists():
                    break
                if _found(mx, probe):
                    probe.found = time.time()
                elif time.time() - probe.fired < GIVE_UP:
                    continue
                pending.remove(probe)
                done.append(probe)
            time.sleep(POLL)
    finally:
        mx.close()
    if ambiguous:
        log(f"freshness: {len(ambiguous)} phrase(s) found before their line, not measured")
    return sorted(done, key=lambda p: p.index), first_hook, failures


def cold_ingest(home: Path, paths: list[Path]) -> float:
    """Seconds a cold ``memex ingest`` of ``paths`` takes in a fresh home."""
    env = dict(os.environ, MEMEX_HOME=str(home))
    started = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "memex_core", "ingest", "--quiet", *map(str, paths)],
        env=env,
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - started


def run(ctx: RunContext) -> Section:
    section = Section("freshness", TITLE)
    source = (
        data_root() / "exports" / "claude_code" / "marot_spotter" / (QUICK if ctx.quick else FULL)
    )
    if not source.exists():
        section.skipped = f"data not found at {source} (set MEMEX_TEST_DATA)"
        return section
    root = ctx.tmp / "freshness"
    home = root / "home"
    steps, transcript = claude_steps(source, root / ".claude" / "projects", "/home/dev/spotter")
    events = sum(1 for s in steps if s.is_event)
    log(f"freshness: replaying {source.name}: {len(steps) - events} lines, {events} hooks")
    started = time.perf_counter()
    try:
        measured, first_hook, failures = replay_live(home, steps)
    finally:
        _stop_worker(home)
    wall = time.perf_counter() - started
    worker_start, first_ingest = _log_times(home)
    sub = sorted((transcript.with_suffix("") / "subagents").glob("*.jsonl"))
    peer = cold_ingest(root / "fresh", [transcript, *sub])

    delays = [p.delay for p in measured if p.delay is not None]
    within = sum(1 for d in delays if d <= WITHIN)
    share = within / len(measured) if measured else 0.0
    p50 = percentile(delays, 50) if delays else float("nan")
    p95 = percentile(delays, 95) if delays else float("nan")
    section.checks.append(
        Check(
            f"events searchable within {WITHIN:g} s ({len(measured)} measured)",
            f"{share:.1%} ({within}/{len(measured)})",
            "-",
            f"cold `memex ingest` of the whole transcript after the session: {peer:.1f} s",
        )
    )
    section.checks.append(
        Check(
            "delay from an event's line to searchable, p50 / p95",
            f"{p50:.2f} s / {p95:.2f} s",
            "-",
        )
    )
    by_event: dict[str, list[float]] = {}
    for probe in measured:
        if probe.delay is not None:
            by_event.setdefault(probe.event, []).append(probe.delay)
    rows = [
        [
            name,
            len(values),
            f"{percentile(values, 50):.2f} s",
            f"{percentile(values, 95):.2f} s",
            f"{max(values):.2f} s",
        ]
        for name, values in sorted(by_event.items())
    ]
    startup = (
        f"{worker_start - first_hook:.2f} s to its first log line, "
        f"{first_ingest - first_hook:.2f} s to its first ingest"
        if worker_start and first_ingest and first_hook
        else "not seen in the worker log"
    )
    section.add(
        f"Session `{source.name}`: {len(steps) - events:,} transcript lines and {events} hook "
        f"events replayed in {wall:.0f} s (gaps between events cut to {MAX_GAP:g} s), the "
        f"worker started by the first hook as in real use (default stack, settle "
        f"1.0 s). {len(measured)} events carry prose to search for; "
        f"{len(measured) - len(delays)} were not found within {GIVE_UP:g} s. Hooks that did "
        f"not exit 0: {len(failures)}.",
        table(["event", "measured", "p50", "p95", "max"], rows),
        f"Worker start-up, from the first hook (SessionStart): {startup}.",
    )
    return section
