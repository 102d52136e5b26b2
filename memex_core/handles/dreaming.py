"""A memory handle's dreams: consolidate a collection's facts, or plan it and apply the plan."""

from __future__ import annotations

import builtins
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from memex_core.catalog.memory_records import MemoryAccessDenied
from memex_core.domain import Consolidator
from memex_core.domain.memory.outcomes import DreamPlan, DreamReport
from memex_core.handles.base import HandleBase
from memex_core.services.dream import apply_plan, dream, plan_dream
from memex_core.services.ports import Progress


class MemoryDreams(HandleBase):
    """Dreaming over the collections the handle may write."""

    def dream(
        self,
        collection: str | None = None,
        *,
        dry_run: bool = False,
        consolidator: Consolidator | None = None,
        user_id: str | None = None,
        progress: Progress | None = None,
        tool_call_id: str | None = None,
    ) -> DreamReport:
        """Consolidate the facts of a collection (and those below it); see
        :mod:`memex_core.services.dream`. ``dry_run`` decides without writing."""
        asked = self._dream_call(collection, user_id, consolidator, tool_call_id, dry_run=dry_run)
        with (
            asked as (_info, groups, chosen),
            self._mx.writing("dream"),
            self._mx.memory_indexes().held(),
        ):
            report = dream(
                self._service(), self.scope, groups, chosen, dry_run=dry_run, progress=progress
            )
        return report

    def dream_plan(
        self,
        collection: str | None = None,
        *,
        consolidator: Consolidator | None = None,
        user_id: str | None = None,
        progress: Progress | None = None,
        tool_call_id: str | None = None,
    ) -> DreamPlan:
        """What :meth:`dream` would do, written nowhere, with the state of the facts it
        was made on: review ``plan.report``, then :meth:`apply_dream` carries out exactly
        those decisions."""
        asked = self._dream_call(collection, user_id, consolidator, tool_call_id, dry_run=True)
        with asked as (info, groups, chosen):
            plan = plan_dream(
                self._service(),
                self.scope,
                groups,
                chosen,
                progress=progress,
                collection=collection,
                user_id=user_id,
            )
            info["detail"] = {"plan": plan.digest, "decisions": len(plan.report.decisions)}
        return plan

    @contextmanager
    def _dream_call(
        self,
        collection: str | None,
        user_id: str | None,
        consolidator: Consolidator | None,
        tool_call_id: str | None,
        *,
        dry_run: bool,
    ) -> Iterator[tuple[dict[str, Any], builtins.list[tuple[str, str]], Consolidator]]:
        """Log one dream (or plan) of ``collection``, and give it the log entry's details,
        the (owner, collection) groups it covers and the consolidator that decides."""
        target = collection or self.collection
        with self._logged("dream", target, tool_call_id, dry_run=dry_run) as info:
            info["user_id"] = user_id if self.scope.is_operator else None
            groups = self._dream_groups(collection, user_id)
            yield info, groups, consolidator or self._mx.consolidator()

    def apply_dream(self, plan: DreamPlan, *, tool_call_id: str | None = None) -> DreamReport:
        """Apply a plan from :meth:`dream_plan` as it was reviewed (the consolidator is not
        asked again). Raises :class:`DreamPlanStale`, writing nothing, when the facts it
        was made on changed since."""
        with self._logged("dream", "plan " + plan.digest, tool_call_id, plan=plan.digest):
            # Only groups this handle could have planned itself (a bound key's collection
            # included); the catalog checks the scope of every write again.
            if not set(plan.groups) <= set(self._dream_groups(None, None)):
                raise MemoryAccessDenied(
                    f"this dream plan covers memory {self.actor.label} cannot write"
                )
            with self._mx.writing("dream"), self._mx.memory_indexes().held():
                report = apply_plan(self._service(), self.scope, plan)
        return report

    def _dream_groups(
        self, collection: str | None, user_id: str | None
    ) -> builtins.list[tuple[str, str]]:
        """The (owner, collection) pairs a dream of ``collection`` covers: writable owners
        only, every collection under the prefix."""
        owners = tuple(o for o in self._readable_owners(user_id) if self.scope.can_write(o))
        collections = self._collections(collection, owners)
        names = (
            collections
            if collections is not None
            else tuple(self._mx.catalog.memory_collections(self.scope, owners))
        )
        return [(o, c) for o in owners for c in names]
