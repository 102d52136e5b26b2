"""``--since``/``--until`` read once for every command that takes them (export, memory log)."""

from __future__ import annotations

import click
import pytest

from memex_core.cli.opening import time_span


def test_until_a_date_reaches_the_end_of_that_day() -> None:
    bounds = time_span("2024-05-01", "2024-05-01")
    assert bounds["since"] is not None and bounds["until"] is not None
    assert 86399 < bounds["until"] - bounds["since"] < 86400


def test_no_bounds_are_none() -> None:
    assert time_span(None, None) == {"since": None, "until": None}


def test_an_unreadable_bound_is_a_usage_error_naming_both_options() -> None:
    with pytest.raises(click.BadParameter) as caught:
        time_span("yesterday-ish", None)
    assert caught.value.param_hint == "--since/--until"
