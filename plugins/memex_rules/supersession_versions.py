"""Jotted notes of one thing's version: "prod EKS 1.24" then "prod EKS 1.27", "ml-pipelines
pinned to python 3.9" then "ml-pipelines: py3.11", "orders db is PG 12" then "orders db
upgraded to Postgres 14 last night".

The sentence readers (``supersession_readers``) read a version told in a sentence ("We
upgraded to Python 3.12"); notes jot a name and its version with no verb, or with the verb
between them, and those readers leave them alone. Here a note's versions are read as (name,
version) pairs: a name right before a dotted version ("EKS 1.24", "celery==5.2.7",
"py3.11"), a tool named before a whole number ("postgres 12", "Node 20"), or a tool then
"to"/"->" and its version within a few words ("prod EKS upgraded -> 1.28"). A later note
closes an earlier one when both give a version of the same name, none in common, and both
open with the same key word ("orders db ..." / "orders db ..."): a key is what the note is
about, so "frontend: node 18" and "backend: node 20" stay two things.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memex_rules.rules_text import word_set
from memex_rules.supersession_values import tool_category

#: Names written for one tool ("py3.11", "PG 15").
_ALIASES = {
    "py": "python",
    "pg": "postgres",
    "postgresql": "postgres",
    "psql": "postgres",
    "k8s": "kubernetes",
    "nodejs": "node",
    "node.js": "node",
}
#: Kinds of tool whose whole-number versions are versions ("postgres 12", "node 20").
_VERSIONED_KINDS = frozenset(
    {
        "database",
        "os",
        "language",
        "runtime",
        "orchestrator",
        "frontend framework",
        "package manager",
        "ci",
        "container",
    }
)
#: Tools of no kind above that are versioned by whole numbers too.
_VERSIONED = word_set(
    "eks gke aks django rails ios android java spring laravel symfony celery terraform "
    "elasticsearch kafka rabbitmq nginx php dotnet angular nextjs nuxt webpack vite jest pytest "
    "numpy pandas torch tensorflow kotlin swift xcode gradle maven helm redis"
)
_VERSION = r"v?\d+(?:\.\d+)+|\d{1,2}\b"
#: A name and its version side by side: "EKS 1.24", "celery==5.2.7", "py3.11", "node 18".
_NAME_VERSION = re.compile(
    rf"(?i)\b([a-z][a-z0-9.+-]*?)(?:\s*(?:==|@|:|=)\s*|\s+|)(?<![\d.])({_VERSION})(?![\d%£$€:/a-z])"
)
#: A tool, a few words, then "to" or an arrow and its version: "EKS upgraded -> 1.28".
_NAME_TO_VERSION = re.compile(  # a lookahead: every word may start one ("prod EKS upgraded")
    rf"(?i)\b(?=([a-z][a-z0-9.+-]*?)\s+(?:[a-z]+\s+){{0,3}}?(?:to|->|\u2192)\s*({_VERSION})"
    r"(?![\d%£$€:/a-z]))"
)
#: Words that name no tool.
_NOT_NAMES = word_set("v to at on is of from the a an and or in by for with")
#: The word a note opens with, what it is about: "orders" of "orders db is PG 12".
_KEY = re.compile(r"^\s*(?:(?:the|our|my)\s+)?([a-z][\w-]+)", re.IGNORECASE)


def _tool(name: str) -> bool:
    return name in _VERSIONED or tool_category(name) in _VERSIONED_KINDS


@lru_cache(maxsize=8192)
def versions(text: str) -> dict[str, frozenset[str]]:
    """The versions ``text`` gives, by the (lower-case) name of what they are versions of."""
    found: dict[str, set[str]] = {}
    text = text[:400]
    for pattern in (_NAME_VERSION, _NAME_TO_VERSION):
        for match in pattern.finditer(text):
            name = match.group(1).lower().rstrip(".-")
            name = _ALIASES.get(name, name)
            version = match.group(2).lower().removeprefix("v")
            if len(name) < 2 or name in _NOT_NAMES:
                continue
            whole = "." not in version
            if (whole or pattern is _NAME_TO_VERSION) and not _tool(name):
                continue  # "size 9", "grade 5", "level 2": no versions
            found.setdefault(name, set()).add(version)
    return {name: frozenset(values) for name, values in found.items()}


def _key(text: str) -> str:
    match = _KEY.match(text)
    return match.group(1).lower() if match else ""


def version_changed(new_text: str, old_text: str) -> tuple[str, str] | None:
    """Why the note ``new_text`` closes ``old_text`` as a new version of the same thing (see
    the module doc), as (key, reason), or None."""
    key = _key(new_text)
    if not key or key != _key(old_text):
        return None
    new, old = versions(new_text), versions(old_text)
    for name in sorted(set(new) & set(old)):
        if not new[name] & old[name]:
            before, after = (", ".join(sorted(v)) for v in (old[name], new[name]))
            return f"we: version of {name}", f"{key} {name}: {before} -> {after}"
    return None
