"""Generators for the derived parts of the docs; ``docs/generate.py`` runs them."""

from __future__ import annotations

import os
from importlib.metadata import entry_points

from memex_core.plugins import ENTRY_POINT_GROUP

DISTRIBUTION = "memex"


def builtin_plugin_names() -> list[str]:
    """Entry-point names of the plugins the ``memex`` distribution itself ships."""
    return sorted(
        ep.name
        for ep in entry_points(group=ENTRY_POINT_GROUP)
        if ep.dist is not None and ep.dist.name == DISTRIBUTION
    )


def builtin_only() -> None:
    """Load only built-in plugins from now on, through memex's own switch for it.

    The reference describes memex, not whatever else happens to be installed next to it.
    """
    os.environ["MEMEX_LOAD_PLUGINS"] = ",".join(builtin_plugin_names())
