"""The ``[supersession.rules]`` table of config.toml, checked before the judge is built.

Example::

    [supersession]
    use = "rules"
    [supersession.rules]
    changes_named_again = true    # also close by a change named again (see below)

``changes_named_again`` (default false) turns on the readings of
:mod:`memex_rules.supersession_announced`: a new fact worded as a change that names the
earlier fact's thing again ("ripped out Datadog, we're on Grafana Cloud" closes "monitoring
is Datadog") and a new point of the earlier fact's series of numbers ("Rent 1,450 from May").
They close many more of the updates people write, and more unrelated facts: on benchmark
21's blind6 split, measured before any tuning on it, the judge alone closed 54 of 170
updates exactly and 15 of 370 unrelated and late facts wrongly with them, 40 and 7 without;
end to end (recall's newer-first orders an update the judge left open) the current fact led
in 198 and 197 of 220 questions. Off by default since 2026-11-29, for the issue's bound on
wrong closings (1%); a home that wants more updates closed, and the chain of each in
``history``, turns them on (docs/concepts/memory.md gives the figures).

``moved_subjects`` (default false) lets a subject both facts share tie them when it is what
the change verb moves ("billing moved to Platform" closes "billing service owned by Team
Payments"). It closes a few more updates and many more unrelated facts of one subject ("the
office moved to King's Cross" / "team office days are Tue/Thu"; on benchmark 21's blind4
split 3 more updates closed exactly and 7 more unrelated facts closed wrongly), so it is off.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memex_core.errors import MemexError
from memex_core.settings_table import SettingsTable


class JudgeSettingError(MemexError):
    """A ``[supersession.rules]`` setting in config.toml has a value the judge cannot use."""


@dataclass(frozen=True)
class JudgeSettings:
    changes_named_again: bool = False
    moved_subjects: bool = False


_HINTS = {
    "changes_named_again": (
        "true or false (default false): whether a new fact worded as a change that names the "
        "earlier fact's thing again, or continues its numbers, closes it"
    ),
}
_HINTS["moved_subjects"] = (
    "true or false (default false): whether, among those changes, the subject a change verb "
    "moves ties two facts ('billing moved to Platform' / 'billing owned by Team Payments')"
)
_TABLE = SettingsTable("config.toml [supersession.rules]", JudgeSettingError, hints=_HINTS)


def parse_judge_settings(settings: Mapping[str, Any] | None) -> JudgeSettings:
    """Check the table and return the values; raise :class:`JudgeSettingError` naming the fix."""
    values = _TABLE.values(_TABLE.checked(settings), lambda key, value: isinstance(value, bool))
    return JudgeSettings(**values)
