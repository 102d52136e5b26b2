"""The rerank's document cues: the question's words in the title, one sentence, as pairs,
and weighted by how few candidates hold them."""

from __future__ import annotations

import pytest

from memex_rerank.doc_features import DOC_NAMES, document_rows

QUESTION = "Aspirin lowers blood pressure in adults"  # stems: aspir lower blood press adult


def cues(texts: list[str], titles: list[str | None] | None = None) -> list[dict[str, float]]:
    rows = document_rows(QUESTION, texts, titles or [None] * len(texts))
    return [dict(zip(DOC_NAMES, row, strict=True)) for row in rows]


def test_the_title_counts_the_questions_words_it_holds() -> None:
    (row,) = cues(["Text."], ["Aspirin and blood pressure"])
    assert row["title_overlap"] == pytest.approx(3 / 5)
    (untitled,) = cues(["Text."])
    assert untitled["title_overlap"] == 0.0


def test_the_best_single_sentence_counts_not_the_whole_text() -> None:
    spread, together = cues(
        [
            "Aspirin was given. Blood was drawn. Pressure rose. Adults only.",
            "Nothing here. Aspirin lowers blood pressure in adults. Other words.",
        ]
    )
    assert spread["sentence_overlap"] == pytest.approx(1 / 5)
    assert together["sentence_overlap"] == pytest.approx(1.0)


def test_adjacent_pairs_count_in_either_order_skipping_other_words() -> None:
    in_order, reversed_, apart = cues(
        [
            "Blood pressure fell.",  # blood-press, the question's own pair
            "The pressure of the blood fell.",  # press-blood: the same pair reversed
            "Blood samples were taken; pressure was not measured; aspirin ...",
        ]
    )
    # the question's pairs: aspir-lower, lower-blood, blood-press, press-adult
    assert in_order["pair_overlap"] == pytest.approx(1 / 4)
    assert reversed_["pair_overlap"] == pytest.approx(1 / 4)
    # "blood ... pressure ... aspirin": only the question's words count, so these are
    # adjacent too (blood-press, press-aspir); press-aspir is no pair of the question.
    assert apart["pair_overlap"] == pytest.approx(1 / 4)


def test_words_every_candidate_holds_weigh_nothing() -> None:
    rare, common = cues(["aspirin and blood", "blood only"])
    # blood: in both (weight 0); aspirin: in one of two (weight 0.5); the rest in none (1)
    assert rare["rare_overlap"] == pytest.approx(0.5 / (0 + 0.5 + 1 + 1 + 1))
    assert common["rare_overlap"] == 0.0


def test_no_candidates_no_rows_and_a_question_without_content_words_reads_zero() -> None:
    assert document_rows(QUESTION, [], []) == []
    assert document_rows("what is it?", ["Aspirin."], ["Aspirin"]) == [[0.0, 0.0, 0.0, 0.0]]
