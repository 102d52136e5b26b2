"""Install memex's hooks into Codex (and take them out again).

Read from the openai/codex source as stored in 2026-11 (``codex-rs/hooks/src/legacy_notify.rs``
at 898cee38, ``codex-rs/hooks/src/engine/discovery.rs`` at ac0800ed, ``codex-rs/features/src/
lib.rs`` at 009bd870, the hooks.json handler type with ``"timeout"`` in seconds):

- ``notify`` (top-level key of ``$CODEX_HOME/config.toml``, default ``~/.codex``): an
  argv array; Codex appends one JSON argument (``agent-turn-complete``) and spawns it
  with null stdio without waiting (``codex-rs/hooks/src/legacy_notify.rs``). Codex keeps
  ONE notify program, so when the user already has one, memex's command ends with
  ``--then <their argv>`` and the hook starts theirs, detached, with the same JSON
  argument (as Codex would have); uninstall puts their argv back as ``notify``.
- Lifecycle hooks (feature ``codex_hooks``, stable in that source: "Claude-style
  lifecycle hooks loaded from hooks.json files"): ``$CODEX_HOME/hooks.json`` in Claude
  Code's layout, events SessionStart, UserPromptSubmit, PreToolUse, PostToolUse and
  Stop (``codex-rs/hooks/src/engine/discovery.rs``), Claude-shaped JSON on stdin with
  ``transcript_path`` pointing at the rollout file. Older Codex releases ignore the
  file; newer ones run a new or changed hook only after the user has reviewed (trusted)
  it in Codex's ``/hooks`` view, which Codex records in config.toml (``[hooks.state]``).

``config.toml`` is edited as text, only the ``notify = ...`` assignment (or one inserted
line), so comments, key order and formatting survive; the result is parsed again and
compared with the original before anything is written.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path
from typing import Any

from memex_capture import hooks_common
from memex_capture.hook_main import THEN
from memex_capture.hooks_common import Change

AGENT = "codex"
#: Lifecycle events memex installs in hooks.json (Codex has no SessionEnd).
EVENTS: dict[str, str | None] = dict(hooks_common.LIFECYCLE_EVENTS)
_TABLE_HEADER = re.compile(r"^\s*\[")
_NOTIFY_LINE = re.compile(r"^\s*notify\s*=")


def codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex").expanduser()


def config_path() -> Path:
    return codex_home() / "config.toml"


def hooks_path() -> Path:
    return codex_home() / "hooks.json"


def _load_toml(path: Path) -> tuple[dict[str, Any], str | None]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, None
    try:
        return tomllib.loads(text), text
    except tomllib.TOMLDecodeError as error:
        raise hooks_common.HooksError(
            f"{path} is not valid TOML ({error}). memex left it untouched: fix the file "
            "(or move it aside) and run the command again."
        ) from None


def _toml_array(argv: list[str]) -> str:
    # A JSON string is a valid TOML basic string (same escapes, \uXXXX included).
    return "[" + ", ".join(json.dumps(part, ensure_ascii=False) for part in argv) + "]"


def _notify_span(lines: list[str]) -> tuple[int, int] | None:
    """Line range ``[start, end)`` of the top-level ``notify = ...`` assignment, found
    before the first table header and extended until it parses (a multi-line array)."""
    for start, line in enumerate(lines):
        if _TABLE_HEADER.match(line):
            return None
        if not _NOTIFY_LINE.match(line):
            continue
        for end in range(start + 1, len(lines) + 1):
            try:
                if "notify" in tomllib.loads("".join(lines[start:end])):
                    return start, end
            except tomllib.TOMLDecodeError:
                continue
        return None
    return None


def _insert_at(lines: list[str]) -> int:
    """Where a new top-level key goes: before the first table header and the comment
    block directly above it (which belongs to that table), else at the end."""
    for index, line in enumerate(lines):
        if _TABLE_HEADER.match(line):
            while index > 0 and lines[index - 1].lstrip().startswith("#"):
                index -= 1
            return index
    return len(lines)


def set_notify(text: str, argv: list[str] | None) -> str:
    """``text`` with its top-level ``notify`` set to ``argv`` (removed when ``None``)."""
    lines = text.splitlines(keepends=True)
    span = _notify_span(lines)
    new = [] if argv is None else [f"notify = {_toml_array(argv)}\n"]
    if span is not None:
        start, end = span
        return "".join(lines[:start] + new + lines[end:])
    if argv is None:
        return text
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    at = _insert_at(lines)
    return "".join(lines[:at] + new + lines[at:])


def _checked(path: Path, old: dict[str, Any], new_text: str, notify: list[str] | None) -> str:
    """``new_text`` if it parses to ``old`` with only ``notify`` changed; else an error."""
    try:
        new = tomllib.loads(new_text)
    except tomllib.TOMLDecodeError as error:
        new = {"<unparsable>": str(error)}
    expected = {key: value for key, value in old.items() if key != "notify"}
    if notify is not None:
        expected["notify"] = notify
    got = {key: value for key, value in new.items()}
    if got != expected:
        raise hooks_common.HooksError(
            f"memex could not set notify in {path} without changing anything else (an unusual "
            "layout); it left the file untouched. Set it by hand: "
            f"notify = {_toml_array(notify or [])}"
        )
    return new_text


def previous_notify(notify: object) -> list[str] | None:
    """The user's own notify program: the value itself, or what follows ``--then`` in ours."""
    if not isinstance(notify, list) or not all(isinstance(part, str) for part in notify):
        return None
    if not hooks_common.is_memex_argv(notify):
        return list(notify) or None
    if THEN in notify:
        return notify[notify.index(THEN) + 1 :] or None
    return None


