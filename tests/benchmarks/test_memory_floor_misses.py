"""The floor-miss diagnostic's grouping: why recall missed the fact that answers."""

from __future__ import annotations

from benchmarks.memory_floor_misses import Miss, _words


def _miss(cosine: float | None, nothing: bool) -> Miss:
    asked = ("Where is our code hosted?", "In 2022 we kept everything on GitLab")
    return Miss("c", "broad", "as_of", *asked, cosine, [], "other", 0.417, nothing, [])


def test_a_miss_is_grouped_by_what_was_kept_and_how_near_the_floor_the_fact_was() -> None:
    assert _miss(0.30, nothing=True).cause == "nothing cleared, near"  # 0.417 - 0.12 = 0.297
    assert _miss(0.16, nothing=True).cause == "nothing cleared, far"
    assert _miss(0.30, nothing=False).cause == "others kept, near"
    assert _miss(None, nothing=False).cause == "others kept, far"


def test_the_words_a_question_shares_with_a_fact_leave_out_question_words() -> None:
    shared = _words("What uptime do we promise?") & _words("Our API SLA is 99.5% uptime")
    assert shared == {"uptime"}
