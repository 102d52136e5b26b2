"""``memex doctor``: check the catalog, keyword index and vector store against each other.

The catalog is the record of truth; both indexes are derived from it. The
doctor compares them by id (not only by count), and reports every disagreement
as a :class:`Finding`:

- ``drift``: an index (or a derived row) disagrees with the catalog. ``--repair``
  fixes it from the catalog: missing keyword documents and vectors are added
  (embedding only what is missing), orphans deleted, a damaged keyword index
  rebuilt. Nothing in the catalog is lost.
- ``damage``: something the catalog itself would have to be fixed for (a
  corrupt file, a memory without its current revision). Needs a person; the
  finding says what to do.
- ``note``: worth knowing, not wrong (fragments not embedded yet, an ingest run
  that was killed but whose files were all committed or not at all).
- ``error``: the doctor could not check at all: the catalog's server does not answer
  (``catalog.unreachable``, :func:`unreachable_report`). Nothing was compared.

Exit status of the CLI: 0 when nothing is error, drift or damage, 1 otherwise.

The modules here: :mod:`.findings` (what is reported), :mod:`.parts` (what is
examined), :mod:`.catalog_checks`, :mod:`.keyword_checks`, :mod:`.vector_checks`,
:mod:`.repairs` and :mod:`.checkup` (one run). This module gathers the names
plugins and the facade use (``register_doctor_checks`` returns findings);
the modules here import each other directly, never this package.
"""

from memex_core.services.doctor.checkup import Doctor
from memex_core.services.doctor.findings import (
    DAMAGE,
    DRIFT,
    ERROR,
    NOTE,
    SAMPLE_SIZE,
    SEVERITIES,
    DoctorReport,
    Finding,
    Inspection,
    plugin_findings,
    unreachable_report,
)
from memex_core.services.doctor.parts import DoctorParts

__all__ = [
    "DAMAGE",
    "DRIFT",
    "ERROR",
    "NOTE",
    "SAMPLE_SIZE",
    "SEVERITIES",
    "Doctor",
    "DoctorParts",
    "DoctorReport",
    "Finding",
    "Inspection",
    "plugin_findings",
    "unreachable_report",
]
