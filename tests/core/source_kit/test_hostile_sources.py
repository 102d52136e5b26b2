"""Hostile input for every source parser: only memex's own errors, storable fragments, no
partial writes.

Each family bends a file its source reads correctly (a value of the wrong type, a
missing key, a huge or empty string, nesting thousands deep, odd timestamps, NUL
bytes, half surrogate pairs) or breaks its bytes (truncation, invalid UTF-8).
The parser must then either yield fragments the catalog can store, or raise a
:class:`SourceError` naming the file; ingesting through :class:`Memex` must
never raise, and a file reported ``failed`` must leave the catalog as it was.

Inputs tried per family are counted with :func:`tests.support.hostile_builders.tally`.
"""

from __future__ import annotations

import itertools
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from memex_chatgpt.source import ChatGPTSource
from memex_claude_ai.source import ClaudeAISource
from memex_claude_code.source import ClaudeCodeSource
from memex_codex.source import CodexSource
from memex_core.api import Memex
from memex_core.cli import cli
from memex_core.domain import SkippedItemWarning
from memex_core.sources.skips import MAX_SKIP_WARNINGS
from memex_obsidian.source import ObsidianSource
from tests.support import claude_code_builders as cc
from tests.support import codex_builders as cx
from tests.support.component_doubles import fast_memex
from tests.support.hostile_builders import (
    DEPTHS,
    FIXTURES,
    catalog_state,
    corrupted,
    dumps,
    examples,
    fixture_json,
    mutated,
    read_or_refuse,
    tally,
    write_tallies,
)

# Skipped items are the expected outcome here; their warnings would only bury real ones.
pytestmark = pytest.mark.filterwarnings("ignore::memex_core.source_kit.SkippedItemWarning")

#: Example counts per test (times ten with HYPOTHESIS_PROFILE=hostile).
STRUCTURE_EXAMPLES = 60
BYTES_EXAMPLES = 40
INGEST_EXAMPLES = 15

_names = itertools.count()


@pytest.fixture(autouse=True, scope="module")
def _write_tallies() -> Iterator[None]:
    yield
    write_tallies()


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("hostile-sources")


def fresh(workdir: Path, suffix: str) -> Path:
    """A new file name per example (ingest skips a path it has seen unchanged)."""
    return workdir / f"input-{next(_names)}{suffix}"


# -- bases: files each source reads correctly ------------------------------------------


def claude_code_records() -> list[dict[str, Any]]:
    t = cc.Transcript()
    t.user("Why does the CSV import drop rows?")
    t.assistant(
        "msg_1",
        cc.thinking("The parser may skip quoted newlines."),
        cc.text("Let me look at the importer."),
        cc.tool_use("toolu_1", "Read", file_path="/repo/import.py"),
    )
    t.tool_result("toolu_1", "def parse(row):\n    return row.split(',')")
    t.user("<command-name>/mcp</command-name><command-args></command-args>")
    t.compaction("We fixed the CSV import.")
    t.summary("CSV import fix")
    return t.records


def codex_records() -> list[dict[str, Any]]:
    return cx.envelope(cx.typical_session())


def jsonl(records: list[Any], depth: int) -> str:
    return "".join(dumps(record, depth) + "\n" for record in records)


NOTE = """---
aliases: [Start, "Home page"]
tags: [project, rust]
date: 2024-05-01
---
# Title

Some text with a [[Other note#Part|link]] and #tag and [web](https://example.com).

## Code

```python
x = "[[not a link]]"
```

![[image.png]]
"""

#: Pieces odd notes are made of; each also runs alone (a fixed regression list).
NOTE_PIECES = [
    "---\n",
    "---\naliases: [a, b]\n---\n",
    "---\na: &x [1]\nb: [*x, *x]\n---\n",
    "---\n" + "[" * 5000 + "\n---\n",
    "---\nkey: !!python/object:os.system x\n---\n",
    "---\ndate: 0000-00-00\ncreated: 99999-01-01\n---\n",
    "---\n: : :\n---\n",
    "# H\n",
    "#### \n",
    "[[",
    "]]",
    "[[a|b#c^d]]",
    "![[x.png|100]]",
    "[t](",
    "[t](<a b>)",
    "```\n",
    "`",
    "#",
    "#tag/with/slashes",
    "\x00",
    "\ud800",
    "\r\n",
    "\r",
    " " * 50,
    "w " * 3000,
]

