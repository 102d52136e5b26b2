"""The ``[supersession.rules]`` table of config.toml, checked before the judge is built.

Example::

    [supersession]
    use = "rules"
    [supersession.rules]
    changes_named_again = false   # close only by the readings of an attribute (see below)

``changes_named_again`` (default true) turns on the readings of
:mod:`memex_rules.supersession_announced`: a new fact worded as a change that names the
earlier fact's thing again ("ripped out Datadog, we're on Grafana Cloud" closes "monitoring
is Datadog") and a new point of the earlier fact's series of numbers ("Rent 1,450 from May").
They close many more of the updates people write, at a small risk of closing an unrelated
fact (benchmark 21: docs/concepts/memory.md gives both); a home that puts never closing a
fact wrongly first turns them off.

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
    changes_named_again: bool = True
    moved_subjects: bool = False


_HINTS = {
    "changes_named_again": (
        "true or false (default true): whether a new fact worded as a change that names the "
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
