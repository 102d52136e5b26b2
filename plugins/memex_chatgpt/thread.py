"""Find the active branch of a ChatGPT conversation tree.

A ChatGPT conversation is a tree of nodes (``mapping``): editing a prompt or
regenerating an answer adds a sibling branch. What the user last saw is the
path from ``current_node`` up to the root. We walk ``parent`` links only,
because some exports leave ``children`` empty, and we tolerate what real and
trimmed exports contain: parents missing from the mapping, a ``current_node``
that is not there, and (in hand-made files) parent cycles.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _create_time(node: object) -> float:
    message = node.get("message") if isinstance(node, dict) else None
    value = message.get("create_time") if isinstance(message, dict) else None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return float("-inf")


def newest_leaf(mapping: Mapping[str, Any]) -> str | None:
    """The most recently created node that no other node names as its parent.

    Used when ``current_node`` is missing. Leaves are found from parent links,
    not ``children`` lists, which may be empty or point outside the mapping.
    Ties (and nodes without times) go to the one listed last. If every node is
    somebody's parent (a cycle), every node is a candidate.
    """
    if not mapping:
        return None
    parents = {node.get("parent") for node in mapping.values() if isinstance(node, dict)}
    leaves = [node_id for node_id in mapping if node_id not in parents] or list(mapping)
    best = leaves[0]
    for node_id in leaves[1:]:
        if _create_time(mapping[node_id]) >= _create_time(mapping[best]):
            best = node_id
    return best


def active_path(mapping: Mapping[str, Any], current_node: object) -> list[str]:
    """Node ids from the root to ``current_node`` (or the newest leaf if it is missing).

    The walk stops at a node without a parent, at a parent that is not in the
    mapping, or at a node already visited, so it always ends.
    """
    start = (
        current_node
        if isinstance(current_node, str) and current_node in mapping
        else newest_leaf(mapping)
    )
    path: list[str] = []
    seen: set[str] = set()
    node_id: object = start
    while isinstance(node_id, str) and node_id in mapping and node_id not in seen:
        seen.add(node_id)
        path.append(node_id)
        node = mapping[node_id]
        node_id = node.get("parent") if isinstance(node, dict) else None
    path.reverse()
    return path
