"""The capture hook as the agents run it: a real ``python -S hook.py`` process per event,
payloads rebuilt from real Claude Code and Codex sessions (shared exports; those tests
skip when the data is absent), and every way its input or its home can go wrong. It must
spool pointers only, print only the SessionStart brief, start one worker, and exit 0."""

from __future__ import annotations

import contextlib
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from benchmarks.capture_hooks import claude_code_events, codex_notify_events
from memex_capture import jsonlite, launch, layout, spool
from memex_capture.hook_main import DETAIL_KEYS, MAX_STDIN_BYTES
from memex_capture.hooks_common import HOOK_SCRIPT, hook_argv
from tests.support._data import shared_data_dir

NO_WORKER = {"MEMEX_CAPTURE_NO_WORKER": "1"}
#: Keys a record's detail may hold: the hook's small fields, and Codex notify's.
ALLOWED_DETAIL = {*DETAIL_KEYS, "oversized_input", "type", "thread_id", "client", "codex_home"}


def run_hook(
    home: Path,
    agent: str = "claude-code",
    stdin: bytes | str | None = b"",
    *,
    extra: list[str] | None = None,
    env: dict[str, str] | None = None,
    preexec_fn: Any = None,
) -> subprocess.CompletedProcess[bytes]:
    """One hook process with the command line ``memex hooks install`` writes."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("MEMEX_")}
    environ.update(NO_WORKER if env is None else env)
    data = stdin.encode() if isinstance(stdin, str) else stdin
    return subprocess.run(
        hook_argv(agent, str(home)) + (extra or []),
        input=data,
        capture_output=True,
        env=environ,
        timeout=60,
        preexec_fn=preexec_fn,
        check=False,
    )


def records(home: Path) -> list[dict[str, Any]]:
    path = Path(layout.spool_file(str(home)))
    if not path.exists():
        return []
    batch = spool.read_batch(path)
    assert batch.bad_lines == []
    return batch.records


def all_bytes_under(home: Path) -> bytes:
    return b"\n".join(p.read_bytes() for p in home.rglob("*") if p.is_file())


def log_lines(home: Path) -> list[str]:
    path = Path(layout.hook_log(str(home)))
    return path.read_text().splitlines() if path.exists() else []


def payload(event: str, cwd: str = "/tmp", **fields: Any) -> str:
    return json.dumps(
        {
            "session_id": "sess-1",
            "transcript_path": "/tmp/sess-1.jsonl",
            "cwd": cwd,
            "permission_mode": "default",
            "hook_event_name": event,
            **fields,
        }
    )


def _long_texts(value: Any) -> list[str]:
    """Distinctive strings (40+ chars) inside a prompt or tool output, to look for on disk."""
    if isinstance(value, str):
        return [value[:200]] if len(value.strip()) >= 40 else []
    if isinstance(value, dict):
        return [text for item in value.values() for text in _long_texts(item)]
    if isinstance(value, list):
        return [text for item in value for text in _long_texts(item)]
    return []


# -- a real session, event by event ---------------------------------------------------


@pytest.mark.parametrize("name", ["short.jsonl", "tool_heavy.jsonl"])
def test_real_claude_code_session_spools_exactly_the_pointers(tmp_path: Path, name: str) -> None:
    transcript = shared_data_dir("exports", "claude_code", "marot_spotter") / name
    events = claude_code_events(transcript)
    assert {e["hook_event_name"] for e in events} == {
        "SessionStart",
        "UserPromptSubmit",
        "PostToolUse",
        "Stop",
        "SessionEnd",
    }
    home = tmp_path / "home"
    for event in events:
        done = run_hook(home, stdin=json.dumps(event))
        assert done.returncode == 0, done.stderr
        assert done.stdout == b""  # no brief yet, and nothing for other events
        assert done.stderr == b""
    got = records(home)
    assert [(r["event"], r["session_id"], r["transcript_path"], r["cwd"]) for r in got] == [
        (e["hook_event_name"], e["session_id"], str(transcript), e["cwd"]) for e in events
    ]
    for record, event in zip(got, events, strict=True):
        assert record["agent"] == "claude-code"
        assert set(record["detail"]) <= ALLOWED_DETAIL
        for key in ("source", "reason", "tool_name", "tool_use_id", "stop_hook_active"):
            if key in event:
                assert record["detail"][key] == event[key]
    # The content never reaches memex's disk through the hook.
    stored = all_bytes_under(home)
    secrets = [
        text
        for event in events
        for key in ("prompt", "tool_response", "tool_input")
        for text in _long_texts(event.get(key))
    ]
    assert secrets, "the session should have prompts and tool output to look for"
    for text in secrets:
        assert text.encode() not in stored
    assert log_lines(home) == []
    fired = sorted(os.listdir(layout.fired_dir(str(home))))
    assert fired == sorted(f"claude-code.{e}" for e in {ev["hook_event_name"] for ev in events})


def test_real_codex_notify_spools_the_thread_as_session(tmp_path: Path) -> None:
    folder = shared_data_dir("exports", "codex")
    rollouts = sorted(folder.glob("**/rollout-*.jsonl"))
    notes = [note for rollout in rollouts for note in codex_notify_events(rollout)]
    if not notes:
        pytest.skip(f"no Codex turn completions in the rollouts under {folder}")
    home = tmp_path / "home"
    for note in notes:
        done = run_hook(home, "codex", stdin=None, extra=[json.dumps(note)])
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    got = records(home)
    assert len(got) == len(notes)
    for record, note in zip(got, notes, strict=True):
        assert record["agent"] == "codex"
        assert record["event"] == "agent-turn-complete"
        assert record["session_id"] == note["thread-id"]
        assert record["transcript_path"] is None
        assert record["cwd"] == note["cwd"]
        assert record["detail"]["turn_id"] == note["turn-id"]
        assert set(record["detail"]) <= ALLOWED_DETAIL
    stored = all_bytes_under(home)
    for note in notes:
        for text in _long_texts(note["input-messages"]) + _long_texts(
            note["last-assistant-message"]
        ):
            assert text.encode() not in stored


def test_codex_notify_records_where_codex_keeps_its_rollouts(tmp_path: Path) -> None:
    """The worker may have been started by a Claude Code hook with another CODEX_HOME."""
    home = tmp_path / "home"
    note = {"type": "agent-turn-complete", "thread-id": "t-1", "turn-id": "1", "cwd": "/tmp"}
    env = {**NO_WORKER, "CODEX_HOME": str(tmp_path / "codex")}
    done = run_hook(home, "codex", stdin=None, extra=[json.dumps(note)], env=env)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    (record,) = records(home)
    assert record["detail"]["codex_home"] == str(tmp_path / "codex")


def test_codex_lifecycle_hook_on_stdin(tmp_path: Path) -> None:
    # Shape of codex-rs/hooks/schema/generated/post-tool-use.command.input.schema.json.
    output = "RESULT-" + "x" * 80
    event = {
        "session_id": "019c8a4d-8f45-7010-8b5d-7fad920aa6f9",
        "transcript_path": "/home/u/.codex/sessions/2026/02/23/rollout-x.jsonl",
        "cwd": "/home/u/project",
        "hook_event_name": "PostToolUse",
        "model": "gpt-5",
        "permission_mode": "default",
        "turn_id": "019c8a4d-f931-7323-8939-64390c636ca9",
        "tool_name": "shell",
        "tool_input": {"command": ["ls"]},
        "tool_response": output,
        "tool_use_id": "call_1",
    }
    home = tmp_path / "home"
    done = run_hook(home, "codex", stdin=json.dumps(event))
    assert (done.returncode, done.stdout) == (0, b"")
    [record] = records(home)
    assert record["agent"] == "codex"
    assert record["transcript_path"] == event["transcript_path"]
    assert record["detail"]["turn_id"] == event["turn_id"]
    assert output.encode() not in all_bytes_under(home)


# -- SessionStart brief -----------------------------------------------------------------


def test_session_start_prints_the_brief_as_additional_context(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    (project / "src").mkdir()
    home = tmp_path / "home"
    brief = Path(layout.brief_file(str(home), str(project)))
    brief.parent.mkdir(parents=True)
    text = '## memex: what you did here before\n- fixed the "locked" bug (2 days ago)\n'
    brief.write_text(text, encoding="utf-8")

    done = run_hook(home, stdin=payload("SessionStart", str(project / "src"), source="startup"))
    assert done.returncode == 0
    assert json.loads(done.stdout) == {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": text}
    }
    # Other events never print, even with a brief there.
    for event in ("UserPromptSubmit", "PostToolUse", "Stop", "SessionEnd"):
        assert run_hook(home, stdin=payload(event, str(project))).stdout == b""


def test_session_start_prints_its_folders_brief_else_the_projects(tmp_path: Path) -> None:
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    (project / "api").mkdir()
    (project / "web").mkdir()
    (tmp_path / "link").symlink_to(project)
    home = tmp_path / "home"
    texts = {
        project: "# memex: the project's brief\n",
        project / "api": "# memex: api's sessions first\n",
    }
    for folder, text in texts.items():
        brief = Path(layout.brief_file(str(home), str(folder)))
        brief.parent.mkdir(parents=True, exist_ok=True)
        brief.write_text(text, encoding="utf-8")

    def printed(cwd: Path) -> str:
        done = run_hook(home, stdin=payload("SessionStart", str(cwd), source="startup"))
        assert done.returncode == 0
        return str(json.loads(done.stdout)["hookSpecificOutput"]["additionalContext"])

    assert printed(project / "api") == texts[project / "api"]
    assert printed(tmp_path / "link" / "api") == texts[project / "api"]  # symlinks resolved
    assert printed(project / "web") == texts[project]  # no brief of its own yet
    assert printed(project) == texts[project]


def test_session_start_without_a_brief_prints_nothing(tmp_path: Path) -> None:
    done = run_hook(
        tmp_path / "home", stdin=payload("SessionStart", str(tmp_path), source="resume")
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    [record] = records(tmp_path / "home")
    assert record["detail"]["source"] == "resume"


# -- bad input ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("stdin", "why"),
    [
        (b"", "empty input"),
        (b"   \n", "empty input"),
        (b"this is not json", "not JSON"),
        (b"\x00\xff\xfe\x80binary" * 100, "not JSON"),
        (b"[1, 2, 3]", "not a JSON object"),
        (b'{"session_id": "s", "hook_event_name": "Stop"', "not JSON"),
    ],
)
def test_bad_stdin_exits_0_and_logs_one_line(tmp_path: Path, stdin: bytes, why: str) -> None:
    home = tmp_path / "home"
    done = run_hook(home, stdin=stdin)
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert records(home) == []
    [line] = log_lines(home)
    assert why in line and "claude-code input" in line


def test_huge_payload_is_drained_and_its_pointer_kept(tmp_path: Path) -> None:
    home = tmp_path / "home"
    output = "y" * (MAX_STDIN_BYTES + 4 * 1024 * 1024)
    done = run_hook(
        home,
        stdin=payload("PostToolUse", tool_name="Bash", tool_use_id="toolu_1", tool_response=output),
    )
    assert (done.returncode, done.stdout) == (0, b"")
    [record] = records(home)
    assert record["event"] == "PostToolUse"
    assert record["session_id"] == "sess-1"
    assert record["detail"]["tool_name"] == "Bash"
    assert record["detail"]["oversized_input"] is True
    assert b"y" * 100 not in all_bytes_under(home)


def test_large_payload_under_the_cap_is_parsed(tmp_path: Path) -> None:
    home = tmp_path / "home"
    big = "z" * (3 * 1024 * 1024)
    done = run_hook(home, stdin=payload("PostToolUse", tool_name="Read", tool_response=big))
    assert done.returncode == 0
    [record] = records(home)
    assert record["detail"] == {"permission_mode": "default", "tool_name": "Read"}


def test_long_detail_values_are_dropped(tmp_path: Path) -> None:
    home = tmp_path / "home"
    run_hook(home, stdin=payload("SessionEnd", reason="r" * 5000, agent_type="Explore"))
    [record] = records(home)
    assert record["detail"] == {"permission_mode": "default", "agent_type": "Explore"}


def test_unknown_agent_is_logged_and_still_spooled(tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = run_hook(home, "gemini", stdin=payload("Stop"))
    assert done.returncode == 0
    assert [r["agent"] for r in records(home)] == ["gemini"]
    assert any("unknown agent" in line for line in log_lines(home))


# -- the home ------------------------------------------------------------------------------


def test_missing_home_is_created_private(tmp_path: Path) -> None:
    home = tmp_path / "not" / "yet" / "home"
    done = run_hook(home, stdin=payload("Stop"))
    assert done.returncode == 0
    assert len(records(home)) == 1
    for folder in (home, home / "capture", home / "capture" / "spool", home / "logs"):
        assert folder.stat().st_mode & 0o777 == 0o700, folder
    assert (Path(layout.spool_file(str(home))).stat().st_mode & 0o777) == 0o600


def test_home_that_cannot_be_created_exits_0(tmp_path: Path) -> None:
    # Nothing can be created under /proc, not even by root: no spool, no log, no failure.
    done = run_hook(Path("/proc/memex-capture-test-home"), stdin=payload("Stop"))
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")


def test_unwritable_capture_folder_is_logged(tmp_path: Path) -> None:
    # capture/ is a file here, so nothing can be made under it (as a read-only
    # file system would refuse, and unlike chmod this also bites as root).
    home = tmp_path / "home"
    home.mkdir()
    (home / "capture").write_text("not a folder")
    done = run_hook(home, stdin=payload("UserPromptSubmit", prompt="hello there"))
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    lines = log_lines(home)
    assert any("UserPromptSubmit spool" in line for line in lines)
    assert any("UserPromptSubmit fired" in line for line in lines)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through chmod 0500")
def test_read_only_home_exits_0(tmp_path: Path) -> None:
    home = tmp_path / "home"
    run_hook(home, stdin=payload("Stop"))
    for folder in (home / "capture" / "spool", home / "capture", home / "logs", home):
        folder.chmod(0o500)
    try:
        started = time.monotonic()
        done = run_hook(home, stdin=payload("Stop"))
        assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
        assert time.monotonic() - started < 30  # returns, never waits on the home
    finally:
        for folder in (home, home / "logs", home / "capture", home / "capture" / "spool"):
            folder.chmod(0o700)
    assert len(records(home)) == 1


def _file_size_limit(limit: int) -> Any:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return apply


def test_full_disk_exits_0_and_keeps_the_spool(tmp_path: Path) -> None:
    home = tmp_path / "home"
    for _ in range(12):
        run_hook(home, stdin=payload("Stop"))
    spool_path = Path(layout.spool_file(str(home)))
    before = spool_path.read_bytes()
    assert len(before) > 1000
    # Files may not grow past 1,000 bytes: the spool is over, the empty log is not.
    done = run_hook(
        home, stdin=payload("PostToolUse", tool_name="Bash"), preexec_fn=_file_size_limit(1000)
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, b"", b"")
    assert spool_path.read_bytes() == before
    [line] = log_lines(home)
    assert "PostToolUse spool" in line and "OSError" in line


# -- the worker and the previous notify ---------------------------------------------------

FAKE_WORKER = """
import fcntl, os, sys, time
home = sys.argv[sys.argv.index("--home") + 1]
os.makedirs(os.path.join(home, "run"), exist_ok=True)
with open(os.path.join(home, "fake-worker-runs"), "a") as handle:
    handle.write(f"{os.getpid()}\\n")
