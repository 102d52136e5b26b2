"""One run of the doctor: every check, and with ``--repair``, the repairs and a second look."""

from __future__ import annotations

from memex_core.services.doctor.catalog_checks import check_catalog, check_memory
from memex_core.services.doctor.findings import SEVERITIES, DoctorReport, Inspection
from memex_core.services.doctor.keyword_checks import check_index_settings, check_keyword
from memex_core.services.doctor.parts import DoctorParts, Patient
from memex_core.services.doctor.repairs import repair
from memex_core.services.doctor.vector_checks import check_vectors
from memex_core.services.ports import NoProgress, Progress


class Doctor:
    def __init__(self, parts: DoctorParts) -> None:
        self.parts = parts
        self.patient = Patient(parts)

    def run(self, *, repair: bool = False, progress: Progress | None = None) -> DoctorReport:
        progress = progress or NoProgress()
        first = self.check()
        if not repair:
            return DoctorReport(self.parts.home, first)
        repairs = self.repair(first, progress)
        return DoctorReport(self.parts.home, self.check(), before=first, repairs=repairs)

    def check(self) -> Inspection:
        seen = Inspection()
        catalog_ids = check_catalog(self.patient, seen)
        if catalog_ids is not None:  # a damaged catalog cannot be compared with anything
            check_keyword(self.patient, seen, catalog_ids)
            check_vectors(self.patient, seen, catalog_ids)
            check_memory(self.patient, seen)
            check_index_settings(self.patient, seen)
        order = {severity: n for n, severity in enumerate(SEVERITIES)}
        seen.findings.sort(key=lambda f: (order[f.severity], f.code))
        return seen

    def repair(self, found: Inspection, progress: Progress) -> list[str]:
        """Fix every drift finding from the catalog; returns what was done, in words."""
        return repair(self.patient, found, progress)
