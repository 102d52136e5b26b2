"""The real Obsidian Help vault (shared data): every note read, links resolved, FORMAT.md counts.

Counts differ from FORMAT.md's analysis in one place, on purpose: that analysis
did not see fenced code inside callouts (``> ```md``), so it counted
two example links in "Advanced formatting syntax.md" (``[[Basic formatting
syntax\\|Markdown syntax]]`` and ``![[Engelbart.jpg\\|200]]``) and the CSS
colour ``#ff0000`` in "CSS snippets.md" as real. Obsidian shows them as code.
"""

from __future__ import annotations

import json
import warnings
from collections import Counter
from pathlib import Path

import pytest

from memex_core.domain import EMBED, LINK, Link, ParsedDocument
from memex_core.domain.link_resolution import LinkResolver
from memex_obsidian.frontmatter import read_frontmatter
from memex_obsidian.note import find_links_and_tags
from memex_obsidian.source import ObsidianSource
from memex_obsidian.wikilinks import FoundLink
from tests.support._data import shared_data_dir

ATTACHMENT_SUFFIXES = (".png", ".jpg", ".jpeg", ".svg", ".gif", ".ogg", ".mp4", ".webp")


@pytest.fixture(scope="module")
def vault() -> Path:
    return shared_data_dir("obsidian-help", "en")


@pytest.fixture(scope="module")
def documents(vault: Path) -> dict[str, ParsedDocument]:
    source = ObsidianSource()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the help vault's frontmatter is all valid YAML
        return {path: source.read_document(vault, path) for path in source.scan(vault).documents}


@pytest.fixture(scope="module")
def resolver(vault: Path, documents: dict[str, ParsedDocument]) -> LinkResolver:
    files = ObsidianSource().scan(vault).files
    return LinkResolver(files, {path: doc.aliases for path, doc in documents.items()})


@pytest.fixture(scope="module")
def found(vault: Path, documents: dict[str, ParsedDocument]) -> list[tuple[str, FoundLink]]:
    """Every link outside code with its raw text, to count forms as FORMAT.md does."""
    links: list[tuple[str, FoundLink]] = []
    for path in documents:
        body = read_frontmatter((vault / path).read_text(encoding="utf-8"), path).body
        links.extend((path, link) for link in find_links_and_tags(body)[0])
    return links


@pytest.fixture(scope="module")
def wikilinks(found: list[tuple[str, FoundLink]]) -> list[FoundLink]:
    return [link for _, link in found if link.raw.lstrip("!").startswith("[[")]


def all_links(documents: dict[str, ParsedDocument]) -> list[tuple[str, Link]]:
    return [(path, link) for path, doc in documents.items() for link in doc.links]


def test_the_folder_is_a_vault_and_every_note_is_read(
    vault: Path, documents: dict[str, ParsedDocument]
) -> None:
    source = ObsidianSource()
    assert source.can_handle_folder(vault)  # no .obsidian/: notes and no transcripts
    scan = source.scan(vault)
    assert len(scan.documents) == 173
    assert len(scan.files) == 308
    assert set(scan.documents) <= set(scan.files)
    assert "Attachments/Engelbart.jpg" in scan.files
    assert all(doc.fragments for doc in documents.values())
    fragments = [f for doc in documents.values() for f in doc.fragments]
    assert len({f.id for f in fragments}) == len(fragments)
    assert all(f.conversation_id == documents[f.provenance.source_id].id for f in fragments)
    json.dumps([doc.properties for doc in documents.values()], allow_nan=False)


def test_every_note_has_its_frontmatter_properties(documents: dict[str, ParsedDocument]) -> None:
    keys = Counter(key for doc in documents.values() for key in doc.properties)
    assert keys["permalink"] == 173
    assert keys["description"] == 71
    assert keys["mobile"] == 56 and keys["publish"] == 54 and keys["cssclasses"] == 34


def test_aliases_as_format_md_counts_them(documents: dict[str, ParsedDocument]) -> None:
    with_aliases = [doc for doc in documents.values() if doc.aliases]
    assert len(with_aliases) == 92
    assert sum(len(doc.aliases) for doc in with_aliases) == 176
    assert documents["Editing and formatting/Folding.md"].aliases == ("Fold",)
    assert documents["Files and folders/Accepted file formats.md"].aliases == ("File formats",)


def test_only_the_demo_links_and_the_missing_video_are_unresolved(
    documents: dict[str, ParsedDocument], resolver: LinkResolver
) -> None:
    unresolved = [
        (path, link.target, link.heading, link.display, link.kind)
        for path, link in all_links(documents)
        if resolver.resolve(link.target, path) is None
    ]
    demo = "Linking notes and files/Internal links.md"
    assert unresolved == [
        ("Extending Obsidian/Obsidian CLI.md", "obsidian-cli.mp4", "interface", None, EMBED),
        # FORMAT.md's five: the four demo wikilinks and the video (absent: too large)...
        (demo, "Example", None, None, LINK),
        (demo, "Example", "Details", None, LINK),
        (demo, "Example", None, "Custom name", LINK),
        (demo, "Example", "Details", "Section name", LINK),
        # ...and the two demo Markdown links FORMAT.md lists among the Markdown links.
        (demo, "Example.md", None, "Custom name", LINK),
        (demo, "Example.md", "Details", "Section name", LINK),
    ]


