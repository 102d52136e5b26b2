"""Make a replica's keyword index look behind for longer than it has been, without sleeping.

:class:`~memex_core.services.indexing.KeywordSync` counts its lag in seconds with its own
``clock`` (``time.monotonic`` by default): moving that clock forward reads as if that much
time had passed since the index last caught up. The follower stamps its next catch-up with
the same clock, so the lag stays consistent once it resumes.
"""

from __future__ import annotations

from memex_core.api import Memex


def behind_for(memex: Memex, seconds: float) -> None:
    """Open ``memex``'s keyword index (caught up now, if it was not open yet: a lag is only
    counted from a catch-up) and move its clock ``seconds`` forward."""
    sync = memex.keyword_sync
    clock = sync.clock
    sync.clock = lambda: clock() + seconds
