"""Homes that share one catalog: each keeps its own place in the change journal.

On a catalog of its own (SQLite), a home's keyword index records how far it has replayed
the journal in the catalog itself and prunes the journal up to there. When several homes
share one catalog (PostgreSQL: one home per host or per ``memex serve`` replica), each has
its own keyword index, so each needs its own place, and none may prune what another has
not replayed yet:

* :class:`HomeWatermark` keeps the place in a file beside the keyword index
  (``<home>/index/keyword-watermark.json``), written after the index is flushed
  (atomically: a crash leaves the old place or the new one, and an old place only means
  replaying entries the index already holds, which changes nothing);
* each flush also tells the catalog (table ``replicas``: name, place, when) and prunes the
  journal only up to the lowest place among the replicas heard from within
  ``[catalog] replica_timeout`` (default 24 h). A replica away for longer finds the journal
  pruned past its place and compares its whole index with the catalog instead
  (:meth:`~memex_core.services.indexing.KeywordSync.catch_up`).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from memex_core.errors import MemexError
from memex_core.services.indexing import KEYWORD_SYNCED_SETTING, JournalCatalog

#: Catalog setting: a random id made once per catalog, so a home pointed at another
#: database does not take its old place for a place in the new journal.
CATALOG_ID_SETTING = "catalog_id"
WATERMARK_FILE = "keyword-watermark.json"
#: How long a replica may go unheard before the others prune the journal past it.
DEFAULT_REPLICA_TIMEOUT_S = 24 * 3600.0


class ReplicaCatalog(JournalCatalog, Protocol):
    """What a shared catalog offers replicas (``memex_core.catalog.replicas``)."""

    def record_replica(self, name: str, seen: int) -> None: ...

    def replica_floor(self, heard_since: float) -> int | None: ...


@dataclass(frozen=True)
class Replica:
    """One home's keyword index as the catalog last heard of it."""

    name: str
    seen: int
    updated_at: float


def replica_name(home: Path) -> str:
    """``HOST:/path/of/home``: one name per keyword index."""
    return f"{socket.gethostname()}:{Path(home).expanduser().absolute()}"


def replica_timeout(catalog_table: Mapping[str, Any], config_path: Path) -> float:
    """``[catalog] replica_timeout`` in seconds (a number, or a string such as "24h")."""
    raw = catalog_table.get("replica_timeout", DEFAULT_REPLICA_TIMEOUT_S)
    seconds = _seconds(raw)
    if seconds is None or seconds <= 0:
        raise MemexError(
            f"[catalog] replica_timeout = {raw!r} in {config_path} is not a duration. Set it "
            'to seconds (86400) or a string such as "24h" or "90m": how long the journal '
            "is kept for a replica that stopped, before it must compare its whole keyword "
            "index with the catalog."
        )
    return seconds


def _seconds(raw: Any) -> float | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int | float):
        return float(raw)
    if not isinstance(raw, str):
        return None
    text = raw.strip().lower()
    units = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
    scale = units.get(text[-1:])
    number = text[:-1] if scale is not None else text
    try:
        return float(number) * (scale or 1.0)
    except ValueError:
        return None


def catalog_id(catalog: JournalCatalog, *, create: bool) -> str:
    """The catalog's random id; made on first use when ``create``."""
    found = catalog.get_setting(CATALOG_ID_SETTING)
    if found or not create:
        return found or ""
    catalog.set_setting(CATALOG_ID_SETTING, uuid.uuid4().hex)
    # Two replicas making it at once: the last write wins, and both read that one back.
    return catalog.get_setting(CATALOG_ID_SETTING) or ""


class HomeWatermark:
    """One home's place in a shared catalog's change journal (see the module's doc)."""

    exclusive = False

    def __init__(
        self,
        catalog: ReplicaCatalog,
        index_dir: Path,
        name: str,
        timeout_s: float = DEFAULT_REPLICA_TIMEOUT_S,
        index_empty: Callable[[], bool] | None = None,
    ) -> None:
        self.catalog = catalog
        self.path = Path(index_dir) / WATERMARK_FILE
        self.name = name
        self.timeout_s = timeout_s
        self.index_empty = index_empty

    def load(self) -> int:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            seen, owner = int(data["seen"]), str(data["catalog"])
        except (OSError, ValueError, KeyError, TypeError):
            seen, owner = self._inherited(), ""  # no place of its own yet
        else:
            if owner != catalog_id(self.catalog, create=False):
                seen = 0  # a place in another catalog's journal means nothing here
        seen = max(0, seen)
        # Known to the catalog from its first open on: the others prune nothing it still
        # has to replay, even before it first flushes.
        self.catalog.record_replica(self.name, seen)
        return seen

    def _inherited(self) -> int:
        """The place of a home whose SQLite catalog was copied here (``memex migrate``): its
        index was flushed up to the copied ``keyword_synced_to``. Taken only while no replica
        has flushed into this catalog yet (it has no id) and only for an index that holds
        something: a new, empty home starts from the beginning."""
        if catalog_id(self.catalog, create=False):
            return 0
        if self.index_empty is None or self.index_empty():
            return 0
        value = self.catalog.get_setting(KEYWORD_SYNCED_SETTING)
        return int(value) if value and value.isdigit() else 0

    def flushed(self, seq: int) -> None:
        owner = catalog_id(self.catalog, create=True)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            with temporary.open("w", encoding="utf-8") as out:
                json.dump({"seen": seq, "catalog": owner, "replica": self.name}, out)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, self.path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                temporary.unlink()
        self.catalog.record_replica(self.name, seq)
        floor = self.catalog.replica_floor(time.time() - self.timeout_s)
        if floor is not None and floor > 0:
            self.catalog.prune_fragment_changes(min(floor, seq))