def test_duplicate_basenames_resolve_by_folder(
    documents: dict[str, ParsedDocument], resolver: LinkResolver
) -> None:
    sync, publish = (
        "Obsidian Sync/Security and privacy.md",
        "Obsidian Publish/Security and privacy.md",
    )
    assert resolver.resolve("Obsidian Sync/Security and privacy", "Home.md") == sync
    assert resolver.resolve("Obsidian Publish/Security and privacy", "Home.md") == publish
    assert resolver.resolve("Plugins/Templates", "Home.md") == "Plugins/Templates.md"
    clipper = "Obsidian Web Clipper/Templates.md"
    assert resolver.resolve("Obsidian Web Clipper/Templates", "Home.md") == clipper
    # Bare links from inside each folder stay in that folder.
    assert resolver.resolve("Security and privacy", "Obsidian Sync/Headless Sync.md") == sync
    intro = "Obsidian Publish/Introduction to Obsidian Publish.md"
    assert resolver.resolve("Security and privacy", intro) == publish
    targets = {
        resolver.resolve(link.target, path)
        for path, link in all_links(documents)
        if link.target.endswith(("Security and privacy", "Templates"))
    }
    assert targets == {sync, publish, "Plugins/Templates.md", clipper}


def test_aliases_resolve(resolver: LinkResolver) -> None:
    internal_links = "Linking notes and files/Internal links.md"
    assert resolver.resolve("How to/Internal link", "Home.md") == internal_links
    assert resolver.resolve("how to/link to blocks", "Home.md") == internal_links
    assert resolver.resolve("Fold", "Home.md") == "Editing and formatting/Folding.md"
    accepted = "Files and folders/Accepted file formats.md"
    assert resolver.resolve("File formats", "Home.md") == accepted


def test_attachments_and_same_note_links_resolve(
    documents: dict[str, ParsedDocument], resolver: LinkResolver
) -> None:
    embeds = [(path, link) for path, link in all_links(documents) if link.kind == EMBED]
    resolved = [resolver.resolve(link.target, path) for path, link in embeds]
    to_attachments = [p for p in resolved if p and p.lower().endswith(ATTACHMENT_SUFFIXES)]
    # FORMAT.md's 251 attachment embeds, minus the one in callout code and the absent video,
    # plus the two Markdown images.
    assert len(to_attachments) == 251 - 1 - 1 + 2
    assert all(p is None or p.startswith("Attachments/") or p.endswith(".md") for p in resolved)
    same_note = [(path, link) for path, link in all_links(documents) if link.target == ""]
    assert all(resolver.resolve("", path) == path for path, _ in same_note)


def test_wikilink_counts_against_format_md(wikilinks: list[FoundLink]) -> None:
    # Matched exactly: headings, same-note, nested, blocks, folder paths.
    assert sum(link.heading is not None for link in wikilinks) == 657
    assert sum(link.target == "" for link in wikilinks) == 144  # 143 headings + 1 block
    assert sum(link.heading is not None and "#" in link.heading for link in wikilinks) == 4
    assert sum(link.block is not None for link in wikilinks) == 14
    assert sum("/" in link.target for link in wikilinks) == 33
    # The two links in callout code are not counted (see the module docstring): one fewer
    # embed and sized image, two fewer links, display texts and escaped pipes.
    assert len(wikilinks) == 1809 - 2
    assert sum(link.kind == EMBED for link in wikilinks) == 284 - 1
    assert sum(link.display is not None for link in wikilinks) == 810 - 2
    assert sum("\\|" in link.raw for link in wikilinks) == 46 - 2
    sized = [
        link
        for link in wikilinks
        if link.kind == EMBED and link.display is not None and link.display.isdigit()
    ]
    assert len(sized) == 15 - 1


def test_markdown_links_to_vault_files(found: list[tuple[str, FoundLink]]) -> None:
    markdown = [
        (path, link.target, link.heading, link.kind)
        for path, link in found
        if not link.raw.lstrip("!").startswith("[[")
    ]
    assert markdown == [
        ("Bases/Introduction to Bases.md", "bases-noshadow.png", "interface", EMBED),
        ("Bases/Layouts/Table view.md", "bases-noshadow.png", "interface", EMBED),
        ("Linking notes and files/Internal links.md", "Example.md", None, LINK),
        ("Linking notes and files/Internal links.md", "Example.md", "Details", LINK),
    ]


def test_tags(vault: Path, documents: dict[str, ParsedDocument]) -> None:
    tagged = {path: doc.tags for path, doc in documents.items() if doc.tags}
    assert tagged == {
        "Editing and formatting/Tags.md": (
            "y1984",
            "tag",
            "camelCase",
            "PascalCase",
            "snake_case",
            "kebab-case",
        )
    }
    # 10 inline tag tokens (FORMAT.md's 11 minus #ff0000, which sits in a callout's code block).
    body = read_frontmatter(
        (vault / "Editing and formatting/Tags.md").read_text(encoding="utf-8"), "Tags.md"
    ).body
    assert len(find_links_and_tags(body)[1]) == 10


def test_sections_name_their_headings(documents: dict[str, ParsedDocument]) -> None:
    note = documents["Linking notes and files/Internal links.md"]
    headings = [f.metadata["heading"] for f in note.fragments]
    assert headings[0] == ""
    assert "Link to a heading in a note" in headings
    assert all(len(f.content) <= 2000 for doc in documents.values() for f in doc.fragments)
