"""The band under the relevance floor in which a memory fact is kept beside a kept fact of
its owner (memex_core.domain.relevance.near_floor)."""

from __future__ import annotations

import pytest

from memex_core.domain.relevance import AGREEMENT_BELOW_FLOOR, agree, near_floor


def test_the_band_is_the_agreement_band_under_the_floor() -> None:
    assert near_floor(0.417) == pytest.approx(0.297)
    # the same band the query-as-a-whole agreement reads, not one of its own
    assert agree(0.5, near_floor(0.417), 0.417)
    assert not agree(0.5, near_floor(0.417) - 0.001, 0.417)
    assert near_floor(0.3) == pytest.approx(0.3 - AGREEMENT_BELOW_FLOOR)
