"""Inline #tags: Obsidian's rules, code masking, and merging."""

from __future__ import annotations

import pytest

from memex_obsidian.note import find_links_and_tags
from memex_obsidian.tags import is_valid_tag, merge_tags, tags_from_property


def inline_tags(body: str) -> list[str]:
    return find_links_and_tags(body)[1]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("#tag", ["tag"]),
        ("text #tag, more", ["tag"]),
        ("#inbox/to-read and #inbox/processing", ["inbox/to-read", "inbox/processing"]),
        (
            "#camelCase #PascalCase #snake_case #kebab-case",
            ["camelCase", "PascalCase", "snake_case", "kebab-case"],
        ),
        ("#y1984 but not #1984", ["y1984"]),
        ("#café and #日本語 and #🚀rocket", ["café", "日本語", "🚀rocket"]),
        ("(#paren) word#glued", []),  # must follow whitespace or start a line
        ("#tag. #other! #q?", ["tag", "other", "q"]),  # punctuation ends a tag
        ("> callout #quoted", ["quoted"]),
        ("- [ ] task #todo", ["todo"]),
        ("## Heading #in-heading", ["in-heading"]),
    ],
)
def test_inline_tags(body: str, expected: list[str]) -> None:
    assert inline_tags(body) == expected


@pytest.mark.parametrize(
    "body",
    [
        "# Heading\n## Second\n###### Sixth",
        "`#code` and ``#more code``",
        "```\n#fenced\n```",
        "> ```css\n> border-color: #ff0000;\n> ```",
        "[[Note#Heading]] [[#Same note]] ![[img.png#interface]]",
        "[text](Note.md#heading) [web](https://example.com/#anchor)",
        "https://example.com/#/route &#123; C# x#y",
        "#123 #2024/05",
    ],
)
def test_not_tags(body: str) -> None:
    assert inline_tags(body) == []


def test_a_code_span_right_before_a_hash_is_not_whitespace() -> None:
    assert inline_tags("`x`#tag") == []


def test_is_valid_tag() -> None:
    assert is_valid_tag("y1984") and is_valid_tag("a/1") and not is_valid_tag("1984")


def test_tags_from_property_shapes() -> None:
    assert tags_from_property(["a", "#b", None, 3, ["x"]]) == ["a", "b", "3"]
    assert tags_from_property("a, #b c") == ["a", "b", "c"]
    assert tags_from_property(None) == []


def test_merge_keeps_first_spelling_and_order() -> None:
    assert merge_tags(["Tag"], ["tag", "TAG", "other", "Other"]) == ("Tag", "other")
