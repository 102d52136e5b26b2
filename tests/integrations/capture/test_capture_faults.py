"""Faults on the capture path: the agent never sees one, nothing stored is lost or doubled,
and the next drain finishes the job.

Each case runs the installed hook program and the worker as processes (keyword-only:
the embedder and vector store are not loaded, ``MEMEX_LOAD_PLUGINS``), and ends by
comparing the home with one that ``memex ingest``ed the same transcripts directly.
"""

from __future__ import annotations

import json
import os
import resource
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from benchmarks.capture_replay import Step, fire, hook_command
from memex_capture import launch, layout
from memex_capture.batch_files import work_files
from memex_capture.doctor import capture_findings
from memex_capture.worker_state import QUIET_SECONDS
from memex_core.catalog.lock import WriteLock
from memex_core.domain.session_summary import is_session_summary
from tests.support.claude_code_builders import Transcript, text, tool_use
from tests.support.component_doubles import fast_memex
from tests.support.home_contents import fragments

#: Keyword-only memex for the processes: sources, bm25, the redactor, capture.
PLUGINS = "claude_code,codex,bm25,rrf,secrets,rules,capture"


def make_session(folder: Path, number: int, turns: int = 30) -> Path:
    session = f"5e55a000-0000-4000-8000-{number:012d}"
    t = Transcript(session)
    for turn in range(turns):
        t.user(f"request {turn} about the zanzibar{number} importer " + "detail " * 40)
        t.assistant(
            f"msg_{number}_{turn}",
            text(f"Working on zanzibar{number} step {turn}. " + "reasoning " * 60),
            tool_use(f"toolu_{number}_{turn}", "Bash", command=f"pytest -k case{turn}"),
        )
        t.tool_result(f"toolu_{number}_{turn}", f"case{turn} passed\n" + "log line\n" * 80)
        t.assistant(f"msg_{number}_{turn}b", text(f"Step {turn} of zanzibar{number} done."))
    return t.write(folder / f"{session}.jsonl")


@pytest.fixture
def sessions(tmp_path: Path) -> list[Path]:
    folder = tmp_path / "claude" / "projects" / "-home-dev-shop"
    return [make_session(folder, n) for n in (1, 2, 3)]


def environment(home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEMEX_", "CODEX_"))}
    env.update(MEMEX_HOME=str(home), MEMEX_LOAD_PLUGINS=PLUGINS, MEMEX_LOCK_TIMEOUT="1")
    env.update(extra)
    return env


def hook(home: Path, transcript: Path, event: str) -> None:
    """Fire the installed hook as Claude Code does; the agent must see nothing wrong."""
    payload = {
        "session_id": transcript.stem,
        "transcript_path": str(transcript),
        "cwd": "/home/dev/shop",
        "hook_event_name": event,
    }
    done = fire(Step(None, event=event, payload=payload), home, env=environment(home))
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b""), done


def worker(
    home: Path,
    *,
    wrapper: list[str] | None = None,
    file_limit: int | None = None,
    **env: str,
) -> subprocess.CompletedProcess[str]:
    """``python -m memex_capture.worker --home H --once``, as a process."""
    command = [sys.executable, "-m", "memex_capture.worker", "--home", str(home), "--once"]
    if wrapper:
        command = [*wrapper, "--", "-c", " ".join(f"'{part}'" for part in command)]

    def limit() -> None:
        if file_limit is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_limit, file_limit))

    return subprocess.run(
        command,
        env=environment(home, **env),
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=limit if file_limit is not None else None,
    )


def assert_holds_exactly(home: Path, transcripts: list[Path], fresh: Path) -> None:
    """``home`` holds what a direct ingest of ``transcripts`` gives: no loss, no double."""
    direct = fast_memex(fresh)
    captured = fast_memex(home)
    try:
        direct.ingest(*transcripts, embed=False)
        assert fragments(captured) == fragments(direct)
        rows = captured.query("SELECT COUNT(*), COUNT(DISTINCT id) FROM fragments")[1]
        assert rows[0][0] == rows[0][1]
    finally:
        direct.close()
        captured.close()


def log_text(home: Path) -> str:
    path = Path(layout.worker_log(home))
    return path.read_text() if path.exists() else ""


def test_partial_and_corrupt_spool_lines_never_hold_the_rest(
    sessions: list[Path], tmp_path: Path
) -> None:
    home = tmp_path / "home"
    hook(home, sessions[0], "SessionStart")
    with open(layout.spool_file(home), "ab") as handle:  # a hook killed mid-write
        handle.write(b'{"v":1,"agent":"claude-code","event":"Post')
    hook(home, sessions[0], "Stop")
    with open(layout.spool_file(home), "ab") as handle:  # a corrupt line
        handle.write(b'{"v":1,"agent":"claude-code"\x00\xff}\n')
    hook(home, sessions[1], "Stop")
    done = worker(home)
    assert done.returncode == 0, done.stderr
    assert not work_files(str(home))
    log = log_text(home)
    assert "line 2 skipped" in log and "line 3 skipped" in log and "Traceback" not in log
    assert_holds_exactly(home, sessions[:2], tmp_path / "fresh")


