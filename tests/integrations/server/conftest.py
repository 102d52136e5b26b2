"""Fixtures of the server tests: ``errors``, the errors module's own ``memex serve``
(module-scoped: built once for the module that asks for it)."""

from tests.support.error_server import errors  # noqa: F401  (a fixture)
