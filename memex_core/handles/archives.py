"""Archives through a memory handle: the operator exports or imports anything; an agent
only its own user's memory (``export_archive`` filters to it, ``import_archive`` refuses
any row of another namespace). Both are logged in the access log."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO, Protocol, cast

from memex_core.catalog.memory_records import MemoryAccessDenied
from memex_core.handles.base import HandleBase
from memex_core.services.ports import Progress

if TYPE_CHECKING:
    from memex_core.services.archive_export import ExportReport
    from memex_core.services.archive_import import ImportReport


class _ArchivingHome(Protocol):
    """``Memex.export_archive`` and ``Memex.import_archive`` (read as attributes: their
    keywords are not restated here)."""

    @property
    def export_archive(self) -> Callable[..., ExportReport]: ...

    @property
    def import_archive(self) -> Callable[..., ImportReport]: ...


class ArchiveCalls(HandleBase):
    """``export_archive`` and ``import_archive`` in the handle's scope."""

    def _archive_user(self, user: str | None) -> str | None:
        """Whose memory the call may reach: an agent's own user, always; the operator's
        choice (None: everything)."""
        bound = self.actor.user_id
        if bound is None:
            return user
        if user is not None and user != bound:
            raise MemoryAccessDenied(
                f"this agent is bound to user {bound!r} and cannot reach {user!r}'s memory"
            )
        return bound

    def export_archive(
        self,
        target: Path | BinaryIO,
        *,
        user: str | None = None,
        collection: str | None = None,
        source: str | None = None,
        since: float | datetime | None = None,
        until: float | datetime | None = None,
        with_log: bool = True,
        progress: Progress | None = None,
    ) -> ExportReport:
        """Write the memory this handle may read as one archive (an agent: its user's
        memory, revisions and log entries only); see ``Memex.export_archive``."""
        home = cast(_ArchivingHome, self._mx)
        with self._logged("export", _named(target), None) as info:
            info["user_id"] = whose = self._archive_user(user)
            report = home.export_archive(
                target,
                user=whose,
                collection=collection,
                source=source,
                since=since,
                until=until,
                with_log=with_log,
                progress=progress,
            )
            info["detail"] = {"rows": sum(report.members.values())}
        return report

    def import_archive(
        self,
        source: Path | BinaryIO,
        *,
        dry_run: bool = False,
        progress: Progress | None = None,
    ) -> ImportReport:
        """Import an archive; an agent's is refused whole if any row is not its user's
        memory; see ``Memex.import_archive``."""
        home = cast(_ArchivingHome, self._mx)
        with self._logged("import", _named(source), None) as info:
            info["user_id"] = whose = self._archive_user(None)
            report = home.import_archive(source, dry_run=dry_run, user=whose, progress=progress)
            info["detail"] = {"added": report.added, "dry_run": dry_run}
        return report


def _named(where: Path | BinaryIO) -> str:
    """The archive as the access log names it: its path, or ``<stream>``."""
    if isinstance(where, Path):
        return str(where)
    name = getattr(where, "name", None)
    return name if isinstance(name, str) else "<stream>"
