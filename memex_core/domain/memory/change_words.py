"""Whether a fact says, in its own words, that it is a change (issue 30).

"Priya is engineering manager for payments now", "Marco says to use marco@rossidesign.it
from now on", "The bakery moved to Square Mile for coffee": a fact worded as a change
announces that something told earlier no longer holds, whatever the supersession judge
made of it. Recall's newer-first ordering (:mod:`memex_core.services.newer_first`) lets
such a later fact join an earlier one it is less close to. A small general list of
English words for a change, not readings tuned on any wording: a word here that is not a
change ("the new office is nice") only loosens which facts are compared, and newer first
still needs the two to answer the question about alike and to be about one thing.
"""

from __future__ import annotations

import re

_CHANGE = re.compile(
    r"\b(?:now|nowadays|these\s+days|currently|switched|moved|changed|promoted|"
    r"from\s+now\s+on|went\s+(?:up|down)|revised|new|no\s+longer|any\s*more|started|"
    r"instead)\b",
    re.IGNORECASE,
)


def announces_change(text: str) -> bool:
    """Whether ``text`` says it is a change: "now", "these days", "switched", "moved",
    "promoted", "from now on", "went up", "revised", "new", "no longer", "started",
    "instead" and the like. Not "actually": a neighbour stated with it ("Bob actually goes
    hiking every Monday") passed the fact asked word for word in benchmark 9's set."""
    return _CHANGE.search(text) is not None


__all__ = ["announces_change"]
