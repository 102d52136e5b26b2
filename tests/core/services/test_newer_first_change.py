"""A later fact worded as a change joins an earlier one looser in newer-first (issue 30).

"Priya is engineering manager for payments now" after "Priya got promoted to staff
engineer": the judge closed nothing, and the later fact is further from the question and
from the earlier one than newer-first's plain test allows. Worded as a change, it is
compared at :data:`CHANGE_MARGIN` and :data:`CHANGE_SIMILARITY` and may pass a hit the slot
reading picked alone. Unrelated facts and a change word on the *earlier* fact move nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from memex_core.domain.memory.change_words import (
    announces_change,
    echoes_change,
    names_change,
)
from memex_core.services.newer_first import (
    CHANGE_MARGIN,
    CHANGE_SIMILARITY,
    ECHO_MARGIN,
    ECHO_SIMILARITY,
    MUTUAL_SIMILARITY,
    NAMED_MARGIN,
    newer_first,
)
from tests.support.component_doubles import fast_memex
from tests.support.newer_first_hits import (
    BETWEEN,
    DAY,
    T0,
    TIMES,
    change_hit,
    changed_handed,
    newer_order,
    two_vectors,
)

STAFF = "Priya got promoted to staff engineer"
MANAGER = "Priya is engineering manager for payments now"


#: Under both the looser test's similarity and newer-first's own.
UNDER_BOTH = min(CHANGE_SIMILARITY, MUTUAL_SIMILARITY) - 0.05


def test_a_later_fact_worded_as_a_change_comes_first_at_a_lower_similarity() -> None:
    # 0.28 from the question against 0.2: past the plain margin (10%), within the change's
    hits = [change_hit("old", STAFF, 0.8), change_hit("new", MANAGER, 0.72)]
    assert newer_order(hits, BETWEEN) == ["new", "old"]
    assert newer_order(hits, BETWEEN, changed=False) == ["old", "new"]  # the setting off
    plain = [change_hit("old", STAFF, 0.8), change_hit("new", "Priya is engineering manager", 0.72)]
    assert newer_order(plain, BETWEEN) == ["old", "new"]  # no change word: the plain test


def test_a_later_fact_naming_its_change_with_a_verb_joins_further_from_the_question() -> None:
    # the later fact's distance from the question (1 - cosine) is 1.8 times the earlier
    # one's: past the margin for "now" (1.5 times), within the margin for a verb of change
    assert 1 + CHANGE_MARGIN < 1.8 <= 1 + NAMED_MARGIN
    old = change_hit("old", "Monitoring is Datadog", 0.8)
    verb = change_hit("new", "Ripped out Datadog, we're on Grafana Cloud now", 0.64)
    now = change_hit("new", "We're on Grafana Cloud now", 0.64)

    def order(hits: list[Any], named: bool = True) -> list[str]:
        found = newer_first(
            hits,
            TIMES,
            two_vectors(BETWEEN),
            changed=announces_change,
            named=names_change if named else None,
        )
        return [h.fragment.conversation_id for h in found]

    assert order([old, verb]) == ["new", "old"]
    assert order([old, verb], named=False) == ["old", "new"]  # the verb's margin not handed
    assert order([old, now]) == ["old", "new"]  # "now" alone: the change's margin


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("We migrated the wiki onto Notion", True),
        ("Cancelled the gym membership", True),
        ("The launch slipped to June", True),
        ("Switched to Neovim", True),
        ("Bought a Brompton, the Raleigh got nicked", True),
        ("Airflow's gone, nightlies are Dagster assets", True),
        ("Usual order \u2192 decaf oat latte", True),  # an arrow from old to new
        ("Contracts exchanged on my parents' place", True),  # the step a process reached
        ("payments rewrite ETA -> April 5", True),
        ("Billing cut over to Stripe last night", True),
        ("swap: Noor has the pager till Friday", True),
        ("remortgaged with Halifax, 4.2% fixed", True),
        ("Ruth left the practice, seeing Dr Ng now", True),
        ("Sol took the team lead role", True),
        ("Lucas plays left back for the U11s", False),  # a position, not a leaving
        ("We're on Grafana Cloud now", False),
        ("The new office is nice", False),
        ("Dana finally got the flat in Manchester", False),  # a change, not its verb
        ("Omar handles releases", False),
    ],
)
def test_verbs_of_change(text: str, names: bool) -> None:
    assert names_change(text) is names


def test_a_change_passes_a_fact_the_slot_reading_picked_alone() -> None:
    hits = [change_hit("old", STAFF, 0.8, slot=1), change_hit("new", MANAGER, 0.78)]
    assert newer_order(hits, 0.6) == ["new", "old"]
    plain = [
        change_hit("old", STAFF, 0.8, slot=1),
        change_hit("new", "Priya manages payments", 0.78),
    ]
    assert newer_order(plain, 0.6) == ["old", "new"]


@pytest.mark.parametrize(
    ("old", "new", "question_similarity", "similarity"),
    [
        # an earlier fact worded as a change does not loosen the test for a later one
        ("I'm on oat cortados these days", "My usual is a flat white", 0.72, BETWEEN),
        # a later change about another thing: too far from the question
        ("I live in Berlin", "I moved my dentist appointment to Friday", 0.6, 0.5),
        # or from the earlier fact
        ("I live in Berlin", "I'm into bouldering now", 0.8, UNDER_BOTH),
    ],
)
def test_unrelated_facts_keep_their_order(
    old: str, new: str, question_similarity: float, similarity: float
) -> None:
    hits = [change_hit("old", old, 0.8), change_hit("new", new, question_similarity)]
    assert newer_order(hits, similarity) == ["old", "new"]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (MANAGER, True),
        ("Marco says to use marco@rossidesign.it from now on", True),
        ("The bakery moved to Square Mile for coffee", True),
        ("On-call allowance went up to £250 a week", True),
        ("Revised goal for Manchester: 3:45", True),
        ("Catching the 8:12 these days", True),
        ("back on almond milk", True),
        ("Gym fee 32 from March", True),  # the day a new state starts from
        ("Standup: 9:50 from Tuesday", True),
        ("The clinic is open from Monday to Friday", False),  # a range, not a start
        ("Dad's off dairy, just black tea", True),
        ("Prod is in Fly.io as of the weekend", True),
        ("Tickets live in Linear, Jira is read-only from today", True),
        ("Bob actually goes hiking every Monday", False),  # benchmark 9: a neighbour, no change
        ("Maya started at Kingsbury High this September", True),
        ("Marco's email is marco.rossi@gmail.com", False),
        ("I weigh 92kg", False),
        ("Knowledge is power", False),  # "now" inside a word
        # verbs of a change of tool, owner, number or name
        ("We migrated the wiki onto Notion", True),
        ("Ported the CLI to Rust", True),
        ("Handed the release duty over to Omar", True),
        ("They renamed the Lisbon office to Alfama", True),
        ("Rent was raised to 1,400", True),
        ("The launch slipped to June", True),
        ("Cancelled the gym membership", True),
        ("We're down to two cars", True),
        ("Dana finally got the flat in Manchester", True),
        # the step a process has reached
        ("laptop delivered, left with neighbour", True),
        ("Caroline was approved by the agency!", True),
        ("moving everything to AWS", True),
        ("Omar handles releases", False),
        ("The wiki is on Notion", False),
        ("The dog-friendly pub is on Elm Street", False),  # a hyphen is no arrow
    ],
)
def test_change_words(text: str, says: bool) -> None:
    assert announces_change(text) is says


def test_the_setting_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``[search] newer_first_change`` hands the change test to newer-first, or not."""
    handed = changed_handed(monkeypatch)
    for name, on in (("on", True), ("off", False)):
        with fast_memex(
            tmp_path / name,
            components={"supersession_judge": "none"},
            search={"newer_first_change": on},
        ) as mx:
            mx.remember("We track work tickets in Jira", user="u", at=T0)
            mx.remember("We track work tickets in Linear now", user="u", at=T0 + DAY)
            mx.remember("My cat is called Tom", user="u", at=T0)
            found = [h.text for h in mx.recall("Where do we track work tickets?", user="u")]
            assert "We track work tickets in Linear now" in found
            assert handed and handed[-1] is (announces_change if on else None)


