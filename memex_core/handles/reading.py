"""A memory handle's reads: a memory by id or path, a collection's list, search, links."""

from __future__ import annotations

import builtins

from memex_core.domain import SearchFilters
from memex_core.domain.memory.outcomes import MemoryHit, MemoryLinks
from memex_core.domain.memory.records import ACTIVE, DELETED, MEMORY_SOURCE, MemoryRecord
from memex_core.domain.search_options import SearchOptions, TimeBound
from memex_core.domain.time_bounds import parse_time_bound
from memex_core.handles.base import HandleBase
from memex_core.handles.calls import MemoryListing


def _bound(value: TimeBound, *, end_of_day: bool = False) -> float | None:
    """A since/until bound as epoch seconds: a number as given (as memory search always
    took them), anything else read as the fragment filters read it."""
    if value is None or (isinstance(value, int | float) and not isinstance(value, bool)):
        return value
    return parse_time_bound(value, end_of_day=end_of_day)


class MemoryReads(HandleBase):
    """Reading memory in the handle's scope; every call is logged."""

    def get(self, ref: str, *, tool_call_id: str | None = None) -> MemoryRecord:
        """A memory by id or path (its current revision). Deleted ones too, marked so."""
        with self._logged("read", ref, tool_call_id) as info:
            record = self._find(ref)
            info["user_id"] = record.user_id
        return self._public(record)

    read = get

    def _list(self, asked: MemoryListing, tool_call_id: str | None) -> builtins.list[MemoryRecord]:
        with self._logged("list", asked.collection or self.collection, tool_call_id) as info:
            info["user_id"] = asked.user_id if self.scope.is_operator else None
            owners = self._readable_owners(asked.user_id)
            if not owners:  # another user's memory: nothing (memories() reads () as "any")
                return []
            collections = self._collections(asked.collection, owners)
            records = self._mx.catalog.memories(
                self.scope,
                owners=owners,
                collections=collections,
                statuses=(ACTIVE, DELETED, "invalidated") if asked.include_deleted else (ACTIVE,),
                kinds=(asked.kind,) if asked.kind else (),
                limit=asked.limit,
                offset=asked.offset,
            )
        return [self._public(r) for r in records]

    def _search(
        self, options: SearchOptions, user_id: str | None, tool_call_id: str | None
    ) -> builtins.list[MemoryHit]:
        query, mode = options.query, options.mode
        with self._logged("search", query, tool_call_id, mode=mode) as info:
            owners = self._readable_owners(user_id)
            collections = self._collections(options.collection, owners)
            if not owners or collections == ():
                info["detail"] = {"hits": 0}
                return []
            filters = SearchFilters(
                source_kinds=(MEMORY_SOURCE,),
                owners=owners,
                collections=collections or (),
                include_private=options.include_private,
                since=_bound(options.since),
                until=_bound(options.until, end_of_day=True),
            )
            found = self._mx.search_with(options, filters=filters)
            hits = []
            for result in found:
                fragment = result.fragment
                # Defence in depth: the stores filtered already; never trust them alone.
                if fragment.owner not in owners or not self.scope.can_read(fragment.owner):
                    continue
                record = self._mx.catalog.memory(self.scope, fragment.conversation_id)
                if record is None:
                    continue
                hits.append(
                    MemoryHit(
                        memory_id=record.id,
                        path=self._shown_path(record.path),
                        collection=record.collection,
                        kind=record.kind,
                        text=fragment.content,
                        score=result.score,
                        fragment_id=fragment.id,
                        ranks={k: v for k, v in result.ranks.items() if v is not None},
                        private=record.private,
                        valid_from=record.holds_from,
                        valid_until=record.valid_until,
                        superseded_by=record.superseded_by,
                        recorded_at=record.created_at,
                    )
                )
            info["detail"] = {"hits": len(hits)}
        return hits

    def chain(self, ref: str, *, tool_call_id: str | None = None) -> builtins.list[MemoryRecord]:
        """The facts ``ref`` belongs to in time, oldest first: those it superseded and
        those superseding it (Paris -> Berlin), each with its validity. Only what this
        handle may read: another user's facts are never part of a chain."""
        with self._logged("history", ref, tool_call_id) as info:
            record = self._find(ref)
            info["user_id"] = record.user_id
            chain = self._mx.catalog.supersession_chain(self.scope, record.id)
        return [self._public(r) for r in chain]

    def links(self, ref: str, *, tool_call_id: str | None = None) -> MemoryLinks:
        """A memory file's ``[[...]]`` links and the memory files linking to it."""
        with self._logged("links", ref, tool_call_id) as info:
            record = self._find(ref)
            info["user_id"] = record.user_id
            catalog = self._mx.catalog
            out = [
                {
                    "target": link.target,
                    "path": self._shown_path(link.target_path) if link.target_memory else None,
                    "memory_id": link.target_memory,
                }
                for link in catalog.memory_outlinks(self.scope, record.id)
            ]
            back = [
                {"path": self._shown_path(link.source_path), "memory_id": link.source_memory}
                for link in catalog.memory_backlinks(self.scope, record.id)
            ]
        return MemoryLinks(self._shown_path(record.path) or record.id, out, back)

    def collections(self, *, user_id: str | None = None) -> builtins.list[str]:
        """Names of the collections that hold memory in scope (any status), sorted; the
        handle's collection (a key's bound) narrows them."""
        owners = self._readable_owners(user_id)
        if not owners:
            return []
        names = self._collections(None, owners)
        if names is None:
            return self._mx.catalog.memory_collections(self.scope, owners)
        return sorted(names)
