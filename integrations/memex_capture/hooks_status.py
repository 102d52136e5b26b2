"""``memex hooks status``: what is installed where, whether it still points at a python
and a hook.py that exist, when each hook last fired, the worker and the spool backlog."""

from __future__ import annotations

import glob
import os
import time
from typing import Any

from memex_capture import hooks_claude, hooks_codex, launch, layout


def fired(home: str) -> dict[str, dict[str, float]]:
    """Agent -> event -> when its hook last fired (unix seconds), from the marker files."""
    result: dict[str, dict[str, float]] = {}
    try:
        names = os.listdir(layout.fired_dir(home))
    except OSError:
        return result
    for name in sorted(names):
        agent, _, event = name.partition(".")
        try:
            when = os.stat(os.path.join(layout.fired_dir(home), name)).st_mtime
        except OSError:
            continue
        result.setdefault(agent, {})[event] = when
    return result


def _count_lines(path: str) -> int:
    count = 0
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            count += block.count(b"\n")
    return count


def backlog(home: str) -> dict[str, Any]:
    """Spool lines waiting for the worker: the live file and batches taken but not done."""
    waiting = 0
    oldest: float | None = None
    paths = [
        layout.spool_file(home),
        *sorted(glob.glob(os.path.join(layout.spool_dir(home), "*.work"))),
    ]
    for path in paths:
        try:
            lines = _count_lines(path)
            mtime = os.stat(path).st_mtime
        except OSError:
            continue
        if lines:
            waiting += lines
            oldest = mtime if oldest is None else min(oldest, mtime)
    return {"lines_waiting": waiting, "files": len(paths), "last_write": oldest}


def hook_errors(home: str) -> dict[str, Any]:
    """How many lines the hook log holds and its last one (the newest error)."""
    try:
        with open(layout.hook_log(home), "rb") as handle:
            lines = [line for line in handle.read().decode("utf-8", "replace").splitlines() if line]
    except OSError:
        lines = []
    return {"count": len(lines), "last": lines[-1] if lines else None}


def collect(home: str, cwd: str | None = None) -> dict[str, Any]:
    """Everything ``status`` prints, as plain data (``--format json``)."""
    claude: list[dict[str, Any]] = [
        hooks_claude.status(hooks_claude.user_settings(), "user"),
        hooks_claude.status(hooks_claude.project_settings(cwd), "project"),
    ]
    return {
        "home": home,
        "agents": {"claude-code": {"settings": claude}, "codex": hooks_codex.status()},
        "fired": fired(home),
        "worker_running": launch.worker_running(home),
        "spool": backlog(home),
        "hook_log": layout.hook_log(home),
        "hook_errors": hook_errors(home),
        "now": time.time(),
    }


def _ago(when: float, now: float) -> str:
    seconds = max(0.0, now - when)
    if seconds < 120:
        return f"{seconds:.0f} s ago"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min ago"
    if seconds < 172800:
        return f"{seconds / 3600:.0f} h ago"
    return f"{seconds / 86400:.0f} days ago"


def _health(command: dict[str, Any]) -> str:
    if command.get("ok"):
        return "ok"
    problems = []
    if not command.get("python_exists"):
        problems.append(f"python {command.get('python')!r} is gone")
    if not command.get("hook_exists"):
        problems.append(f"hook {command.get('hook')!r} is gone")
    return "BROKEN: " + ", ".join(problems) + " (run `memex hooks install` again)"


def render(report: dict[str, Any]) -> str:
    """The human-readable status."""
    now = report["now"]
    lines = [f"memex home: {report['home']}"]
    lines.append("Claude Code:")
    for settings in report["agents"]["claude-code"]["settings"]:
        where = f"  {settings['scope']:<8} {settings['path']}"
        if settings.get("error"):
            lines.append(f"{where}: ERROR {settings['error']}")
        elif not settings["installed"]:
            lines.append(f"{where}: not installed")
        else:
            missing = settings.get("missing_events") or []
            extra = f" (missing: {', '.join(missing)})" if missing else ""
            lines.append(f"{where}: {', '.join(settings['events'])}{extra}")
            for command in settings["commands"]:
                lines.append(f"           {_health(command)}  home={command.get('home')}")
    codex = report["agents"]["codex"]
    lines.append(f"Codex ({codex['codex_home']}):")
    notify = codex["notify"]
    if notify.get("error"):
        lines.append(f"  notify   {notify['path']}: ERROR {notify['error']}")
    elif notify["installed"]:
        chained = notify.get("chained")
        then = f", then runs {chained}" if chained else ""
        lines.append(f"  notify   {notify['path']}: {_health(notify)}{then}")
    else:
        other = f" (notify is another program: {notify['other']})" if notify.get("other") else ""
        lines.append(f"  notify   {notify['path']}: not installed{other}")
    lifecycle = codex["lifecycle"]
    if lifecycle.get("error"):
        lines.append(f"  hooks    {lifecycle['path']}: ERROR {lifecycle['error']}")
    elif lifecycle["installed"]:
        health = "; ".join(_health(command) for command in lifecycle["commands"])
        lines.append(f"  hooks    {lifecycle['path']}: {', '.join(lifecycle['events'])} ({health})")
    else:
        lines.append(f"  hooks    {lifecycle['path']}: not installed")
    lines.append("Last fired:")
    if not report["fired"]:
        lines.append("  never (no hook has run for this home yet)")
    for agent, events in report["fired"].items():
        for event, when in sorted(events.items(), key=lambda item: -item[1]):
            lines.append(f"  {agent:<12} {event:<20} {_ago(when, now)}")
    lines.append(f"Worker: {'running' if report['worker_running'] else 'not running'}")
    spool = report["spool"]
    waiting = spool["lines_waiting"]
    since = f" (oldest write {_ago(spool['last_write'], now)})" if spool["last_write"] else ""
    lines.append(f"Spool: {waiting} event(s) waiting{since if waiting else ''}")
    if waiting and not report["worker_running"]:
        lines.append("  the next hook starts a worker; or drain now with `memex capture drain`")
    errors = report["hook_errors"]
    if errors["count"]:
        lines.append(f"Hook errors: {errors['count']} in {report['hook_log']}; newest:")
        lines.append(f"  {errors['last']}")
    else:
        lines.append(f"Hook errors: none (they would be logged to {report['hook_log']})")
    return "\n".join(lines)
