"""Whether a command may use the home ``--home`` (or ``MEMEX_HOME``, or ``~/.memex``) names.

A command that only reads never makes a home: pointed at a folder that does not exist, it
says so and how to make one, rather than creating an empty home and reporting it empty (a
typo in ``--home`` would otherwise look like a memex that lost everything). A command that
writes makes the folder when it can, and a path no folder can be made at (under a file, in
``/proc``, without permission) is one line naming the path and the reason, not a traceback.
Commands named in neither set (``plugins``, ``hooks``, a plugin's own commands) are left as
they were; ``tests/core/cli/test_cli_home.py`` fails on a command in no set.
"""

from __future__ import annotations

from pathlib import Path

import click

from memex_core.catalog.faults import NotWritableError, from_os_error
from memex_core.errors import MemexError

#: Commands that read a home (or change what is already in it) and so need one to exist.
READS = frozenset(
    {
        "dig",
        "keyword",
        "semantic",
        "explore",
        "timeline",
        "get",
        "context",
        "corpus",
        "sources",
        "schema",
        "backfill",
        "rebuild",
        "doctor",
        "query",
        "sql",
        "recall",
        "memories",
        "history",
        "restore",
        "forget",
        "undelete",
        "dream",
        "log",
        "notes",
        "keys list",
        "keys revoke",
        "view",
        "migrate",
        "capture brief",
        "capture summarize",
        "export",
    }
)
#: Commands that write, and so may make the home's folder where there is none yet.
WRITES = frozenset(
    {"ingest", "sync", "ask", "remember", "serve", "keys create", "mcp", "capture drain"}
    | {"import"}  # into a new home as much as an existing one
)

#: Commands that need no home (they inspect the installation, or a warm process).
NEITHER = frozenset(
    {"plugins", "warm start", "warm status", "warm stop", "hooks install", "hooks uninstall"}
    | {"hooks status"}
)

MAKE_ONE = (
    "Make one by adding something to it (`memex ingest path/to/export.zip`, or `memex "
    'remember "a fact" --user you`), or point --home (or MEMEX_HOME) at an existing home.'
)


def command_name(ctx: click.Context) -> str:
    """The command as typed after ``memex`` and its options, e.g. ``dig`` or ``keys list``."""
    names: list[str] = []
    current: click.Context | None = ctx
    while current is not None and current.parent is not None:
        names.append(current.info_name or "")
        current = current.parent
    return " ".join(reversed(names))


def check_home(home: Path, command: str) -> None:
    """Raise :class:`MemexError` (one line, exit status 1) if ``command`` cannot use ``home``:
    a reading command where no home exists, or any command where a file stands in the way;
    make the folder for a writing command."""
    if home.exists() and not home.is_dir():
        raise MemexError(
            f"The memex home {home} is a file, not a folder: pass --home (or MEMEX_HOME) a folder."
        )
    blocking = next((p for p in home.parents if p.exists() and not p.is_dir()), None)
    if blocking is not None:
        raise MemexError(
            f"The memex home {home} cannot be made: {blocking} is a file, not a folder. "
            "Pass --home (or MEMEX_HOME) a folder."
        )
    if command in READS and not home.is_dir():
        raise MemexError(f"No memex home at {home}: nothing was ever added there. {MAKE_ONE}")
    if command in WRITES and not home.is_dir():
        try:
            home.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            refused = from_os_error(exc, home)
            if isinstance(refused, NotWritableError):  # the read-only home message and fix
                raise refused from exc
            reason = exc.strerror or str(exc)
            raise MemexError(
                f"Cannot make the memex home {home}: {reason}. Pass --home (or MEMEX_HOME) "
                "a folder you can write to."
            ) from exc
