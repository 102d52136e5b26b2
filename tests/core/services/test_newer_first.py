"""Recall puts the newer of two current facts about the same thing first (issue 30).

A home with the embedding doubles (hashing: similarity from shared words) and the ``none``
supersession judge, so nothing is closed and both facts stay current: only the ranking
(memex_core.services.newer_first) decides which comes first. ``[search] newer_first =
false`` gives the order before it.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from memex_core.api import Memex
from memex_core.domain import SEMANTIC
from memex_core.services.newer_first import newer_first
from tests.support.component_doubles import fast_memex
from tests.support.newer_first_hits import Hit

DAY = 86400.0
T0 = 1_700_000_000.0  # 2023-11-14
#: Both about where tickets live, as close to the question; the earlier one ranks first
#: without the re-ordering.
JIRA, LINEAR = "We track work tickets in Jira", "We track work tickets in Linear"
TICKETS = "Where do we track work tickets?"


def _memex(home: Path, newer_first: bool = True) -> Memex:
    return fast_memex(
        home, components={"supersession_judge": "none"}, search={"newer_first": newer_first}
    )


def _texts(mx: Memex, question: str, **options: object) -> list[str]:
    return [h.text for h in mx.recall(question, user="u", **options)]  # type: ignore[arg-type]


def _told(mx: Memex, *facts: tuple[str, float]) -> None:
    for text, at in facts:
        mx.remember(text, user="u", at=at)
    mx.remember("My cat is called Tom", user="u", at=T0)


def test_two_current_facts_about_one_thing_come_newer_first(tmp_path: Path) -> None:
    with _memex(tmp_path / "off", newer_first=False) as mx:
        _told(mx, (JIRA, T0), (LINEAR, T0 + 30 * DAY))
        assert _texts(mx, TICKETS)[:2] == [JIRA, LINEAR]
    with _memex(tmp_path / "on") as mx:
        _told(mx, (JIRA, T0), (LINEAR, T0 + 30 * DAY))
        assert _texts(mx, TICKETS)[:2] == [LINEAR, JIRA]
        # nothing was closed: both stay current, with their own times
        assert all(h.valid_until is None for h in mx.recall(TICKETS, user="u"))


def test_a_moved_hit_takes_the_score_of_its_place(tmp_path: Path) -> None:
    """Scores still fall down the page: callers sort and cut by them."""
    with _memex(tmp_path) as mx:
        _told(mx, (JIRA, T0), (LINEAR, T0 + 30 * DAY))
        hits = mx.recall(TICKETS, user="u")
        assert [h.text for h in hits[:2]] == [LINEAR, JIRA]
        scores = [h.score for h in hits]
        assert scores == sorted(scores, reverse=True)


def test_valid_from_counts_not_when_it_was_said(tmp_path: Path) -> None:
    """A fact told late about an earlier time is valid from that time: it never wins by
    having been said last."""
    with _memex(tmp_path) as mx:
        _told(mx, (LINEAR, T0 + 30 * DAY), (JIRA, T0))  # Jira said second, valid earlier
        assert _texts(mx, TICKETS)[:2] == [LINEAR, JIRA]


def test_an_unrelated_newer_fact_never_passes_the_one_asked_about(tmp_path: Path) -> None:
    live, museums = "I live in Berlin", "I love the museums in Berlin"
    with _memex(tmp_path) as mx:
        _told(mx, (live, T0), (museums, T0 + 30 * DAY))
        assert _texts(mx, "Where do I live?")[0] == live
        assert _texts(mx, "What do I love in Berlin?")[0] == museums


def test_as_of_orders_the_facts_valid_then_by_the_same_rule(tmp_path: Path) -> None:
    youtrack = "We track work tickets in YouTrack"
    with _memex(tmp_path) as mx:
        _told(mx, (JIRA, T0), (LINEAR, T0 + 30 * DAY), (youtrack, T0 + 60 * DAY))
        assert _texts(mx, TICKETS)[0] == youtrack
        then = _texts(mx, TICKETS, as_of=T0 + 45 * DAY)
        assert youtrack not in then  # not yet valid
        assert then[:2] == [LINEAR, JIRA]
        before = _texts(mx, TICKETS, as_of=T0 + DAY)
        assert before[0] == JIRA


def _hit(memory_id: str, owner: str, similarity: float) -> Any:
    fragment = SimpleNamespace(id="f-" + memory_id, conversation_id=memory_id, owner=owner)
    return Hit(fragment, similarity, {SEMANTIC: similarity}, {})


def test_facts_of_two_owners_keep_their_order() -> None:
    """A shared fact and a user's are never read as about the same thing."""
    times = {"old": T0, "new": T0 + DAY}
    vectors = {"f-old": [1.0, 0.0], "f-new": [1.0, 0.1]}
    mine = [_hit("old", "users/u", 0.8), _hit("new", "users/u", 0.8)]
    assert [h.fragment.conversation_id for h in newer_first(mine, times, lambda _: vectors)] == [
        "new",
        "old",
    ]
    apart = [_hit("old", "users/u", 0.8), _hit("new", "shared", 0.8)]
    assert newer_first(apart, times, lambda _: vectors) == apart
    # a store that cannot hand its vectors out: nothing moves
    assert newer_first(mine, times, None) == mine
    # a fact the question states word for word keeps its place before a close neighbour
    # ("goes hiking every Tuesday" asked as it was said, "every Monday" said later)
    stated = [_hit("old", "users/u", 1.0), _hit("new", "users/u", 0.95)]
    assert newer_first(stated, times, lambda _: vectors) == stated


