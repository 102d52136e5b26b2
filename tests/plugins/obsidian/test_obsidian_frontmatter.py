"""Frontmatter: aliases, tags and properties in every shape, dates, and broken YAML."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memex_core.domain import ParsedDocument
from memex_core.source_kit import SkippedItemWarning
from memex_obsidian.frontmatter import json_safe, split_frontmatter
from memex_obsidian.note import parse_note

MTIME = 1_700_000_000.0


def parse(text: str, rel_path: str = "Note.md") -> ParsedDocument:
    return parse_note(text, vault=Path("/vault"), rel_path=rel_path, mtime=MTIME)


def utc(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()


@pytest.mark.parametrize(
    ("yaml_aliases", "expected"),
    [
        ("aliases:\n  - One\n  - Two", ("One", "Two")),
        ("aliases: [One, Two]", ("One", "Two")),
        ("aliases: Fold", ("Fold",)),  # a plain string (Folding.md in the help vault)
        ("aliases: File formats", ("File formats",)),  # not split at the space
        ("aliases:", ()),  # YAML null
        ("aliases: []", ()),
        ("aliases:\n  - How to/Internal link\n  -\n  - 2024", ("How to/Internal link", "2024")),
        ("aliases: [Same, Same]", ("Same",)),
    ],
)
def test_aliases(yaml_aliases: str, expected: tuple[str, ...]) -> None:
    document = parse(f"---\n{yaml_aliases}\n---\nBody")
    assert document.aliases == expected
    assert "aliases" not in document.properties


@pytest.mark.parametrize(
    ("yaml_tags", "expected"),
    [
        ("tags:\n  - recipe\n  - cooking", ("recipe", "cooking")),
        ("tags: [recipe, '#cooking']", ("recipe", "cooking")),
        ("tags: recipe", ("recipe",)),
        ("tags: recipe, cooking", ("recipe", "cooking")),
        ("tags: recipe cooking", ("recipe", "cooking")),
        ("tags:", ()),
        ("tags: [inbox/to-read, Recipe, recipe]", ("inbox/to-read", "Recipe")),
    ],
)
def test_frontmatter_tags(yaml_tags: str, expected: tuple[str, ...]) -> None:
    document = parse(f"---\n{yaml_tags}\n---\nBody")
    assert document.tags == expected
    assert "tags" not in document.properties


def test_frontmatter_and_inline_tags_merge_case_insensitively() -> None:
    document = parse("---\ntags: [Project]\n---\nA #project note with #todo and #TODO.")
    assert document.tags == ("Project", "todo")
    assert all(fragment.metadata["tags"] == ["Project", "todo"] for fragment in document.fragments)


def test_other_properties_are_kept_json_serialisable() -> None:
    document = parse(
        "---\n"
        "permalink: links\n"
        "publish: true\n"
        "cssclasses:\n  - soft-embed\n"
        "date: 2024-05-01\n"
        "when: 2024-05-01T09:30:00\n"
        "nested: {a: [1, 2.5, null], 3: x}\n"
        "---\nBody"
    )
    assert document.properties == {
        "permalink": "links",
        "publish": True,
        "cssclasses": ["soft-embed"],
        "date": "2024-05-01",
        "when": "2024-05-01T09:30:00",
        "nested": {"a": [1, 2.5, None], "3": "x"},
    }
    json.dumps(document.properties, allow_nan=False)


def test_json_safe_converts_what_json_cannot_hold() -> None:
    assert json_safe({1: {b"\x00\x01"}, "f": float("inf")}) == {"1": ["AAE="], "f": "inf"}


@pytest.mark.parametrize(
    ("front", "expected"),
    [
        ("date: 2024-05-01", utc("2024-05-01T00:00:00")),
        ("created: 2024-05-01T09:30:00", utc("2024-05-01T09:30:00")),
        ("updated: '2024-05-01T09:30:00Z'", utc("2024-05-01T09:30:00")),
        ("created: '2024-05-01T11:30:00+02:00'", utc("2024-05-01T09:30:00")),
        ("date: not a date\ncreated: 2023-01-02", utc("2023-01-02T00:00:00")),
        ("Date: 2024-05-01", utc("2024-05-01T00:00:00")),  # keys compared case-insensitively
        ("date: 2024", MTIME),  # a bare number is not taken as epoch seconds
        ("date: someday", MTIME),
        ("title: x", MTIME),
    ],
)
def test_timestamp_from_frontmatter_else_mtime(front: str, expected: float) -> None:
    document = parse(f"---\n{front}\n---\nBody")
    assert document.timestamp == expected
    assert {fragment.timestamp for fragment in document.fragments} == {expected}
    assert {fragment.provenance.timestamp for fragment in document.fragments} == {expected}


def test_broken_yaml_warns_with_file_and_line_and_still_reads_the_note() -> None:
    text = "---\naliases: [One\npublish: true\n---\n# Heading\nBody [[Link]] #tag"
    with pytest.warns(SkippedItemWarning) as caught:
        document = parse(text, "Folder/Broken.md")
    message = str(caught[0].message)
    assert "Folder/Broken.md" in message
    assert "(line 3)" in message  # where YAML noticed the missing "]"
    assert "not valid YAML" in message and "still indexed" in message
    assert document.aliases == () and document.properties == {}
    assert document.tags == ("tag",)
    assert [link.target for link in document.links] == ["Link"]
    assert "aliases" not in "".join(fragment.content for fragment in document.fragments)


def test_frontmatter_that_is_not_a_mapping_is_ignored_with_a_warning() -> None:
    with pytest.warns(SkippedItemWarning, match="instead of key: value"):
        document = parse("---\n- a\n- b\n---\nBody")
    assert document.properties == {} and document.fragments[0].content == "Body"


def test_empty_frontmatter_is_fine() -> None:
    document = parse("---\n---\nBody")
    assert document.properties == {} and document.fragments[0].content == "Body"


@pytest.mark.parametrize(
    "text",
    [
        "No frontmatter\n---\nnot: yaml\n---",
        "---\nnever closed: true\nBody",
        " ---\nindented: no\n---\nBody",
        "----\nfour: dashes\n---\nBody",
    ],
)
def test_text_that_is_not_frontmatter_stays_in_the_body(text: str) -> None:
    yaml_text, body, line = split_frontmatter(text)
    assert yaml_text is None and body == text and line == 1


def test_split_frontmatter_reports_where_the_body_starts() -> None:
    assert split_frontmatter("---\na: 1\nb: 2\n---\nBody") == ("a: 1\nb: 2", "Body", 5)


def test_bom_and_windows_line_endings() -> None:
    document = parse("\ufeff---\r\naliases: [A]\r\n---\r\n# H\r\nText\r\n")
    assert document.aliases == ("A",)
    assert document.fragments[-1].content == "# H\nText"
