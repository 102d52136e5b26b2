"""What the CLI prints of user data: literally (markup in titles, paths and text is not
read as markup), with ids whole at any width, and the same non-zero exit for an unknown id
from every command, through the real ``memex`` entry point."""

from __future__ import annotations

import importlib
import itertools
import json
import re
from collections.abc import Callable
from pathlib import Path

import click
import pytest

from memex_core.api import MIN_ID_PREFIX, Memex
from memex_core.cli import cli, main
from memex_core.errors import MemexError
from tests.support.component_doubles import fast_memex
from tests.support.export_builders import chatgpt_conversation, write_chatgpt_export

# Rich markup a title, a path or a message could hold by accident or on purpose.
TITLE = "Plan [bold]v2[/] and [link=https://evil.example]click[/link]"
TEXT = "Fix the busy_timeout bug: [red]never[/red] close [/] early; see [x] and [link=u]."
# A file name cannot hold "/", so no closing tag here.
NOTE_TITLE = "Notes [bold]draft [link=evil.example]x"
MARKUP = ("[bold]v2[/]", "[link=https://evil.example]click[/link]", "[red]never[/red]", "[/]")
WIDTHS = (80, 200)

Run = Callable[..., tuple[int, str, str]]


@pytest.fixture
def mx(tmp_path: Path) -> Memex:
    """A home holding a chat with a hostile title and text, from a file whose name holds
    markup, and a note whose title and heading hold markup."""
    export = tmp_path / "export[bold]2024" / "conversations.json"
    conversation = chatgpt_conversation(
        "hostile",
        TITLE,
        [
            ("user", TEXT, 1_700_000_000.0),
            ("assistant", "Set busy_timeout [i]before[/i] the write.", 1_700_000_060.0),
        ],
    )
    write_chatgpt_export(export, [conversation])
    memex = fast_memex(tmp_path / "home")
    memex.ingest(export)
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / f"{NOTE_TITLE}.md").write_text(
        "# Busy [x] part\nbusy_timeout notes [/] here. See [[Other#Step 2]].\n", encoding="utf-8"
    )
    (vault / "Other.md").write_text(
        f"# Step 2\nbusy_timeout twice. Back to [[{NOTE_TITLE}]].\n", encoding="utf-8"
    )
    memex.ingest(vault)
    yield memex
    memex.close()


