""":class:`Viewer`: the signed-in principal of a page, the API caller it acts as.

Its own module because the pages' rendering (:mod:`memex_viewer.rendering`) names it and
:mod:`memex_viewer.principal`, which checks who is signed in, renders error pages.
"""

from __future__ import annotations

from dataclasses import dataclass

from memex_server.caller import Caller
from memex_viewer import sessions


@dataclass(frozen=True)
class Viewer:
    """A signed-in principal: the API caller it acts as, its session and CSRF token."""

    caller: Caller
    session: sessions.Session
    csrf: str

    @property
    def operator(self) -> bool:
        return self.caller.operator

    @property
    def label(self) -> str:
        """How the header names who is signed in (never a secret: a key's name and user)."""
        if self.caller.operator:
            return "operator"
        return f"agent key {self.caller.name} (user {self.caller.user_id})"