GP, OKORO = (
    "My GP is Dr Hassan at the Jericho Health Centre",
    "Dr Hassan retired so Dr Okoro at the Jericho Health Centre sees me now",
)


def _floored(
    home: Path,
    judge: str,
    floor_kin: bool = True,
    floor_chain: bool = True,
    chain_successor: bool = True,
) -> Memex:
    """A fixed relevance floor the later fact (no word of the question) falls under."""
    return fast_memex(
        home,
        components={"supersession_judge": judge},
        search={
            "floor_kin": floor_kin,
            "floor_chain": floor_chain,
            "chain_successor": chain_successor,
            "min_semantic_similarity": 0.5,
        },
    )


def test_a_fact_under_the_floor_stays_beside_a_kept_fact_about_the_same_thing(
    tmp_path: Path,
) -> None:
    for name, floor_kin in (("off", False), ("on", True)):
        with _floored(tmp_path / name, "none", floor_kin) as mx:
            mx.remember(GP, user="u", at=T0)
            mx.remember(OKORO, user="u", at=T0 + 30 * DAY)
            found = _texts(mx, "Who is my GP?")
            # the floor alone keeps only the fact with the question's words; kept beside it,
            # the later one leads: it names the earlier one's doctor with a change ("retired",
            # "now"), though it is much further from the question (newer first's echo test)
            assert found == ([OKORO, GP] if floor_kin else [GP])
            assert _texts(mx, "zzqx vvkw") == []  # a question about nothing stays empty


def test_the_successor_of_a_closed_fact_is_not_lost_under_the_floor(tmp_path: Path) -> None:
    # kept as the closed fact's kin (its vector), as of its chain (the judge's link), or in
    # the closed fact's place (chain_successor)
    for name, floor_kin, floor_chain, successor in (
        ("off", False, False, False),
        ("kin", True, False, False),
        ("chain", False, True, False),
        ("successor", False, False, True),
    ):
        with _floored(tmp_path / name, "rules", floor_kin, floor_chain, successor) as mx:
            mx.remember(GP, user="u", at=T0)
            mx.remember(OKORO, user="u", at=T0 + 30 * DAY)
            assert _texts(mx, "Who is my GP?") == ([] if name == "off" else [OKORO])


OLD_LINT = "lint stack: flake8 isort black pre-commit hooks"
NEW_LINT = "we use ruff as our linter now, pre-commit hooks kept"


def test_an_as_of_question_whose_kept_facts_all_came_later_asks_again_with_looser_kin(
    tmp_path: Path,
) -> None:
    """The floor keeps only the later fact (the question's words); as of a time before it,
    nothing kept held, so the search is asked again with kin at AS_OF_KIN_SIMILARITY, and
    the earlier fact (no word of the question, cosine about 0.32 with the later one) is
    what held then."""
    floored = fast_memex(
        tmp_path / "home",
        components={"supersession_judge": "none"},
        search={"min_semantic_similarity": 0.35},  # the later fact (0.40) clears it
    )
    with floored as mx:
        mx.remember(OLD_LINT, user="u", at=T0)
        mx.remember(NEW_LINT, user="u", at=T0 + 30 * DAY)
        assert _texts(mx, "which linter do we use") == [NEW_LINT]  # now: kin at 0.45 only
        then = T0 + 10 * DAY
        assert _texts(mx, "which linter do we use", as_of=then) == [OLD_LINT]
        assert _texts(mx, "zzqx vvkw", as_of=then) == []  # a question about nothing
