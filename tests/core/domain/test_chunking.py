from __future__ import annotations

from itertools import pairwise

from memex_core.domain.chunking import message_fragments, split_text


def test_short_text_is_one_piece() -> None:
    assert split_text("  hello  ") == ["hello"]
    assert split_text("") == []


def test_long_text_splits_at_paragraphs_within_the_limit() -> None:
    paragraphs = [f"Paragraph {i}. " + "word " * 80 for i in range(20)]
    pieces = split_text("\n\n".join(paragraphs), max_chars=2000)
    assert len(pieces) > 1
    assert all(len(p) <= 2000 for p in pieces)
    assert all(p.startswith("Paragraph") for p in pieces)  # cut at paragraph boundaries
    assert " ".join(" ".join(pieces).split()) == " ".join(" ".join(paragraphs).split())


def test_a_single_huge_word_is_cut_hard() -> None:
    pieces = split_text("x" * 4500, max_chars=2000)
    assert [len(p) for p in pieces] == [2000, 2000, 500]


def test_chunks_know_their_neighbours_and_ids_are_stable() -> None:
    text = "\n\n".join("para " + str(i) + " " + "lorem " * 100 for i in range(12))
    kwargs = dict(
        source_kind="t",
        source_path="p",
        conversation_id="c",
        message_id="m",
        role="user",
        text=text,
        timestamp=1.0,
        title="T",
    )
    chunks = list(message_fragments(**kwargs))
    assert len(chunks) > 1
    assert [c.metadata["chunk_index"] for c in chunks] == list(range(len(chunks)))
    assert chunks[0].metadata["prev_id"] is None and chunks[-1].metadata["next_id"] is None
    for left, right in pairwise(chunks):
        assert left.metadata["next_id"] == right.id and right.metadata["prev_id"] == left.id
    assert [c.id for c in message_fragments(**kwargs)] == [c.id for c in chunks]
    assert len({c.id for c in chunks}) == len(chunks)


def test_whole_text_with_its_own_source_id_and_index_text() -> None:
    text = "    indented output line\n" + "x" * 5000
    (fragment,) = message_fragments(
        source_kind="k",
        source_path="p",
        conversation_id="c",
        message_id="m",
        role="tool",
        text=text,
        timestamp=None,
        title=None,
        max_chars=None,
        source_id="session-1",
        index_text=lambda piece: piece[:10],
    )
    assert fragment.content == text  # not split, not stripped
    assert fragment.provenance.source_id == "session-1"
    assert fragment.index_text == text[:10]
    assert fragment.metadata == {"message_id": "m"}
