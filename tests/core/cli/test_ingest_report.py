"""What `memex ingest` tells a user: every file named literally (markup in a name is
text), every skipped file or item with its place and reason (in memex's words, not
Python's warning format), and a non-zero exit when nothing at all could be read."""

from __future__ import annotations

import importlib
import json
import warnings
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from memex_core.cli import main
from memex_core.domain import SkippedItemWarning
from memex_core.source_kit import describe_json_error
from tests.support.component_doubles import fast_memex
from tests.support.export_builders import chatgpt_conversation, write_chatgpt_export

FIXTURES = Path(__file__).parents[2] / "fixtures"
CLAUDE_AI = FIXTURES / "claude_ai"
BAD_FRONTMATTER = "---\ntitle: [unclosed\n---\nThe body is still indexed.\n"

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def run(home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Run:
    """Runs ``memex ingest --no-embed ARGS`` through the console script's ``main`` at a
    given width; returns (exit status, stdout, stderr)."""
    # The CLI loads its command modules lazily: import this one before patching it.
    module = importlib.import_module("memex_core.cli.writing")
    monkeypatch.setattr(module, "open_memex", lambda ctx: fast_memex(home))

    def invoke(*args: str | Path, width: int = 80) -> tuple[int, str, str]:
        monkeypatch.setenv("COLUMNS", str(width))
        capsys.readouterr()
        try:
            main(["ingest", "--no-embed", *map(str, args)])
            status = 0
        except SystemExit as exc:
            status = int(exc.code or 0)
        out, err = capsys.readouterr()
        return status, out, err

    return invoke


def export(path: Path, title: str = "A chat") -> Path:
    conversation = chatgpt_conversation(
        title, title, [("user", "hello there", 1_700_000_000.0), ("assistant", "hi", 1.7e9)]
    )
    write_chatgpt_export(path, [conversation])
    return path


# -- names are text -------------------------------------------------------------------


@pytest.mark.parametrize("width", [40, 80, 200])
def test_file_names_holding_markup_are_printed_literally(
    run: Run, tmp_path: Path, width: int
) -> None:
    good = export(tmp_path / "export[bold]2024.json")
    bad = tmp_path / "nope[x][bold]y[link=evil.example]z.json"
    bad.write_text('{"not": "an export"}')
    status, out, err = run(good, bad, width=width)
    assert status == 1
    assert "1 new" in out
    lines = out.splitlines()
    assert any(line.startswith(f"failed {bad}: no source can read this file") for line in lines)
    assert "Traceback" not in out + err


def test_a_refusal_keeps_the_config_table_it_names(run: Run, tmp_path: Path) -> None:
    """The zip-bomb hint's ``[source.chatgpt]`` was eaten as markup; the member is named once."""
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        opening = b'[{"title": "t", "mapping": {"a": {"id": "a", "message": null}}'
        archive.writestr("conversations.json", opening + b" " * (8 * 1024**2) + b"}]")
    status, out, _ = run(bomb)
    assert status == 1
    assert "under [source.chatgpt] in config.toml" in out
    assert f"failed {bomb}: conversations.json: would expand from" in out
    assert out.count("conversations.json") == 1


# -- skipped items, in memex's words -----------------------------------------------------


def test_a_broken_frontmatter_is_reported_with_file_line_and_reason(
    run: Run, tmp_path: Path
) -> None:
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / "note.md").write_text(BAD_FRONTMATTER)
    (vault / "ok.md").write_text("fine")
    status, out, err = run(vault)
    assert status == 0
    assert "SkippedItemWarning" not in out + err and "warn" not in err
    skipped = [line for line in out.splitlines() if "skipped," in line]
    assert len(skipped) == 1
    assert skipped[0].startswith(f"{vault}/note.md (line 2): skipped, its frontmatter")
    assert "fix the YAML" in skipped[0]


def test_skipped_items_reach_the_report_not_warnings(home: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / "note.md").write_text(BAD_FRONTMATTER)
    mx = fast_memex(home)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # any warning escaping ingest fails the test
            report = mx.ingest(vault, embed=False)
    finally:
        mx.close()
    assert report.count("new") == 1
    assert len(report.skipped) == 1 and "note.md (line 2): skipped" in report.skipped[0]


def test_json_output_carries_skipped_items_and_files(run: Run, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / "note.md").write_text(BAD_FRONTMATTER)
    status, out, _ = run(vault, "--format", "json")
    summary = json.loads(out)
    assert status == 0 and summary["new"] == 1
    assert summary["skipped_items"][0].startswith(f"{vault}/note.md (line 2): skipped")


