"""Shared plumbing for commands: open the Memex for the chosen home, common options."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

from memex_core.api import Memex

F = TypeVar("F", bound=Callable[..., Any])


def open_memex(ctx: click.Context) -> Memex:
    home = (ctx.find_root().obj or {}).get("home")
    return Memex(home=home)


def config_default(value: float, setting: str) -> str:
    """A ``show_default`` text for an option whose default lives in a constant that
    config.toml can override: built from the constant, so help cannot drift from it."""
    return f"{value:g}, or {setting} in config.toml"


def format_option(*choices: str, default: str | None = None) -> Callable[[F], F]:
    return click.option(
        "--format",
        "output_format",
        type=click.Choice(choices),
        default=default or choices[0],
        show_default=True,
        help="Output: " + ", ".join(choices) + ".",
    )
