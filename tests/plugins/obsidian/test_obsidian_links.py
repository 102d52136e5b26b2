"""Links in notes: every wikilink, embed and Markdown-link form, and code masking around them."""

from __future__ import annotations

from pathlib import Path

import pytest

from memex_core.domain import EMBED, LINK, Link, ParsedDocument
from memex_obsidian.markdown_scan import fenced_lines, mask_code
from memex_obsidian.note import find_links_and_tags, parse_note

Found = tuple[str, str, str | None, str | None, str | None]  # target, kind, heading, block, display


def links_of(body: str) -> list[Found]:
    found, _ = find_links_and_tags(body)
    return [(link.target, link.kind, link.heading, link.block, link.display) for link in found]


def parse(text: str, rel_path: str = "Folder/Note.md") -> ParsedDocument:
    return parse_note(text, vault=Path("/vault"), rel_path=rel_path, mtime=0.0)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("[[Note]]", ("Note", LINK, None, None, None)),
        ("[[Note|shown text]]", ("Note", LINK, None, None, "shown text")),
        ("[[Note#Heading]]", ("Note", LINK, "Heading", None, None)),
        ("[[#Heading]]", ("", LINK, "Heading", None, None)),
        ("[[Note#H1#H2]]", ("Note", LINK, "H1#H2", None, None)),
        ("[[Note#^block-id]]", ("Note", LINK, None, "block-id", None)),
        ("[[#^abc|here]]", ("", LINK, None, "abc", "here")),
        ("[[Note#Heading|shown]]", ("Note", LINK, "Heading", None, "shown")),
        ("![[embed]]", ("embed", EMBED, None, None, None)),
        ("![[Note#Section]]", ("Note", EMBED, "Section", None, None)),
        ("![[img.png|600]]", ("img.png", EMBED, None, None, "600")),
        ("![[img.png#interface|600]]", ("img.png", EMBED, "interface", None, "600")),
        ("[[Folder/Note]]", ("Folder/Note", LINK, None, None, None)),
        ("[[Three laws of motion.md]]", ("Three laws of motion.md", LINK, None, None, None)),
        ("| a | [[Note\\|alias]] |", ("Note", LINK, None, None, "alias")),
        ("| ![[img.png\\|100]] |", ("img.png", EMBED, None, None, "100")),
        ("[[ Note | spaced ]]", ("Note", LINK, None, None, "spaced")),
        ("[[Note|a|b]]", ("Note", LINK, None, None, "a|b")),  # only the first pipe splits
        ("[[Filters#`wikilink`|wikilink]]", ("Filters", LINK, "`wikilink`", None, "wikilink")),
    ],
)
def test_wikilink_forms(body: str, expected: Found) -> None:
    assert links_of(f"Before {body} after.") == [expected]


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("[text](Note.md)", ("Note.md", LINK, None, None, "text")),
        (
            "[text](Folder/My%20Note.md#Some%20Heading)",
            ("Folder/My Note.md", LINK, "Some Heading", None, "text"),
        ),
        ("[text](<My Note.md>)", ("My Note.md", LINK, None, None, "text")),
        ("[text](Note.md#^blk)", ("Note.md", LINK, None, "blk", "text")),
        ("[same note](#Heading)", ("", LINK, "Heading", None, "same note")),
        ('[t](Note.md "a title")', ("Note.md", LINK, None, None, "t")),
        ("[t](Three%20laws%20of%20motion)", ("Three laws of motion", LINK, None, None, "t")),
        ("![alt](bases.png#interface)", ("bases.png", EMBED, "interface", None, "alt")),
        ("![](img.png)", ("img.png", EMBED, None, None, None)),
        ("[a %23 b](C%23%20notes.md)", ("C# notes.md", LINK, None, None, "a %23 b")),
        ("[[a] b](Note.md)", ("Note.md", LINK, None, None, "[a] b")),
    ],
)
def test_markdown_link_forms(body: str, expected: Found) -> None:
    assert links_of(f"See {body} here.") == [expected]