notes = st.one_of(
    st.text(max_size=300),
    st.lists(st.sampled_from(NOTE_PIECES), max_size=20).map("".join),
)

#: Bombs the YAML reader must survive: shared references a naive copy expands
#: (a billion laughs), a structure that contains itself, nesting past the stack.
YAML_BOMBS = [
    "---\na: &a [x, x, x, x, x, x, x, x, x]\n"
    + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8)
    )
    + "---\nbody\n",
    "---\nloop: &loop [*loop]\n---\nbody\n",
    "---\nself: &s {me: *s}\n---\nbody\n",
    "---\n" + "a:\n " * 3000 + "b\n---\nbody\n",
    "---\nk: " + "[" * 3000 + "]" * 3000 + "\n---\nbody\n",
]


# -- each family: structure, then bytes --------------------------------------------------


def _ingest_list(source: Any, path: Path) -> list[Any]:
    return list(source.ingest(path))


@examples(STRUCTURE_EXAMPLES)
@given(data=st.data(), depth=st.sampled_from(DEPTHS))
def test_chatgpt_survives_bent_exports(workdir: Path, data: st.DataObject, depth: int) -> None:
    export = data.draw(mutated(fixture_json("chatgpt"), most=5))
    path = fresh(workdir, ".json")
    path.write_text(dumps(export, depth))
    tally("chatgpt")
    source = ChatGPTSource(include_thinking=data.draw(st.booleans()))
    assert isinstance(source.can_handle(path), bool)
    read_or_refuse(lambda: _ingest_list(source, path), path)


@examples(STRUCTURE_EXAMPLES)
@given(data=st.data(), depth=st.sampled_from(DEPTHS))
def test_claude_ai_survives_bent_exports(workdir: Path, data: st.DataObject, depth: int) -> None:
    export = data.draw(mutated(fixture_json("claude_ai"), most=5))
    path = fresh(workdir, ".json")
    path.write_text(dumps(export, depth))
    tally("claude_ai")
    source = ClaudeAISource(include_thinking=data.draw(st.booleans()))
    assert isinstance(source.can_handle(path), bool)
    read_or_refuse(lambda: _ingest_list(source, path), path)


@examples(STRUCTURE_EXAMPLES)
@given(data=st.data(), depth=st.sampled_from(DEPTHS))
def test_claude_code_survives_bent_transcripts(
    workdir: Path, data: st.DataObject, depth: int
) -> None:
    records = data.draw(mutated(claude_code_records(), most=5))
    path = fresh(workdir, ".jsonl")
    lines = records if isinstance(records, list) else [records]
    path.write_text(jsonl(lines, depth))
    tally("claude_code")
    source = ClaudeCodeSource(include_thinking=data.draw(st.booleans()))
    assert isinstance(source.can_handle(path), bool)
    read_or_refuse(lambda: _ingest_list(source, path), path)


@examples(STRUCTURE_EXAMPLES)
@given(data=st.data(), depth=st.sampled_from(DEPTHS))
def test_codex_survives_bent_rollouts(workdir: Path, data: st.DataObject, depth: int) -> None:
    records = data.draw(mutated(codex_records(), most=5))
    path = fresh(workdir, ".jsonl")
    lines = records if isinstance(records, list) else [records]
    path.write_text(jsonl(lines, depth))
    tally("codex")
    source = CodexSource()
    assert isinstance(source.can_handle(path), bool)
    read_or_refuse(lambda: _ingest_list(source, path), path)


@examples(STRUCTURE_EXAMPLES)
@given(text=notes)
def test_obsidian_survives_odd_notes(workdir: Path, text: str) -> None:
    vault = workdir / "vault"
    vault.mkdir(exist_ok=True)
    name = f"note-{next(_names)}.md"
    (vault / name).write_bytes(text.encode("utf-8", "surrogatepass"))
    tally("obsidian")
    read_or_refuse(lambda: ObsidianSource().read_document(vault, name).fragments, vault / name)


@pytest.mark.parametrize("piece", NOTE_PIECES, ids=range(len(NOTE_PIECES)))
def test_obsidian_survives_each_odd_piece(workdir: Path, piece: str) -> None:
    vault = workdir / "pieces"
    vault.mkdir(exist_ok=True)
    for n, text in enumerate((piece, piece + "# After\nbody\n", "---\n" + piece + "\n---\nx")):
        name = f"piece-{next(_names)}-{n}.md"
        (vault / name).write_bytes(text.encode("utf-8", "surrogatepass"))
        tally("obsidian")
        read_or_refuse(
            lambda name=name: ObsidianSource().read_document(vault, name).fragments, vault / name
        )


