"""The operator secret of ``memex serve``: ``MEMEX_ADMIN_SECRET``, else ``<home>/admin-secret``
(generated once, mode 0600). Whoever holds it reaches every user's memory, the keys and
ingest, so it never appears in a page, a log line or a response."""

from __future__ import annotations

from pathlib import Path

from memex_core.secret_files import Secret, resolve_secret

ADMIN_SECRET_ENV = "MEMEX_ADMIN_SECRET"
ADMIN_SECRET_FILE = "admin-secret"


def admin_secret_path(home: Path) -> Path:
    return home / ADMIN_SECRET_FILE


def resolve_admin_secret(home: Path) -> Secret:
    return resolve_secret(None, ADMIN_SECRET_ENV, admin_secret_path(home), ADMIN_SECRET_ENV)
