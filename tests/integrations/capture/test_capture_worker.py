"""The capture worker on small synthetic transcripts: batches, bad lines, Codex lookup,
transcripts that fail, summaries at Stop, `memex capture drain` and `memex doctor`."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
import types
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from memex_capture import layout, spool
from memex_capture.batch_files import failed_dir, read_work_file, rejected_dir, work_files
from memex_capture.capture_worker import CaptureWorker
from memex_capture.drain_report import DrainReport
from memex_capture.worker_state import MAX_ATTEMPTS, QUIET_SECONDS
from memex_core.api import Memex
from memex_core.cli import cli
from memex_core.domain.session_summary import is_session_summary
from memex_core.hookspecs import hookimpl
from memex_core.services.doctor import DRIFT, NOTE, Finding, plugin_findings
from tests.support.claude_code_builders import SESSION, Transcript, codex_rollout, text, tool_use
from tests.support.component_doubles import fast_memex


def session_transcript(folder: Path, word: str = "zebracorn") -> Path:
    t = Transcript()
    t.user(f"please fix the {word} importer")
    t.assistant("msg_1", text("Looking at it."), tool_use("toolu_1", "Bash", command="ls"))
    t.tool_result("toolu_1", "importer.py\n")
    t.assistant("msg_2", text(f"The {word} importer is fixed."))
    return t.write(folder / f"{SESSION}.jsonl")


def hook(home: Path, event: str, transcript: Path | None, **extra: Any) -> None:
    spool.append(
        layout.spool_file(home),
        spool.make_record(
            extra.pop("agent", "claude-code"),
            event,
            session_id=extra.pop("session_id", SESSION),
            transcript_path=str(transcript) if transcript else None,
            cwd=extra.pop("cwd", "/home/dev/projects/shop"),
            detail=extra,
        ),
    )


def ids(mx: Memex) -> set[str]:
    return {row[0] for row in mx.query("SELECT id FROM fragments", limit=None)[1]}


@pytest.fixture
def worker(memex_home: Path) -> Any:
    mx = fast_memex(memex_home)
    made = CaptureWorker(memex_home, memex=mx, settle_seconds=0, idle_seconds=1)
    yield made
    made.close()


def test_a_batch_lands_and_its_file_is_deleted(worker: CaptureWorker, tmp_path: Path) -> None:
    transcript = session_transcript(tmp_path / "proj")
    for event in ("SessionStart", "UserPromptSubmit", "PostToolUse", "Stop"):
        hook(Path(worker.home), event, transcript)
    report = worker.drain()
    assert (report.batches, report.records, report.transcripts) == (1, 4, 1)
    assert report.fragments_added > 0
    assert not work_files(worker.home)
    assert not os.path.exists(layout.spool_file(worker.home))
    assert worker.mx.search("zebracorn", mode="keyword", limit=3)
    # Nothing new: draining an empty spool does nothing, the same events again add nothing.
    assert worker.drain().batches == 0
    hook(Path(worker.home), "Stop", transcript)
    assert worker.drain().fragments_added == 0


def test_partial_line_is_skipped_kept_and_the_record_glued_to_it_recovered(
    worker: CaptureWorker, tmp_path: Path
) -> None:
    transcript = session_transcript(tmp_path / "proj")
    home = Path(worker.home)
    hook(home, "SessionStart", transcript)
    with open(layout.spool_file(home), "ab") as handle:  # a hook killed mid-write
        handle.write(b'{"v":1,"agent":"claude-code","event":"UserProm')
    hook(home, "UserPromptSubmit", transcript)  # appended onto the partial line
    with open(layout.spool_file(home), "ab") as handle:
        handle.write(b"not json at all\n")
    hook(home, "Stop", transcript)
    report = worker.drain()
    assert report.records == 3 and report.rejected_lines == 2
    assert worker.mx.search("zebracorn", mode="keyword", limit=3)
    rejected = [
        json.loads(line)
        for path in Path(rejected_dir(worker.home)).glob("*.jsonl")
        for line in path.read_text().splitlines()
    ]
    assert [(r["line"], r["raw"][:12]) for r in rejected] == [
        (2, '{"v":1,"agen'),
        (3, "not json at "),
    ]
    log = Path(layout.worker_log(home))
    assert not log.exists() or "Traceback" not in log.read_text()


def test_read_work_file_reports_line_numbers(tmp_path: Path) -> None:
    work = tmp_path / "x.work"
    good = spool.encode(
        spool.make_record("codex", "Stop", session_id="s", transcript_path=None, cwd=None)
    )
    work.write_bytes(good + b"[1,2]\n\n" + b'{"v":2,"agent":"a","event":"e"}\n' + good)
    batch = read_work_file(work)
    assert len(batch.records) == 2
    assert [(b.number, b.reason) for b in batch.bad] == [
        (2, "not a JSON object"),
        (4, "unknown spool version 2"),
    ]


def test_subagent_transcripts_are_ingested_with_their_session(
    worker: CaptureWorker, tmp_path: Path
) -> None:
    transcript = session_transcript(tmp_path / "proj")
    agent = Transcript(agent_id="aac57f5")
    agent.user("survey the quokkafish module")
    agent.assistant("msg_a1", text("The quokkafish module parses rows."))
    agent.write(transcript.with_suffix("") / "subagents" / "agent-aac57f5.jsonl")
    hook(Path(worker.home), "Stop", transcript)
    worker.drain()
    hits = worker.mx.search("quokkafish", mode="keyword", limit=3)
    found = {h.fragment.conversation_id for h in hits if not is_session_summary(h.fragment)}
    assert found and all(c.endswith(":agent-aac57f5") for c in found)
    # The session's summary names the sub-agent and its task.
    (summary,) = [h.fragment for h in hits if is_session_summary(h.fragment)]
    assert "Sub-agents (1): aac57f5: survey the quokkafish module" in summary.content


def test_codex_rollout_is_found_by_thread_id(
    worker: CaptureWorker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    codex_home = tmp_path / "codex"
    day = codex_home / "sessions" / "2026" / "02" / "23"
    day.mkdir(parents=True)
    codex_rollout(day / "rollout-2026-02-23T10-00-00-019c-codex.jsonl")
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    hook(Path(worker.home), "agent-turn-complete", None, agent="codex", session_id="019c-codex")
    report = worker.drain()
    assert report.transcripts == 1 and report.fragments_added > 0
    assert worker.mx.search("csv import", mode="keyword", limit=3)


def test_a_transcript_that_keeps_failing_is_moved_aside_not_retried_forever(
    worker: CaptureWorker, tmp_path: Path
) -> None:
    transcript = session_transcript(tmp_path / "proj")
    gone = tmp_path / "proj" / "deleted.jsonl"
    hook(Path(worker.home), "Stop", gone)
    hook(Path(worker.home), "Stop", transcript)
    for attempt in range(1, MAX_ATTEMPTS + 1):
        report = worker.drain()
        # The good transcript lands at once; the missing one waits for its next attempt.
        assert worker.mx.search("zebracorn", mode="keyword", limit=1)
        assert report.moved_aside == (1 if attempt == MAX_ATTEMPTS else 0)
    assert not work_files(worker.home)
    reasons = list(Path(failed_dir(worker.home)).glob("*.reason"))
    assert len(reasons) == 1 and "does not exist" in reasons[0].read_text()
    codes = {f.code: f for f in plugin_findings([("capture", _capture)], worker.home)}
    assert codes["capture.moved_aside"].severity == DRIFT
    assert codes["capture.moved_aside"].count == 1


def _capture(home: Any) -> Any:
    from memex_capture.doctor import capture_findings

    return capture_findings(home)


def test_session_start_without_a_transcript_yet_is_done(worker: CaptureWorker) -> None:
    hook(Path(worker.home), "SessionStart", Path("/nonexistent/not-yet.jsonl"))
    report = worker.drain()
    assert report.records == 1 and report.waiting == 0 and not work_files(worker.home)


def test_stop_writes_the_summary_and_the_brief(
    worker: CaptureWorker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[tuple[str, Any]] = []
    summary = types.ModuleType("memex_capture.summary")
    summary.write_session_summary = lambda mx, sid: calls.append(("summary", sid))  # type: ignore[attr-defined]
    briefing = types.ModuleType("memex_capture.briefing")
    briefing.write_brief = lambda mx, home, root, cwd: calls.append(("brief", root, cwd))  # type: ignore[attr-defined]

    def write_briefs(mx: Memex, home: str, cwd: str) -> list[str]:
        calls.append(("briefs", cwd))
        return ["project.md", "folder.md"]

    briefing.write_briefs = write_briefs  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "memex_capture.summary", summary)
    monkeypatch.setitem(sys.modules, "memex_capture.briefing", briefing)
    transcript = session_transcript(tmp_path / "proj")
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    (project / "src").mkdir()
    root, src = str(project.resolve()), str((project / "src").resolve())
    # SessionStart in a folder with no brief of its own: that folder's is written.
    hook(Path(worker.home), "SessionStart", transcript, cwd=str(project / "src"))
    report = worker.drain()
    assert calls == [("brief", root, src)] and report.briefs == 1
    hook(Path(worker.home), "UserPromptSubmit", transcript, cwd=str(project / "src"))
    hook(Path(worker.home), "Stop", transcript, cwd=str(project / "src"))
    report = worker.drain()
    assert calls[1:] == [("summary", SESSION), ("briefs", str(project / "src"))]
    assert (report.summaries, report.briefs) == (1, 2)


def test_a_failing_summary_never_holds_the_spool(
    worker: CaptureWorker,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    summary = types.ModuleType("memex_capture.summary")

    def broken(mx: Memex, session_id: str) -> None:
        raise RuntimeError("model unreachable")

    summary.write_session_summary = broken  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "memex_capture.summary", summary)
    hook(Path(worker.home), "Stop", session_transcript(tmp_path / "proj"))
    report = worker.drain()
    assert report.summaries == 0 and not work_files(worker.home)
    assert "model unreachable" in caplog.text


# -- the process, the command, the doctor -------------------------------------------------


def test_a_second_worker_exits_at_once(memex_home: Path) -> None:
    lock = layout.worker_lock(memex_home)
    os.makedirs(os.path.dirname(lock), exist_ok=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, "-m", "memex_capture.worker", "--home", str(memex_home)],
            timeout=60,
        )
        assert done.returncode == 0
        assert time.monotonic() - started < 30  # it did not wait for the lock
        assert not os.path.exists(layout.worker_log(memex_home))  # nor start working
    finally:
        os.close(fd)


@pytest.fixture
def run(memex_home: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setattr(
        "memex_core.cli.opening.Memex", lambda home=None: fast_memex(Path(home or memex_home))
    )
    from memex_core.cli import _add_plugin_commands

    _add_plugin_commands()  # `memex capture` comes from the capture plugin, as installed
    runner = CliRunner()

    def invoke(*args: str, code: int = 0) -> Any:
        result = runner.invoke(cli, list(args), catch_exceptions=False)
        assert result.exit_code == code, result.output
        return result

    return invoke


def test_drain_command_reports_in_json(run: Any, memex_home: Path, tmp_path: Path) -> None:
    transcript = session_transcript(tmp_path / "proj")
    hook(memex_home, "UserPromptSubmit", transcript)
    hook(memex_home, "Stop", transcript)
    out = json.loads(run("capture", "drain", "--format", "json").output)
    assert (out["records"], out["transcripts"], out["waiting"], out["errors"]) == (2, 1, 0, [])
    assert out["fragments_added"] > 0
    assert json.loads(run("capture", "drain", "--format", "json").output)["records"] == 0
    assert "nothing was waiting" in run("capture", "drain").output


def test_drain_retry_failed_puts_moved_batches_back(
    run: Any, memex_home: Path, tmp_path: Path
) -> None:
    transcript = tmp_path / "proj" / f"{SESSION}.jsonl"
    hook(memex_home, "Stop", transcript)
    for _ in range(MAX_ATTEMPTS - 1):
        assert json.loads(run("capture", "drain", "--format", "json", code=1).output)["waiting"]
    out = json.loads(run("capture", "drain", "--format", "json").output)
    assert out["moved_aside"] == 1
    session_transcript(tmp_path / "proj")  # the transcript is back
    out = json.loads(run("capture", "drain", "--retry-failed", "--format", "json").output)
    assert (out["records"], out["transcripts"], out["moved_aside"]) == (1, 1, 0)
    assert not list(Path(failed_dir(str(memex_home))).iterdir())


def test_doctor_reports_a_spool_nobody_drains(run: Any, memex_home: Path, tmp_path: Path) -> None:
    transcript = session_transcript(tmp_path / "proj")
    run("ingest", str(transcript))
    old = time.time() - 3600
    spool.append(
        layout.spool_file(memex_home),
        spool.make_record(
            "claude-code",
            "Stop",
            session_id=SESSION,
            transcript_path=str(transcript),
            cwd=None,
            at=old,
        ),
    )
    report = json.loads(run("doctor", "--format", "json", code=1).output)
    stale = [f for f in report["findings"] if f["code"] == "capture.spool_stale"]
    assert stale and stale[0]["severity"] == "drift" and "memex capture drain" in stale[0]["fix"]
    run("capture", "drain")
    report = json.loads(run("doctor", "--format", "json").output)
    assert not [f for f in report["findings"] if f["code"].startswith("capture.")]


def test_a_transcript_that_grew_after_its_last_event_is_caught_up(
    run: Any, memex_home: Path, tmp_path: Path
) -> None:
    """The session's last events never reached the spool (fired while the home could not
    be written): doctor reports the transcript, `memex capture drain` reads it again."""
    transcript = session_transcript(tmp_path / "proj")
    hook(memex_home, "Stop", transcript)
    run("capture", "drain")
    state = json.loads(Path(layout.state_file(memex_home)).read_text())
    entry = state["transcripts"][str(transcript)]
    assert (entry["size"], entry["session_id"]) == (transcript.stat().st_size, SESSION)

    t = Transcript()
    t.records = [json.loads(line) for line in transcript.read_text().splitlines()]
    t._count = len(t.records)
    t.user("now rename the zebracorn importer to okapi")
    t.assistant("msg_3", text("Renamed: the okapi importer is in place."))
    t.write(transcript)  # no hook records the end of the session
    # While it may still be live (changed within QUIET_SECONDS), nothing is said.
    report = json.loads(run("doctor", "--format", "json").output)
    assert not [f for f in report["findings"] if f["code"] == "capture.behind"]
    quiet = time.time() - 2 * QUIET_SECONDS
    os.utime(transcript, (quiet, quiet))
    report = json.loads(run("doctor", "--format", "json", code=1).output)
    (behind,) = [f for f in report["findings"] if f["code"] == "capture.behind"]
    assert behind["severity"] == "drift" and "memex capture drain" in behind["fix"]

    out = json.loads(run("capture", "drain", "--format", "json").output)
    assert (out["records"], out["caught_up"], out["summaries"]) == (0, 1, 1)
    report = json.loads(run("doctor", "--format", "json").output)
    assert not [f for f in report["findings"] if f["code"].startswith("capture.")]
    assert "caught up" not in run("capture", "drain").output  # done once, not again
    mx = fast_memex(memex_home)
    try:
        assert mx.search("okapi", mode="keyword", limit=3)
        summary = [f for f in mx.conversation(SESSION) if is_session_summary(f)]
        assert len(summary) == 1 and "okapi importer is in place" in summary[0].content
    finally:
        mx.close()


def test_remembered_transcripts_are_bounded(worker: CaptureWorker, tmp_path: Path) -> None:
    transcript = session_transcript(tmp_path / "proj")
    state = {
        "transcripts": {f"/old/{n}.jsonl": {"size": 1, "mtime_ns": 1, "at": 1.0} for n in range(3)}
    }
    Path(layout.state_file(worker.home)).parent.mkdir(parents=True, exist_ok=True)
    Path(layout.state_file(worker.home)).write_text(json.dumps(state))
    hook(Path(worker.home), "Stop", transcript)
    worker.drain()
    seen = json.loads(Path(layout.state_file(worker.home)).read_text())["transcripts"]
    assert list(seen) == [str(transcript)]  # not read for SEEN_SECONDS: forgotten


def test_doctor_checks_hook_runs_plugin_checks_and_survives_a_broken_one(
    memex_home: Path,
) -> None:
    class Plugin:
        @hookimpl
        def register_doctor_checks(self, register: Any) -> None:
            register("fine", lambda home: [Finding("x.note", NOTE, f"home {home}", "none")])
            register("broken", lambda home: 1 / 0)

    mx = fast_memex(memex_home)
    mx.registry.register_plugin(Plugin(), name="checks")
    found = plugin_findings(mx.registry.doctor_checks(), mx.home)
    by_code = {f.code: f for f in found}
    assert by_code["x.note"].summary == f"home {memex_home}"
    assert "ZeroDivisionError" in by_code["plugin.broken.failed"].summary
    assert by_code["plugin.broken.failed"].severity == NOTE


def test_drain_report_to_dict_has_every_count() -> None:
    assert set(DrainReport().to_dict()) >= {"records", "waiting", "errors", "moved_aside"}


def test_an_idle_worker_exits_after_the_idle_time(memex_home: Path) -> None:
    made = CaptureWorker(memex_home, memex=fast_memex(memex_home), idle_seconds=0.5)
    started = time.monotonic()
    assert made.run() == 0
    assert 0.5 <= time.monotonic() - started < 30
    made.close()


def test_sigterm_finishes_the_transcript_in_hand_and_keeps_the_rest(
    worker: CaptureWorker, tmp_path: Path
) -> None:
    first = session_transcript(tmp_path / "a")
    second = make_second(tmp_path / "b")
    hook(Path(worker.home), "Stop", first)
    hook(Path(worker.home), "Stop", second, session_id="other")
    worker.stopping = True  # as the SIGTERM handler does, with a batch taken
    work = worker.take()[0]
    report = DrainReport()
    assert worker.drain_batch(work, report, settle=False) is False
    assert report.transcripts == 1 and report.waiting == 1
    worker.stopping = False
    assert worker.drain().transcripts == 1 and not work_files(worker.home)


def make_second(folder: Path) -> Path:
    t = Transcript("5e55a000-0000-4000-8000-000000000002")
    t.user("second session about the yodelbox")
    t.assistant("msg_y", text("The yodelbox is fine."))
    return t.write(folder / "5e55a000-0000-4000-8000-000000000002.jsonl")


def test_doctor_notes_skipped_lines_and_the_last_worker_error(
    worker: CaptureWorker, tmp_path: Path
) -> None:
    home = Path(worker.home)
    hook(home, "Stop", session_transcript(tmp_path / "proj"))
    with open(layout.spool_file(home), "ab") as handle:
        handle.write(b"garbage\n")
    worker.drain()
    worker.record_error("memex cannot write to X: the home is read-only. Make it writable.")
    codes = {f.code: f for f in _capture(home)}
    assert codes["capture.rejected"].severity == NOTE and codes["capture.rejected"].count == 1
    assert "read-only" in codes["capture.worker_error"].summary
    assert "capture.spool_stale" not in codes
    worker.record_drained()
    assert "capture.worker_error" not in {f.code for f in _capture(home)}


def test_a_summary_the_home_cannot_take_is_written_on_the_retry(
    worker: CaptureWorker, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memex_capture.home_problems import HomeProblem
    from memex_core.catalog.faults import DiskFullError

    written: list[str] = []
    full = [True]

    def write(mx: Memex, session_id: str) -> None:
        if full[0]:
            raise DiskFullError("No space left to write the catalog. Free some space.")
        written.append(session_id)

    summary = types.ModuleType("memex_capture.summary")
    summary.write_session_summary = write  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "memex_capture.summary", summary)
    hook(Path(worker.home), "Stop", session_transcript(tmp_path / "proj"))
    with pytest.raises(HomeProblem):
        worker.drain()
    assert len(work_files(worker.home)) == 1  # the Stop stays for the retry
    full[0] = False
    worker.drain()
    assert written == [SESSION] and not work_files(worker.home)
