"""Parse the time bounds users type: ISO dates and times, epoch seconds, or '7d'-style ages."""

from __future__ import annotations

import re
import time
from datetime import UTC, date, datetime

_AGE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h|d|w|y)\s*$", re.IGNORECASE)
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "y": 365 * 86400}


def parse_time_bound(
    value: str | float | int | datetime | date | None,
    *,
    now: float | None = None,
    end_of_day: bool = False,
) -> float | None:
    """Epoch seconds for a since/until bound.

    Accepts ``None``, numbers (epoch seconds), ``datetime``/``date`` objects, ISO
    strings (``2024-05-01``, ``2024-05-01T09:30``, with ``Z`` or an offset; naive
    means UTC) and ages relative to now (``90m``, ``12h``, ``7d``, ``2w``, ``1y``).
    Raises ``ValueError`` with the accepted forms otherwise.
    """
    if value is None:
        return None
    if isinstance(value, bool):
        raise ValueError("a time bound cannot be a boolean")
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=UTC)
        return moment.timestamp()
    if isinstance(value, date):
        start = datetime(value.year, value.month, value.day, tzinfo=UTC).timestamp()
        return start + (86400 - 1e-3 if end_of_day else 0)
    text = str(value).strip()
    age = _AGE.match(text)
    if age:
        reference = time.time() if now is None else now
        return reference - float(age.group(1)) * _UNIT_SECONDS[age.group(2).lower()]
    try:
        return float(text)
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(
            f"cannot read {text!r} as a time: use a date like 2024-05-01, a time like "
            "2024-05-01T09:30, epoch seconds, or an age like 12h, 7d, 2w"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    bare_date = len(text) == 10
    return moment.timestamp() + (86400 - 1e-3 if end_of_day and bare_date else 0)
