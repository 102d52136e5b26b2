"""The CLI reference: every ``memex`` command's ``--help``, as a user sees it at 80 columns.

Commands come in the order the CLI registers them (related commands together),
then those that built-in plugins add through ``register_commands``, each
attributed to its plugin.
"""

from __future__ import annotations

import click

WIDTH = 80
# In a terminal click wraps 2 columns short of its width; given a width, it uses all of it.
_WRAP = WIDTH - 2


def _context(command: click.Command, name: str, parent: click.Context | None) -> click.Context:
    """The context ``memex ... NAME --help`` would run in (so ``-h`` is listed too)."""
    return command.make_context(
        name,
        [],
        parent=parent,
        resilient_parsing=True,  # no arguments given: do not fail on required ones
        terminal_width=_WRAP,
        max_content_width=_WRAP,
    )


def _sections(
    command: click.Command,
    path: list[str],
    parent: click.Context,
    level: int,
    note: str = "",
) -> list[str]:
    """A heading and the help of ``command``, then of its subcommands if it is a group."""
    ctx = _context(command, path[-1], parent)
    out = [f"{'#' * level} {' '.join(path)}", ""] + ([note, ""] if note else [])
    out += ["```text", command.get_help(ctx), "```", ""]
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            out += _sections(sub, [*path, name], ctx, level + 1)
    return out


def _summary(rows: list[tuple[str, click.Command]]) -> list[str]:
    out = ["| command | what it does |", "|---|---|"]
    for name, command in rows:
        anchor = f"#memex-{name}"
        short = command.get_short_help_str(limit=120).replace("|", "\\|")
        out.append(f"| [`memex {name}`]({anchor}) | {short} |")
    return out


def render() -> str:
    from memex_core.cli import cli
    from memex_core.plugins import load_registry

    core = list(cli.commands.items())
    registry = load_registry()
    added: dict[str, str] = {}  # command name -> the plugin that added it
    for impl in registry.manager.hook.register_commands.get_hookimpls():
        before = set(cli.commands)
        impl.function(cli=cli)
        plugin = registry.manager.get_name(impl.plugin) or repr(impl.plugin)
        added.update((name, plugin) for name in set(cli.commands) - before)
    from_plugins = [(name, cli.commands[name]) for name in sorted(added)]

    root = _context(cli, "memex", None)
    out = [*_summary(core + from_plugins), "", "## memex", "", "```text"]
    out += [cli.get_help(root), "```", ""]
    out += ["## Commands", ""]
    for name, command in core:
        out += _sections(command, ["memex", name], root, 3)
    if from_plugins:
        out += ["## Commands added by built-in plugins", ""]
        for name, command in from_plugins:
            note = f"Added by the `{added[name]}` plugin."
            out += _sections(command, ["memex", name], root, 3, note)
    return "\n".join(out)
