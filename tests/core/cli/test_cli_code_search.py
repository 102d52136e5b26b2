"""The command line leaves out the code ``memex ask`` indexed unless asked (issue 32 item 1):
``dig``, ``keyword``, ``semantic``, ``context`` and ``recall`` show memory only, ``--source
code`` finds the code, ``corpus`` counts it apart (text and JSON), and ``forget --source code
--repo PATH`` removes it. The home has the hashing embedder and the memory vector store
(``fast_memex``), so semantic search runs too."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from memex_core.cli.app import cli
from tests.support.code_home import QUERY, CodeHome, build_code_home
from tests.support.component_doubles import fast_memex

Run = Callable[..., Result]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> CodeHome:
    return build_code_home(tmp_path_factory.mktemp("cli-code"), fast_memex)


@pytest.fixture
def run(built: CodeHome, monkeypatch: pytest.MonkeyPatch) -> Run:
    monkeypatch.setattr("memex_core.cli.opening.Memex", lambda home=None: fast_memex(Path(home)))
    runner = CliRunner()

    def invoke(*args: str, home: Path = built.home, code: int = 0) -> Result:
        result = runner.invoke(cli, ["--home", str(home), *args], catch_exceptions=False)
        assert result.exit_code == code, result.output
        return result

    return invoke


def kinds_of(output: str) -> list[str]:
    return [hit["source_kind"] for hit in json.loads(output)]  # stdout: notes go to stderr


@pytest.mark.parametrize("command", ["dig", "keyword", "semantic"])
def test_search_commands_show_memory_only_unless_code_is_named(run: Run, command: str) -> None:
    shown = kinds_of(run(command, QUERY, "-n", "3", "--format", "json").stdout)
    assert len(shown) == 3 and "code" not in shown
    named = kinds_of(run(command, QUERY, "-n", "3", "--source", "code", "--format", "json").stdout)
    assert named == ["code"] * 3


def test_a_search_only_code_matches_says_how_to_search_the_code(run: Run) -> None:
    # open_0 is a function name: only the code has the word.
    said = run("keyword", "open_0", "--format", "json")
    assert json.loads(said.stdout) == []
    assert "code is searched only when named: add --source code" in said.stderr
    assert json.loads(run("keyword", "open_0", "--source", "code", "--format", "json").stdout)


def test_context_packs_no_code(run: Run, built: CodeHome) -> None:
    pack = json.loads(run("context", QUERY, "--format", "json").stdout)
    ids = [item["id"] for item in pack["items"]]
    assert ids
    with fast_memex(built.home) as mx:
        assert {f.source_kind for f in mx.get(ids)} <= {"chatgpt", "obsidian"}


def test_recall_searches_agent_memory_never_code(run: Run, built: CodeHome, tmp_path: Path) -> None:
    home = tmp_path / "home"
    shutil.copytree(built.home, home)  # remember writes: the shared home stays as built
    fact = "the sqlite database was locked; a busy timeout fixed it"
    run("remember", fact, "--user", "al", home=home)
    hits = json.loads(run("recall", QUERY, "--user", "al", "--format", "json", home=home).stdout)
    assert len(hits) == 1 and fact in json.dumps(hits)


def test_corpus_counts_code_apart(run: Run) -> None:
    data = json.loads(run("corpus", "--format", "json").stdout)
    assert data["code"] == {"repositories": 1, "files": 3, "fragments": data["by_source"]["code"]}
    assert (data["documents"], data["conversations"]) == (2, 4)
    assert data["by_role"] == {"user": 2, "assistant": 2, "note": 2}
    text = run("corpus").output
    assert f"{data['code']['fragments']} fragments in 3 files of 1 repository" in text
    assert "of them code" in text


def test_forget_source_code_removes_a_repositorys_code(
    run: Run, built: CodeHome, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    shutil.copytree(built.home, home)
    with fast_memex(home) as mx:
        mx.rebuild(keyword=True, vectors=True)  # this copy's own vectors
        code = mx.stats().code["fragments"]
    refused = run("forget", "--source", "chatgpt", home=home, code=2)
    assert "forget takes --source code only" in refused.output
    mixed = run("forget", "mem_1", "--source", "code", home=home, code=2)
    assert "Run them as two commands" in mixed.output
    unknown = run("forget", "--source", "code", "--repo", str(tmp_path), home=home, code=1)
    assert "no code of that repository is indexed" in unknown.output
    assert str(built.repo) in unknown.output
    done = run("forget", "--source", "code", "--repo", str(built.repo), home=home).output
    assert f"Forgot the code of {built.repo}: 3 file(s), {code} fragment(s)" in done
    for command in ("dig", "keyword", "semantic"):
        hits = run(command, QUERY, "--source", "code", "--format", "json", home=home).stdout
        assert json.loads(hits) == []
    after = json.loads(run("corpus", "--format", "json", home=home).stdout)
    assert after["code"] == {"repositories": 0, "files": 0, "fragments": 0}
    assert after["keyword_indexed"] == after["fragments"] == after["embedded"]
    again = json.loads(run("forget", "--source", "code", "--format", "json", home=home).stdout)
    assert again["repositories"] == [] and again["fragments"] == 0
