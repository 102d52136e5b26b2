"""Messages that used to mislead (issue 32, item 4): each says what is wrong and the fix.

An empty fact is an error, not "no text was left once <private> spans went"; a misspelt
``--source`` is named with the nearest known one, not blamed on the filter; a floor set on
the command line is named as the flag that set it; an id prefix too short to look up says
how long it must be; Ctrl-C during ingest says which files were kept and how to finish.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memex_core.cli.app import run as run_line
from memex_core.config import default_home
from memex_core.facade.reading import MIN_ID_PREFIX
from memex_core.services.ingest import IngestService
from tests.support.component_doubles import fast_memex
from tests.support.export_builders import CONVERSATIONS, write_chatgpt_export

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def run(
    memex_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Run:
    """``memex ARGS`` through the entry point's own runner: (status, stdout, stderr)."""
    monkeypatch.setattr(
        "memex_core.cli.opening.Memex",
        lambda home=None: fast_memex(Path(home) if home else default_home()),
    )

    def invoke(*args: str | Path, stdin: str | None = None) -> tuple[int, str, str]:
        if stdin is not None:
            monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        capsys.readouterr()
        status = run_line([str(a) for a in args], plugin_commands=False)
        out, err = capsys.readouterr()
        return status, out, err

    return invoke


@pytest.fixture
def ingested(run: Run, tmp_path: Path) -> Path:
    export = write_chatgpt_export(tmp_path / "conversations.json")
    status, _, err = run("ingest", export)
    assert status == 0, err
    return export


def _one_line(err: str) -> str:
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize(
    ("args", "stdin", "said"),
    [
        (["remember", "", "--user", "alice"], None, "the text is empty"),
        (["remember", "   \n", "--user", "alice"], None, "the text is empty"),
        (["remember", "-", "--user", "alice"], "", "stdin held no text"),
    ],
)
def test_an_empty_fact_is_an_error(run: Run, args: list[str], stdin: str | None, said: str) -> None:
    status, _out, err = run(*args, stdin=stdin)
    assert status == 1
    line = _one_line(err)
    assert line.startswith("Error: Nothing to remember: ") and said in line
    assert "<private>" not in line


def test_a_misspelt_source_names_the_known_ones_and_the_nearest(run: Run, ingested: Path) -> None:
    status, out, err = run("dig", "sqlite", "--source", "chatgtp")
    assert status == 1 and out == ""
    line = _one_line(err)
    assert "Unknown source 'chatgtp' for --source" in line
    assert "Did you mean --source chatgpt?" in line
    assert "claude_code" in line and "obsidian" in line  # the known ones
    assert "filter removed every match" not in err


def test_a_known_source_without_hits_still_blames_the_filter(run: Run, ingested: Path) -> None:
    status, _out, err = run("dig", "sqlite", "--source", "obsidian")
    assert status == 0
    assert "The --source filter removed every match" in err


@pytest.mark.parametrize("flag", ["--min-score", "--min-similarity"])
def test_a_floor_from_the_command_line_is_named(run: Run, ingested: Path, flag: str) -> None:
    status, _out, err = run("semantic", "sqlite locking", flag, "0.99")
    assert status == 0
    assert f"{flag} 0.99 left out" in err
    assert "[search] min_semantic_similarity" not in err  # not the setting: the flag did it


def test_min_score_and_min_similarity_together_are_refused(run: Run, ingested: Path) -> None:
    status, _, err = run("semantic", "x", "--min-score", "0.5", "--min-similarity", "0.4")
    assert status == 2
    assert "not both" in err


def test_a_prefix_too_short_says_how_long_it_must_be(run: Run, ingested: Path) -> None:
    status, out, err = run("get", "be5")
    assert out == ""
    assert status == 1
    line = _one_line(err)
    assert "too short" in line and f"at least its first {MIN_ID_PREFIX} characters" in line


def test_ctrl_c_during_ingest_says_what_was_kept_and_rerunning_finishes(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    exports = [
        write_chatgpt_export(tmp_path / name / "conversations.json", [conversation])
        for name, conversation in zip(("first", "second", "third"), CONVERSATIONS, strict=True)
    ]
    real = IngestService._ingest_file
    calls: list[Any] = []

    def interrupted_on_the_second(self: IngestService, *args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(self, *args, **kwargs)

    monkeypatch.setattr(IngestService, "_ingest_file", interrupted_on_the_second)
    status, out, err = run("ingest", *exports)
    assert status == 130
    line = _one_line(err)
    assert line.startswith("Interrupted. 1 of 3 file(s) were read and kept")
    assert "Run the same command again to finish" in line
    monkeypatch.setattr(IngestService, "_ingest_file", real)
    status, out, err = run("ingest", *exports, "--format", "json")
    assert status == 0, err
    again = json.loads(out)
    assert (again["new"], again["unchanged"]) == (2, 1)  # the second and third, now


def test_a_fact_over_the_size_limit_is_one_line_naming_it(run: Run) -> None:
    from memex_core.domain.memory.facts import MAX_FACT_CHARS

    status, out, err = run("remember", "x" * 120_000, "--user", "alice")
    assert status == 1 and out == ""
    line = _one_line(err)
    assert "The fact is 120,000 characters" in line
    assert f"at most {MAX_FACT_CHARS:,}" in line and "memex ingest" in line
