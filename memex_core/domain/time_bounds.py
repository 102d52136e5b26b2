"""Parse the time bounds users type: ISO dates and times, epoch seconds, or '7d'-style ages."""

from __future__ import annotations

import math
import re
import time
from datetime import UTC, date, datetime

from memex_core.errors import MemexError


class FilterValueError(MemexError, ValueError):
    """A search filter value memex cannot use (a ``ValueError`` too, for older callers)."""


class TimeBoundError(FilterValueError):
    """A since/until bound that is not a time memex can read."""


#: Seconds since the epoch of 0001-01-01 and 9999-12-31T23:59:59.999 (UTC): what a date can be.
EARLIEST = -62135596800.0
LATEST = 253402300799.999

_FORMS = (
    "use a date like 2024-05-01, a time like 2024-05-01T09:30, epoch seconds, "
    "or an age like 12h, 7d, 2w"
)

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
    An age reaching before the year 1 means "from the beginning" (the year 1).
    Raises :class:`TimeBoundError` (a ``ValueError``) with the accepted forms
    otherwise, and for times outside the years 1 to 9999 or not finite.
    """
    if value is None:
        return None
    if isinstance(value, bool):
        raise TimeBoundError("a time bound cannot be a boolean; " + _FORMS)
    try:
        moment = _parse(value, time.time() if now is None else now, end_of_day)
    except OverflowError:
        moment = math.inf
    if not math.isfinite(moment) or not EARLIEST <= moment <= LATEST:
        shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
        raise TimeBoundError(f"{shown} is not a time between the years 1 and 9999; " + _FORMS)
    return moment


def _parse(value: object, reference: float, end_of_day: bool) -> float:
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, datetime):
        moment = value if value.tzinfo else value.replace(tzinfo=UTC)
        return moment.timestamp()
    if isinstance(value, date):
        start = datetime(value.year, value.month, value.day, tzinfo=UTC).timestamp()
        return start + (86400 - 1e-3 if end_of_day else 0)
    if not isinstance(value, str):
        raise TimeBoundError(f"a time bound cannot be a {type(value).__name__}; " + _FORMS)
    text = value.strip()
    age = _AGE.match(text)
    if age:
        seconds = float(age.group(1)) * _UNIT_SECONDS[age.group(2).lower()]
        return max(reference - seconds, EARLIEST)  # "9999y": from the beginning
    try:
        return float(text)
    except ValueError:
        pass
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        shown = text if len(text) <= 60 else text[:57] + "..."
        raise TimeBoundError(f"cannot read {shown!r} as a time: " + _FORMS) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    bare_date = len(text) == 10
    return moment.timestamp() + (86400 - 1e-3 if end_of_day and bare_date else 0)
