"""The ``rules`` judge on jotted notes of one thing's version (issue 30): a later note with
another version of the same named tool, keyed by the same opening word, closes the earlier."""

from __future__ import annotations

import pytest

from memex_rules.supersession_versions import version_changed, versions
from tests.plugins.rules.judging import closings


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("prod EKS 1.24", {"eks": {"1.24"}}),
        ("worker: celery==5.2.7", {"celery": {"5.2.7"}}),
        ("ml-pipelines: py3.11, CI image rebuilt", {"python": {"3.11"}}),
        ("orders db is PG 12", {"postgres": {"12"}}),
        ("prod EKS upgraded \u2192 1.28", {"eks": {"1.28"}}),
        # a whole number is a version of a tool only: not a size, a grade or a level
        ("Finn's shoes: size 9", {}),
        ("Ella passed grade 5 piano", {}),
        ("dad's drinks are thickened to level 2", {}),
        # money, weights and percentages are not versions
        ("flat white £3.20", {}),
        ("weighed in at 92.4kg", {}),
    ],
)
def test_a_notes_versions_are_read_by_name(text: str, found: dict[str, set[str]]) -> None:
    assert versions(text) == {name: frozenset(v) for name, v in found.items()}


CLOSES = [
    ("prod EKS 1.24", "prod EKS 1.27"),
    ("ml-pipelines pinned to python 3.9", "ml-pipelines: py3.11, CI image rebuilt"),
    ("orders db is PG 12", "orders db upgraded to Postgres 14 last night, zero downtime"),
    ("worker: celery==5.2.7", "worker on celery 5.3.4 after the redis fix"),
]


@pytest.mark.parametrize(("old", "new"), CLOSES)
def test_a_new_version_of_the_same_thing_closes_the_note(old: str, new: str) -> None:
    assert version_changed(new, old) is not None
    assert [c.memory_id for c in closings(old, new)] == ["m1"]


STAYS = [
    # two things keyed apart, each with its version
    ("frontend: node 18", "backend: node 20"),
    ("prod EKS 1.24", "staging EKS 1.27"),
    # the same version again, or versions of two tools
    ("prod EKS 1.24", "prod EKS 1.24, all nodes healthy"),
    ("api: python 3.11", "api: django 4.2"),
]


@pytest.mark.parametrize(("old", "new"), STAYS)
def test_two_things_or_one_version_stay_open(old: str, new: str) -> None:
    assert version_changed(new, old) is None