fd = os.open(os.path.join(home, "run", "capture-worker.lock"), os.O_RDWR | os.O_CREAT, 0o600)
try:
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
except OSError:
    sys.exit(0)
with open(os.path.join(home, "fake-worker-starts"), "a") as handle:
    handle.write(f"{os.getpid()}\\n")
time.sleep(30)
"""


def test_the_worker_is_started_once(tmp_path: Path) -> None:
    # A stand-in memex_capture.worker first on the worker's PYTHONPATH (the hook itself
    # imports the real package: hook.py puts its folder first on sys.path).
    fake = tmp_path / "fake" / "memex_capture"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("")
    (fake / "worker.py").write_text(FAKE_WORKER)
    home = tmp_path / "home"
    assert layout.worker_lock(str(home)) == str(home / "run" / "capture-worker.lock")
    env = {"PYTHONPATH": str(fake.parent)}
    starts = home / "fake-worker-starts"
    pids: list[int] = []
    ended: list[int] = []
    try:
        assert run_hook(home, stdin=payload("SessionStart"), env=env).returncode == 0
        deadline = time.monotonic() + 30
        while not starts.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        pids = [int(pid) for pid in starts.read_text().split()]
        for event in ("UserPromptSubmit", "PostToolUse", "Stop", "SessionEnd"):
            assert run_hook(home, stdin=payload(event), env=env).returncode == 0
        assert len(records(home)) == 5
        # A worker those four hooks started (they must not) would be running by the time
        # one started after them is: end the first worker, so the next hook has to start
        # one, and wait for that start. Every start is in fake-worker-runs (a second worker
        # beside the first exits at once, without a line in fake-worker-starts).
        [first] = pids
        os.kill(first, 15)
        ended.append(first)
        deadline = time.monotonic() + 30
        while launch.worker_running(str(home)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert run_hook(home, stdin=payload("Stop"), env=env).returncode == 0
        while len(starts.read_text().split()) < 2 and time.monotonic() < deadline + 30:
            time.sleep(0.05)
        pids = [int(pid) for pid in starts.read_text().split()]
        assert pids[0] == first and len(pids) == 2
        assert (home / "fake-worker-runs").read_text().split() == [str(p) for p in pids]
    finally:
        # Never signal a pid twice: once its process is gone the pid may be another's (pids
        # wrap at 32,768 on a machine that has run a suite or two), an xdist worker's say.
        for pid in pids:
            if pid not in ended:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, 15)


def test_no_worker_env_starts_none(tmp_path: Path) -> None:
    home = tmp_path / "home"
    run_hook(home, stdin=payload("Stop"))
    assert not os.path.exists(layout.worker_lock(str(home)))


def test_codex_previous_notify_runs_after_ours(tmp_path: Path) -> None:
    home = tmp_path / "home"
    out = tmp_path / "previous-notify.txt"
    note = json.dumps(
        {"type": "agent-turn-complete", "thread-id": "t-1", "turn-id": "7", "cwd": "/"}
    )
    previous = ["sh", "-c", f'printf %s "$1" > {out}', "sh"]
    done = run_hook(home, "codex", stdin=None, extra=["--then", *previous, note])
    assert (done.returncode, done.stdout) == (0, b"")
    deadline = time.monotonic() + 30
    while not (out.exists() and out.read_text()) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert json.loads(out.read_text()) == json.loads(note)
    assert [r["session_id"] for r in records(home)] == ["t-1"]


def test_hook_imports_no_site_packages_and_no_heavy_modules(tmp_path: Path) -> None:
    probe = (
        "import sys\n"
        "import memex_capture.hook_main as m\n"
        "m.main(['claude-code', '--home', sys.argv[1]])\n"
        "bad = sorted(n for n in sys.modules if n.split('.')[0] in "
        "{'pathlib', 'typing', 'dataclasses', 'subprocess', 'logging', 'memex_core', 'click',"
        " 're', 'enum', 'json'})\n"
        "print(bad)"
    )
    done = subprocess.run(
        [sys.executable, "-S", "-c", probe, str(tmp_path / "home")],
        input=payload("SessionStart").encode(),
        capture_output=True,
        env={**os.environ, **NO_WORKER, "PYTHONPATH": str(HOOK_SCRIPT.parents[1])},
        check=True,
    )
    # Not even json: its import pulls in re and enum, most of a hook's time (jsonlite serves).
    assert done.stdout.decode().strip().splitlines()[-1] == "[]"


def test_jsonlite_gives_json_s_objects_and_text_on_real_payloads() -> None:
    folder = shared_data_dir("exports", "claude_code", "marot_spotter")
    events = claude_code_events(folder / "tool_heavy.jsonl") + claude_code_events(
        folder / "short.jsonl"
    )
    for event in events:
        for text in (json.dumps(event), json.dumps(event, ensure_ascii=False, indent=1)):
            assert jsonlite.loads(text) == json.loads(text)
            assert jsonlite.loads(text.encode()) == json.loads(text.encode())
        for options in (
            {},
            {"ensure_ascii": False},
            {"ensure_ascii": False, "separators": (",", ":")},
        ):
            assert jsonlite.dumps(event, **options) == json.dumps(event, **options)
        record = spool.make_record(
            "claude-code",
            event["hook_event_name"],
            session_id=event["session_id"],
            transcript_path=event["transcript_path"],
            cwd=event["cwd"],
            detail={"tool_name": event.get("tool_name"), "x": 1.5, "ok": True, "é": "\u2028"},
        )
        line = jsonlite.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        assert line.encode() == spool.encode(record)


def test_jsonlite_errors_and_odd_encodings_are_json_s() -> None:
    for bad in (b"{bad", b"", b"[1, 2", b'{"a": 1} trailing', "\ufeff{}"):
        with pytest.raises(json.JSONDecodeError) as lite:
            jsonlite.loads(bad)
        with pytest.raises(json.JSONDecodeError) as real:
            json.loads(bad)
        assert str(lite.value) == str(real.value)
    for data in ('{"a": "\u00e9"}'.encode("utf-16"), b'\xef\xbb\xbf{"a": 1}', b"  [1e400, -0.0]  "):
        assert repr(jsonlite.loads(data)) == repr(json.loads(data))
    assert jsonlite.raw_decode('xx {"a": [1]} yy', 3) == ({"a": [1]}, 13)
    assert jsonlite.dumps({"a": float("nan")}) == json.dumps({"a": float("nan")})
    with pytest.raises(TypeError):
        jsonlite.dumps({"a": object()})
