"""The ``rules`` judge on jotted notes of what a part of the work runs on (issue 30): a later
note keyed by the same word that names another tool of the same kind closes the earlier."""

from __future__ import annotations

import pytest

from memex_rules.supersession_stack import tool_swapped, tools_named
from tests.plugins.rules.judging import closings


def test_a_note_names_its_tools_by_kind() -> None:
    assert tools_named("marketing site deploys from Vercel, DNS pointed over") == {
        "vercel": "cloud"
    }
    assert tools_named("ci on GitHub Actions") == {"github actions": "ci"}
    assert tools_named("nothing here") == {}


CLOSES = [
    ("marketing site on Netlify", "marketing site deploys from Vercel, DNS pointed over"),
    ("billing svc: MySQL 5.7 on RDS", "billing is on Aurora Postgres since the migration"),
    ("web repo uses yarn 1", "web repo \u2192 pnpm, delete your node_modules and reinstall"),
    ("recommender is a Python/Flask app", "recommender rewritten in Go, p99 down 70%"),
]


@pytest.mark.parametrize(("old", "new"), CLOSES)
def test_another_tool_of_the_same_kind_closes_the_note(old: str, new: str) -> None:
    assert tool_swapped(new, old) is not None
    assert [c.memory_id for c in closings(old, new)] == ["m1"]


STAYS = [
    # another key, another part of the work, another kind, or the same tool
    ("frontend: React", "admin: Vue"),
    ("ML training runs on GCP TPUs", "ML inference moved to AWS SageMaker"),
    ("api on Python", "api on Postgres"),
    ("marketing site on Netlify", "marketing site on Netlify, build cache cleared"),
    # two tools in one note; kinds a person keeps several of
    ("api on Python", "api: Go for the gateway, Rust for the parser"),
    ("phone: Pixel 6a", "phone: iPhone 15 for work"),
]


@pytest.mark.parametrize(("old", "new"), STAYS)
def test_another_thing_or_kind_stays_open(old: str, new: str) -> None:
    assert tool_swapped(new, old) is None


def test_a_persons_or_a_named_key_closes_nothing_here() -> None:
    # benchmark 9's set: facts of five people that all stand together
    assert tool_swapped("Alice's team uses Python", "Alice's team uses Go") is None
    assert tool_swapped("Alice's team works with Rust", "Alice wants to learn coding in Go") is None
    assert (
        tool_swapped("the Rust meetup is at the Forum", "the Python meetup is at CodeBase") is None
    )
    # an acronym is a key: "CI = Jenkins" / "CI lives in GitHub Actions now"
    assert tool_swapped("CI lives in GitHub Actions now", "CI = Jenkins") is not None