def test_a_later_fact_naming_the_earlier_ones_thing_with_a_change_joins_far_apart() -> None:
    # "monitoring is Datadog" asked "What do we use for monitoring?": the later fact names
    # Datadog (not a word of the question) with a change; 2.5 times as far from the question
    # and at a cosine of 0.25 with it, past every other test
    assert 1 + NAMED_MARGIN < 2.5 <= 1 + ECHO_MARGIN
    assert ECHO_SIMILARITY <= 0.25 < CHANGE_SIMILARITY
    question = "What do we use for monitoring?"
    old = change_hit("old", "monitoring is Datadog", 0.8)
    echo = change_hit("new", "ripped out Datadog, we're on Grafana Cloud now", 0.5)
    plain = change_hit("new", "we're on Grafana Cloud now", 0.5)

    def order(hits: list[Any]) -> list[str]:
        found = newer_first(
            hits,
            TIMES,
            two_vectors(0.25),
            changed=announces_change,
            named=names_change,
            echoes=lambda a, b: echoes_change(question, a, b),
        )
        return [h.fragment.conversation_id for h in found]

    assert order([old, echo]) == ["new", "old"]
    assert order([old, plain]) == ["old", "new"]


@pytest.mark.parametrize(
    ("question", "earlier", "later", "echoes"),
    [
        ("What do we use for monitoring?", "monitoring is Datadog", "ripped out Datadog", True),
        ("Which streaming service?", "paying for Netflix", "cancelled Netflix, Disney+ now", True),
        ("What is the default branch?", "default branch is master", "renamed master -> main", True),
        # no change said; a word the question holds; a word too common to tie them
        ("Where does Alice live?", "Alice lives in Berlin", "Alice loves Berlin's museums", False),
        ("Where do I work?", "I work at Acme", "I now work at Initech", False),
        ("What car?", "We have the Golf", "We have a new dog", False),
        # a new address, number or handle for the one given earlier, however worded
        ("Jordan's email?", "jordan.k@gmail.com", "new address jk@jordankim.dev", True),
        ("Marco's email?", "marco@gmail.com", "use marco@rossi.it from now on", True),
        ("Dad's number?", "Dad: 07700 900123", "Dad's new number is +44 7700 900456", True),
        ("Her handle?", "she's @mira_codes", "she's @mira_dev now", True),
        # two addresses, no change said: two of them at once
        ("Marco's email?", "personal: marco@gmail.com", "invoices go to acc@rossi.it", False),
    ],
)
def test_echoes_change(question: str, earlier: str, later: str, echoes: bool) -> None:
    assert echoes_change(question, earlier, later) is echoes