@pytest.fixture
def run(mx: Memex, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Run:
    """Runs ``memex ARGS`` through :func:`memex_core.cli.main` (what the console script
    calls) at a given width; returns (exit status, stdout, stderr)."""
    for name in ("progressive", "search", "overview", "sql", "memory_handles", "doctor"):
        # import_module, not attribute access: ``memex_core.cli.sql`` as an attribute is the
        # command, not the module; and the lazy CLI may not have loaded the module yet.
        module = importlib.import_module(f"memex_core.cli.{name}")
        monkeypatch.setattr(module, "open_memex", lambda ctx: mx)

    def invoke(*args: str, width: int = 80) -> tuple[int, str, str]:
        monkeypatch.setenv("COLUMNS", str(width))
        capsys.readouterr()
        try:
            main(list(args))
            status = 0
        except SystemExit as exc:
            status = int(exc.code or 0)
        out, err = capsys.readouterr()
        return status, out, err

    return invoke


def _ids(run: Run, query: str) -> list[str]:
    status, out, _ = run("keyword", query, "--format", "ids")
    assert status == 0
    return out.split()


def _flat(text: str) -> str:
    """Output with panel borders and line breaks removed, so text rich wrapped at the
    terminal's width can be found whole."""
    return re.sub(r"\s*[│╭╮╰╯─]+\s*|\n\s*", "", text)


@pytest.mark.parametrize("width", WIDTHS)
def test_search_panels_print_titles_and_text_literally_with_whole_ids(run: Run, width: int) -> None:
    ids = _ids(run, "busy_timeout")
    status, out, err = run("keyword", "busy_timeout", width=width)
    assert status == 0, err
    flat = _flat(out)
    assert _flat(TITLE) in flat
    assert "[red]never[/red]" in flat and "close [/] early" in flat
    for fragment_id in ids:
        assert re.search(rf"(?m)^│ {fragment_id}\b", out), f"{fragment_id} cut or missing"


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize(
    "args",
    [
        ("keyword", "busy_timeout", "--concise"),
        ("context", "busy_timeout", "--budget", "2000"),
        ("explore", "Other", "--similar", "0"),
    ],
    ids=["concise", "context", "explore"],
)
def test_other_views_print_markup_literally(run: Run, args: tuple[str, ...], width: int) -> None:
    status, out, err = run(*args, width=width)
    assert status == 0, err
    flat = _flat(out)
    if args[0] == "explore":
        assert _flat(NOTE_TITLE) in flat and "Step 2" in flat
    else:
        assert _flat(TITLE) in flat


@pytest.mark.parametrize("width", WIDTHS)
def test_get_and_timeline_keep_ids_and_markup(run: Run, width: int) -> None:
    ids = _ids(run, "busy_timeout")
    status, out, _ = run("get", *ids, width=width)
    assert status == 0
    for fragment_id in ids:
        assert re.search(rf"(?m)^│ {fragment_id}\b", out)
    assert "[i]before[/i]" in _flat(out) and "[/]" in out
    status, out, _ = run("timeline", ids[0], width=width)
    assert status == 0 and re.search(rf"(?m)^│ {ids[0]}\b", out)


@pytest.mark.parametrize("width", WIDTHS)
def test_tables_print_paths_and_cells_literally(run: Run, width: int) -> None:
    status, out, _ = run("sources", width=width)
    assert status == 0 and "export[bold]2024" in _flat(out)
    status, out, _ = run("query", "SELECT title FROM fragments WHERE role='user'", width=width)
    assert status == 0 and _flat(TITLE) in _flat(out)


def test_an_unknown_id_exits_1_the_same_way_from_get_and_timeline(run: Run) -> None:
    for command in ("get", "timeline"):
        status, out, err = run(command, "nosuchid")
        assert status == 1, (command, out, err)
        assert out == ""
        assert err.startswith("Error: No fragment with id 'nosuchid'."), err


def test_get_fails_before_printing_when_any_id_is_unknown(run: Run) -> None:
    known = _ids(run, "busy_timeout")[0]
    status, out, err = run("get", known, "nosuchid", "--format", "json")
    assert status == 1 and out == "" and "'nosuchid'" in err


def test_a_unique_prefix_names_a_fragment_as_git_takes_a_commit(run: Run, mx: Memex) -> None:
    whole = _ids(run, "busy_timeout")[0]
    for cut in (len(whole) - 1, MIN_ID_PREFIX + 4):
        status, out, err = run("get", whole[:cut], "--format", "json")
        assert status == 0, err
        assert [f["id"] for f in json.loads(out)] == [whole]
    status, out, _ = run("timeline", whole[:-1], "--format", "json")
    assert status == 0 and json.loads(out)["anchor_id"] == whole
    assert mx.timeline(whole[:-1]).anchor_id == whole


def test_a_prefix_shorter_than_the_minimum_is_unknown(run: Run) -> None:
    whole = _ids(run, "busy_timeout")[0]
    status, _, err = run("get", whole[: MIN_ID_PREFIX - 1])
    assert status == 1 and "too short for a prefix" in err
    assert f"the whole id or at least its first {MIN_ID_PREFIX} characters" in err


def test_an_ambiguous_prefix_in_a_catalog_built_for_it(tmp_path: Path) -> None:
    from memex_core.errors import AmbiguousIdError

    mx = fast_memex(tmp_path / "home")
    try:
        mx.ingest(
            write_chatgpt_export(
                tmp_path / "many.json",
                [
                    chatgpt_conversation(f"c{n}", f"chat {n}", [("user", f"text {n}", 1e9)])
                    for n in range(1000)
                ],
            )
        )
        ids = sorted(mx.catalog.all_ids())
        pairs = [(a, b) for a, b in itertools.pairwise(ids) if a[:4] == b[:4]]
        # Ids derive from the content, so this is the same every run (1,000 ids in 65,536
        # four-character buckets share one at once).
        assert pairs
        first, second = pairs[0]
        with pytest.raises(AmbiguousIdError) as caught:
            mx.resolve_ids([first[:4]])
        assert first in str(caught.value) and second in str(caught.value)
        assert mx.resolve_ids([first]) == [first]
    finally:
        mx.close()


def test_memory_ids_take_a_unique_prefix_too(
    mx: Memex, run: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    from memex_core.errors import AmbiguousIdError

    made = iter(
        ["mem_abcd00000000000000a1", "mem_abcd00000000000000b2", "mem_ffff0000000000000000"]
    )
    monkeypatch.setattr("memex_core.services.agent_memory.new_memory_id", lambda: next(made))
    operator = mx.operator("test")
    for text in ("Prefers tea", "Lives in Lyon", "Works on memex"):
        operator.remember(text, user_id="alice")
    assert operator.history("mem_ffff")[0].memory_id == "mem_ffff0000000000000000"
    assert operator.history("mem_abcd00000000000000b")[0].memory_id == "mem_abcd00000000000000b2"
    with pytest.raises(
        AmbiguousIdError, match="mem_abcd00000000000000a1, mem_abcd00000000000000b2"
    ):
        operator.history("mem_abcd")
    # Another user's agent cannot learn an id by its prefix: it is simply unknown there.
    with pytest.raises(MemexError, match="No memory"):
        mx.agent("bob").get("mem_ffff")
    status, out, err = run("history", "mem_abcd")
    assert status == 1 and out == "" and "ambiguous" in err
    status, out, _ = run("history", "mem_ffff", "--format", "json")
    assert status == 0 and json.loads(out)[0]["memory_id"] == "mem_ffff0000000000000000"


# -- documented defaults ---------------------------------------------------------------------


def _options() -> list[tuple[str, click.Option]]:
    from memex_core.cli import _add_plugin_commands

    _add_plugin_commands()
    found: list[tuple[str, click.Option]] = []

    def walk(command: click.Command, path: str) -> None:
        if isinstance(command, click.Group):
            for name, sub in command.commands.items():
                walk(sub, f"{path} {name}".strip())
        found.extend((path, p) for p in command.params if isinstance(p, click.Option))

    walk(cli, "")
    return found


def _documented_numbers(option: click.Option) -> list[str]:
    """Every number the option's help text gives as its default."""
    shown = option.show_default if isinstance(option.show_default, str) else ""
    text = f"{option.help or ''} [default: {shown}]" if shown else option.help or ""
    return re.findall(r"default:?\s*\(?(-?\d+(?:\.\d+)?)", text)


def test_every_default_a_help_text_gives_is_the_real_one() -> None:
    from memex_core.catalog.lock import DEFAULT_TIMEOUT_S
    from memex_core.services.search import DEFAULT_SEMANTIC_WEIGHT
    from memex_viewer.command import DEFAULT_PORT

    # Options whose default lives in a constant (the option itself defaults to None, and
    # the code falls back to the constant): the help must show that constant.
    constants = {
        ("dig", "--semantic-weight"): DEFAULT_SEMANTIC_WEIGHT,
        ("ingest", "--no-wait"): DEFAULT_TIMEOUT_S,
        ("sync", "--no-wait"): DEFAULT_TIMEOUT_S,
        ("view", "--port"): DEFAULT_PORT,
    }
    checked = set()
    for command, option in _options():
        numbers = _documented_numbers(option)
        if not numbers:
            continue
        key = (command, option.opts[0])
        expected = constants.get(key, option.default)
        assert key in constants or option.show_default is True, (
            f"memex {command} {option.opts[0]} writes its default into the help by hand; "
            "use show_default=True, or config_default() from a constant listed here"
        )
        for number in numbers:
            assert float(number) == float(expected), (key, number, expected)  # type: ignore[arg-type]
        checked.add(key)
    assert set(constants) <= checked, set(constants) - checked


def test_dig_without_a_semantic_weight_uses_the_documented_one(run: Run) -> None:
    from memex_core.services.search import DEFAULT_SEMANTIC_WEIGHT

    status, plain, _ = run("dig", "busy_timeout", "--format", "json")
    assert status == 0
    status, explicit, _ = run(
        "dig", "busy_timeout", "--format", "json", "--semantic-weight", str(DEFAULT_SEMANTIC_WEIGHT)
    )
    assert status == 0
    scores = [(r["id"], r["score"]) for r in json.loads(plain)]
    assert scores == [(r["id"], r["score"]) for r in json.loads(explicit)]
    status, other, _ = run("dig", "busy_timeout", "--format", "json", "--semantic-weight", "0.9")
    assert [(r["id"], r["score"]) for r in json.loads(other)] != scores


def test_dig_help_shows_the_semantic_weight_from_the_constant() -> None:
    from click.testing import CliRunner

    from memex_core.services.search import DEFAULT_SEMANTIC_WEIGHT

    out = CliRunner().invoke(cli, ["dig", "--help"], terminal_width=200).output
    assert f"[default: ({DEFAULT_SEMANTIC_WEIGHT:g}, or [search] semantic_weight" in out
    assert "0.5" not in out
