"""Times as memory shows them: ISO 8601 in UTC, and the times a caller may pass."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, overload

from memex_core.errors import MemexError

#: What ``at=`` and ``as_of=`` accept: a datetime (naive ones are read as UTC), an ISO 8601
#: date or date-time string, or seconds since the epoch.
Moment = datetime | date | str | int | float


@overload
def iso_utc(moment: float) -> str: ...
@overload
def iso_utc(moment: float | None) -> str | None: ...
def iso_utc(moment: float | None) -> str | None:
    """``moment`` (epoch seconds) as ISO 8601 in UTC, e.g. ``2024-05-01T09:30:00Z``."""
    if moment is None:
        return None
    stamp = datetime.fromtimestamp(moment, UTC)
    text = stamp.isoformat(timespec="microseconds" if stamp.microsecond else "seconds")
    return text.replace("+00:00", "Z")


class InvalidMoment(MemexError):
    """A time given to remember or recall that cannot be read."""


def to_epoch(value: Moment, what: str = "time") -> float:
    """Epoch seconds of a datetime, a date, an ISO 8601 string or a number. A time without
    a zone is read as UTC; a date alone is its midnight UTC."""
    if isinstance(value, bool):
        raise InvalidMoment(f"{what} {value!r} is not a time. {_EXAMPLE}")
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, datetime):
        stamp = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
        return stamp.timestamp()
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day, tzinfo=UTC).timestamp()
    if isinstance(value, str):
        text = value.strip()
        try:
            parsed = datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
        except ValueError:
            raise InvalidMoment(f"{what} {value!r} is not a date or time. {_EXAMPLE}") from None
        return to_epoch(parsed, what)
    raise InvalidMoment(f"{what} {value!r} is not a date or time. {_EXAMPLE}")


_EXAMPLE = "Give an ISO 8601 date or time, e.g. 2024-05-01 or 2024-05-01T09:30:00Z."


@dataclass(frozen=True)
class HeldAt:
    """Which memory facts a search keeps, by time: current ones (the default), those valid
    at ``moment`` (``valid_from <= moment < valid_until``, whenever memex learned them), or
    ``everything``, superseded facts too."""

    moment: float | None = None
    everything: bool = False

    @classmethod
    def of(cls, options: Any) -> HeldAt:
        """From a search's ``as_of`` and ``include_superseded`` options."""
        as_of = getattr(options, "as_of", None)
        return cls(
            None if as_of is None else to_epoch(as_of, "as_of"),
            bool(getattr(options, "include_superseded", False)),
        )

    def keeps(self, valid_from: float, valid_until: float | None) -> bool:
        if self.everything:
            return True
        if self.moment is None:
            return valid_until is None
        return valid_from <= self.moment and (valid_until is None or self.moment < valid_until)
