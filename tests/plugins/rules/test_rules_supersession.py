"""The ``rules`` supersession judge: which earlier fact a new one closes, without a model.

The tables of pairs are in ``cases_that_close`` and ``cases_that_keep``; the times a fact
reads as valid from are in ``test_rules_supersession_time``."""

from __future__ import annotations

from pathlib import Path

import pytest

from memex_core.domain import PluginContext
from memex_core.domain.memory.validity import Supersession, SupersessionJudge
from memex_core.plugins import load_registry
from memex_rules import register_supersession_judges
from memex_rules.supersession import RulesSupersessionJudge, closes
from memex_rules.supersession_slots import MAX_CHARS, read_slots
from memex_rules.supersession_values import Slot
from tests.plugins.rules.cases_that_close import CLOSES, NAMED_CLOSES
from tests.plugins.rules.cases_that_keep import KEEPS
from tests.plugins.rules.judging import JUDGE, LATER, SAID, closings, closings_named, timed
from tests.support.registrations import registered


@pytest.mark.parametrize(("old", "new"), NAMED_CLOSES)
def test_a_change_named_again_closes_when_turned_on(old: str, new: str) -> None:
    assert closings(old, new) == []
    assert [c.memory_id for c in closings_named(old, new)] == ["m1"]


@pytest.mark.parametrize(("old", "new", "key"), CLOSES, ids=[f"{o} -> {n}" for o, n, _k in CLOSES])
def test_a_fact_that_changes_closes_the_earlier(old: str, new: str, key: str | None) -> None:
    closed = closings(old, new)
    assert [c.memory_id for c in closed] == ["m1"], (old, new, read_slots(old), read_slots(new))
    if key is not None:
        assert closed[0].key == key
    assert closed[0].reason


@pytest.mark.parametrize(("old", "new"), KEEPS, ids=[f"{o} / {n}" for o, n in KEEPS])
def test_a_fact_about_something_else_closes_nothing(old: str, new: str) -> None:
    assert closings(old, new) == [], (read_slots(old), read_slots(new))


# --- the whole judge ---------------------------------------------------------------------------


def test_the_judge_keeps_the_contract() -> None:
    assert isinstance(JUDGE, SupersessionJudge)


def test_the_issues_example_closes_paris_and_keeps_the_museums() -> None:
    earlier = [
        timed("museums", "Alice likes Berlin's museums", SAID),
        timed("paris", "Alice lives in Paris", SAID - 86400),
        timed("bob", "Bob lives in Paris", SAID),
    ]
    closed = JUDGE.supersedes(timed(None, "Alice moved to Berlin", LATER), earlier)
    assert closed == [
        Supersession("paris", "alice: lives in", "alice: lives in changed from paris to berlin")
    ]


def test_every_earlier_fact_the_new_one_updates_isclosings() -> None:
    earlier = [
        timed("paris", "Alice lives in Paris", SAID),
        timed("lyon", "Alice moved to Lyon", SAID + 60),
        timed("job", "Alice works at Google", SAID),
    ]
    closed = JUDGE.supersedes(timed(None, "Alice now lives in Berlin", LATER), earlier)
    assert [c.memory_id for c in closed] == ["paris", "lyon"]


def test_the_review_names_same_subject_facts_the_rules_cannot_read() -> None:
    earlier = [
        timed("odd", "Alice keeps her bees on the roof", SAID),
        timed("bob", "Bob keeps bees", SAID),
        timed("home", "Alice lives in Paris", SAID),
    ]
    review = JUDGE.review(timed(None, "Alice gave the bees to her neighbour", LATER), earlier)
    assert review.closes == []
    assert [f.memory_id for f in review.unsure] == ["odd", "home"]


def test_two_read_facts_of_different_attributes_are_not_unsure() -> None:
    review = JUDGE.review(
        timed(None, "Alice likes Berlin's museums", LATER),
        [timed("m1", "Alice lives in Berlin", SAID)],
    )
    assert review == type(review)()


@pytest.mark.parametrize(
    ("new", "old", "closes_it"),
    [
        (Slot("alice", "lives in", "berlin"), Slot("alice", "lives in", "paris"), True),
        (Slot("alice", "lives in", "berlin"), Slot("bob", "lives in", "paris"), False),
        (Slot("login service", "owner", "data team"), Slot("login", "owner", "bob"), True),
        (Slot("launch party", "date", "may 5"), Slot("launch", "date", "may 3"), False),
        (Slot("alice's sister", "lives in", "rome"), Slot("alice", "lives in", "paris"), False),
        (
            Slot("alice", "likes", "rock", single=False),
            Slot("alice", "likes", "jazz", single=False),
            False,
        ),
        (
            Slot("alice", "*", "google", positive=False, ended=True),
            Slot("alice", "likes", "google", single=False),
            False,
        ),
    ],
)
def test_slots_close_by_subject_attribute_and_value(new: Slot, old: Slot, closes_it: bool) -> None:
    assert bool(closes(new, old)) is closes_it


def test_reading_is_cached_and_repeatable() -> None:
    assert read_slots("Alice moved to Berlin") is read_slots("Alice moved to Berlin")
    assert read_slots("Alice moved to Berlin")[0].key == "alice: lives in"


# --- registration ------------------------------------------------------------------------------


def test_the_plugin_registers_the_judge_named_rules(tmp_path: Path) -> None:
    factory, options = registered(register_supersession_judges)["rules"]
    assert not options.get("requires")  # needs nothing but memex
    assert isinstance(factory(PluginContext(tmp_path)), RulesSupersessionJudge)


def test_memex_builds_the_default_judge_from_the_registry(tmp_path: Path) -> None:
    judge = load_registry().build("supersession_judge", "rules", PluginContext(tmp_path))
    assert isinstance(judge, SupersessionJudge)
    moved = judge.supersedes(
        timed(None, "Alice moved to Berlin", LATER), [timed("m1", "Alice lives in Paris", SAID)]
    )
    assert [c.memory_id for c in moved] == ["m1"]


def test_a_long_note_is_read_by_its_start_only() -> None:
    note = "Alice moved to Berlin. " + "She wrote a long diary entry about the trip. " * 400
    assert read_slots(note) == read_slots(note[:MAX_CHARS])
    assert [c.memory_id for c in closings("Alice lives in Paris", note)] == ["m1"]
