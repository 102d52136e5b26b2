"""What a plugin's ``register_*`` hook implementation registers, without a registry."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def registered(hook: Callable[[Any], None]) -> dict[str, tuple[Any, dict[str, Any]]]:
    """Each component ``hook`` registers: name -> (factory, options such as ``requires``)."""
    found: dict[str, tuple[Any, dict[str, Any]]] = {}

    def register(name: str, factory: Any, **options: Any) -> None:
        found[name] = (factory, options)

    hook(register)
    return found
