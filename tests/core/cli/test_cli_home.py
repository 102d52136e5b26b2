"""A home the user cannot have meant: read commands never make one, and a path where no
folder can be made is one line and exit status 1, never a traceback (issue 32, item 3)."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from memex_core.cli import cli
from memex_core.cli.homes import NEITHER, READS, WRITES
from memex_core.config import default_home
from tests.support.component_doubles import fast_memex
from tests.support.export_builders import write_chatgpt_export

READ_COMMANDS = [
    ["dig", "x"],
    ["keyword", "x"],
    ["semantic", "x"],
    ["get", "abcdef12"],
    ["timeline", "abcdef12"],
    ["context", "x"],
    ["explore", "note"],
    ["corpus"],
    ["sources"],
    ["doctor"],
    ["schema"],
    ["query", "select 1"],
    ["recall", "x", "--user", "alice"],
    ["memories"],
    ["log"],
    ["dream", "--dry-run"],
]


@pytest.fixture
def invoke(memex_home: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(
        "memex_core.cli.opening.Memex",
        lambda home=None: fast_memex(Path(home) if home else default_home()),
    )
    runner = CliRunner()

    def run(*args: str | Path) -> Result:
        return runner.invoke(cli, [str(a) for a in args])

    return run


def _one_line_error(result: Result) -> str:
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "Traceback" not in result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    return lines[0]


@pytest.mark.parametrize("args", READ_COMMANDS, ids=lambda a: a[0])
def test_a_read_command_never_makes_a_home(invoke, tmp_path: Path, args: list[str]) -> None:
    home = tmp_path / "nonexistent" / "deep" / "home"
    line = _one_line_error(invoke("--home", home, *args))
    assert f"No memex home at {home}" in line
    assert "memex ingest" in line  # how to make one
    assert not (tmp_path / "nonexistent").exists()


def test_the_default_home_is_not_made_by_a_read_either(invoke, memex_home: Path) -> None:
    line = _one_line_error(invoke("dig", "x"))
    assert f"No memex home at {memex_home}" in line
    assert not memex_home.exists()


@pytest.mark.parametrize("args", [["dig", "x"], ["corpus"], ["remember", "a fact", "-u", "a"]])
def test_a_file_in_the_way_is_one_line(invoke, tmp_path: Path, args: list[str]) -> None:
    afile = tmp_path / "afile"
    afile.write_text("not a folder")
    line = _one_line_error(invoke("--home", afile / "sub", *args))
    assert f"{afile} is a file, not a folder" in line


def test_a_write_where_no_folder_can_be_made_is_one_line(invoke, tmp_path: Path) -> None:
    if not Path("/proc/self").is_dir():
        pytest.skip("needs /proc")
    export = write_chatgpt_export(tmp_path / "conversations.json")
    line = _one_line_error(invoke("--home", "/proc/memex-home", "ingest", export))
    assert "Cannot make the memex home /proc/memex-home" in line


def test_a_write_makes_the_home_then_reads_find_it(invoke, tmp_path: Path) -> None:
    home = tmp_path / "new" / "home"
    export = write_chatgpt_export(tmp_path / "conversations.json")
    made = invoke("--home", home, "ingest", "--no-embed", export)
    assert made.exit_code == 0, made.output
    assert home.is_dir()
    found = invoke("--home", home, "corpus")
    assert found.exit_code == 0, found.output


def test_every_command_is_classed(invoke) -> None:
    """Each command that opens a home says whether it reads or writes: a new command
    left out of both would make a home on a typo again."""
    from memex_core.cli.app import _add_plugin_commands

    _add_plugin_commands()

    def walk(command: click.Command, path: list[str]) -> list[str]:
        if isinstance(command, click.Group):
            return [n for k, c in command.commands.items() for n in walk(c, [*path, k])]
        return [" ".join(path)]

    unclassed = set(walk(cli, [])) - READS - WRITES - NEITHER
    assert not unclassed, f"class these commands in memex_core/cli/homes.py: {unclassed}"
