from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from memex_core.domain.time_bounds import parse_time_bound


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2024-05-01", datetime(2024, 5, 1, tzinfo=UTC).timestamp()),
        ("2024-05-01T09:30", datetime(2024, 5, 1, 9, 30, tzinfo=UTC).timestamp()),
        ("2024-05-01T09:30:00Z", datetime(2024, 5, 1, 9, 30, tzinfo=UTC).timestamp()),
        ("2024-05-01T11:30:00+02:00", datetime(2024, 5, 1, 9, 30, tzinfo=UTC).timestamp()),
        ("1714555800", 1714555800.0),
        ("7d", 1_000_000.0 - 7 * 86400),
        ("12h", 1_000_000.0 - 12 * 3600),
        ("2w", 1_000_000.0 - 14 * 86400),
    ],
)
def test_accepted_forms(text: str, expected: float) -> None:
    assert parse_time_bound(text, now=1_000_000.0) == pytest.approx(expected)


def test_until_a_bare_date_includes_the_whole_day() -> None:
    end = parse_time_bound("2024-05-01", end_of_day=True)
    assert end == pytest.approx(datetime(2024, 5, 2, tzinfo=UTC).timestamp() - 1e-3)
    assert parse_time_bound(date(2024, 5, 1), end_of_day=True) == pytest.approx(end)


def test_nonsense_names_the_accepted_forms() -> None:
    with pytest.raises(ValueError, match="use a date like 2024-05-01"):
        parse_time_bound("last tuesday-ish")