def test_a_worker_killed_mid_batch_is_resumed_without_loss_or_double(
    sessions: list[Path], tmp_path: Path
) -> None:
    home = tmp_path / "home"
    for transcript in sessions:
        hook(home, transcript, "Stop")
    # SIGKILL once the second transcript is in the catalog and the keyword index.
    killed = worker(home, MEMEX_CRASH_AT="ingest.indexed:2")
    assert killed.returncode == -signal.SIGKILL
    assert len(work_files(str(home))) == 1  # the batch stays for the next worker
    assert not launch.worker_running(str(home))  # the kernel dropped its lock
    hook(home, sessions[2], "Stop")  # the agent goes on meanwhile
    done = worker(home)
    assert done.returncode == 0, done.stderr
    assert not work_files(str(home)) and not os.path.exists(layout.spool_file(home))
    assert_holds_exactly(home, sessions, tmp_path / "fresh")


def without_root_override() -> list[str] | None:
    if os.geteuid() != 0:
        return None
    if subprocess.run(["which", "capsh"], capture_output=True).returncode != 0:
        pytest.skip("running as root without capsh: chmod cannot make a folder read-only")
    return ["capsh", "--drop=cap_dac_override,cap_dac_read_search,cap_fowner"]


@contextmanager
def read_only(paths: list[Path]) -> Iterator[None]:
    modes = {p: p.stat().st_mode for p in paths}
    try:
        for path, mode in modes.items():
            path.chmod(mode & ~0o222)
        yield
    finally:
        for path, mode in modes.items():
            path.chmod(mode)


def test_a_read_only_home_keeps_the_spool_and_a_later_drain_finishes(
    sessions: list[Path], tmp_path: Path
) -> None:
    wrapper = without_root_override()
    tmp_path.chmod(0o755)  # the capsh'd process must reach the home
    home = tmp_path / "home"
    hook(home, sessions[0], "Stop")
    assert worker(home).returncode == 0
    hook(home, sessions[1], "Stop")
    spooled = Path(layout.spool_file(home)).read_bytes()
    with read_only([home, *home.rglob("*")]):
        done = worker(home, wrapper=wrapper)
        # Nothing could be written, not even the log: the worker says so on stderr.
        assert done.returncode == 1, done.stderr
        assert "writable" in done.stderr and "Traceback" not in done.stderr
        assert Path(layout.spool_file(home)).read_bytes() == spooled
    done = worker(home)
    assert done.returncode == 0, done.stderr
    assert_holds_exactly(home, sessions[:2], tmp_path / "fresh")


def test_a_read_only_catalog_during_a_drain_keeps_the_batch(
    sessions: list[Path], tmp_path: Path
) -> None:
    wrapper = without_root_override()
    tmp_path.chmod(0o755)
    home = tmp_path / "home"
    hook(home, sessions[0], "Stop")
    assert worker(home).returncode == 0
    hook(home, sessions[1], "Stop")
    # The capture folders stay writable: the worker takes the batch, then the ingest fails.
    stores = [home, *(p for p in home.iterdir() if p.name not in ("capture", "logs", "run"))]
    with read_only([*stores, *(p for s in stores[1:] if s.is_dir() for p in s.rglob("*"))]):
        done = worker(home, wrapper=wrapper)
        assert done.returncode == 1, done.stderr
    log = log_text(home)
    assert "read-only" in log and "spool kept" in log and "Traceback" not in log
    assert len(work_files(str(home))) == 1
    state = json.loads(Path(layout.state_file(home)).read_text())
    assert "read-only" in state["last_error"]["message"]
    done = worker(home)
    assert done.returncode == 0, done.stderr
    assert not work_files(str(home))
    assert_holds_exactly(home, sessions[:2], tmp_path / "fresh")
    assert "last_error" not in json.loads(Path(layout.state_file(home)).read_text())


def test_a_full_disk_keeps_the_batch_and_a_later_drain_finishes(
    sessions: list[Path], tmp_path: Path
) -> None:
    home = tmp_path / "home"
    hook(home, sessions[0], "Stop")
    assert worker(home).returncode == 0
    for transcript in sessions[1:]:
        hook(home, transcript, "Stop")
    # Every file may grow to what the biggest is now plus a little: the catalog cannot
    # take two more sessions.
    biggest = max(p.stat().st_size for p in home.rglob("*") if p.is_file())
    done = worker(home, file_limit=biggest + 16_384)
    assert done.returncode == 1, done.stderr
    log = log_text(home)
    assert "full" in log and "spool kept" in log and "Traceback" not in log
    assert work_files(str(home))
    done = worker(home)
    assert done.returncode == 0, done.stderr
    assert_holds_exactly(home, sessions, tmp_path / "fresh")


