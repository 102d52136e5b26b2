"""Replay real sessions event by event through the installed hook and the worker, then
check that capture gave exactly what a later `memex ingest` of the final transcript gives.

The sessions are the real transcripts in ../shared/data/exports (Claude Code:
short, tool_heavy, subagent and the 2,385-line session with its two sub-agents; a
Codex rollout). Each is written line by line into a growing file under a temporary
``~/.claude/projects/<slug>/`` (or ``$CODEX_HOME/sessions/``) while the hook program
runs as a subprocess exactly as installed, at the points the agent runs it (see
benchmarks/capture_replay.py); the worker drains in-process every few events, a few
lines after the event, so turns are often read half-written, as in a live session.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.capture_replay import HOOK, Step, claude_steps, codex_steps, fire, write_line
from memex_capture.capture_worker import CaptureWorker
from memex_capture.drain_report import DrainReport
from tests.support.component_doubles import fast_memex
from tests.support.home_contents import fragments

BIG = "ae4a77f8-aedd-4bc1-888f-c94edc91af04.jsonl"
CLAUDE = [
    pytest.param("short.jsonl", 1, 0, id="short"),
    pytest.param("tool_heavy.jsonl", 1, 1, id="tool_heavy"),
    pytest.param("subagent.jsonl", 3, 2, id="subagent"),
    # ~260 hook processes and ~10 drains of a growing 2.7 MB transcript: ~25 s
    pytest.param(BIG, 24, 3, id="full-session", marks=pytest.mark.slow),
]
CODEX = (
    "madshn_localpush/raw/sessions/"
    "rollout-2026-02-23T12-41-04-019c8a4d-8f45-7010-8b5d-7fad920aa6f9.jsonl"
)


def replay(
    steps: list[Step],
    home: Path,
    worker: CaptureWorker,
    drain_every: int,
    lag: int = 0,
) -> DrainReport:
    """Write the lines, fire the hooks, drain every ``drain_every`` events, ``lag`` lines
    after the event (the agent writing on before the worker reads: a turn is then read
    half-written and completed by a later read); returns what the drains did."""
    report = DrainReport()
    fired = written = 0
    drain_at: int | None = None
    for step in steps:
        if not step.is_event:
            write_line(step)
            written += 1
            if drain_at is not None and written >= drain_at:
                worker.drain(report, settle=False)
                drain_at = None
            continue
        done = fire(step, home)
        # The agent's view: exit 0, nothing on stderr, stdout empty or the brief's JSON.
        assert done.returncode == 0 and done.stderr == b"", done.stderr
        if done.stdout:
            assert step.event == "SessionStart"
            json.loads(done.stdout)
        fired += 1
        if fired % drain_every == 0:
            if lag:
                drain_at = drain_at or written + lag
            else:
                worker.drain(report, settle=False)
    worker.drain(report, settle=False)
    assert report.records == fired and report.rejected_lines == 0
    return report


def check_equivalence(home: Path, fresh_home: Path, transcripts: list[Path]) -> None:
    captured = fast_memex(home)
    fresh = fast_memex(fresh_home)
    try:
        fresh.ingest(*transcripts, embed=False)
        got, want = fragments(captured), fragments(fresh)
        assert got.keys() == want.keys(), (
            f"only captured: {sorted(got.keys() - want.keys())[:5]}, "
            f"only ingested: {sorted(want.keys() - got.keys())[:5]}"
        )
        for fid in want:
            assert got[fid] == want[fid], fid
        # A later `memex ingest` into the capturing home adds and changes nothing.
        again = captured.ingest(*transcripts, embed=False)
        assert (again.fragments_added, again.fragments_removed) == (0, 0)
        assert {f.status for f in again.files} == {"unchanged"}
        assert fragments(captured) == got
    finally:
        captured.close()
        fresh.close()


@pytest.fixture
def claude_dir(shared_data: Path) -> Path:
    folder = shared_data / "exports" / "claude_code" / "marot_spotter"
    if not folder.is_dir():
        pytest.skip(f"{folder} is absent")
    return folder


def test_the_hook_is_the_installed_program() -> None:
    assert HOOK.name == "hook.py" and HOOK.is_file()


@pytest.mark.parametrize(("name", "drain_every", "lag"), CLAUDE)
def test_claude_code_replay_gives_what_ingest_gives(
    claude_dir: Path, tmp_path: Path, name: str, drain_every: int, lag: int
) -> None:
    home = tmp_path / "capturing"
    steps, transcript = claude_steps(
        claude_dir / name, tmp_path / ".claude" / "projects", "/home/dev/marot/spotter"
    )
    worker = CaptureWorker(home, memex=fast_memex(home), settle_seconds=0, embed=False)
    try:
        report = replay(steps, home, worker, drain_every, lag)
    finally:
        worker.close()
    assert report.records == sum(1 for s in steps if s.is_event) >= 3
    sub = sorted((transcript.with_suffix("") / "subagents").glob("*.jsonl"))
    if name == BIG:
        assert len(sub) == 2  # both sub-agents were replayed, and compared below
    for path, step_lines in ((transcript, steps),):
        assert path.read_text() == "".join(s.line or "" for s in step_lines if s.file == path)
    check_equivalence(home, tmp_path / "fresh", [transcript, *sub])


def test_codex_replay_gives_what_ingest_gives(
    shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = shared_data / "exports" / "codex" / CODEX
    if not source.is_file():
        pytest.skip(f"{source} is absent")
    codex_home = tmp_path / ".codex"
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    home = tmp_path / "capturing"
    steps, rollout = codex_steps(source, codex_home)
    worker = CaptureWorker(home, memex=fast_memex(home), settle_seconds=0, embed=False)
    try:
        # Codex notifies once a turn ends: drain after every event, and once mid-turn.
        half = len(steps) // 2
        replay(steps[:half], home, worker, 1)
        replay(steps[half:], home, worker, 1)
    finally:
        worker.close()
    assert rollout.read_text() == source.read_text()
    check_equivalence(home, tmp_path / "fresh", [rollout])
