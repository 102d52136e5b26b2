"""Replay a real agent session line by line, firing the capture hooks where the agent would.

Shared by the replay-equivalence tests
(tests/integrations/capture/test_capture_replay.py), the fault tests
and the freshness benchmark (benchmarks/capture_freshness.py). A replay writes a
transcript as the agent does, one line at a time into a growing file, and calls the
installed hook program (``python -S memex_capture/hook.py <agent> --home H``) as a
subprocess at the points the agent runs it:

Claude Code (``~/.claude/projects/<slug>/<session>.jsonl``; payload fields as in
code.claude.com/docs/en/hooks): ``SessionStart`` before the first line;
``UserPromptSubmit`` before a typed prompt's line is written (Claude Code runs it
before the prompt reaches the transcript); ``PostToolUse`` after a tool result's line;
``Stop`` when an assistant turn has ended, i.e. before the next typed prompt and at the
end; ``SessionEnd`` last. A sub-agent's lines go to ``<session>/subagents/agent-*.jsonl``,
merged into the timeline by timestamp; its tool results fire ``PostToolUse`` with the
parent's transcript path and the ``agent_id``, as Claude Code's sub-agent hooks do.

Codex (``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*-<id>.jsonl``): the ``notify``
program gets one JSON argument ``{"type": "agent-turn-complete", "thread-id",
"turn-id", "cwd", "input-messages", "last-assistant-message"}`` after each turn (a
``task_complete`` event line) and, for a rollout cut mid-turn, after its last line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import memex_capture

#: The hook program as ``memex hooks install`` puts it in the agents' settings.
HOOK = Path(memex_capture.__file__).resolve().parent / "hook.py"


@dataclass
class Step:
    """Write ``line`` to ``file`` (a line step), or fire ``event`` (an event step)."""

    at: float | None
    file: Path | None = None
    line: str | None = None
    agent: str = "claude-code"
    event: str | None = None
    payload: dict[str, Any] = field(default_factory=dict)
    #: For a line step: a distinctive phrase of what it added, to poll for (benchmark).
    phrase: str | None = None

    @property
    def is_event(self) -> bool:
        return self.event is not None


def _stamp(value: Any) -> float | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


def _lines(path: Path) -> list[str]:
    return [line if line.endswith("\n") else line + "\n" for line in path.open(encoding="utf-8")]


def _merged(files: list[tuple[Path, list[str]]]) -> Iterator[tuple[Path, str, dict[str, Any]]]:
    """Lines of several transcripts in one timeline: each file keeps its order, the
    next line is the one whose timestamp (else its predecessor's) is earliest."""
    heads = [0] * len(files)
    last = [float("-inf")] * len(files)
    parsed = [[json.loads(line) for line in lines] for _, lines in files]
    while True:
        best: int | None = None
        best_at = float("inf")
        for i, (_, lines) in enumerate(files):
            if heads[i] >= len(lines):
                continue
            at = _stamp(parsed[i][heads[i]].get("timestamp"))
            at = last[i] if at is None else at
            if best is None or at < best_at:
                best, best_at = i, at
        if best is None:
            return
        last[best] = best_at
        dest, lines = files[best]
        yield dest, lines[heads[best]], parsed[best][heads[best]]
        heads[best] += 1


def _typed_prompt(record: dict[str, Any]) -> str | None:
    if record.get("type") != "user" or record.get("isMeta") or record.get("isCompactSummary"):
        return None
    content = (record.get("message") or {}).get("content")
    return content if isinstance(content, str) else None


def _tool_results(record: dict[str, Any]) -> list[dict[str, Any]]:
    if record.get("type") != "user":
        return []
    content = (record.get("message") or {}).get("content")
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]


def _phrase(record: dict[str, Any]) -> str | None:
    """A few distinctive words of a conversation line (what a search should find); None
    for lines that give no fragment of their own (meta lines, caveats, bookkeeping)."""
    if record.get("type") not in ("user", "assistant") or record.get("isMeta"):
        return None
    message = record.get("message") or {}
    content = message.get("content")
    texts: list[str] = []
    if isinstance(content, str):
        texts.append(content)
    elif isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                texts.append(str(block.get("text", "")))
    words = [w for w in " ".join(texts).split() if w.isalpha() and len(w) >= 6]
    if len(words) < 3:
        return None
    return " ".join(words[:6])


