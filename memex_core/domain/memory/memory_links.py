"""``[[...]]`` links inside memory files, and the storage path each one leads to.

A memory file owned by a user links with virtual paths (``[[user/projects.md]]``,
``[[shared/handbook.md]]``) or relative to its own folder (``[[todo]]``). Links
resolve in the writer's own space only: a link can name another user's path but
never reaches it, because the result is validated and must stay under the
writer's owner or ``shared/``.
"""

from __future__ import annotations

import re

from memex_core.domain.memory.paths import (
    owner_of_storage_path,
    to_storage_path,
    validate_storage_path,
)
from memex_core.domain.memory.records import SHARED_OWNER, owner_user_id
from memex_core.errors import MemexError

_WIKILINK = re.compile(r"!?\[\[([^\[\]\n]+?)\]\]")


def find_memory_links(text: str) -> list[str]:
    """Link targets as written (without ``#heading`` or ``|display``), in order, unique."""
    out: list[str] = []
    for match in _WIKILINK.finditer(text):
        target = match.group(1).split("|", 1)[0].split("#", 1)[0].strip()
        if target and target not in out:
            out.append(target)
    return out


def resolve_memory_link(target: str, from_path: str) -> str | None:
    """The storage path ``target`` leads to from the memory file at ``from_path``, or None
    when it cannot lead anywhere the file's owner may read."""
    owner = owner_of_storage_path(from_path)
    user_id = owner_user_id(owner)
    if "." not in target.rsplit("/", 1)[-1]:
        target = f"{target}.md"
    try:
        if target.startswith(("user/", "shared/")):
            if target.startswith("user/") and user_id is None:
                return None  # a shared file has no "user"
            path = to_storage_path(target, user_id or "operator")
        else:
            folder = from_path.rsplit("/", 1)[0]
            path = validate_storage_path(f"{folder}/{target}")
    except MemexError:
        return None
    if owner_of_storage_path(path) not in (owner, SHARED_OWNER):
        return None
    return path
