"""What the rules judge closes for a pair of facts: shared by the judge's tests."""

from __future__ import annotations

from datetime import UTC, datetime

from memex_core.domain.memory.validity import Supersession, TimedFact
from memex_rules.supersession import RulesSupersessionJudge

JUDGE = RulesSupersessionJudge()
#: The judge with the readings of a change named again on (off by default).
NAMED = RulesSupersessionJudge(changes_named_again=True)
#: When the earlier fact was said; the new one comes ten days later.
SAID = datetime(2026, 3, 10, 12, tzinfo=UTC).timestamp()
LATER = SAID + 10 * 86400


def timed(memory_id: str | None, text: str, said_at: float) -> TimedFact:
    """``text`` said at ``said_at``, valid from when the judge reads it began."""
    return TimedFact(memory_id, text, JUDGE.valid_from(text, said_at), said_at)


def closings(old: str, new: str, judge: RulesSupersessionJudge = JUDGE) -> list[Supersession]:
    """What ``new``, said ten days after ``old`` (memory ``m1``), closes."""
    return judge.supersedes(timed(None, new, LATER), [timed("m1", old, SAID)])


def closings_named(old: str, new: str) -> list[Supersession]:
    return closings(old, new, NAMED)
