"""What the doctor reports: findings with a severity, one pass's inspection, the report."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

ERROR, DRIFT, DAMAGE, NOTE = "error", "drift", "damage", "note"
SEVERITIES = (ERROR, DAMAGE, DRIFT, NOTE)
SAMPLE_SIZE = 5


@dataclass(frozen=True)
class Finding:
    """One disagreement (or remark). ``code`` is stable, for scripts: ``keyword.missing``."""

    code: str
    severity: str
    summary: str
    fix: str
    count: int = 0
    sample: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "severity": self.severity,
            "summary": self.summary,
            "count": self.count,
            "sample": list(self.sample),
            "fix": self.fix,
        }


@dataclass
class Inspection:
    """What one pass of checks saw: counts per store and the findings."""

    counts: dict[str, int | None] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        return not any(f.severity in (ERROR, DRIFT, DAMAGE) for f in self.findings)

    def codes(self) -> set[str]:
        return {f.code for f in self.findings}

    def get(self, code: str) -> Finding | None:
        return next((f for f in self.findings if f.code == code), None)


@dataclass
class DoctorReport:
    """The state after the doctor ran; with ``--repair``, what it found first and did."""

    home: str
    final: Inspection
    before: Inspection | None = None  # set when a repair ran
    repairs: list[str] = field(default_factory=list)

    @property
    def healthy(self) -> bool:
        return self.final.healthy

    @property
    def findings(self) -> list[Finding]:
        return self.final.findings

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "home": self.home,
            "healthy": self.healthy,
            "counts": self.final.counts,
            "findings": [f.to_dict() for f in self.final.findings],
        }
        if self.before is not None:
            out["repaired"] = self.repairs
            out["found_before_repair"] = [f.to_dict() for f in self.before.findings]
        return out


def sample(ids: Iterable[str]) -> tuple[str, ...]:
    """The few ids a finding shows, the same ones every run."""
    return tuple(sorted(ids)[:SAMPLE_SIZE])


def plural(count: int, word: str) -> str:
    return f"{count:,} {word}" + ("" if count == 1 else "s")


def unreachable_report(home: str, server: str, reason: str, fix: str) -> DoctorReport:
    """The report when the catalog's server cannot be reached: one ``catalog.unreachable``
    error naming ``server`` (``host:port/database``, never a password), and nothing
    compared (the catalog is what everything is compared with)."""
    where = f" at {server}" if server else ""
    finding = Finding(
        "catalog.unreachable",
        ERROR,
        f"The catalog server{where} cannot be reached ({reason}), so nothing was checked.",
        fix
        or "Start the catalog's server or fix the settings that name it, then run "
        "`memex doctor` again.",
        count=1,
    )
    return DoctorReport(home, Inspection(findings=[finding]))


def plugin_findings(
    checks: Iterable[tuple[str, Callable[[Any], Iterable[Finding]]]], home: Any
) -> list[Finding]:
    """Run the checks plugins registered (``register_doctor_checks``) on ``home``.

    A check that raises becomes a note naming it: a plugin's bug must not hide the
    doctor's own findings."""
    found: list[Finding] = []
    for name, check in checks:
        try:
            found.extend(check(home))
        except Exception as exc:
            found.append(
                Finding(
                    code=f"plugin.{name}.failed",
                    severity=NOTE,
                    summary=f"The doctor check {name!r} failed: {type(exc).__name__}: {exc}",
                    fix="Report it to the plugin that registered the check; the other "
                    "findings are unaffected.",
                )
            )
    return found