def test_a_file_whose_every_item_is_skipped_fails(run: Run, tmp_path: Path) -> None:
    path = tmp_path / "conversations.json"
    broken = chatgpt_conversation("c", "t", [("user", "hello", 1.7e9)])
    for node in broken["mapping"].values():
        if node.get("message"):
            node["message"]["metadata"] = {"attachments": 5}  # not a list: the build fails
    path.write_text(json.dumps([broken, broken]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status, out, _ = run(path)
    assert status == 1
    assert f"failed {path}: nothing could be read: every item in it was skipped" in out
    assert out.count(f"{path} (conversation ") == 2


# -- nothing read: say why, exit non-zero ----------------------------------------------


def test_an_empty_folder_is_an_error_with_a_hint(run: Run, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    (empty / ".hidden").mkdir(parents=True)
    (empty / ".hidden" / "conversations.json").write_text("[]")
    status, out, _ = run(empty)
    assert status == 1
    assert f"failed {empty}: nothing to ingest: the folder holds no files" in out
    assert "hidden" in out


def test_a_folder_of_unknown_files_names_each_and_fails(run: Run, tmp_path: Path) -> None:
    folder = tmp_path / "stuff"
    folder.mkdir()
    (folder / "photo.png").write_bytes(b"\x89PNG")
    (folder / "notes.txt").write_text("hello")
    status, out, _ = run(folder)
    assert status == 1
    assert "2 skipped" in out
    assert f"skipped {folder}/notes.txt: no source reads this format" in out
    assert f"skipped {folder}/photo.png: no source reads this format" in out
    assert "none of its 2 file(s) is in a format a source reads" in out


def test_a_folder_read_before_is_a_success_on_rerun(run: Run, tmp_path: Path) -> None:
    folder = tmp_path / "exports"
    export(folder / "conversations.json")
    (folder / "README.txt").write_text("my exports")
    assert run(folder)[0] == 0
    status, out, _ = run(folder)
    assert status == 0
    assert "1 skipped, 1 unchanged, 0 failed" in out


def test_claude_ai_side_files_are_named_with_why(run: Run, tmp_path: Path) -> None:
    folder = tmp_path / "claude-export"
    folder.mkdir()
    for name in ("conversations.json", "users.json", "projects.json"):
        (folder / name).write_bytes((CLAUDE_AI / name).read_bytes())
    (folder / "memories.json").write_text(
        json.dumps([{"conversations_memory": "Prefers tabs.", "account_uuid": "a"}])
    )
    status, out, _ = run(folder)
    assert status == 0
    assert "1 new, 3 skipped" in out
    lines = {line.split(": ", 1)[0].rsplit("/", 1)[-1]: line for line in out.splitlines()}
    assert "account details (the export's users.json), not conversations" in lines["users.json"]
    assert "projects (the export's projects.json), not conversations" in lines["projects.json"]
    assert "memories of you (the export's memories.json)" in lines["memories.json"]


def test_claude_ai_archive_names_its_side_members(run: Run, tmp_path: Path) -> None:
    archive = tmp_path / "claude.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        for name in ("conversations.json", "users.json", "projects.json"):
            handle.writestr(f"data-2025/{name}", (CLAUDE_AI / name).read_bytes())
    status, out, _ = run(archive)
    assert status == 0 and "1 new" in out
    assert f"{archive} (data-2025/users.json): skipped, Claude.ai account details" in out
    assert f"{archive} (data-2025/projects.json): skipped, Claude.ai projects" in out


@pytest.mark.parametrize("name", ["../conversations.json", "/conversations.json"])
def test_an_archive_of_unsafe_members_says_so(run: Run, tmp_path: Path, name: str) -> None:
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as handle:
        handle.writestr(
            zipfile.ZipInfo(name), (FIXTURES / "chatgpt" / "conversations.json").read_bytes()
        )
    status, out, _ = run(archive)
    assert status == 1
    assert f"failed {archive}: the archive's conversations.json has an unsafe name ({name})" in out


# -- wording ---------------------------------------------------------------------------


def test_truncated_json_reads_as_a_sentence(run: Run, tmp_path: Path) -> None:
    path = tmp_path / "conversations.json"
    path.write_bytes((FIXTURES / "chatgpt" / "conversations.json").read_bytes()[:3000])
    status, out, _ = run(path)
    assert status == 1
    assert "invalid JSON (unterminated string in conversation 1)" in out
    assert " at in " not in out and "starting at" not in out


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ('["abc', "unterminated string"),
        ('["a\x01"]', "invalid control character"),
        ("[1 2]", "expecting ',' delimiter"),
        ("", "expecting value"),
    ],
)
def test_json_errors_stand_alone(text: str, phrase: str) -> None:
    with pytest.raises(json.JSONDecodeError) as caught:
        json.loads(text)
    assert describe_json_error(caught.value.msg) == phrase


def test_api_skip_warning_class_is_the_domain_one() -> None:
    from memex_core import source_kit

    assert source_kit.SkippedItemWarning is SkippedItemWarning
    assert issubclass(SkippedItemWarning, UserWarning)


def test_many_files_skipped_for_one_reason_take_one_line(run: Run, tmp_path: Path) -> None:
    folder = tmp_path / "exports"
    export(folder / "conversations.json")
    for n in range(40):
        (folder / f"photo{n:02}.png").write_bytes(b"\x89PNG")
    status, out, _ = run(folder)
    assert status == 0
    assert "1 new, 40 skipped" in out
    skipped = [line for line in out.splitlines() if line.startswith("skipped")]
    assert skipped == [
        f"skipped 40 files: no source reads this format (e.g. {folder}/photo00.png, "
        f"{folder}/photo01.png, {folder}/photo02.png; --format json lists all)"
    ]
