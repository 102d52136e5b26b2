"""Facts that change over time on the command line: the issue's Alice scenario end to end
(Paris -> Berlin), reading as of a date, everything with its validity, the chain, reopening
and bad dates. Each invocation opens its own Memex on the temp home, as separate shell
commands would, with the lives-in test double as the supersession judge."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli_runs import Run, memex_runner
from tests.support.supersession_doubles import timed_memex


@pytest.fixture
def run(memex_home: Path, monkeypatch: pytest.MonkeyPatch) -> Run:
    return memex_runner(monkeypatch, timed_memex)


def remember(run: Run, text: str, *options: str) -> str:
    out = json.loads(run("remember", text, "--user", "alice", "--format", "json", *options).stdout)
    return str(out["decisions"][0]["memory_id"])


def recall(run: Run, *options: str) -> list[dict[str, Any]]:
    found = run("recall", "where does alice live", "--user", "alice", "--format", "json", *options)
    return list(json.loads(found.stdout))


def test_alice_moves_from_paris_to_berlin(run: Run) -> None:
    paris = remember(run, "Alice lives in Paris", "--at", "2024-01-10", "--consolidate")
    berlin = remember(run, "Alice moved to Berlin", "--at", "2024-06-01", "--consolidate")
    again = remember(run, "Alice now lives in Berlin", "--at", "2024-06-02", "--consolidate")

    current = recall(run)
    assert [h["memory_id"] for h in current] == [again]  # Berlin first and only
    assert current[0]["valid_until"] is None
    assert current[0]["valid_from"] == "2024-06-02T00:00:00Z"
    assert {"valid_from", "valid_until", "superseded_by", "recorded_at"} <= set(current[0])

    before = recall(run, "--as-of", "2024-03-01")
    assert [h["memory_id"] for h in before] == [paris]
    assert before[0]["valid_until"] == "2024-06-01T00:00:00Z"
    assert before[0]["superseded_by"] == berlin

    every = recall(run, "--include-superseded")
    assert {h["memory_id"] for h in every} == {paris, berlin, again}

    chain = json.loads(run("history", paris, "--chain", "--format", "json").stdout)
    assert [r["id"] for r in chain] == [paris, berlin, again]
    assert [r["valid_until"] for r in chain] == [
        "2024-06-01T00:00:00Z",
        "2024-06-02T00:00:00Z",
        None,
    ]
    text = run("history", berlin, "--chain").output
    assert "superseded" in text and "current" in text
    assert "2024-01-10 00:00 → 2024-06-01 00:00 (UTC)" in text
    assert f"superseded by {berlin}" in text

    shown = run("recall", "where does alice live", "--user", "alice", "--as-of", "2024-03-01")
    assert "superseded" in shown.output and "2024-06-01" in shown.output


def test_remember_says_what_a_fact_supersedes(run: Run) -> None:
    paris = remember(run, "Alice lives in Paris", "--at", "2024-01-10")
    out = json.loads(
        run("remember", "Alice moved to Berlin", "-u", "alice", "--format", "json").stdout
    )
    assert out["decisions"][0]["reason"] == f"supersedes {paris}"
    late = run("remember", "Alice lived in Rome in 2019", "-u", "alice", "--format", "json")
    assert json.loads(late.stdout)["decisions"][0]["reason"].startswith("told late: superseded")


def test_history_shows_the_chain_above_the_revisions(run: Run) -> None:
    paris = remember(run, "Alice lives in Paris", "--at", "2024-01-10")
    remember(run, "Alice moved to Berlin", "--at", "2024-06-01")
    text = run("history", paris).output
    assert text.index("current") < text.index("History of")
    assert "supersede" in text  # the revision that closed it
    revisions = json.loads(run("history", paris, "--format", "json").stdout)
    assert [r["action"] for r in revisions] == ["create", "supersede"]


def test_memories_marks_superseded_facts(run: Run) -> None:
    remember(run, "Alice lives in Paris", "--at", "2024-01-10")
    berlin = remember(run, "Alice moved to Berlin", "--at", "2024-06-01")
    listed = run("memories", "--user", "alice").output
    assert f"superseded 2024-01-10 00:00 → 2024-06-01 00:00 by {berlin}" in listed
    assert listed.count("superseded") == 1


def test_undelete_reopens_a_superseded_fact(run: Run) -> None:
    paris = remember(run, "Alice lives in Paris", "--at", "2024-01-10")
    remember(run, "Alice moved to Berlin", "--at", "2024-06-01")
    reopened = json.loads(run("undelete", paris, "--format", "json").stdout)
    assert reopened["valid_until"] is None and reopened["superseded_by"] is None
    assert paris in {h["memory_id"] for h in recall(run)}


@pytest.mark.parametrize(
    "args",
    [
        ("remember", "Alice lives in Paris", "--user", "alice", "--at", "someday"),
        ("recall", "alice", "--user", "alice", "--as-of", "2024-13-45"),
    ],
)
def test_a_bad_date_is_one_clear_line(run: Run, args: tuple[str, ...]) -> None:
    result = run(*args, code=1)
    assert "is not a date or time" in result.output and "2024-05-01" in result.output
    assert "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_dream_closes_what_remembering_without_a_judge_left_current(
    memex_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    plain = memex_runner(monkeypatch, lambda home: timed_memex(home, supersession_judge="none"))
    paris = remember(plain, "Alice lives in Paris", "--at", "2024-01-10")
    berlin = remember(plain, "Alice moved to Berlin", "--at", "2024-06-01")
    judged = memex_runner(monkeypatch, timed_memex)
    shown = judged("dream", "--user", "alice", "--quiet").output
    assert f"Superseded {paris} by {berlin}" in shown
    report = json.loads(judged("dream", "--user", "alice", "--format", "json").stdout)
    assert report["superseded"] == []  # closed already: history, not examined again


def test_a_fact_ended_by_its_own_words_says_so(
    memex_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    run = memex_runner(monkeypatch, lambda home: timed_memex(home, supersession_judge="rules"))
    said = run(
        "remember",
        "Alice lived in Rome in 2019",
        "-u",
        "alice",
        "--at",
        "2024-03-01",
        "--format",
        "json",
    )
    decision = json.loads(said.stdout)["decisions"][0]
    rome = decision["memory_id"]
    assert decision["reason"] == "held until 2020-01-01 (by its own words)"
    assert recall(run) == []  # not current
    then = recall(run, "--as-of", "2019-06-01")
    assert [h["memory_id"] for h in then] == [rome]
    assert then[0]["valid_until"] == "2020-01-01T00:00:00Z" and then[0]["superseded_by"] is None
    text = run("history", rome, "--chain").output
    assert "held until 2020-01-01" in text and "by its own words" in text and "None" not in text
    shown = run("recall", "where does alice live", "-u", "alice", "--include-superseded").output
    assert "ended" in shown and "by its own words" in shown
    before = remember(run, "Before 2022 Alice lived in Oslo", "--at", "2024-03-02")
    chain = run("history", before, "--chain").output
    assert "start unknown, until 2022-01-01 00:00" in chain and "1970" not in chain
    past = run("recall", "alice oslo", "-u", "alice", "--as-of", "2021-06-01").output
    assert "start unknown, until 2022-01-01 00:00" in past and "1970" not in past
