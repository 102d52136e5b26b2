"""Export timestamps (epoch seconds or milliseconds, ISO 8601) as epoch seconds."""

from __future__ import annotations

import math
from datetime import UTC, datetime

# Epoch numbers above this are taken as milliseconds (1e11 seconds is the year 5138).
_MILLISECONDS_THRESHOLD = 1e11

# Seconds since the epoch of 0001-01-01 and 9999-12-31T23:59:59 (UTC): what datetime can show.
_EARLIEST = -62135596800.0
_LATEST = 253402300799.0


def parse_timestamp(value: object) -> float | None:
    """Seconds since the epoch (UTC) from an export's timestamp, or ``None`` if there is none.

    Accepts epoch numbers (seconds; values too big for seconds are read as
    milliseconds), numeric strings, and ISO 8601 strings with ``Z`` or an offset
    and optional fractions (a string without offset is taken as UTC).
    Anything unreadable, or outside the years 1 to 9999, gives ``None`` rather
    than an error: a missing date should not stop a conversation from being indexed.
    """
    if value is None or isinstance(value, bool):
        return None
    try:
        if isinstance(value, int | float):
            number = float(value)
        elif isinstance(value, str):
            text = value.strip()
            if not text or len(text) > 64:
                return None
            try:
                number = float(text)
            except ValueError:
                return _parse_iso(text)
        else:
            return None
    except OverflowError:  # an integer too large for a float
        return None
    if not math.isfinite(number):
        return None
    seconds = number / 1000.0 if abs(number) >= _MILLISECONDS_THRESHOLD else number
    return seconds if _EARLIEST <= seconds <= _LATEST else None


def _parse_iso(text: str) -> float | None:
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(text)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        seconds = moment.timestamp()
    except (ValueError, OverflowError):
        return None
    return seconds if _EARLIEST <= seconds <= _LATEST else None
