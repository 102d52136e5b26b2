"""Memory recall keeps a fact near the relevance floor beside a kept fact of its owner
(``[search] floor_near``, issue 30).

A home with the embedding doubles (hashing: similarity from shared words, stopwords
included, so a fact can be close to the question without holding any of its keywords), a
fixed floor of 0.5 and the ``none`` supersession judge: facts stay current, ``as_of`` reads
them by their ``valid_from`` alone. ``floor_kin`` is off so that only this rule decides.
"""

from __future__ import annotations

from pathlib import Path

from memex_core.api import Memex
from tests.support.component_doubles import fast_memex

DAY = 86400.0
T0 = 1_700_000_000.0  # 2023-11-14
QUESTION = "Where is our code hosted?"
#: Similarity 0.73 with the question (above the floor), keywords "code" and "hosted".
GITHUB = "Our code is hosted on GitHub"
#: Similarity 0.40 (under the floor, within its band), no keyword of the question ("where"
#: and "our" are stopwords), 0.18 with GITHUB (not its kin).
GITLAB = "Where our repos lived: GitLab"
FLOOR = 0.5


def _memex(home: Path, near: bool) -> Memex:
    return fast_memex(
        home,
        components={"supersession_judge": "none"},
        search={"floor_near": near, "floor_kin": False, "min_semantic_similarity": FLOOR},
    )


def _told(mx: Memex) -> None:
    mx.remember(GITLAB, user="u", at=T0)
    mx.remember(GITHUB, user="u", at=T0 + 30 * DAY)
    mx.remember("My cat is called Tom", user="u", at=T0)
    mx.remember("Our code is hosted on Bitbucket", user="bob", at=T0)


def _texts(mx: Memex, question: str, **options: object) -> list[str]:
    return [h.text for h in mx.recall(question, user="u", **options)]  # type: ignore[arg-type]


def test_an_as_of_question_whose_fact_was_under_the_floor_is_answered(tmp_path: Path) -> None:
    then = "2023-11-20"  # GITLAB holds, GITHUB is not yet valid
    for near in (False, True):
        with _memex(tmp_path / str(near), near) as mx:
            _told(mx)
            assert _texts(mx, QUESTION, as_of=then) == ([GITLAB] if near else [])
            # now: the fact with evidence of its own leads, the one beside it comes after
            assert _texts(mx, QUESTION) == ([GITHUB, GITLAB] if near else [GITHUB])


def test_a_question_about_nothing_in_a_home_of_facts_answers_nothing(tmp_path: Path) -> None:
    with _memex(tmp_path, near=True) as mx:
        _told(mx)
        for question in ("zzqx vvkw", "How big can the giant squid get?", "qqplm"):
            assert _texts(mx, question) == []
            assert _texts(mx, question, as_of="2023-11-20") == []


def test_a_fact_near_the_floor_stays_only_beside_a_kept_fact_of_its_own_owner(
    tmp_path: Path,
) -> None:
    with _memex(tmp_path, near=True) as mx:
        mx.remember(GITHUB, user="u", at=T0)
        mx.remember(GITLAB, user="u", at=T0)
        mx.remember("Where our repos lived: Bitbucket", user="bob", at=T0)
        # an operator's search of every owner's memory: u's near fact stays beside u's kept
        # one, bob's (as near the question) has no kept fact of bob's beside it
        found = mx.search(QUESTION, "hybrid", 10, source="memory", time_phrases=False)
        assert [r.fragment.content for r in found.results] == [GITHUB, GITLAB]
