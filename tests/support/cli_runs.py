"""Running ``memex`` commands in-process on a home whose Memex a test builds (doubles
registered through the public hooks), each invocation opening its own Memex as separate
shell commands would."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from memex_core.api import Memex
from memex_core.cli import cli
from memex_core.config import default_home

Run = Callable[..., Result]


def memex_runner(monkeypatch: pytest.MonkeyPatch, build: Callable[[Path], Memex]) -> Run:
    """``run(*args, code=0, input=None)``: the command's result, its exit code checked (an
    exit 1 must be one ``Error:`` line, never a traceback)."""
    monkeypatch.setattr(
        "memex_core.cli.opening.Memex",
        lambda home=None: build(Path(home) if home else default_home()),
    )
    runner = CliRunner()

    def invoke(*args: str, code: int = 0, input: str | None = None) -> Result:
        result = runner.invoke(cli, list(args), input=input, catch_exceptions=False)
        assert result.exit_code == code, result.output
        if code == 1:
            assert "Error: " in result.output and "Traceback" not in result.output
        return result

    return invoke
