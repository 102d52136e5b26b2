"""The Python client of ``memex serve``.

>>> from memex_client import MemexClient
>>> alice = MemexClient("http://127.0.0.1:8765", api_key=KEY).agent()     # doctest: +SKIP
>>> alice.search("what does alice drink")                                 # doctest: +SKIP

``agent()`` has the methods and return types of ``mx.agent(user)``, ``operator()``
those of ``mx.operator()``, ``view()`` those of ``mx.view(user)``. Needs
the ``client`` extra (httpx and pydantic). memex is on no package index: on a machine
without memex, install it from a checkout (``pip install '/path/to/memex[client]'``) or a
wheel built there (``pip wheel --no-deps . -w dist``, then ``pip install
'dist/memex-<version>-py3-none-any.whl[client]'``); see docs/deployment.md.
"""

from memex_client.client import Identity, MemexClient, RemoteFactType
from memex_client.errors import (
    AmbiguousError,
    AuthenticationError,
    EmptyQueryClientError,
    InvalidRequestError,
    MemexClientError,
    NotFoundError,
    PermissionDeniedError,
    RequestTooLargeError,
    ServiceUnavailableError,
    TooManyFailuresError,
)
from memex_client.handles import RemoteAgentMemory, RemoteOperatorMemory, RemoteView

__all__ = [
    "AmbiguousError",
    "AuthenticationError",
    "EmptyQueryClientError",
    "Identity",
    "InvalidRequestError",
    "MemexClient",
    "MemexClientError",
    "NotFoundError",
    "PermissionDeniedError",
    "RemoteAgentMemory",
    "RemoteFactType",
    "RemoteOperatorMemory",
    "RemoteView",
    "RequestTooLargeError",
    "ServiceUnavailableError",
    "TooManyFailuresError",
]