@pytest.mark.parametrize(
    "body",
    [
        "[site](https://help.obsidian.md)",
        "[site](<https://example.com/a page>)",
        "[mail](mailto:support@obsidian.md)",
        "[uri](obsidian://open?vault=Main&file=Note.md)",
        "[uri](<obsidian://open?vault=Main&file=My Note.md>)",
        "[proto](//example.com/x)",
        "[empty]()",
        "https://example.com/page#anchor",
        "[[]] and [[|only display]] and [[#]]",
        "Use \\[\\[Wikilinks\\]\\] escaped",
        "[ref][1] reference-style",
    ],
)
def test_not_vault_links(body: str) -> None:
    assert links_of(body) == []


def test_links_in_code_are_not_links() -> None:
    body = "\n".join(
        [
            "Inline `[[Code link]]` and ``[[Double `tick` code]]`` are examples.",
            "```md",
            "[[Fenced]] ![[fenced.png]] [x](Fenced.md)",
            "```",
            "~~~~",
            "[[Tilde fenced]]",
            "~~~~",
            "- list item",
            "    ```",
            "    [[In list fence]]",
            "    ```",
            "> [!example] Callout",
            "> ```css",
            "> [[In callout fence]]",
            "> ```",
            "[[Real]] and [text](Real%202.md)",
        ]
    )
    assert [target for target, *_ in links_of(body)] == ["Real", "Real 2.md"]


def test_unmatched_backticks_and_paragraph_breaks_do_not_hide_links() -> None:
    # A code span never crosses a blank line; an escaped backtick opens none.
    body = "A lone ` backtick [[One]]\n\nnext ` [[Two]]\n\n\\`escaped [[Three]]\\`"
    assert [target for target, *_ in links_of(body)] == ["One", "Two", "Three"]


def test_a_fence_in_a_blockquote_ends_with_the_blockquote() -> None:
    body = "> ```\n> [[Hidden]]\n\n[[Visible]]"
    assert [target for target, *_ in links_of(body)] == ["Visible"]


def test_an_unclosed_fence_runs_to_the_end() -> None:
    assert links_of("[[Before]]\n```\n[[Never]]\n\n[[Still code]]") == [
        ("Before", LINK, None, None, None)
    ]


def test_mask_code_keeps_length_and_line_breaks() -> None:
    text = "a `code` b\n```\nx\n```\nc"
    masked = mask_code(text)
    assert len(masked) == len(text)
    assert masked.split("\n")[0] == "a        b"
    assert [len(line) for line in masked.split("\n")] == [len(line) for line in text.split("\n")]
    assert fenced_lines(text.split("\n")) == [False, True, True, True, False]


def test_a_longer_fence_is_not_closed_by_a_shorter_one() -> None:
    lines = ["````", "```", "[[x]]", "````", "after"]
    assert fenced_lines(lines) == [True, True, True, True, False]


def test_links_keep_note_order_and_repeats() -> None:
    body = "[b](B.md) then [[A]] then ![[C.png]] then [[A]]"
    assert [target for target, *_ in links_of(body)] == ["B.md", "A", "C.png", "A"]


def test_each_link_belongs_to_the_fragment_it_is_in() -> None:
    document = parse("Intro [[Zero]]\n\n# First\n[[One]] and [[#First]]\n\n## Sub\n![[two.png]]\n")
    by_id = {fragment.id: fragment for fragment in document.fragments}
    placed = [
        (by_id[link.source_fragment_id].metadata["heading"], link.target)
        for link in (document.links)
    ]
    assert placed == [("", "Zero"), ("First", "One"), ("First", ""), ("First > Sub", "two.png")]
    assert document.links[1] == Link(document.fragments[1].id, "One")


def test_links_of_a_chunked_section_belong_to_their_chunk() -> None:
    paragraphs = [f"Paragraph {i} links [[Target {i}]]. " + "filler " * 60 for i in range(12)]
    document = parse("# Long\n\n" + "\n\n".join(paragraphs))
    chunks = {fragment.id: fragment for fragment in document.fragments}
    assert len(chunks) > 1
    assert len(document.links) == 12
    for link in document.links:
        assert f"[[{link.target}]]" in chunks[link.source_fragment_id].content
