"""The ``memex`` click group: every command, and :func:`run`, which runs one command line
in this process and returns its exit status.

Each module of the package holds one family of commands. Heavy imports (rich,
numpy, plugins' libraries) happen inside commands, so ``memex --help`` is quick.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from memex_core.cli.archive import export_command, import_command
from memex_core.cli.ask import ask
from memex_core.cli.doctor import doctor
from memex_core.cli.interrupt import Interrupted
from memex_core.cli.maintenance import backfill, rebuild
from memex_core.cli.memory_operator import COMMANDS as MEMORY_COMMANDS
from memex_core.cli.notes import notes
from memex_core.cli.overview import corpus, plugins, schema, sources
from memex_core.cli.progressive import context_pack, explore, get, timeline
from memex_core.cli.search import dig, keyword, semantic
from memex_core.cli.sql import query, sql
from memex_core.cli.warm import warm
from memex_core.cli.writing import ingest, sync
from memex_core.errors import MemexError

if TYPE_CHECKING:
    from memex_core.api import Memex


class MemexGroup(click.Group):
    """Turns MemexError into a clean ``Error: ...`` message and exit status 1."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except MemexError as exc:
            raise click.ClickException(str(exc)) from exc


@click.group(cls=MemexGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="memex", prog_name="memex")
@click.option(
    "--home",
    type=click.Path(file_okay=False),
    envvar="MEMEX_HOME",
    help="Where memex keeps its catalog and indexes (default: $MEMEX_HOME or ~/.memex).",
)
@click.pass_context
def cli(ctx: click.Context, home: str | None) -> None:
    """memex: search everything you and your AIs have written together.

    \b
    Start with:
      memex ingest ~/Downloads/chatgpt-export.zip ~/Downloads/claude-export.zip
      memex dig "that sqlite locking bug"

    With MEMEX_URL and MEMEX_API_KEY set, the search commands, get, timeline,
    context, explore and the memory commands run on that memex serve, as far as
    the key reaches (--home on the command line keeps them on a local home).
    """
    ctx.obj = {"home": home}


for command in (
    ingest,
    sync,
    dig,
    keyword,
    semantic,
    explore,
    notes,
    timeline,
    get,
    context_pack,
    ask,
    corpus,
    sources,
    plugins,
    schema,
    backfill,
    rebuild,
    export_command,
    import_command,
    doctor,
    query,
    sql,
    warm,
    *MEMORY_COMMANDS,
):
    cli.add_command(command)

#: The commands this module adds, before any plugin's.
BUILTIN_COMMANDS = frozenset(cli.commands)


def _add_plugin_commands() -> None:
    from memex_core.plugins import load_registry

    load_registry().add_commands(cli)


def _names_builtin(argv: list[str] | None) -> bool:
    """Whether ``argv`` (after the global ``--home``) names one of the commands above. A
    plugin adds commands of its own (``register_commands``); ``memex --help`` lists them,
    so any line without a built-in command loads them."""
    args = list(argv or ())
    while args and args[0].startswith("-"):
        option = args.pop(0)
        if option != "--home":
            if not option.startswith("--home="):
                return False  # --help, --version, or an option click will refuse
        elif args:
            args.pop(0)
    return bool(args) and args[0] in BUILTIN_COMMANDS


def run_on(memex: Memex, argv: list[str], plugin_commands: bool = True) -> int:
    """Run one command line on ``memex``, already open, instead of opening its home: what
    a warm process (:class:`memex_core.warm.socket_listener.WarmServer`) answers a request with."""
    from memex_core.cli.opening import shared_memex

    with shared_memex(memex):
        return run(argv, plugin_commands=plugin_commands)


def run(argv: list[str] | None = None, *, plugin_commands: bool = True) -> int:
    """Run one command line here (plugin commands added first, unless a long-running
    caller already did or the line names a built-in command: loading them imports the
    server's, the MCP server's and the capture's command modules, ~50-100 ms) and return
    its exit status, with errors shown as ``memex`` shows them. The warm process runs its
    requests through this too, so both paths print the same."""
    if plugin_commands and not _names_builtin(argv):
        _add_plugin_commands()
    try:
        # Outside standalone mode click returns the status of ``ctx.exit(n)`` instead of
        # exiting with it; a command's non-zero status must reach the shell.
        status = cli.main(args=argv, prog_name="memex", standalone_mode=False)
    except Interrupted as exc:  # Ctrl-C in a command that says what it kept
        click.echo(f"Interrupted. {exc}", err=True)
        return 130
    except click.exceptions.Abort as exc:
        # click turns Ctrl-C into Abort; a declined prompt is one too.
        interrupted = isinstance(exc.__cause__ or exc.__context__, KeyboardInterrupt)
        click.echo("Interrupted." if interrupted else "Aborted.", err=True)
        return 130
    except click.ClickException as exc:
        exc.show()
        return exc.exit_code
    except KeyboardInterrupt:
        click.echo(
            "Interrupted. Work committed so far is kept; run the command again to finish.", err=True
        )
        return 130
    return status if isinstance(status, int) else 0
