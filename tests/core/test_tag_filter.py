"""Searching by a note's tags (issue 32, item 11): nested and case-insensitive as Obsidian
reads them, applied inside the keyword index and chroma before top-k, through the Python
API and the command line (dig, keyword, semantic, context, notes). One home for the module:
the vault of :mod:`tests.support.tagged_vault`, whose tagged notes rank below 40 untagged
ones."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from memex_core.api import Memex
from memex_core.cli.app import run_on
from memex_core.domain import Fragment, Provenance, SearchFilters
from memex_core.domain.search_options import SearchOptions, make_filters
from memex_core.domain.time_bounds import FilterValueError
from tests.support.tagged_vault import EXPECTED, QUERY, TAGGED, note_paths, tagged_home

MODES = ("keyword", "semantic", "hybrid")
PROJECT = EXPECTED[("project",)]


@pytest.fixture(scope="module")
def mx(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Memex]:
    memex = tagged_home(tmp_path_factory.mktemp("tagged"))
    yield memex
    memex.close()


def _run(mx: Memex, capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    status = run_on(mx, list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def _paths_of_ids(mx: Memex, out: str) -> set[str]:
    return note_paths(mx.get(out.split()))


# -- what a tag filter matches ------------------------------------------------------------------


def _note(tags: list[str]) -> Fragment:
    provenance = Provenance("obsidian", "/vault", "n.md", "n.md#s0")
    return Fragment("f", "doc", "note", "text", provenance, metadata={"tags": tags})


@pytest.mark.parametrize(
    ("wanted", "tags", "passes"),
    [
        ("project", ["project"], True),
        ("project", ["project/memex"], True),  # a child
        ("project", ["Project/Memex/deep"], True),  # a grandchild, in another case
        ("Project/", ["project"], True),
        ("#project", ["project"], True),
        ("project", ["projects"], False),  # a longer name is another tag
        ("project", ["other/project"], False),  # the same leaf under another parent
        ("project/memex", ["project"], False),  # a parent is not its child
        ("project", [], False),
    ],
)
def test_a_tag_filter_matches_the_tag_and_the_tags_nested_under_it(
    wanted: str, tags: list[str], passes: bool
) -> None:
    assert make_filters(tag=wanted).matches(_note(tags)) is passes


def test_a_fragment_without_tags_never_passes_a_tag_filter_and_no_filter_lets_all_through() -> None:
    plain = Fragment("f", "c", "user", "text", Provenance("chatgpt", "x", "c", "c#1"))
    assert not make_filters(tag="project").matches(plain)
    assert SearchFilters().matches(plain) and make_filters(tag=None).tags == ()


@pytest.mark.parametrize("empty", ["", "#", " / ", ["project", ""]])
def test_an_empty_tag_is_refused_naming_the_filter(empty: str | list[str]) -> None:
    with pytest.raises(FilterValueError, match="tag filter"):
        make_filters(tag=empty)


def test_the_tag_filter_is_liftable_and_described() -> None:
    filters = make_filters(tag=["project", "Project"])
    assert filters.tags == ("project",) and not filters.is_empty
    assert filters.describe() == ["tag in project"]
    assert filters.without("tags").is_empty


# -- the Python API: both stores, before top-k ---------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("tags", list(EXPECTED), ids="+".join)
def test_search_by_tag_finds_exactly_the_tagged_notes(
    mx: Memex, mode: str, tags: tuple[str, ...]
) -> None:
    found = mx.search(SearchOptions(QUERY, mode, 20, tag=list(tags), floor="off"))
    assert note_paths(r.fragment for r in found) == EXPECTED[tags]


@pytest.mark.parametrize("mode", MODES)
def test_the_tag_filter_applies_before_top_k(mx: Memex, mode: str) -> None:
    """The two tagged notes rank below 40 untagged ones: a filter applied to the top 2
    afterwards would leave nothing, inside the stores it leaves exactly them."""
    unfiltered = mx.search(SearchOptions(QUERY, mode, 2, floor="off"))
    assert not note_paths(r.fragment for r in unfiltered) & set(TAGGED)
    found = mx.search(SearchOptions(QUERY, mode, 2, tag="project", floor="off"))
    assert note_paths(r.fragment for r in found) == PROJECT


def test_the_tag_filter_narrows_a_conversation_filter_and_never_widens_it(mx: Memex) -> None:
    garden = next(r.fragment for r in mx.search(SearchOptions("weeding", "keyword", 1)))
    both = SearchOptions(QUERY, "keyword", 10, tag="project", conversation=garden.conversation_id)
    assert note_paths(r.fragment for r in mx.search(both)) == {"Garden.md"}
    other = both.with_changes(tag="projects")
    found = mx.search(other)
    assert not len(found) and "no note carries the tag(s) projects" in found.notes[0]


def test_memex_search_and_compact_search_take_a_tag(mx: Memex) -> None:
    found = mx.search(QUERY, "keyword", 2, tag=["project"])
    assert note_paths(r.fragment for r in found) == PROJECT
    hits, _ = mx.compact_search(QUERY, limit=2, mode="keyword", tag="project/memex")
    assert note_paths(mx.get([h.id for h in hits])) == {"Memex plan.md"}


def test_a_tag_no_note_carries_finds_nothing_and_says_so(mx: Memex) -> None:
    found = mx.search(SearchOptions(QUERY, "hybrid", 5, tag="nowhere"))
    assert not len(found)
    assert found.notes == ["no note carries the tag(s) nowhere (nor a tag nested under them)"]


def test_views_search_and_pack_context_by_tag(mx: Memex) -> None:
    view = mx.view(None, name="tests")
    found = view.search(QUERY, "hybrid", 2, tag="project", floor="off")
    assert note_paths(r.fragment for r in found) == PROJECT
    pack = mx.context(SearchOptions(QUERY, tag="project/memex"), 4000)
    assert pack.items and note_paths(mx.get([i.id for i in pack.items])) == {"Memex plan.md"}
    agent_pack = view.context(QUERY, 4000, tag="project")
    assert agent_pack.items
    assert note_paths(mx.get([i.id for i in agent_pack.items])) <= PROJECT


# -- the command line ----------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["dig", "keyword", "semantic"])
def test_search_commands_take_repeatable_tags(
    mx: Memex, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    extra = [] if command == "keyword" else ["--no-floor"]
    argv = [command, QUERY, "-n", "3", "--tag", "projects", "--tag", "other", *extra]
    status, out, err = _run(mx, capsys, *argv, "--format", "ids")
    assert status == 0, err
    assert _paths_of_ids(mx, out) == EXPECTED[("projects", "other")]


def test_context_takes_a_tag(mx: Memex, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _run(mx, capsys, "context", QUERY, "--tag", "project", "--format", "json")
    assert status == 0, err
    ids = [item["id"] for item in json.loads(out)["items"]]
    assert ids and note_paths(mx.get(ids)) <= PROJECT


def test_an_empty_tag_on_the_command_line_is_one_line_and_exit_1(
    mx: Memex, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = _run(mx, capsys, "keyword", QUERY, "--tag", "#")
    assert status == 1 and "tag filter" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_a_tag_that_removed_every_match_is_named(
    mx: Memex, capsys: pytest.CaptureFixture[str]
) -> None:
    status, _, err = _run(mx, capsys, "keyword", "weeding", "--tag", "projects")
    assert status == 0
    assert "The --tag filter removed every match" in err


def test_notes_lists_the_notes_with_a_tag(mx: Memex, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _run(mx, capsys, "notes", "--tag", "project", "--format", "json")
    assert status == 0, err
    rows = json.loads(out)
    assert {row["path"] for row in rows} == PROJECT
    assert next(r for r in rows if r["path"] == "Garden.md")["tags"] == ["Project"]
    status, out, _ = _run(mx, capsys, "notes", "--tag", "project/memex")
    assert status == 0 and out.split()[0] == "Memex" and "#project/memex" in out


def test_notes_without_a_tag_counts_every_tag(
    mx: Memex, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = _run(mx, capsys, "notes", "--format", "json")
    assert status == 0
    assert json.loads(out) == {
        "other/project": 1,
        "planning": 1,
        "project": 1,
        "project/memex": 1,
        "projects": 1,
    }
    status, _, err = _run(mx, capsys, "notes", "--tag", "nowhere")
    assert status == 0 and "No note carries #nowhere" in err
