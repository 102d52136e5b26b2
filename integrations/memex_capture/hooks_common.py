"""What ``memex hooks install`` shares between agents: the hook's command line, how to
recognise memex's own entries, and careful editing of a user's settings file
(parse first, back up, write atomically, never touch a file that does not parse)."""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import shutil
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from memex_capture import layout

#: The hook program every installed command runs; also how memex's entries are told
#: apart from the user's (any command running a ``memex_capture/hook.py``).
HOOK_SCRIPT = Path(__file__).resolve().with_name("hook.py")
HOOK_MARKER = os.path.join("memex_capture", "hook.py")
#: Seconds an agent gives one hook run before killing it; the hook returns in tens of
#: milliseconds, so this only bounds a pathological stall (a hung file system).
HOOK_TIMEOUT_SECONDS = 10
#: Lifecycle event -> matcher memex installs (None: no matcher, every occurrence), for
#: each agent that has these events (Claude Code adds ``SessionEnd``).
LIFECYCLE_EVENTS: dict[str, str | None] = {
    "SessionStart": None,
    "UserPromptSubmit": None,
    "PostToolUse": "*",
    "Stop": None,
}


#: The modules a hook run imports; :func:`precompile` writes their bytecode.
HOOK_MODULES = ("__init__", "jsonlite", "layout", "spool", "launch", "hook_main")


class HooksError(Exception):
    """A settings file memex cannot safely edit; the message names the file and the fix."""


def hook_argv(agent: str, home: str, python: str | None = None) -> list[str]:
    """The hook's command line: this interpreter with ``-S`` (no site-packages: the hook
    is standard library only and starts in half the time), the hook script, the agent
    and the resolved home, all absolute."""
    return [
        python or sys.executable,
        "-S",
        str(HOOK_SCRIPT),
        agent,
        "--home",
        os.path.abspath(layout.resolve_home(home)),
    ]


def hook_command(agent: str, home: str, python: str | None = None) -> str:
    """:func:`hook_argv` as one shell command (Claude Code runs hook commands through a shell)."""
    return shlex.join(hook_argv(agent, home, python))


def precompile() -> None:
    """Write the bytecode of the modules a hook imports, so no hook run compiles them
    (a run under ``PYTHONDONTWRITEBYTECODE``, or by a user who cannot write the install
    folder, never would); best effort: a read-only install just stays uncompiled."""
    import py_compile

    for name in HOOK_MODULES:
        with contextlib.suppress(OSError, py_compile.PyCompileError):
            py_compile.compile(str(HOOK_SCRIPT.with_name(f"{name}.py")), doraise=True)


def split_command(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def is_memex_argv(argv: Sequence[str]) -> bool:
    """Whether a command line runs memex's hook program (wherever memex lives now)."""
    return any(isinstance(part, str) and part.endswith(HOOK_MARKER) for part in argv)


def is_memex_command(command: object) -> bool:
    return isinstance(command, str) and is_memex_argv(split_command(command))


def command_health(argv: Sequence[str]) -> dict[str, Any]:
    """What ``status`` says about one installed command: do its python and hook.py exist."""
    parts = list(argv)
    python = parts[0] if parts else ""
    script = next((part for part in parts if part.endswith(HOOK_MARKER)), "")
    home = parts[parts.index("--home") + 1] if "--home" in parts[:-1] else None
    python_ok = bool(python) and os.access(python, os.X_OK)
    script_ok = bool(script) and os.path.isfile(script)
    return {
        "python": python,
        "python_exists": python_ok,
        "hook": script,
        "hook_exists": script_ok,
        "home": home,
        "ok": python_ok and script_ok,
    }


def read_json_settings(path: Path) -> tuple[dict[str, Any], str | None]:
    """The JSON object in ``path`` (``{}`` when missing) and its text (``None`` when missing)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}, None
    if not text.strip():
        return {}, text
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise HooksError(
            f"{path} is not valid JSON (line {error.lineno}, column {error.colno}: {error.msg}). "
            "memex left it untouched: fix the file (or move it aside) and run the command again."
        ) from None
    if not isinstance(data, dict):
        raise HooksError(
            f"{path} holds a JSON {type(data).__name__}, not an object; memex left it untouched. "
            "Fix the file (its top level must be {...}) and run the command again."
        )
    return data, text


def dump_json(data: dict[str, Any]) -> str:
    """Settings as Claude Code writes them: 2-space indentation, keys in their order."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def backup(path: Path) -> Path | None:
    """Copy ``path`` to ``<name>.memex-backup-<UTC time>`` beside it (None if it did not exist)."""
    if not path.exists():
        return None
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    target = path.with_name(f"{path.name}.memex-backup-{stamp}")
    counter = 1
    while target.exists():
        target = path.with_name(f"{path.name}.memex-backup-{stamp}-{counter}")
        counter += 1
    shutil.copy2(path, target)
    return target


def write_atomic(path: Path, text: str) -> None:
    """Replace ``path``'s content in one rename (a crash leaves the old or the new file),
    writing through a symlink to its target and keeping the file's mode."""
    real = Path(os.path.realpath(path))
    real.parent.mkdir(parents=True, exist_ok=True)
    try:
        mode: int | None = real.stat().st_mode & 0o7777
    except FileNotFoundError:
        mode = None
    fd, tmp = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, real)
    except BaseException:
        _unlink_quietly(tmp)
        raise