def install_notify(home: str, python: str | None = None) -> Change:
    hooks_common.precompile()
    path = config_path()
    data, text = _load_toml(path)
    current = data.get("notify")
    if current is not None and not (
        isinstance(current, list) and all(isinstance(part, str) for part in current)
    ):
        raise hooks_common.HooksError(
            f"{path}: notify is {current!r}, not an array of strings; memex left the file "
            "untouched. Fix it and run the command again."
        )
    argv = hooks_common.hook_argv(AGENT, home, python)
    chained = previous_notify(current)
    if chained:
        argv += [THEN, *chained]
    if current == argv:
        return Change(path, False, events=["notify"], command=json.dumps(argv))
    new_text = _checked(path, data, set_notify(text or "", argv), argv)
    saved = hooks_common.backup(path)
    hooks_common.write_atomic(path, new_text)
    return Change(path, True, saved, ["notify"], json.dumps(argv))


def uninstall_notify() -> Change:
    path = config_path()
    data, text = _load_toml(path)
    current = data.get("notify")
    if text is None or not isinstance(current, list) or not hooks_common.is_memex_argv(current):
        return Change(path, False)
    restored = previous_notify(current)
    new_text = _checked(path, data, set_notify(text, restored), restored)
    saved = hooks_common.backup(path)
    hooks_common.write_atomic(path, new_text)
    return Change(path, True, saved, ["notify"], json.dumps(restored) if restored else None)


def install_lifecycle(home: str, python: str | None = None) -> Change:
    return hooks_common.install_json_hooks(hooks_path(), AGENT, EVENTS, home, python)


def uninstall_lifecycle() -> Change:
    # memex created hooks.json when Codex had none: leave no empty object behind.
    return hooks_common.uninstall_json_hooks(hooks_path(), remove_if_empty=True)


def status() -> dict[str, Any]:
    config = config_path()
    report: dict[str, Any] = {"codex_home": str(codex_home())}
    notify: dict[str, Any] = {"path": str(config), "exists": config.exists()}
    try:
        data, _ = _load_toml(config)
        current = data.get("notify")
        ours = isinstance(current, list) and hooks_common.is_memex_argv(current)
        notify["installed"] = bool(ours)
        if ours and isinstance(current, list):
            notify.update(hooks_common.command_health(current))
            notify["chained"] = previous_notify(current)
        elif current:
            notify["other"] = current
    except hooks_common.HooksError as error:
        notify.update(installed=False, error=str(error))
    report["notify"] = notify
    hooks = hooks_path()
    lifecycle: dict[str, Any] = {"path": str(hooks), "exists": hooks.exists()}
    try:
        data, _ = hooks_common.read_json_settings(hooks)
        found = hooks_common.installed_commands(data)
        lifecycle["installed"] = bool(found)
        lifecycle["events"] = sorted(found)
        commands = sorted({command for commands in found.values() for command in commands})
        lifecycle["commands"] = [
            {"command": command, **hooks_common.command_health(hooks_common.split_command(command))}
            for command in commands
        ]
    except hooks_common.HooksError as error:
        lifecycle.update(installed=False, error=str(error))
    report["lifecycle"] = lifecycle
    return report
