"""Build synthetic Codex rollouts for tests, line by line, in the shapes real rollouts use.

Each builder returns ``(type, payload)``; :func:`write_rollout` wraps them in
the ``{"timestamp", "type", "payload"}`` envelope, one second apart, and writes
the JSONL file. :func:`write_lines` writes raw records (old layouts, junk).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

Entry = tuple[str, dict[str, Any]]

START = datetime(2025, 10, 1, 9, 0, 0, tzinfo=UTC)
SESSION_ID = "0199a0b1-1111-7222-8333-944455556666"


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def at(seconds: int) -> float:
    """The epoch time of the entry written ``seconds`` after :data:`START`."""
    return (START + timedelta(seconds=seconds)).timestamp()


def session_meta(
    session_id: str = SESSION_ID,
    *,
    cwd: str = "/home/ada/src/ledger",
    branch: str | None = "main",
    commit: str | None = "4f2c9e1d",
    cli_version: str = "0.50.0",
    base_instructions: str = "You are Codex, a coding agent.",
) -> Entry:
    git = {"commit_hash": commit, "branch": branch, "repository_url": "git@example.com:a/b.git"}
    return (
        "session_meta",
        {
            "id": session_id,
            "timestamp": iso(START),
            "cwd": cwd,
            "originator": "codex_cli_rs",
            "cli_version": cli_version,
            "source": "cli",
            "model_provider": "openai",
            "base_instructions": {"text": base_instructions},
            "git": git if branch or commit else None,
        },
    )


def turn_context(model: str = "gpt-5-codex", cwd: str = "/home/ada/src/ledger") -> Entry:
    return (
        "turn_context",
        {"cwd": cwd, "approval_policy": "on-request", "model": model, "summary": "auto"},
    )


def message(role: str, *texts: str, phase: str | None = None, item_id: str | None = None) -> Entry:
    part = "output_text" if role == "assistant" else "input_text"
    payload: dict[str, Any] = {
        "type": "message",
        "role": role,
        "content": [{"type": part, "text": text} for text in texts],
    }
    if phase:
        payload["phase"] = phase
    if item_id:
        payload["id"] = item_id
    return "response_item", payload


def user(*texts: str, item_id: str | None = None) -> Entry:
    return message("user", *texts, item_id=item_id)


def assistant(text: str, phase: str | None = "final_answer", item_id: str | None = None) -> Entry:
    return message("assistant", text, phase=phase, item_id=item_id)


def developer(text: str) -> Entry:
    return message("developer", text)


def user_event(text: str) -> Entry:
    return "event_msg", {"type": "user_message", "message": text, "images": []}


def agent_event(text: str) -> Entry:
    return "event_msg", {"type": "agent_message", "message": text}


def reasoning_event(text: str) -> Entry:
    return "event_msg", {"type": "agent_reasoning", "text": text}


def token_count() -> Entry:
    return "event_msg", {"type": "token_count", "info": None, "rate_limits": None}


def agents_md(directory: str, body: str) -> Entry:
    return user(
        f"# AGENTS.md instructions for {directory}\n\n<INSTRUCTIONS>\n{body}\n</INSTRUCTIONS>"
    )


def environment_context(cwd: str = "/home/ada/src/ledger") -> Entry:
    return user(
        f"<environment_context>\n  <cwd>{cwd}</cwd>\n  <shell>zsh</shell>\n</environment_context>"
    )


def reasoning(*summaries: str, encrypted: str = "gAAAAB-ENCRYPTED-REASONING") -> Entry:
    return (
        "response_item",
        {
            "type": "reasoning",
            "summary": [{"type": "summary_text", "text": s} for s in summaries],
            "content": None,
            "encrypted_content": encrypted,
        },
    )


def function_call(name: str, arguments: Any, call_id: str) -> Entry:
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return (
        "response_item",
        {"type": "function_call", "name": name, "arguments": text, "call_id": call_id},
    )


def function_output(call_id: str, output: Any) -> Entry:
    return "response_item", {"type": "function_call_output", "call_id": call_id, "output": output}


def custom_call(name: str, tool_input: str, call_id: str) -> Entry:
    return (
        "response_item",
        {
            "type": "custom_tool_call",
            "status": "completed",
            "call_id": call_id,
            "name": name,
            "input": tool_input,
        },
    )


def custom_output(call_id: str, output: Any) -> Entry:
    return "response_item", {
        "type": "custom_tool_call_output",
        "call_id": call_id,
        "output": output,
    }


def local_shell_call(command: Sequence[str], call_id: str, workdir: str = "/repo") -> Entry:
    return (
        "response_item",
        {
            "type": "local_shell_call",
            "call_id": call_id,
            "status": "completed",
            "action": {"type": "exec", "command": list(command), "working_directory": workdir},
        },
    )


def web_search_call(query: str) -> Entry:
    return (
        "response_item",
        {
            "type": "web_search_call",
            "status": "completed",
            "action": {"type": "search", "query": query},
        },
    )


def compacted(summary: str) -> Entry:
    history = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "old"}]}
    ]
    return "compacted", {"message": summary, "replacement_history": history}


def envelope(entries: Iterable[Entry], start: int = 0) -> list[dict[str, Any]]:
    """Envelope records, the n-th stamped ``start + n`` seconds after :data:`START`."""
    return [
        {"timestamp": iso(START + timedelta(seconds=start + n)), "type": kind, "payload": payload}
        for n, (kind, payload) in enumerate(entries)
    ]


def write_lines(path: Path, records: Iterable[Any]) -> Path:
    """One JSON value per line (strings are written as they are: for junk lines)."""
    lines = [r if isinstance(r, str) else json.dumps(r, ensure_ascii=False) for r in records]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


def write_rollout(path: Path, entries: Iterable[Entry]) -> Path:
    return write_lines(path, envelope(entries))


def typical_session(prompt: str = "Add a retry ledger to the payments worker") -> list[Entry]:
    """A one-turn session as Codex 0.4x-0.10x writes it: context, prompt, work, answer."""
    return [
        session_meta(),
        developer("<permissions instructions>sandboxed</permissions instructions>"),
        agents_md("/home/ada/src/ledger", "Run `make test` before committing."),
        environment_context(),
        ("event_msg", {"type": "task_started", "turn_id": "t1"}),
        user(prompt),
        user_event(prompt),
        turn_context(),
        reasoning_event("**Planning the ledger**"),
        reasoning("**Planning the ledger**\n\nLook at the worker first."),
        agent_event("I'll read the worker and its tests."),
        assistant("I'll read the worker and its tests.", phase="commentary"),
        function_call(
            "shell", {"command": ["bash", "-lc", "rg -n retry src/"], "workdir": "/r"}, "c1"
        ),
        function_output("c1", "src/worker.py:12: retry = 3"),
        custom_call("apply_patch", "*** Begin Patch\n*** Update File: src/worker.py\n", "c2"),
        custom_output("c2", [{"type": "input_text", "text": "Success. Updated src/worker.py"}]),
        agent_event("Added the ledger; `make test` passes."),
        assistant("Added the ledger; `make test` passes."),
        token_count(),
        ("event_msg", {"type": "task_complete"}),
    ]
