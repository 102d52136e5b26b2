"""Every option of every command says what it does (issue 32, item 5).

The walk goes through the whole click app, groups and plugins' commands included, so a new
option without ``help=`` fails here rather than showing a bare flag in ``--help``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from memex_core.cli import cli
from memex_core.cli.app import _add_plugin_commands
from memex_core.errors import MemexError
from memex_core.services.context import MIN_ITEM_CHARS
from tests.support.component_doubles import fast_memex


def _commands(
    command: click.Command, path: tuple[str, ...] = ()
) -> Iterator[tuple[str, click.Command]]:
    yield " ".join(("memex", *path)), command
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            yield from _commands(sub, (*path, name))


@pytest.fixture(scope="module")
def every_command() -> dict[str, click.Command]:
    _add_plugin_commands()
    return dict(_commands(cli))


def test_every_option_has_help(every_command: dict[str, click.Command]) -> None:
    assert len(every_command) > 30  # the walk reached the groups and the plugins' commands
    bare = [
        f"{name} {'/'.join(param.opts)}"
        for name, command in every_command.items()
        for param in command.params
        if isinstance(param, click.Option) and not param.hidden and not (param.help or "").strip()
    ]
    assert not bare, f"options without help text: {bare}"


def test_the_options_that_had_none_say_what_they_do() -> None:
    runner = CliRunner()
    timeline = runner.invoke(cli, ["timeline", "--help"], terminal_width=200).output
    assert "How many fragments before it to show" in timeline
    assert "How many fragments after it to show" in timeline
    recall = runner.invoke(cli, ["recall", "--help"], terminal_width=200).output
    assert "How to match: hybrid" in recall


def test_semantic_documents_one_floor_and_keeps_the_old_name_hidden() -> None:
    out = CliRunner().invoke(cli, ["semantic", "--help"], terminal_width=200).output
    assert "--min-similarity" in out
    assert "--min-score" not in out


def _budget(command: str) -> click.Option:
    found = cli.commands[command]
    return next(p for p in found.params if isinstance(p, click.Option) and p.name == "budget")


def test_ask_and_context_take_the_same_smallest_budget() -> None:
    ask, context = _budget("ask"), _budget("context")
    assert isinstance(ask.type, click.IntRange) and isinstance(context.type, click.IntRange)
    assert ask.type.min == context.type.min == MIN_ITEM_CHARS
    for option in (ask, context):
        assert f"at least {MIN_ITEM_CHARS}" in (option.help or "")
    refused = CliRunner().invoke(cli, ["ask", "x", "--budget", "5"])
    assert refused.exit_code == 2 and f"{MIN_ITEM_CHARS}" in refused.output


def test_the_api_takes_the_same_smallest_budget(tmp_path: Path) -> None:
    mx = fast_memex(tmp_path / "home")
    try:
        with pytest.raises(MemexError, match=f"at least {MIN_ITEM_CHARS} characters"):
            mx.ask("sqlite locking", budget_chars=MIN_ITEM_CHARS - 1, answer=False)
        with pytest.raises(MemexError, match=f"at least {MIN_ITEM_CHARS}"):
            mx.context("sqlite locking", budget_chars=MIN_ITEM_CHARS - 1)
    finally:
        mx.close()
