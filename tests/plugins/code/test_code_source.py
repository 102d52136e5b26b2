"""The ``code`` source: a git repository's tracked files chunked at definitions, synced by
git blob hash, and never claimed by plain ``memex ingest``."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from memex_code.chunks import blank_line_blocks
from memex_code.git import blob_hash, tracked_files
from memex_code.python_chunks import python_chunks
from memex_code.source import CodeSource, identifier_words
from memex_code.treesitter_chunks import parser_for, treesitter_chunks
from memex_core.api import Memex
from tests.support.git_repos import git, make_repo, write

PYTHON = textwrap.dedent(
    '''\
    """A module docstring."""
    import math

    RATE = 3


    # The comment above add belongs to it.
    @cache
    @other(1)
    def add(a, b):
        """Add two numbers."""
        return a + b


    class Shape:
        """A shape."""

        sides = 0

        @property
        def area(self):
            return 0

        class Inner:
            def deep(self):
                def helper():
                    return 1
                return helper()


    if __name__ == "__main__":
        print(add(1, 2))
    '''
)


@pytest.fixture
def keyword_home(memex_home: Path) -> Path:
    memex_home.mkdir(parents=True)
    (memex_home / "config.toml").write_text('[embedder]\nuse = "none"\n', encoding="utf-8")
    return memex_home


# -- chunking -----------------------------------------------------------------------------------


def test_python_chunks_at_functions_classes_and_methods() -> None:
    chunks = {c.symbol: c for c in python_chunks(PYTHON)}
    assert set(chunks) >= {"add", "Shape", "Shape.area", "Shape.Inner", "Shape.Inner.deep"}
    add = chunks["add"]
    # Decorators and the comment right above go with the function; its docstring stays in it.
    assert add.text.splitlines()[0] == "# The comment above add belongs to it."
    assert "@cache" in add.text and "@other(1)" in add.text and '"""Add two numbers."""' in add.text
    assert (add.start, add.end) == (7, 12)
    assert chunks["Shape.area"].text.lstrip().startswith("@property")
    # A nested function stays inside its parent method.
    assert "def helper" in chunks["Shape.Inner.deep"].text
    assert "helper" not in {c.symbol.split(".")[-1] for c in python_chunks(PYTHON)}
    # The class chunk holds its header, docstring and attributes, not its methods.
    shape = chunks["Shape"].text
    assert '"""A shape."""' in shape and "sides = 0" in shape and "def area" not in shape
    # What is left at the top level is <module> code: imports, constants, the main guard.
    module = "\n".join(c.text for c in python_chunks(PYTHON) if c.symbol == "<module>")
    assert "import math" in module and "RATE = 3" in module and "__main__" in module
    assert "def add" not in module


def test_a_python_file_that_does_not_parse_falls_back_to_blank_line_blocks() -> None:
    broken = "def ok():\n    return 1\n\n\ndef broken(:\n    pass\n"
    chunks = python_chunks(broken)
    assert chunks and all(c.kind == "block" and c.symbol == "" for c in chunks)
    assert "def broken(:" in "\n".join(c.text for c in chunks)


def test_blank_line_blocks_merge_small_blocks_and_cap_big_ones() -> None:
    text = "\n\n".join(f"para {n}\nline two" for n in range(6))
    merged = blank_line_blocks(text, target_chars=40, max_chars=200)
    assert len(merged) == 3  # two 17-char blocks fit under 40 together, three do not
    assert merged[0].start == 1 and merged[-1].end == len(text.split("\n"))
    long = "\n".join(f"x = {n}" for n in range(400))
    capped = blank_line_blocks(long, max_chars=500)
    assert len(capped) > 1 and all(len(c.text) <= 500 for c in capped)
    assert [c.start for c in capped] == sorted(c.start for c in capped)


def test_identifier_words_split_snake_and_camel_case() -> None:
    assert identifier_words("compute_idf BM25Store plain") == ["compute", "idf", "bm25", "store"]


@pytest.mark.skipif(parser_for("javascript") is None, reason="tree-sitter not installed")
def test_javascript_through_tree_sitter() -> None:
    source = textwrap.dedent(
        """\
        import x from "y";

        /** Adds. */
        export function add(a, b) {
          return a + b;
        }

        class Shape {
          area() { return 0; }
        }

        const double = (n) => n * 2;
        """
    )
    chunks = treesitter_chunks(source, "javascript")
    assert chunks is not None
    symbols = {c.symbol: c for c in chunks}
    assert {"add", "Shape", "Shape.area", "double", "<module>"} <= set(symbols)
    assert symbols["add"].text.startswith("/** Adds. */")


@pytest.mark.skipif(
    parser_for("go") is None or parser_for("rust") is None, reason="grammars not installed"
)
def test_go_and_rust_methods_are_named_after_their_type() -> None:
    go = "package main\n\n// Store keeps n.\ntype Store struct {\n\tn int\n}\n\n"
    go += "// Get returns n.\nfunc (s *Store) Get() int {\n\treturn s.n\n}\n"
    chunks = {c.symbol: c for c in treesitter_chunks(go, "go") or []}
    assert chunks["Store"].kind == "type" and chunks["Store"].start == 3
    assert chunks["Store.Get"].kind == "method" and chunks["Store.Get"].text.startswith("// Get")
    rust = "pub struct Shape { sides: u32 }\n\n"
    rust += "impl Shape {\n    pub fn area(&self) -> u32 { 0 }\n}\n"
    symbols = {(c.symbol, c.kind) for c in treesitter_chunks(rust, "rust") or []}
    assert {("Shape", "type"), ("Shape", "class"), ("Shape.area", "method")} <= symbols


def test_a_language_without_a_grammar_falls_back_to_blank_line_blocks() -> None:
    assert treesitter_chunks("a\n\nb\n", "cobol") is None
    chunks = CodeSource().chunk("# Title\n\ntext\n\n## Part\n\nmore\n", "markdown")
    assert [c.symbol for c in chunks] == ["Title"]  # one merged block, named by its heading


# -- scanning -----------------------------------------------------------------------------------


def test_scan_lists_tracked_files_with_blob_hashes_and_says_what_it_skips(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "repo",
        {
            "a.py": "def a():\n    return 1\n",
            "logo.png": b"\x89PNG\r\n\x1a\n\0\0",
            "web/app.min.js": "var a=1;",
            "package-lock.json": "{}",
        },
    )
    (repo / "untracked.py").write_text("x = 1\n", encoding="utf-8")
    source = CodeSource(max_file_bytes=1_000)
    write(repo, {"big.txt": "x" * 2_000})
    git(repo, "add", "big.txt")
    with pytest.warns(UserWarning) as caught:
        scan = source.scan(repo)
    assert scan.documents == ["a.py"]  # untracked and skipped files are not documents
    assert scan.fingerprints["a.py"] == "git-blob:" + git(repo, "rev-parse", "HEAD:a.py").strip()
    reasons = "\n".join(str(w.message) for w in caught)
    assert "logo.png (file): skipped, a binary format" in reasons
    assert "app.min.js (file): skipped, a generated or minified file" in reasons
    assert "package-lock.json (file): skipped, a generated lock file" in reasons
    assert "big.txt (file): skipped, 2,000 bytes, over the 1,000-byte limit" in reasons


def test_an_edited_file_is_fingerprinted_by_its_work_tree_content(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": "x = 1\n", "b.py": "y = 2\n"})
    (repo / "a.py").write_text("x = 10\n", encoding="utf-8")
    (repo / "b.py").unlink()
    files = {f.path: f.blob for f in tracked_files(repo)}
    assert files == {"a.py": blob_hash(b"x = 10\n")}
    git(repo, "add", "a.py")
    assert blob_hash(b"x = 10\n") == git(repo, "ls-files", "-s", "a.py").split()[1]


def test_read_document_skips_binary_and_generated_content(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "repo",
        {"data.txt": b"abc\0def", "gen.py": "# Code generated by protoc. DO NOT EDIT.\nx = 1\n"},
    )
    source = CodeSource()
    for name, why in (("data.txt", "binary"), ("gen.py", "generated")):
        with pytest.warns(UserWarning, match=why):
            assert source.read_document(repo, name).fragments == []


def test_a_docstring_that_mentions_generated_headers_is_not_one() -> None:
    from memex_code.files import skip_by_content

    mention = b'"""Skips files with a "generated, do not edit" header."""\nx = 1\n'
    assert skip_by_content(mention) is None
    assert skip_by_content(b"// Code generated by protoc-gen-go. DO NOT EDIT.\n") is not None
    assert skip_by_content(b"# Report\n\nGenerated by `make`; do not edit by hand.\n")


def test_fragments_carry_location_metadata_and_a_title(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"pkg/shapes.py": PYTHON})
    document = CodeSource().read_document(repo, "pkg/shapes.py")
    area = next(f for f in document.fragments if f.metadata["symbol"] == "Shape.area")
    assert area.title == "pkg/shapes.py: Shape.area (L20-22)"
    assert area.source_kind == "code" and area.conversation_id == document.id
    meta = area.metadata
    assert meta["repo_root"] == str(repo.resolve()) and meta["path"] == "pkg/shapes.py"
    assert (meta["language"], meta["start_line"], meta["end_line"]) == ("python", 20, 22)
    assert meta["blob"] == git(repo, "rev-parse", "HEAD:pkg/shapes.py").strip()
    assert area.index_text is not None and area.index_text.startswith(area.title)


# -- syncing through memex ----------------------------------------------------------------------


def _code_fragments(mx: Memex) -> dict[str, set[str]]:
    """Fragment ids per path of every stored code document."""
    by_path: dict[str, set[str]] = {}
    for row in mx.query("SELECT id, source_id FROM fragments WHERE source_kind='code'")[1]:
        by_path.setdefault(row[1], set()).add(row[0])
    return by_path


def test_incremental_by_blob_hash(tmp_path: Path, keyword_home: Path) -> None:
    repo = make_repo(
        tmp_path / "repo",
        {"a.py": "def a():\n    return 1\n", "b.py": PYTHON, "c.md": "# C\n\ntext\n"},
    )
    with Memex(keyword_home) as mx:
        first = mx.ingest(repo, source="code")
        assert first.count("new") == 3 and first.count("failed") == 0
        before = _code_fragments(mx)
        assert set(before) == {"a.py", "b.py", "c.md"}

        # Nothing changed, though every file's time did: nothing is read again.
        for name in ("a.py", "b.py", "c.md"):
            (repo / name).touch()
        again = mx.ingest(repo, source="code")
        assert again.count("unchanged") == 3 and again.fragments_added == 0

        # One file changed: only its chunks are replaced; the others keep theirs.
        write(repo, {"a.py": "def a():\n    return 2\n"})
        changed = mx.ingest(repo, source="code")
        assert [f.path.rsplit("/", 1)[-1] for f in changed.files if f.status == "updated"] == [
            "a.py"
        ]
        after = _code_fragments(mx)
        assert after["b.py"] == before["b.py"] and after["c.md"] == before["c.md"]
        assert after["a.py"].isdisjoint(before["a.py"])
        # The keyword index follows the catalog.
        hits = mx.search("return 2", "keyword", 5, source="code").results
        assert hits and hits[0].fragment.metadata["path"] == "a.py"

        # A deleted (and committed) file leaves the catalog and the index.
        git(repo, "rm", "-q", "c.md")
        git(repo, "commit", "-qm", "drop c")
        removed = mx.ingest(repo, source="code")
        assert [f.status for f in removed.files if f.path.endswith("c.md")] == ["removed"]
        assert "c.md" not in _code_fragments(mx)
        assert not mx.search("text", "keyword", 5, source="code").results


def test_plain_ingest_never_claims_a_git_folder(tmp_path: Path, keyword_home: Path) -> None:
    notes = make_repo(tmp_path / "notes", {"Daily.md": "# Daily\n\nBought milk.\n"})
    with Memex(keyword_home) as mx:
        report = mx.ingest(notes)
        kinds = {f.source_kind for f in report.files if f.status == "new"}
        assert kinds == {"obsidian"}  # the notes folder went to its own source, not to code
        assert mx.catalog.group_counts("source_kind") == {"obsidian": 1}


def test_unknown_source_name_is_refused(keyword_home: Path, tmp_path: Path) -> None:
    from memex_core.errors import MemexError

    with Memex(keyword_home) as mx, pytest.raises(MemexError, match=r"known are .*code"):
        mx.ingest(tmp_path, source="nope")


def test_code_source_on_a_folder_that_is_not_a_repository(
    tmp_path: Path, keyword_home: Path
) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.py").write_text("x = 1\n", encoding="utf-8")
    with Memex(keyword_home) as mx:
        report = mx.ingest(plain, source="code")
    assert report.count("failed") == 1
    assert "not a git work tree" in (report.files[0].error or "")


def test_the_code_source_named_on_a_single_file_says_to_pass_the_folder(
    tmp_path: Path, keyword_home: Path
) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": "x = 1\n"})
    with Memex(keyword_home) as mx:
        report = mx.ingest(repo / "a.py", source="code")
    assert report.count("failed") == 1
    assert "reads whole folders, not single files" in (report.files[0].error or "")
