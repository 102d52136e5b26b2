"""The ``memex.remote`` entry point: how the ``memex`` command line connects to a
``memex serve`` when ``MEMEX_URL`` and ``MEMEX_API_KEY`` are set.

The core's CLI (:mod:`memex_core.cli.remote`) finds this function through the entry
point group rather than importing this package, so the core imports no integration
and another remote client can take its place.
"""

from __future__ import annotations

from memex_client.client import MemexClient
from memex_core.domain.agent_keys import looks_like_key


def connect(url: str, token: str) -> MemexClient:
    """A client of the ``memex serve`` at ``url``: ``token`` is an agent key (``mxk_...``)
    or the operator secret. The credentials are checked now (``whoami``), so a wrong URL
    or a revoked key fails here."""
    if looks_like_key(token):
        client = MemexClient(url, api_key=token)
    else:
        client = MemexClient(url, admin_secret=token)
    client.whoami()
    return client
