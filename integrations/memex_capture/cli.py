"""``memex hooks install|uninstall|status``: put memex's capture hooks into Claude Code and
Codex, take them out, and say what is installed and when it last fired.

Only click and memex's option helpers (already loaded by ``memex``) are imported here; the
installers load when a command runs, so ``memex --help`` stays fast.
"""

from __future__ import annotations

import json
import os
from typing import Any

import click

from memex_core.cli.opening import home_option

AGENTS = ("claude-code", "codex")


def _home(ctx: click.Context, home: str | None) -> str:
    from memex_capture import layout

    parent = (ctx.find_root().obj or {}).get("home") if ctx.find_root().obj else None
    return os.path.abspath(layout.resolve_home(home or parent))


def _fail(error: Exception) -> click.ClickException:
    return click.ClickException(str(error))


def _say_change(change: Any, verb: str) -> None:
    if not change.changed:
        click.echo(f"{change.path}: unchanged (already {verb})")
        return
    saved = f" (backup: {change.backup})" if change.backup else ""
    click.echo(f"{change.path}: {verb} {', '.join(change.events) or 'memex hooks'}{saved}")


@click.group("hooks")
def hooks() -> None:
    """Capture as you work: memex's hooks in Claude Code and Codex.

    \b
    Once installed, every session is recorded as it happens: the hooks note
    each event in <home>/capture/spool (pointers to the agent's transcript,
    never its content), a background worker ingests the transcript through
    the same redacting ingest as `memex ingest`, and each new session starts
    with a brief of the project's memory.

    \b
      memex hooks install claude-code      # ~/.claude/settings.json
      memex hooks install codex            # ~/.codex/config.toml (+ hooks.json)
      memex hooks status
    """


@hooks.command("install")
@click.argument("agent", type=click.Choice(AGENTS))
@click.option(
    "--project",
    is_flag=True,
    help="Claude Code only: the project's .claude/settings.json (git root of the current "
    "folder) instead of ~/.claude/settings.json.",
)
@home_option(
    "The memex home the hooks write to (default: memex's --home, $MEMEX_HOME or ~/.memex)."
)
@click.pass_context
def install(ctx: click.Context, agent: str, project: bool, home: str | None) -> None:
    """Add memex's hooks to AGENT's settings (claude-code or codex).

    Merges with hooks already there (yours are kept, in their order), backs the
    file up beside itself (<file>.memex-backup-<time>) before changing it, and
    is idempotent: run it again after moving memex or its venv to re-point the
    hooks. The hooks run this python with -S and memex_capture/hook.py.

    \b
    claude-code: SessionStart, UserPromptSubmit, PostToolUse, Stop, SessionEnd.
    codex: `notify` in $CODEX_HOME/config.toml (default ~/.codex; a notify
      program you already have keeps running after memex's), and SessionStart,
      UserPromptSubmit, PostToolUse, Stop in $CODEX_HOME/hooks.json for
      Codex releases with lifecycle hooks.
    """
    from memex_capture import hooks_claude, hooks_codex
    from memex_capture.hooks_common import HooksError

    resolved = _home(ctx, home)
    try:
        if agent == "claude-code":
            _say_change(
                hooks_claude.install(hooks_claude.settings_path(project), resolved), "installed"
            )
        else:
            if project:
                raise click.UsageError("--project is for claude-code; Codex keeps hooks per user.")
            _say_change(hooks_codex.install_notify(resolved), "installed")
            _say_change(hooks_codex.install_lifecycle(resolved), "installed")
            click.echo(
                "Codex runs notify at once; it runs new lifecycle hooks only after you review "
                "them in Codex (/hooks)."
            )
    except HooksError as error:
        raise _fail(error) from None
    click.echo(f"Events are captured into {resolved}; check with `memex hooks status`.")


@hooks.command("uninstall")
@click.argument("agent", type=click.Choice(AGENTS))
@click.option(
    "--project",
    is_flag=True,
    help="Claude Code only: the project's .claude/settings.json instead of the user's.",
)
@click.pass_context
def uninstall(ctx: click.Context, agent: str, project: bool) -> None:
    """Remove memex's hooks (only memex's) from AGENT's settings.

    Everything else in the file stays as it was; the file is backed up first.
    For codex, a notify program memex was chaining to becomes `notify` again.
    What was already captured stays in the memex home.
    """
    from memex_capture import hooks_claude, hooks_codex
    from memex_capture.hooks_common import HooksError

    try:
        if agent == "claude-code":
            _say_change(hooks_claude.uninstall(hooks_claude.settings_path(project)), "removed")
        else:
            if project:
                raise click.UsageError("--project is for claude-code; Codex keeps hooks per user.")
            _say_change(hooks_codex.uninstall_notify(), "removed")
            _say_change(hooks_codex.uninstall_lifecycle(), "removed")
    except HooksError as error:
        raise _fail(error) from None


@hooks.command("status")
@home_option("The memex home to report on (default: memex's --home, $MEMEX_HOME or ~/.memex).")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="json: the same report as one JSON object, for scripts.",
)
@click.pass_context
def status(ctx: click.Context, home: str | None, output_format: str) -> None:
    """What is installed where, and is it healthy.

    Per agent: the settings files holding memex's hooks (user and project for
    Claude Code; config.toml notify and hooks.json for Codex) and whether each
    command still points at an existing python and hook.py; when each hook last
    fired; whether the capture worker runs; how many events wait in the spool.
    """
    from memex_capture import hooks_status

    report = hooks_status.collect(_home(ctx, home))
    if output_format == "json":
        click.echo(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        click.echo(hooks_status.render(report))
