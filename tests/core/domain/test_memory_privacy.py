"""<private> blocks are removed before memory is stored, failing closed."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memex_core.domain.memory.privacy import PrivateStripped, has_private_marker, strip_private


@pytest.mark.parametrize(
    ("text", "expected", "removed"),
    [
        ("no markers here", "no markers here", 0),
        ("", "", 0),
        ("my pin is <private>1234</private> ok", "my pin is ok", 1),
        ("my pin is <private>1234</private>, ok", "my pin is, ok", 1),
        ("the key<private>abc</private>.", "the key.", 1),
        ("<private>secret</private> starts", "starts", 1),
        ("ends <private>secret</private>", "ends", 1),
        ("<private>only</private>", "", 1),
        ("a <PRIVATE>x</Private> b", "a b", 1),
        ('a <private reason="medical">x</private> b', "a b", 1),
        ("a < private >x</ private > b", "a b", 1),
        ("a <private\n>x</private> b", "a b", 1),
        ("line 1\n<private>\nsecret\nlines\n</private>\nline 2", "line 1\nline 2", 1),
        ("para 1\n\n<private>\nsecret\n</private>\n\npara 2", "para 1\n\npara 2", 1),
        ("a <private>x <private>y</private> z</private> b", "a b", 1),
        ("a <private>x</private> b <private>y</private> c", "a b c", 2),
        ("a <private>x</private><private>y</private> b", "a b", 2),
        ("keep <private>everything after is gone", "keep", 1),
        ("keep <private reason='x'", "keep", 1),
        ("keep <private>x <private>y</private> still hidden", "keep", 1),
        ("a </private> b", "a b", 0),
        ("a <private/> b", "a b", 0),
        ("a <privateer> b", "a <privateer> b", 0),
        ("a <private-notes>x</private-notes> b", "a <private-notes>x</private-notes> b", 0),
        ("private matters", "private matters", 0),
        ("a\r\n<private>x</private>\r\nb", "a\r\nb", 1),
        ("a\r\n\r\n<private>\r\nx\r\n</private>\r\n\r\nb", "a\r\n\r\nb", 1),
        ("a <private>x</private>\nb", "a\nb", 1),
        ("a\n<private>x</private> b", "a\nb", 1),
        ("a </private\n<private>x</private> b", "a b", 1),
        ("keep <<private>x</private>private> tail", "keep", 2),  # no tag is rebuilt
    ],
)
def test_strip_private(text: str, expected: str, removed: int) -> None:
    assert strip_private(text) == PrivateStripped(expected, removed)


def test_text_without_markers_is_returned_untouched() -> None:
    text = "  spaced   out\n\n\n  text \t\n"
    assert strip_private(text).text == text


def test_has_private_marker() -> None:
    assert has_private_marker("x <private>y</private>")
    assert has_private_marker("x </PRIVATE>")
    assert has_private_marker("x <private reason='a'")
    assert not has_private_marker("x <privateer> private y")
    assert not has_private_marker("")


# --- property: nothing inside a block survives --------------------------------

MARKER = "ZZZ"
# Pieces of surrounding text: anything, tags included, but never the marker's letter.
_OUTSIDE = st.lists(
    st.sampled_from(
        [
            *"abc <>/=\"'\n\t.,",
            "private",
            "PRIVATE",
            "<private>",
            "</private>",
            "<private ",
            "</private",
            "<private/>",
            "< /private >",
        ]
    ),
    max_size=20,
).map("".join)
# Inside a block: anything but a closing tag (which would end the block before the marker).
_INSIDE = st.lists(
    st.sampled_from([*"abc <>=\"'\n\t.,", "private", "<private>", "<PRIVATE x='1'>"]),
    max_size=10,
).map("".join)
_OPENERS = st.sampled_from(["<private>", "<PRIVATE>", '<private reason="x">', "< private\n>"])
_CLOSERS = st.sampled_from(["</private>", "</PRIVATE >", "< / private>", ""])  # "" = unclosed


@settings(max_examples=500)
@given(_OUTSIDE, _OPENERS, _INSIDE, _INSIDE, _CLOSERS, _OUTSIDE)
def test_marker_inside_a_block_never_survives(
    before: str, opener: str, inside1: str, inside2: str, closer: str, after: str
) -> None:
    text = f"{before}{opener}{inside1}{MARKER}{inside2}{closer}{after}"
    result = strip_private(text)
    assert MARKER not in result.text
    assert result.removed >= 1
    assert has_private_marker(text)


@given(_OUTSIDE)
def test_output_has_no_tags_left_and_stripping_is_idempotent(text: str) -> None:
    once = strip_private(text)
    assert not has_private_marker(once.text)
    assert strip_private(once.text) == PrivateStripped(once.text, 0)
