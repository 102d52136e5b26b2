"""Shared plumbing for commands: open the Memex for the chosen home (or connect to a
``memex serve``), common options."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, cast

import click

from memex_core.errors import MemexError

if TYPE_CHECKING:
    from memex_core.api import Memex
    from memex_core.cli.remote import RemoteClient

F = TypeVar("F", bound=Callable[..., Any])

#: With both set, the search and memory commands talk to this ``memex serve``.
URL_ENV = "MEMEX_URL"
API_KEY_ENV = "MEMEX_API_KEY"
_REMOTE = "memex.remote"  # where the root context keeps the connected client


#: The Memex a warm process answers with (memex_core.warm.socket_listener), instead of a new one.
_shared: ContextVar[Memex | None] = ContextVar("memex_shared", default=None)


@contextmanager
def shared_memex(memex: Memex) -> Iterator[None]:
    """Commands run in this context use ``memex`` (already open) rather than opening the home."""
    token = _shared.set(memex)
    try:
        yield
    finally:
        _shared.reset(token)


def open_memex(ctx: click.Context) -> Memex:
    shared = _shared.get()
    if shared is not None:
        return shared
    home = (ctx.find_root().obj or {}).get("home")
    from memex_core.cli.homes import check_home, command_name
    from memex_core.config import default_home

    check_home(Path(home).expanduser() if home else default_home(), command_name(ctx))
    # Looked up at call time (tests replace it); imported only by commands that open a
    # home, so `memex --help` does not load the catalog and services (~150 ms).
    memex_class = globals().get("Memex") or __getattr__("Memex")
    return memex_class(home=home)


def __getattr__(name: str) -> Any:
    if name == "Memex":
        from memex_core.api import Memex

        return Memex
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def remote_client(ctx: click.Context) -> RemoteClient | None:
    """The ``memex serve`` the search and memory commands use instead of a local home:
    when ``MEMEX_URL`` and ``MEMEX_API_KEY`` are both set, unless ``--home`` is given on
    the command line. Says once, on stderr, which service and credentials it uses."""
    url = os.environ.get(URL_ENV, "").strip()
    token = os.environ.get(API_KEY_ENV, "").strip()
    if not url or not token:
        return None
    root = ctx.find_root()
    if root.get_parameter_source("home") == click.core.ParameterSource.COMMANDLINE:
        return None
    client: RemoteClient | None = root.meta.get(_REMOTE)
    if client is None:
        from memex_core.cli.remote import connect, describe_client

        try:
            client = connect(url, token)
        except MemexError as exc:
            raise MemexError(
                f"{exc} (${URL_ENV} and ${API_KEY_ENV} are set, so this command runs on that "
                "service; unset them, or pass --home, to use a local home.)"
            ) from exc
        root.meta[_REMOTE] = client
        root.call_on_close(client.close)
        click.echo(f"memex: using {describe_client(client)} (${URL_ENV}).", err=True)
    return client


def config_default(value: float, setting: str) -> str:
    """A ``show_default`` text for an option whose default lives in a constant that
    config.toml can override: built from the constant, so help cannot drift from it."""
    return f"{value:g}, or {setting} in config.toml"


def time_span(since: str | None, until: str | None) -> dict[str, float | None]:
    """``--since``/``--until`` as epoch seconds (``until`` a date: to the end of that day),
    keyed ``since`` and ``until``; a bound memex cannot read is a usage error naming both."""
    from memex_core.domain.time_bounds import parse_time_bound

    try:
        return {
            "since": parse_time_bound(since),
            "until": parse_time_bound(until, end_of_day=True),
        }
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="--since/--until") from exc


def format_option(*choices: str, default: str | None = None) -> Callable[[F], F]:
    """``--format`` (``choices``, the first by default), and the click context as the
    command's first argument (``@click.pass_context``): every command that formats its
    output opens the home, or reads the global options, through it."""
    option = click.option(
        "--format",
        "output_format",
        type=click.Choice(choices),
        default=default or choices[0],
        show_default=True,
        help="Output: " + ", ".join(choices) + ".",
    )

    def apply(command: F) -> F:
        # click types pass_context's result as a new callable; to click it is the command.
        return cast(F, option(click.pass_context(command)))

    return apply


def number_option(
    name: str,
    default: float,
    help: str | None = None,
    *,
    short: str | None = None,
    minimum: float = 1,
    maximum: float | None = None,
) -> Callable[[F], F]:
    """``name`` (or ``short``) takes a number from ``minimum`` (to ``maximum``), its default
    shown in --help; a float default makes it take fractions."""
    names = (name, short) if short else (name,)
    kind = click.FloatRange if isinstance(default, float) else click.IntRange
    return click.option(
        *names, default=default, show_default=True, type=kind(minimum, maximum), help=help
    )


def limit_option(default: int, help: str) -> Callable[[F], F]:
    """``--limit``/``-n``: how many rows a listing or search shows at the most."""
    return number_option("--limit", default, help, short="-n")


def option_group(*decorators: Callable[[Any], Any]) -> Callable[[F], F]:
    """One decorator for options several commands share: as if ``decorators`` were stacked
    in this order above the command (so --help lists them in this order)."""

    def apply(func: F) -> F:
        for decorator in reversed(decorators):
            func = decorator(func)
        return func

    return apply


def home_option(help: str) -> Callable[[F], F]:
    """``--home`` of a command that may work on another home than memex's own (a folder)."""
    return click.option("--home", type=click.Path(file_okay=False), help=help)


def quiet_option(help: str = "No progress bar.") -> Callable[[F], F]:
    """``--quiet``/``-q``: the commands that show progress bars leave them out."""
    return click.option("--quiet", "-q", is_flag=True, help=help)
