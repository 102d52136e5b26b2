"""Notes into fragments: heading sections, chunking, fragment fields, and stable ids."""

from __future__ import annotations

from pathlib import Path

import pytest

from memex_core.domain import ROLES, Fragment, ParsedDocument
from memex_obsidian import document_id
from memex_obsidian.note import parse_note
from memex_obsidian.sections import heading_of, split_sections

VAULT = Path("/vault")


def parse(text: str, rel_path: str = "Folder/My Note.md", max_chars: int = 2000) -> ParsedDocument:
    return parse_note(text, vault=VAULT, rel_path=rel_path, mtime=1.0, max_chars=max_chars)


NOTE = """Intro line.

# Top
Top text.

## Child
Child text.

```python
# not a heading
```

### Grandchild
Deep.

## Sibling
> # not a section heading either
Sibling text.

# Second top
"""


def test_sections_follow_headings_outside_code_and_quotes() -> None:
    sections = split_sections(NOTE)
    assert [(s.index, s.heading) for s in sections] == [
        (0, ""),
        (1, "Top"),
        (2, "Top > Child"),
        (3, "Top > Child > Grandchild"),
        (4, "Top > Sibling"),
        (5, "Second top"),
    ]
    assert sections[2].text.startswith("## Child\nChild text.\n\n```python\n# not a heading")
    assert "".join(s.text for s in sections) == NOTE  # nothing lost, nothing repeated
    assert all(NOTE[s.start : s.end] == s.text for s in sections)


def test_a_note_without_headings_is_one_section() -> None:
    assert [(s.index, s.heading, s.text) for s in split_sections("Just text")] == [
        (0, "", "Just text")
    ]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("# Title", (1, "Title")),
        ("###### Six", (6, "Six")),
        ("   ## Indented three", (2, "Indented three")),
        ("## Closed ##", (2, "Closed")),
        ("## C#", (2, "C#")),
        ("#", (1, "")),
        ("#tag", None),
        ("####### Seven", None),
        ("    # four spaces is code", None),
    ],
)
def test_heading_of(line: str, expected: tuple[int, str] | None) -> None:
    assert heading_of(line) == expected


def test_fragments_carry_title_heading_and_provenance() -> None:
    document = parse("---\ntags: [t]\n---\nIntro.\n\n# Top\nText [[Link]]\n\n## Child\nMore")
    assert document.id == document_id(VAULT, "Folder/My Note.md")
    assert document.title == "My Note" and document.path == "Folder/My Note.md"
    assert [f.content for f in document.fragments] == [
        "Intro.",
        "# Top\nText [[Link]]",
        "## Child\nMore",
    ]
    child = document.fragments[2]
    assert child.role == "note" and "note" in ROLES
    assert child.conversation_id == document.id
    assert child.title == "My Note"
    assert child.index_text == "My Note\nTop > Child\n## Child\nMore"
    assert document.fragments[0].index_text == "My Note\nIntro."
    assert child.searchable_text == child.index_text
    assert child.metadata == {
        "note_path": "Folder/My Note.md",
        "heading": "Top > Child",
        "section_index": 2,
        "tags": ["t"],
    }
    assert child.provenance.source_kind == "obsidian"
    assert child.provenance.source_path == str(VAULT.resolve())
    assert child.provenance.source_id == "Folder/My Note.md"
    assert child.provenance.locator == "Folder/My Note.md#s2"


def test_an_empty_intro_keeps_section_numbers_but_makes_no_fragment() -> None:
    document = parse("\n\n# Only\nText")
    assert [f.provenance.locator for f in document.fragments] == ["Folder/My Note.md#s1"]


def test_a_heading_alone_is_still_a_fragment() -> None:
    document = parse("# Empty section\n# Next\nText")
    assert [f.content for f in document.fragments] == ["# Empty section", "# Next\nText"]


def test_an_empty_note_has_no_fragments() -> None:
    document = parse("---\naliases: [A]\n---\n\n")
    assert document.fragments == [] and document.aliases == ("A",)


def long_section(title: str, paragraphs: int) -> str:
    body = "\n\n".join(f"Paragraph {i}. " + "word " * 90 for i in range(paragraphs))
    return f"# {title}\n\n{body}\n"


def test_long_sections_are_chunked_and_linked() -> None:
    document = parse("Intro.\n\n" + long_section("Long", 12) + "# After\nShort.")
    chunks = [f for f in document.fragments if f.metadata["heading"] == "Long"]
    assert len(chunks) > 2
    assert all(len(f.content) <= 2000 for f in chunks)
    assert chunks[0].content.startswith("# Long")
    for index, chunk in enumerate(chunks):
        assert chunk.provenance.locator == f"Folder/My Note.md#s1.c{index}"
        assert chunk.metadata["chunk_index"] == index
        assert chunk.metadata["chunk_count"] == len(chunks)
        assert chunk.metadata["prev_id"] == (chunks[index - 1].id if index else None)
        following = chunks[index + 1].id if index + 1 < len(chunks) else None
        assert chunk.metadata["next_id"] == following
        assert chunk.index_text == f"My Note\nLong\n{chunk.content}"
    after = document.fragments[-1]
    assert after.provenance.locator == "Folder/My Note.md#s2"
    assert "chunk_index" not in after.metadata


def test_max_chars_is_configurable() -> None:
    document = parse(long_section("Long", 3), max_chars=500)
    assert len(document.fragments) == 3  # one 460-char paragraph each
    assert all(len(f.content) <= 500 for f in document.fragments)


def ids(document: ParsedDocument) -> dict[str, str]:
    return {f.provenance.locator: f.id for f in document.fragments}


def test_ids_are_stable_for_unchanged_sections() -> None:
    before = parse("Intro\n# A\nalpha\n# B\nbeta\n" + long_section("C", 8))
    again = parse("Intro\n# A\nalpha\n# B\nbeta\n" + long_section("C", 8))
    edited = parse("Intro\n# A\nalpha CHANGED\n# B\nbeta\n" + long_section("C", 8))
    assert ids(before) == ids(again)
    changed = {loc for loc in ids(before) if ids(before)[loc] != ids(edited)[loc]}
    assert changed == {"Folder/My Note.md#s1"}
    assert len(set(ids(before).values())) == len(ids(before))


def test_ids_differ_between_notes_and_vaults() -> None:
    one = parse("# A\nsame", "One.md")
    two = parse("# A\nsame", "Two.md")
    elsewhere = parse_note("# A\nsame", vault=Path("/other"), rel_path="One.md")
    assert one.fragments[0].id != two.fragments[0].id != elsewhere.fragments[0].id
    assert one.id != elsewhere.id


def test_document_id_formula(tmp_path: Path) -> None:
    import hashlib

    expected = hashlib.blake2b(
        f"{tmp_path.resolve()}\x1fA/B.md".encode(), digest_size=8
    ).hexdigest()
    assert document_id(tmp_path, "A/B.md") == "obsidian-" + expected
    assert document_id(tmp_path / "." / "x" / "..", "A/B.md") == document_id(tmp_path, "A/B.md")


def test_fragments_are_frozen_domain_fragments() -> None:
    fragment = parse("# A\ntext").fragments[0]
    assert isinstance(fragment, Fragment)
    with pytest.raises(AttributeError):
        fragment.content = "x"  # type: ignore[misc]
