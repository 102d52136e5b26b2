"""Where a benchmark section's figures come from: the run that measured them.

docs/benchmarks.md gathers sections measured by different runs (a whole run takes hours,
so sections are rerun on their own), so each section carries its run: when, which commit,
which command, on what machine and under what load. A :class:`Run` is captured when a run
starts and finished when it ends; imported reports (:mod:`benchmarks.reports`) rebuild one
from their environment lines.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from typing import Any

from benchmarks.report import git_commit, library_versions, load_average, machine, python_version

#: How dates are written everywhere in the reports (minute precision, UTC).
DATE_FORMAT = "%Y-%m-%d %H:%M UTC"


@dataclass(frozen=True)
class Run:
    """One run of ``python -m benchmarks.run``, as its report's environment lines describe it.

    ``date`` is when the run started for runs recorded by ``--merge``; for a run imported
    from a report it is the report's own ``Date`` line (written when the run ended).
    """

    date: str
    command: str
    commit: str
    machine: str
    python: str
    libraries: str
    load_at_start: str
    load_at_end: str | None = None  # None: the run had not ended when its section was stored
    wall_minutes: float | None = None
    quick: bool = False
    #: The run's own Markdown report, relative to the docs folder (linked from its sections).
    report: str | None = None

    @property
    def when(self) -> datetime:
        return datetime.strptime(self.date, DATE_FORMAT).replace(tzinfo=UTC)

    @property
    def identity(self) -> tuple[str, str]:
        """Sections sharing this were measured by the same run."""
        return (self.date, self.command)

    def finished(self, wall_minutes: float) -> Run:
        return replace(self, wall_minutes=round(wall_minutes, 2), load_at_end=load_average())

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Run:
        known = {name: data[name] for name in cls.__dataclass_fields__ if name in data}
        return cls(**known)

    def wall(self) -> str:
        if self.wall_minutes is None:
            return "wall time unknown: the run was interrupted or is still going"
        return f"wall time {self.wall_minutes:.1f} min"

    def load(self) -> str:
        end = f", at end {self.load_at_end}" if self.load_at_end else ""
        return f"load average (1/5/15 min) at start {self.load_at_start}{end}"

    def line(self) -> str:
        """The one-line provenance a section of the assembled doc opens with."""
        quick = "**QUICK SMOKE RUN**, not comparable with the targets; " if self.quick else ""
        report = f"; full report: [{self.report}]({self.report})" if self.report else ""
        return (
            f"*Measured {self.date}* by `{self.command}` ({quick}{self.wall()}) at memex commit "
            f"{self.commit}, on {self.machine}; {self.load()}{report}."
        )


def capture(command: str, *, quick: bool, report: str | None = None) -> Run:
    """This machine and checkout, now: taken when a run starts."""
    return Run(
        date=datetime.now(UTC).strftime(DATE_FORMAT),
        command=command,
        commit=git_commit(),
        machine=machine(),
        python=python_version(),
        libraries=library_versions(),
        load_at_start=load_average(),
        quick=quick,
        report=report,
    )
