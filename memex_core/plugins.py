"""Loading plugins and building the components they register.

Built-in plugins and third-party packages load the same way: through the
``memex`` entry-point group. ``MEMEX_LOAD_PLUGINS`` (comma-separated
entry-point names) limits what loads; an empty value loads none.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib import import_module
from importlib.metadata import entry_points
from typing import Any

import pluggy

from memex_core import hookspecs
from memex_core.domain import PluginContext
from memex_core.errors import MemexError

ENTRY_POINT_GROUP = "memex"

#: Plugin kind -> the hook that registers it.
KIND_HOOKS: dict[str, str] = {
    "catalog": "register_catalogs",
    "source": "register_sources",
    "keyword_store": "register_keyword_stores",
    "vector_store": "register_vector_stores",
    "embedder": "register_embedders",
    "ranker": "register_rankers",
    "extractor": "register_extractors",
    "consolidator": "register_consolidators",
    "redactor": "register_redactors",
    "chat_model": "register_chat_models",
    "supersession_judge": "register_supersession_judges",
}


class PluginUnavailable(MemexError):
    """A component was asked for but cannot be built here."""


@dataclass
class Registration:
    """One component a plugin registered: how to build it and whether it can be built."""

    kind: str
    name: str
    factory: Callable[[PluginContext], Any]
    plugin: str
    requires: tuple[str, ...] = ()
    extra: str | None = None
    description: str = ""
    missing: tuple[str, ...] = field(default=())

    @property
    def available(self) -> bool:
        return not self.missing

    def describe(self) -> dict[str, Any]:
        """JSON-ready summary for ``memex plugins`` and ``memex sources``."""
        return {
            "kind": self.kind,
            "name": self.name,
            "plugin": self.plugin,
            "available": self.available,
            "install_hint": self.install_hint,
            "description": self.description,
        }

    @property
    def install_hint(self) -> str | None:
        if self.available:
            return None
        target = f"memex[{self.extra}]" if self.extra else " ".join(self.missing)
        return f"pip install '{target}'"


@dataclass
class BrokenPlugin:
    """A plugin whose module failed to import; listed, never raised."""

    name: str
    error: str


def _module_missing(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is None
    except (ImportError, ValueError):
        return True


class PluginRegistry:
    """All loaded plugins and the components they registered, by kind and name."""

    def __init__(self, manager: pluggy.PluginManager, broken: Iterable[BrokenPlugin] = ()):
        self.manager = manager
        self.broken = list(broken)
        self._registrations: dict[str, dict[str, Registration]] | None = None

    def register_plugin(self, plugin: object, name: str | None = None) -> None:
        """Register a plugin object from code (tests, applications embedding memex)."""
        self.manager.register(plugin, name=name)
        self._registrations = None

    def _collect(self) -> dict[str, dict[str, Registration]]:
        if self._registrations is not None:
            return self._registrations
        found: dict[str, dict[str, Registration]] = {kind: {} for kind in KIND_HOOKS}
        for kind, hook_name in KIND_HOOKS.items():
            hook = getattr(self.manager.hook, hook_name)
            for impl in hook.get_hookimpls():
                plugin_name = self.manager.get_name(impl.plugin) or repr(impl.plugin)

                def register(
                    name: str,
                    factory: Callable[[PluginContext], Any],
                    *,
                    requires: Iterable[str] = (),
                    extra: str | None = None,
                    description: str = "",
                    _kind: str = kind,
                    _plugin: str = plugin_name,
                ) -> None:
                    requires = tuple(requires)
                    found[_kind][name] = Registration(
                        kind=_kind,
                        name=name,
                        factory=factory,
                        plugin=_plugin,
                        requires=requires,
                        extra=extra,
                        description=description,
                        missing=tuple(m for m in requires if _module_missing(m)),
                    )

                impl.function(register=register)
        self._registrations = found
        return found

    def registrations(self, kind: str | None = None) -> list[Registration]:
        collected = self._collect()
        kinds = [kind] if kind else list(KIND_HOOKS)
        return [reg for k in kinds for reg in collected[k].values()]

    def get(self, kind: str, name: str) -> Registration:
        try:
            return self._collect()[kind][name]
        except KeyError:
            known = ", ".join(sorted(self._collect()[kind])) or "none"
            raise PluginUnavailable(
                f"No {kind.replace('_', ' ')} named {name!r} is registered (known: {known}). "
                "Run `memex plugins` to see what is installed."
            ) from None

    def build(self, kind: str, name: str, context: PluginContext) -> Any:
        reg = self.get(kind, name)
        if not reg.available:
            raise PluginUnavailable(
                f"The {kind.replace('_', ' ')} {name!r} needs {', '.join(reg.missing)}, "
                f"which is not installed. Install it with: {reg.install_hint}"
            )
        return reg.factory(context)

    def add_commands(self, cli: Any) -> None:
        self.manager.hook.register_commands(cli=cli)

    def doctor_checks(self) -> list[tuple[str, Callable[[Any], Iterable[Any]]]]:
        """The ``(name, check)`` pairs plugins gave ``register_doctor_checks``."""
        checks: list[tuple[str, Callable[[Any], Iterable[Any]]]] = []

        def register(name: str, check: Callable[[Any], Iterable[Any]]) -> None:
            checks.append((name, check))

        self.manager.hook.register_doctor_checks(register=register)
        return checks


def _allowed_plugins() -> set[str] | None:
    raw = os.environ.get("MEMEX_LOAD_PLUGINS")
    if raw is None:
        return None
    return {name.strip() for name in raw.split(",") if name.strip()}


def load_registry() -> PluginRegistry:
    """Load every plugin advertised in the ``memex`` entry-point group."""
    manager = pluggy.PluginManager("memex")
    manager.add_hookspecs(hookspecs)
    allowed = _allowed_plugins()
    broken: list[BrokenPlugin] = []
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        if allowed is not None and ep.name not in allowed:
            continue
        if manager.get_plugin(ep.name) is not None:
            continue
        try:
            module = ep.load()
            manager.register(module, name=ep.name)
        except Exception as exc:  # a broken third-party plugin must not break memex
            broken.append(BrokenPlugin(ep.name, f"{type(exc).__name__}: {exc}"))
    return PluginRegistry(manager, broken)


def lazy_exports(package: str, exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A plugin package's module ``__getattr__`` (PEP 562) that imports each public name
    from its submodule (``exports``: name -> submodule of ``package``) on first use.
    Every ``memex`` process imports every plugin package to find the plugins, so a package
    keeps what costs to import (a model library, large tables) behind its names."""

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(import_module(f"{package}.{module}"), name)

    return __getattr__
