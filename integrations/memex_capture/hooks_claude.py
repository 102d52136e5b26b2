"""Install memex's hooks into Claude Code's settings (and take them out again).

Claude Code reads hooks from ``~/.claude/settings.json`` (user; ``$CLAUDE_CONFIG_DIR``
moves that folder) and ``<project>/.claude/settings.json`` (project), in the layout
documented at code.claude.com/docs/en/hooks::

    {"hooks": {"PostToolUse": [{"matcher": "*",
                                "hooks": [{"type": "command", "command": "...",
                                           "timeout": 10}]}]}}

``matcher`` filters tool events by tool name (``*`` = all) and SessionStart by source;
an omitted matcher matches everything, which is what memex wants for the other events.
``timeout`` is in seconds.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from memex_capture import hooks_common, layout
from memex_capture.hooks_common import Change

AGENT = "claude-code"
#: Event -> matcher memex installs (None: no matcher, every occurrence).
EVENTS: dict[str, str | None] = {**hooks_common.LIFECYCLE_EVENTS, "SessionEnd": None}


def user_settings() -> Path:
    folder = os.environ.get("CLAUDE_CONFIG_DIR") or os.path.join(os.path.expanduser("~"), ".claude")
    return Path(folder) / "settings.json"


def project_settings(cwd: str | os.PathLike[str] | None = None) -> Path:
    """``.claude/settings.json`` of the git repository holding ``cwd`` (else ``cwd``)."""
    return Path(layout.project_root(cwd or os.getcwd())) / ".claude" / "settings.json"


def settings_path(project: bool, cwd: str | os.PathLike[str] | None = None) -> Path:
    return project_settings(cwd) if project else user_settings()


def install(path: Path, home: str, python: str | None = None) -> Change:
    """Add (or re-point) memex's five hooks in the settings file at ``path``."""
    return hooks_common.install_json_hooks(path, AGENT, EVENTS, home, python)


def uninstall(path: Path) -> Change:
    """Remove memex's entries (only those) from the settings file at ``path``."""
    return hooks_common.uninstall_json_hooks(path)


def status(path: Path, scope: str) -> dict[str, Any]:
    """What memex has installed in the settings file at ``path``."""
    report: dict[str, Any] = {"scope": scope, "path": str(path), "exists": path.exists()}
    try:
        data, _ = hooks_common.read_json_settings(path)
    except hooks_common.HooksError as error:
        report.update(installed=False, error=str(error))
        return report
    found = hooks_common.installed_commands(data)
    report["installed"] = bool(found)
    report["events"] = sorted(found)
    report["missing_events"] = [event for event in EVENTS if event not in found]
    commands = sorted({command for commands in found.values() for command in commands})
    report["commands"] = [
        {"command": command, **hooks_common.command_health(hooks_common.split_command(command))}
        for command in commands
    ]
    return report
