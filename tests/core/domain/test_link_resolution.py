"""The pure link resolver: Obsidian's order (path, folder-relative, basename, alias), no I/O."""

from __future__ import annotations

import itertools

import pytest

from memex_core.domain.link_resolution import LinkResolver

FILES = [
    "Home.md",
    "Note.md",
    "Projects/Note.md",
    "Projects/Plan.md",
    "Projects/Deep/Plan.md",
    "Archive/Old/Plan.md",
    "Obsidian Sync/Security and privacy.md",
    "Obsidian Publish/Security and privacy.md",
    "Attachments/img.png",
    "Attachments/Diagram.SVG",
    "Data/report",
    "Data/report.md",
    "v1.2 notes.md",
]
ALIASES = {
    "Home.md": ["Start", "How to/Old home"],
    "Projects/Plan.md": ["Roadmap"],
    "Projects/Deep/Plan.md": ["roadmap"],  # same alias, other case: shortest path wins
}


@pytest.fixture
def resolver() -> LinkResolver:
    return LinkResolver(FILES, ALIASES)


def test_empty_target_is_the_linking_note(resolver: LinkResolver) -> None:
    assert resolver.resolve("", "Projects/Plan.md") == "Projects/Plan.md"
    assert resolver.resolve("  ", "Home.md") == "Home.md"


@pytest.mark.parametrize(
    ("target", "expected"),
    [
        ("Projects/Plan", "Projects/Plan.md"),
        ("Projects/Plan.md", "Projects/Plan.md"),
        ("/Projects/Plan", "Projects/Plan.md"),  # a leading slash is still vault-relative
        ("Attachments/img.png", "Attachments/img.png"),
        ("Data/report", "Data/report.md"),  # no extension means the note first
        ("v1.2 notes", "v1.2 notes.md"),  # a dot in the name is not an extension
    ],
)
def test_exact_vault_relative_path(resolver: LinkResolver, target: str, expected: str) -> None:
    assert resolver.resolve(target, "Home.md") == expected


def test_path_relative_to_the_linking_notes_folder(resolver: LinkResolver) -> None:
    # The help vault's case: two "Security and privacy" notes, linked bare from their own folder.
    sync = "Obsidian Sync/Security and privacy.md"
    publish = "Obsidian Publish/Security and privacy.md"
    assert resolver.resolve("Security and privacy", "Obsidian Sync/Headless Sync.md") == sync
    assert resolver.resolve("Security and privacy", "Obsidian Publish/Intro.md") == publish
    assert resolver.resolve("Deep/Plan", "Projects/Plan.md") == "Projects/Deep/Plan.md"


def test_vault_root_path_comes_before_the_folder_relative_one(resolver: LinkResolver) -> None:
    assert resolver.resolve("Note", "Projects/Plan.md") == "Note.md"


def test_basename_match_is_case_insensitive(resolver: LinkResolver) -> None:
    assert resolver.resolve("home", "Projects/Plan.md") == "Home.md"
    assert resolver.resolve("img.PNG", "Home.md") == "Attachments/img.png"
    assert resolver.resolve("diagram.svg", "Home.md") == "Attachments/Diagram.SVG"
    assert resolver.resolve("HOME.MD", "Projects/Plan.md") == "Home.md"


def test_shortest_path_wins_among_equal_basenames(resolver: LinkResolver) -> None:
    assert resolver.resolve("Plan", "Home.md") == "Projects/Plan.md"
    assert resolver.resolve("plan", "Archive/Old/Other.md") == "Archive/Old/Plan.md"  # own folder


def test_ties_are_broken_the_same_whatever_the_listing_order() -> None:
    files = ["B/Same.md", "A/Same.md", "CC/Same.md"]
    chosen = {
        LinkResolver(order, {}).resolve("Same", "Home.md")
        for order in itertools.permutations(files)
    }
    assert chosen == {"A/Same.md"}  # same depth and length: alphabetical


def test_partial_folder_path_matches_the_end_of_a_path(resolver: LinkResolver) -> None:
    assert resolver.resolve("Old/Plan", "Home.md") == "Archive/Old/Plan.md"
    assert resolver.resolve("deep/plan", "Home.md") == "Projects/Deep/Plan.md"
    assert resolver.resolve("ld/Plan", "Home.md") is None  # whole folder names only


def test_aliases_are_case_insensitive_and_come_last(resolver: LinkResolver) -> None:
    assert resolver.resolve("start", "Projects/Plan.md") == "Home.md"
    assert resolver.resolve("How to/Old home", "Projects/Plan.md") == "Home.md"
    assert resolver.resolve("ROADMAP", "Home.md") == "Projects/Plan.md"


def test_a_file_name_beats_an_alias() -> None:
    resolver = LinkResolver(["Start.md", "Home.md"], {"Home.md": ["Start"]})
    assert resolver.resolve("Start", "Home.md") == "Start.md"


def test_dot_relative_paths_resolve_only_from_the_notes_folder(resolver: LinkResolver) -> None:
    assert resolver.resolve("./Plan", "Projects/Deep/X.md") == "Projects/Deep/Plan.md"
    assert resolver.resolve("../Plan.md", "Projects/Deep/X.md") == "Projects/Plan.md"
    assert resolver.resolve("./Home", "Projects/Plan.md") is None
    assert resolver.resolve("../../Home", "Projects/Plan.md") is None  # leaves the vault


def test_unresolved_targets(resolver: LinkResolver) -> None:
    assert resolver.resolve("Example", "Home.md") is None
    assert resolver.resolve("obsidian-cli.mp4", "Home.md") is None
    assert resolver.resolve("Attachments", "Home.md") is None  # a folder is not a file


def test_nothing_to_resolve_against() -> None:
    resolver = LinkResolver([], {})
    assert resolver.resolve("Note", "Note.md") is None
    assert resolver.resolve("", "Note.md") == "Note.md"