@pytest.mark.parametrize("text", YAML_BOMBS, ids=range(len(YAML_BOMBS)))
def test_obsidian_survives_yaml_bombs(workdir: Path, text: str) -> None:
    vault = workdir / "bombs"
    vault.mkdir(exist_ok=True)
    (vault / "bomb.md").write_text(text)
    tally("obsidian")
    fragments = read_or_refuse(
        lambda: ObsidianSource().read_document(vault, "bomb.md").fragments, vault / "bomb.md"
    )
    assert fragments is not None and any("body" in f.content for f in fragments)
    for fragment in fragments:
        assert len(json.dumps(fragment.metadata, default=str)) < 100_000


def _base_bytes(family: str) -> tuple[bytes, str]:
    if family == "chatgpt":
        chatgpt = Path(__file__).parents[2] / "fixtures/chatgpt/conversations.json"
        return chatgpt.read_bytes(), ".json"
    if family == "claude_ai":
        return (
            Path(__file__).parents[2] / "fixtures/claude_ai/conversations.json"
        ).read_bytes(), ".json"
    if family == "claude_code":
        return jsonl(claude_code_records(), 1).encode(), ".jsonl"
    if family == "codex":
        return jsonl(codex_records(), 1).encode(), ".jsonl"
    return NOTE.encode(), ".md"


SOURCES: dict[str, Any] = {
    "chatgpt": ChatGPTSource,
    "claude_ai": ClaudeAISource,
    "claude_code": ClaudeCodeSource,
    "codex": CodexSource,
}


@pytest.mark.parametrize("family", [*SOURCES, "obsidian"])
@examples(BYTES_EXAMPLES)
@given(data=st.data())
def test_broken_bytes_are_refused_or_read(workdir: Path, family: str, data: st.DataObject) -> None:
    base, suffix = _base_bytes(family)
    raw = data.draw(corrupted(base))
    tally(family)
    if family == "obsidian":
        vault = workdir / "vault-bytes"
        vault.mkdir(exist_ok=True)
        name = f"note-{next(_names)}.md"
        (vault / name).write_bytes(raw)
        read_or_refuse(lambda: ObsidianSource().read_document(vault, name).fragments, vault / name)
        return
    path = fresh(workdir, suffix)
    path.write_bytes(raw)
    source = SOURCES[family]()
    assert isinstance(source.can_handle(path), bool)
    read_or_refuse(lambda: _ingest_list(source, path), path)


# -- through Memex: no exception, and a failed file leaves the catalog as it was ----------


@pytest.fixture(scope="module")
def mx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memex]:
    home = tmp_path_factory.mktemp("hostile-home")
    memex = fast_memex(home)
    memex.ingest(Path(__file__).parents[2] / "fixtures/chatgpt/conversations.json", embed=False)
    yield memex
    memex.close()


def _broken_file(family: str, data: st.DataObject) -> tuple[bytes, str]:
    if data.draw(st.booleans()):
        base, suffix = _base_bytes(family)
        return data.draw(corrupted(base)), suffix
    depth = data.draw(st.sampled_from(DEPTHS))
    if family in ("chatgpt", "claude_ai"):
        return dumps(data.draw(mutated(fixture_json(family))), depth).encode(), ".json"
    records = claude_code_records() if family == "claude_code" else codex_records()
    bent = data.draw(mutated(records))
    return jsonl(bent if isinstance(bent, list) else [bent], depth).encode(), ".jsonl"


@pytest.mark.parametrize("family", list(SOURCES))
@examples(INGEST_EXAMPLES)
@given(data=st.data())
def test_ingest_never_raises_and_never_half_writes(
    mx: Memex, workdir: Path, family: str, data: st.DataObject
) -> None:
    raw, suffix = _broken_file(family, data)
    path = fresh(workdir, suffix)
    path.write_bytes(raw)
    tally(f"{family} (ingest)")
    before = catalog_state(mx)
    report = mx.ingest(path, embed=False)
    (outcome,) = [f for f in report.files if f.path == str(path)]
    assert outcome.status in ("new", "unchanged", "failed"), outcome
    if outcome.status == "failed":
        assert outcome.error and "crashed" not in outcome.error, outcome.error
        assert catalog_state(mx) == before
    else:
        after = catalog_state(mx)
        added = set(after[0]) - set(before[0])
        assert len(added) == outcome.fragments_added


