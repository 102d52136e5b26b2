"""The fact set of benchmarks/remember_cost.py (10,000 stored facts and the timed ones):
distinct texts over 50 users, spread round-robin so any prefix covers every user."""

from __future__ import annotations

from benchmarks.remember_cost import facts


def test_the_fact_set_is_distinct_and_spread_over_fifty_users() -> None:
    rows = facts(10_300)
    assert len({r["text"] for r in rows}) == len(rows) == 10_300
    assert len({r["user"] for r in rows}) == 50
    assert len({r["user"] for r in rows[:50]}) == 50  # round-robin
    for row in rows[:200]:  # each fact is about its own user
        assert row["user"].capitalize() in row["text"] or row["user"] in row["text"].lower()
    assert facts(100) == rows[:100]  # the same every run