def claude_steps(source: Path, projects: Path, cwd: str) -> tuple[list[Step], Path]:
    """The steps replaying ``source`` (and its ``subagents/`` folder, when it has one)
    into ``projects/<slug>/<session>.jsonl``; returns them with that path."""
    lines = _lines(source)
    session = (
        next((json.loads(line).get("sessionId") for line in lines if '"sessionId"' in line), None)
        or source.stem
    )
    slug = "-" + cwd.strip("/").replace("/", "-")
    dest = projects / slug / f"{session}.jsonl"
    files = [(dest, lines)]
    sub = source.with_suffix("") / "subagents"
    if sub.is_dir():
        for agent in sorted(sub.glob("agent-*.jsonl")):
            files.append((dest.with_suffix("") / "subagents" / agent.name, _lines(agent)))

    def payload(event: str, **extra: Any) -> dict[str, Any]:
        return {
            "session_id": session,
            "transcript_path": str(dest),
            "cwd": cwd,
            "permission_mode": "default",
            "hook_event_name": event,
            **extra,
        }

    steps = [Step(None, event="SessionStart", payload=payload("SessionStart", source="startup"))]
    tool_names: dict[str, tuple[str, Any]] = {}
    assistant_open = False
    last_at: float | None = None
    for file, line, record in _merged(files):
        at = _stamp(record.get("timestamp")) or last_at
        last_at = at
        main = file == dest
        prompt = _typed_prompt(record)
        if prompt is not None and main:
            if assistant_open:
                steps.append(
                    Step(at, event="Stop", payload=payload("Stop", stop_hook_active=False))
                )
                assistant_open = False
            steps.append(
                Step(
                    at, event="UserPromptSubmit", payload=payload("UserPromptSubmit", prompt=prompt)
                )
            )
        steps.append(Step(at, file=file, line=line, phrase=_phrase(record)))
        if record.get("type") == "assistant":
            assistant_open = assistant_open or main
            for block in (record.get("message") or {}).get("content") or []:
                if isinstance(block, dict) and block.get("type") == "tool_use":
                    tool_names[str(block.get("id"))] = (str(block.get("name")), block.get("input"))
        for result in _tool_results(record):
            use_id = str(result.get("tool_use_id"))
            name, tool_input = tool_names.get(use_id, ("unknown", {}))
            extra: dict[str, Any] = {
                "tool_name": name,
                "tool_input": tool_input,
                "tool_response": record.get("toolUseResult"),
                "tool_use_id": use_id,
            }
            if not main and record.get("agentId"):
                extra["agent_id"] = record["agentId"]
            steps.append(Step(at, event="PostToolUse", payload=payload("PostToolUse", **extra)))
    if assistant_open:
        steps.append(Step(last_at, event="Stop", payload=payload("Stop", stop_hook_active=False)))
    steps.append(Step(last_at, event="SessionEnd", payload=payload("SessionEnd", reason="other")))
    return steps, dest


def codex_steps(source: Path, codex_home: Path) -> tuple[list[Step], Path]:
    """The steps replaying a Codex rollout into ``codex_home/sessions/YYYY/MM/DD/``."""
    lines = _lines(source)
    meta = json.loads(lines[0]).get("payload") or {}
    thread = str(meta.get("id"))
    day = (meta.get("timestamp") or "2026-01-01")[:10].split("-")
    name = source.name if source.name.startswith("rollout-") else f"rollout-x-{thread}.jsonl"
    dest = codex_home / "sessions" / day[0] / day[1] / day[2] / name
    cwd = str(meta.get("cwd") or "/")
    steps: list[Step] = []
    turn = None
    inputs: list[str] = []
    last_message = ""
    last_at: float | None = None
    for line in lines:
        record = json.loads(line)
        at = _stamp(record.get("timestamp")) or last_at
        last_at = at
        body = record.get("payload") or {}
        steps.append(Step(at, file=dest, line=line, agent="codex"))
        kind = body.get("type")
        if record.get("type") == "turn_context":
            turn = body.get("turn_id") or turn
        elif kind == "user_message":
            inputs.append(str(body.get("message", "")))
        elif kind == "agent_message":
            last_message = str(body.get("message", ""))
        elif kind == "task_complete":
            steps.append(_notify(at, thread, turn, cwd, inputs, last_message))
            inputs = []
    if not steps or steps[-1].event is None:
        steps.append(_notify(last_at, thread, turn, cwd, inputs, last_message))
    return steps, dest


def _notify(
    at: float | None, thread: str, turn: Any, cwd: str, inputs: list[str], last: str
) -> Step:
    return Step(
        at,
        agent="codex",
        event="agent-turn-complete",
        payload={
            "type": "agent-turn-complete",
            "thread-id": thread,
            "turn-id": str(turn or ""),
            "cwd": cwd,
            "input-messages": list(inputs),
            "last-assistant-message": last,
        },
    )


def hook_command(agent: str, home: Path, payload: dict[str, Any]) -> tuple[list[str], bytes]:
    """The hook's command line and stdin, as the agent runs it."""
    argv = [sys.executable, "-S", str(HOOK), agent, "--home", str(home)]
    if agent == "codex" and payload.get("type") == "agent-turn-complete":
        return [*argv, json.dumps(payload)], b""  # notify: one JSON argument, no stdin
    return argv, json.dumps(payload).encode()


def fire(
    step: Step, home: Path, *, env: dict[str, str] | None = None, start_worker: bool = False
) -> subprocess.CompletedProcess[bytes]:
    """Run the hook for an event step; returns the finished process (exit status, output)."""
    argv, stdin = hook_command(step.agent, home, step.payload)
    environment = dict(os.environ if env is None else env)
    if not start_worker:
        environment["MEMEX_CAPTURE_NO_WORKER"] = "1"
    else:
        environment.pop("MEMEX_CAPTURE_NO_WORKER", None)
    return subprocess.run(argv, input=stdin, capture_output=True, env=environment, timeout=30)


def write_line(step: Step) -> None:
    """Append a line step's line to its transcript, as the agent does (one write)."""
    assert step.file is not None and step.line is not None
    step.file.parent.mkdir(parents=True, exist_ok=True)
    with open(step.file, "a", encoding="utf-8") as handle:
        handle.write(step.line)
