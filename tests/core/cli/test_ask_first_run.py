"""``memex ask``'s first run on a repository: it says what it will index and about how long
before it starts, Ctrl-C keeps what was done (asking again finishes it), and the first
answer embeds only what the question reaches, not every file (``--embed`` does the rest)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import pytest

from memex_code.source import CodeSource
from memex_core.api import Memex
from memex_core.cli.app import run_on
from memex_core.facade.code_index import FIRST_EMBED, IndexInterrupted
from tests.support.component_doubles import HashingEmbedder, fast_memex
from tests.support.git_repos import make_repo

QUESTION = "how does the parser handle a broken token"


def _module(n: int) -> str:
    """A file of six small functions: six code fragments."""
    words = ["parser", "token", "broken", "lexer", "stream", "buffer"]
    body = []
    for k in range(6):
        body.append(
            f"def step_{n}_{k}(value):\n"
            f'    """Step {k} of module {n}: the {words[(n + k) % 6]} is read."""\n'
            f"    return value + {k}\n\n\n"
        )
    return "".join(body)


class CountingEmbedder(HashingEmbedder):
    """The hashing double, counting the document texts it embeds (questions apart)."""

    def __init__(self) -> None:
        self.documents = 0

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.documents += len(texts)
        return super().embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        return super().embed_documents([text])[0]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """40 Python files of 6 functions: 240 code fragments, more than a first ask embeds."""
    files = {f"pkg/mod_{n:02d}.py": _module(n) for n in range(40)}
    return make_repo(tmp_path / "repo", files)


@pytest.fixture
def counted(memex_home: Path) -> Iterator[tuple[Memex, CountingEmbedder]]:
    mx = fast_memex(memex_home)
    embedder = CountingEmbedder()
    mx.use_embedder(embedder)
    yield mx, embedder
    mx.close()


def _code_fragments(mx: Memex, root: Path) -> int:
    from memex_core.facade.code_index import code_fragment_ids

    return len(code_fragment_ids(mx, root.resolve()))


def test_the_first_ask_embeds_only_what_the_question_reaches(
    counted: tuple[Memex, CountingEmbedder], repo: Path
) -> None:
    mx, embedder = counted
    first = mx.ask(QUESTION, repo=repo)
    total = _code_fragments(mx, repo)
    assert total == 240
    assert 0 < embedder.documents <= FIRST_EMBED < total  # not every file: what it reached
    assert first.index["embedded_now"] == embedder.documents
    assert first.index["with_vectors"] == embedder.documents and first.index["fragments"] == total
    assert {i.kind for i in first.items} == {"code"}
    assert any("memex ask --embed" in n and "backfill" in n for n in first.notes)
    # --embed finishes the repository: every fragment once, and the note goes.
    finished = mx.ask(QUESTION, repo=repo, embed_all=True)
    assert embedder.documents == total
    assert finished.index["with_vectors"] == total
    assert not any("--embed" in n for n in finished.notes)
    again = mx.ask("which step reads the stream buffer", repo=repo)
    assert embedder.documents == total and again.index["embedded_now"] == 0


def test_the_announcement_comes_before_any_file_is_read(
    counted: tuple[Memex, CountingEmbedder], repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mx, _embedder = counted
    events: list[str] = []
    read = CodeSource.read_document

    def reading(self: CodeSource, folder: Path, path: str) -> object:
        events.append(f"read {path}")
        return read(self, folder, path)

    monkeypatch.setattr(CodeSource, "read_document", reading)
    mx.ask(QUESTION, repo=repo, announce=events.append)
    said = events[0]
    assert said.startswith(f"Indexing {repo.resolve()} as code")
    assert "40 tracked files (" in said and " KB), the first time" in said
    assert "about " in said and "Ctrl-C keeps" in said
    assert len([e for e in events if e.startswith("read ")]) == 40
    events.clear()
    mx.ask(QUESTION, repo=repo, announce=events.append)
    assert events == []  # nothing changed: nothing to say, nothing read


def test_the_cli_prints_the_estimate_on_stderr(
    counted: tuple[Memex, CountingEmbedder], repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mx, _embedder = counted
    assert run_on(mx, ["ask", QUESTION, "--repo", str(repo), "--no-answer"]) == 0
    out, err = capsys.readouterr()
    assert "Indexing " in err and "40 tracked files" in err and "about " in err
    assert "Indexing" not in out and "[1] code" in out
    assert "memex ask --embed" in err  # the coverage note says how to finish
    assert run_on(mx, ["ask", QUESTION, "--repo", str(repo), "--embed", "-q"]) == 0
    out, err = capsys.readouterr()
    assert "Indexing" not in err and "Embedding" not in err  # --quiet: no estimate


def test_ctrl_c_while_indexing_keeps_what_was_done_and_asking_again_finishes(
    counted: tuple[Memex, CountingEmbedder],
    repo: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    mx, _embedder = counted
    read = CodeSource.read_document
    calls: list[str] = []

    def interrupted(self: CodeSource, folder: Path, path: str) -> object:
        calls.append(path)
        if len(calls) == 13:
            raise KeyboardInterrupt
        return read(self, folder, path)

    monkeypatch.setattr(CodeSource, "read_document", interrupted)
    status = run_on(mx, ["ask", QUESTION, "--repo", str(repo), "--no-answer"])
    _out, err = capsys.readouterr()
    assert status == 130
    assert "Interrupted: 12 of 40 files" in err and "indexed and kept" in err
    assert "memex ask` again" in err and "Aborted." not in err
    assert len(mx.catalog.documents_under(str(repo.resolve()))) == 12
    monkeypatch.setattr(CodeSource, "read_document", read)
    again = mx.ask(QUESTION, repo=repo)
    assert again.index["changed"] == 28  # only the rest is read
    assert len(mx.catalog.documents_under(str(repo.resolve()))) == 40
    assert _code_fragments(mx, repo) == 240
    found = mx.search("step_39_5", "keyword", 5, source=("code",))
    assert found.results  # the last file is searchable


def test_ctrl_c_while_embedding_keeps_the_batches_done(
    counted: tuple[Memex, CountingEmbedder], repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mx, embedder = counted
    mx.ask(QUESTION, repo=repo)  # keyword index complete, what the question reached embedded
    before = embedder.documents
    embed = CountingEmbedder.embed_documents

    def stop_on_the_second_batch(self: CountingEmbedder, texts: Sequence[str]) -> np.ndarray:
        if self.documents > before:
            raise KeyboardInterrupt
        return embed(self, texts)

    monkeypatch.setattr(CountingEmbedder, "embed_documents", stop_on_the_second_batch)
    with pytest.raises(IndexInterrupted, match=r"Interrupted while embedding: \d+ of 240"):
        mx.ask(QUESTION, repo=repo, embed_all=True)
    kept = embedder.documents - before
    assert kept > 0
    monkeypatch.setattr(CountingEmbedder, "embed_documents", embed)
    done = mx.ask(QUESTION, repo=repo, embed_all=True)
    assert done.index["with_vectors"] == 240
    assert embedder.documents == 240  # nothing embedded twice