def test_vault_of_odd_notes_syncs_without_raising(
    mx: Memex, workdir: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    vault = tmp_path_factory.mktemp("odd-vault")
    (vault / ".obsidian").mkdir()
    (vault / "good.md").write_text(NOTE)
    (vault / "binary.md").write_bytes(b"\xff\xfe\x00garbage")
    (vault / "bomb.md").write_text(YAML_BOMBS[0])
    (vault / "nul.md").write_bytes(b"# a\x00b\n")
    tally("obsidian (ingest)", 4)
    report = mx.ingest(vault, embed=False)
    status = {Path(f.path).name: f for f in report.files}
    assert status["good.md"].status == "new" and status["bomb.md"].status == "new"
    assert status["nul.md"].status == "new"
    assert status["binary.md"].status == "failed"
    assert "UTF-8" in (status["binary.md"].error or "")


@pytest.mark.parametrize("columns", ["40", "80", "200"])
def test_cli_ingest_of_hostile_files_names_each_and_shows_no_traceback(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, columns: str
) -> None:
    """One line per failed file whatever the terminal width or the temp path's length:
    rich must not wrap a path and its reason apart."""
    monkeypatch.setenv("COLUMNS", columns)
    home = tmp_path / "home"
    monkeypatch.setattr("memex_core.cli.opening.Memex", lambda home=None: fast_memex(Path(home)))
    files = tmp_path / "in"
    files.mkdir()
    bomb = files / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        # Opens like a ChatGPT export, then 8 MiB of spaces: about 1000:1.
        opening = b'[{"title": "t", "mapping": {"a": {"id": "a", "message": null}}'
        archive.writestr("conversations.json", opening + b" " * (8 * 1024**2) + b"}]")
    truncated = files / "truncated.json"
    truncated.write_bytes((FIXTURES / "chatgpt" / "conversations.json").read_bytes()[:5000])
    not_utf8 = files / "latin1.json"
    not_utf8.write_bytes(b'[{"mapping": {}, "title": "caf\xe9"}]')
    deep = files / "deep.jsonl"
    deep.write_text("[" * 100_000 + "]" * 100_000 + "\n")
    good = files / "conversations.json"
    good.write_bytes((FIXTURES / "chatgpt" / "conversations.json").read_bytes())
    tally("cli ingest", 5)
    result = CliRunner().invoke(
        cli,
        [
            "--home",
            str(home),
            "ingest",
            "--no-embed",
            *map(str, (bomb, truncated, not_utf8, deep, good)),
        ],
    )
    output = result.output.replace("\n", " ")
    assert "Traceback" not in output, output
    assert result.exit_code == 1, output
    assert "1 new" in output
    failed = [line for line in result.output.splitlines() if line.startswith("failed ")]
    reasons = {Path(line[len("failed ") :].split(": ", 1)[0]).name: line for line in failed}
    assert len(failed) == 4, result.output
    assert "zip bomb" in reasons["bomb.zip"]
    assert "line " in reasons["truncated.json"] and "invalid JSON" in reasons["truncated.json"]
    assert "not UTF-8" in reasons["latin1.json"]
    assert "deep.jsonl" in reasons


def test_a_million_odd_entries_do_not_print_a_million_lines(workdir: Path) -> None:
    """Skipped conversations are named one by one up to a cap, then counted."""
    good = fixture_json("chatgpt")[0]
    broken = json.loads(json.dumps(good))
    for node in broken["mapping"].values():
        if node.get("message"):
            node["message"]["metadata"] = {"attachments": 5}  # not a list: the build fails
    path = fresh(workdir, ".json")
    path.write_text(json.dumps([good, *[broken] * 150, *[42] * 150]))
    tally("chatgpt")
    with pytest.warns(SkippedItemWarning) as caught:
        fragments = list(ChatGPTSource().ingest(path))
    messages = [str(w.message) for w in caught]
    assert fragments and len(messages) == 2 * MAX_SKIP_WARNINGS + 2
    assert sum("unreadable (TypeError" in m for m in messages) == MAX_SKIP_WARNINGS
    assert any("skipped 50 more item(s)" in m for m in messages)
