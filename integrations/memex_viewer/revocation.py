"""Ending viewer sessions on the server: a session generation per principal, in the catalog.

A session cookie is signed, not stored, so by itself it lasts until it expires (12 hours),
even after its browser signed out. To end sessions early, each principal (the operator, or
one agent key) has a generation in the catalog's ``settings`` table: none until its first
sign-out, then a random string (key ``viewer_sessions:operator`` or
``viewer_sessions:agent:<key id>``). A cookie carries the generation its principal had
when it signed in, and :func:`memex_viewer.principal.current` accepts it only while the
catalog still holds the same one, checked on every request.

Signing out writes a new generation: every session of that principal, in every browser and
on every ``memex serve`` that shares the catalog (replicas on one PostgreSQL database), is
refused from its next request. The other two ways sessions end need nothing here: revoking
an agent key (the key is looked up on every request) and changing the operator secret (the
cookies' signing key is derived from it).

One row per principal that ever signed out, never more: nothing to prune.
"""

from __future__ import annotations

import secrets
from typing import Protocol

from memex_viewer import sessions

SETTING_PREFIX = "viewer_sessions:"


class Settings(Protocol):
    """What this needs of the catalog (:class:`memex_core.catalog.base.SqlCatalog`)."""

    def get_setting(self, key: str) -> str | None: ...

    def set_setting(self, key: str, value: str) -> None: ...


def setting_key(kind: str, key_id: str | None) -> str:
    """The catalog setting that holds the generation of a principal's sessions."""
    return SETTING_PREFIX + (sessions.OPERATOR if kind == sessions.OPERATOR else f"agent:{key_id}")


def generation(catalog: Settings, kind: str, key_id: str | None) -> str:
    """The current generation of the principal's sessions ("" before its first sign-out).
    Call it holding the server's call lock (``state.call``), as every catalog read."""
    return catalog.get_setting(setting_key(kind, key_id)) or ""


def lasts(catalog: Settings, session: sessions.Session) -> bool:
    """Whether no sign-out of its principal ended ``session`` (holding the call lock)."""
    return generation(catalog, session.kind, session.key_id) == session.generation


def end_sessions(catalog: Settings, kind: str, key_id: str | None) -> None:
    """End every session of the principal, here and on every replica of the catalog
    (holding the call lock)."""
    catalog.set_setting(setting_key(kind, key_id), secrets.token_urlsafe(12))