def test_a_held_write_lock_makes_the_worker_wait_and_finish_after_release(
    sessions: list[Path], tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    lock = WriteLock(home, timeout=0, notify=None)
    lock.acquire()  # another memex process writing for a long time
    process: subprocess.Popen[Any] | None = None
    try:
        hook(home, sessions[0], "Stop")
        process = subprocess.Popen(
            [sys.executable, "-m", "memex_capture.worker", "--home", str(home)],
            env=environment(home),
        )
        deadline = time.monotonic() + 60
        while "spool kept" not in log_text(home) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert "spool kept" in log_text(home)  # it tried, and backs off
        hook(home, sessions[1], "Stop")  # the agent is not held up meanwhile
    finally:
        lock.release()
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if not work_files(str(home)) and not os.path.exists(layout.spool_file(home)):
            break
        time.sleep(0.2)
    assert process is not None
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=60) == 0
    assert not work_files(str(home))
    assert_holds_exactly(home, sessions[:2], tmp_path / "fresh")


def test_the_last_events_lost_on_a_read_only_home_are_caught_up(tmp_path: Path) -> None:
    """Stop and SessionEnd fire while the home is read-only: their pointers are lost, and
    no later event re-reads the transcript, so its end would stay out of memex. `memex
    doctor` says so, and the next worker to start reads it again."""
    wrapper = without_root_override()
    tmp_path.chmod(0o755)
    home = tmp_path / "home"
    t = Transcript("5e55a000-0000-4000-8000-000000000009")
    for turn in range(3):
        t.user(f"request {turn} about the zanzibar importer")
        t.assistant(f"msg_9_{turn}", text(f"Step {turn} of the zanzibar importer done."))
    early = len(t.records)
    t.user("last request: rename the zanzibar importer to kilimanjaro")
    t.assistant("msg_9_last", text("Renamed: the kilimanjaro importer is in place."))
    lines = t.lines()
    transcript = tmp_path / "claude" / "projects" / "-home-dev-shop" / f"{t.session}.jsonl"
    transcript.parent.mkdir(parents=True)
    transcript.write_text("".join(lines[:early]), encoding="utf-8")
    hook(home, transcript, "Stop")
    assert worker(home).returncode == 0
    with open(transcript, "a", encoding="utf-8") as handle:  # the session goes on
        handle.write("".join(lines[early:]))
    spool_file = Path(layout.spool_file(home))
    assert not spool_file.exists()  # drained
    with read_only([home, *home.rglob("*")]):
        for event in ("Stop", "SessionEnd"):
            payload = {
                "session_id": t.session,
                "transcript_path": str(transcript),
                "cwd": "/home/dev/shop",
                "hook_event_name": event,
            }
            argv, stdin = hook_command("claude-code", home, payload)
            assert wrapper is None or wrapper[0] == "capsh"
            command = [*wrapper, "--", "-c", shlex.join(argv)] if wrapper else argv
            done = subprocess.run(
                command,
                input=stdin,
                capture_output=True,
                env={**environment(home), "MEMEX_CAPTURE_NO_WORKER": "1"},
                timeout=30,
            )
            assert (done.returncode, done.stdout, done.stderr) == (0, b"", b""), done
    assert not spool_file.exists()  # both pointers are lost: nothing will bring the end
    captured = fast_memex(home)
    try:
        assert not captured.search("kilimanjaro", mode="keyword", limit=3)
    finally:
        captured.close()

    # Quiet since (a live session's next event would read it anyway): the doctor says so.
    quiet = time.time() - 2 * QUIET_SECONDS
    os.utime(transcript, (quiet, quiet))
    behind = [f for f in capture_findings(home) if f.code == "capture.behind"]
    assert [(f.severity, f.count, f.sample) for f in behind] == [("drift", 1, (str(transcript),))]
    assert "memex capture drain" in behind[0].fix

    done = worker(home)  # the next worker to start (any hook of any session starts one)
    assert done.returncode == 0, done.stderr
    assert "caught up with" in log_text(home)
    assert_holds_exactly(home, [transcript], tmp_path / "fresh")
    captured = fast_memex(home)
    try:
        summaries = [f for f in captured.conversation(t.session) if is_session_summary(f)]
        assert len(summaries) == 1 and "kilimanjaro importer is in place" in summaries[0].content
    finally:
        captured.close()
    assert not [f for f in capture_findings(home) if f.code == "capture.behind"]