def _unlink_quietly(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


def merge_hook_events(
    data: dict[str, Any],
    events: Mapping[str, str | None],
    command: str,
    *,
    timeout: int = HOOK_TIMEOUT_SECONDS,
    source: Path,
) -> None:
    """Put memex's hook in ``data["hooks"][event]`` for each event (Claude Code's layout,
    which Codex's ``hooks.json`` shares): ``{"matcher"?, "hooks": [{"type": "command",
    "command", "timeout"}]}``. An entry of ours already there is updated where it stands
    (so a moved memex is re-pointed, and a second install changes nothing); further
    copies of ours are removed; the user's entries are never touched or reordered.
    ``events`` maps each event to its matcher (``None``: no matcher, i.e. every case)."""
    hooks = data.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise HooksError(
            f'{source}: "hooks" is a {type(hooks).__name__}, not an object; memex left the '
            'file untouched. Fix it ("hooks": {...}) and run the command again.'
        )
    for event, matcher in events.items():
        groups = hooks.setdefault(event, [])
        if not isinstance(groups, list):
            raise HooksError(
                f"{source}: hooks.{event} is not a list; memex left the file untouched. "
                "Fix it and run the command again."
            )
        wanted = {"type": "command", "command": command, "timeout": timeout}
        placed = False
        for group in list(groups):
            entries = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(entries, list):
                continue
            for entry in list(entries):
                if not (isinstance(entry, dict) and is_memex_command(entry.get("command"))):
                    continue
                if placed:
                    entries.remove(entry)
                    continue
                if entry != wanted:
                    entry.clear()
                    entry.update(wanted)
                if all(_is_ours(other) for other in entries):
                    _set_matcher(group, matcher)
                placed = True
            if not entries:  # held only extra copies of ours
                groups.remove(group)
        if not placed:
            group = {"matcher": matcher} if matcher is not None else {}
            group["hooks"] = [wanted]
            groups.append(group)


def _is_ours(entry: object) -> bool:
    return isinstance(entry, dict) and is_memex_command(entry.get("command"))


def _set_matcher(group: dict[str, Any], matcher: str | None) -> None:
    if matcher is None:
        group.pop("matcher", None)
    elif group.get("matcher") != matcher:
        if "matcher" in group:
            group["matcher"] = matcher
        else:  # keep "matcher" first, as in Claude Code's documentation
            items = list(group.items())
            group.clear()
            group["matcher"] = matcher
            group.update(items)


def remove_hook_events(data: dict[str, Any]) -> int:
    """Remove every memex entry from ``data["hooks"]``; a group, event list or ``hooks``
    object left empty by that is removed too (one the user had empty stays). Returns
    how many entries went."""
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return 0
    removed = 0
    for event in list(hooks):
        groups = hooks[event]
        if not isinstance(groups, list):
            continue
        touched = False
        for group in list(groups):
            entries = group.get("hooks") if isinstance(group, dict) else None
            if not isinstance(entries, list):
                continue
            ours = [entry for entry in entries if _is_ours(entry)]
            if not ours:
                continue
            touched = True
            removed += len(ours)
            entries[:] = [entry for entry in entries if not _is_ours(entry)]
            if not entries:
                groups.remove(group)
        if touched and not groups:
            del hooks[event]
    if removed and not hooks:
        del data["hooks"]
    return removed


def installed_commands(data: dict[str, Any]) -> dict[str, list[str]]:
    """Event -> memex's command(s) found in ``data["hooks"]``."""
    found: dict[str, list[str]] = {}
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return found
    for event, groups in hooks.items():
        for group in groups if isinstance(groups, list) else []:
            entries = group.get("hooks") if isinstance(group, dict) else None
            for entry in entries if isinstance(entries, list) else []:
                if _is_ours(entry):
                    found.setdefault(event, []).append(entry["command"])
    return found


@dataclass
class Change:
    """What an install or uninstall did to one settings file."""

    path: Path
    changed: bool
    backup: Path | None = None
    events: list[str] = field(default_factory=list)
    command: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "changed": self.changed,
            "backup": str(self.backup) if self.backup else None,
            "events": self.events,
            "command": self.command,
        }


def install_json_hooks(
    path: Path, agent: str, events: Mapping[str, str | None], home: str, python: str | None
) -> Change:
    """Add (or re-point) memex's ``events`` in a JSON hooks file (Claude Code's
    settings.json, Codex's hooks.json: the same ``{"hooks": {Event: [...]}}`` shape)."""
    precompile()
    data, text = read_json_settings(path)
    command = hook_command(agent, home, python)
    merge_hook_events(data, events, command, source=path)
    new_text = dump_json(data)
    if text is not None and new_text == text:
        return Change(path, False, events=list(events), command=command)
    saved = backup(path)
    write_atomic(path, new_text)
    return Change(path, True, saved, list(events), command)


def uninstall_json_hooks(path: Path, *, remove_if_empty: bool = False) -> Change:
    """Remove memex's entries (only those) from a JSON hooks file; with
    ``remove_if_empty``, a file left as ``{}`` (memex created it) is deleted."""
    data, text = read_json_settings(path)
    if text is None:
        return Change(path, False)
    found = sorted(installed_commands(data))
    if not remove_hook_events(data):
        return Change(path, False)
    saved = backup(path)
    if data or not remove_if_empty:
        write_atomic(path, dump_json(data))
    else:
        path.unlink()
    return Change(path, True, saved, found)
