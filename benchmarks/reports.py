"""Reading a run's Markdown report back: the importer of docs/benchmarks*.md into the store.

Every report ``python -m benchmarks.run --output FILE`` writes comes from
:func:`benchmarks.report.render`, so they share one shape: a ``# Benchmarks`` title, the
environment lines (``- Date:``, ``- Command:``...), a ``## Summary`` table, then one
``## <title>`` per measured section. :func:`parse` turns such a file back into its run and
sections; :func:`import_reports` stores each section whose report is newer than what the
store holds (the newer date wins), which is how a section rerun with ``--output`` reaches
docs/benchmarks.md (``python -m benchmarks.assemble``). Files of another shape (the
assembled page itself, a hand-written report) are skipped and said so.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from benchmarks.provenance import Run
from benchmarks.report import SUMMARY_HEADERS, Check, Section
from benchmarks.store import ResultStore, StoredSection

#: Reports written before the summary named each row's section: which section a row belongs
#: to, by the start of its name (the names the benchmark modules give their checks).
LEGACY_ROWS: dict[str, str] = {
    "keyword": r"keyword query p50 @|keyword speed-up vs rank_bm25",
    "adds": r"add [\d,]+ to [\d,]+ \+ flush",
    "scifact": r"SciFact nDCG@10, (hybrid|keyword|semantic)$",
    "locomo": r"LoCoMo dev evidence recall@10, (hybrid|keyword|semantic)$",
    "cold": r"cold `memex |same JSON through the warm process",
    "context_budget": r"LoCoMo dev recall in [\d,]+ chars",
    "vault": r"Obsidian Help vault: ",
    "remember_throughput": r"remember [\d,]+ facts one call each",
    "dream_duplicates": r"(duplicate rate after|distinct facts lost by) `dream\(\)`",
    "hybrid": r"hybrid query p50 @|hybrid speed-up vs LangChain",
    "ingest": r"ingest with embeddings, |keyword-only ingest @",
    "encoders": r"[^:]+: quality against today's encoder",
    "memory": r"peak RSS of ",
    "service": r"hybrid p50 over HTTP|hybrid searches/s over HTTP|HTTP results equal in-process",
    "abstention": r"False-hit rate|.*, floor auto$",
    "hooks": r"hook p95 over ",
    "freshness": r"events searchable within|delay from an event's line to searchable",
    "ask": r"ask ",
    "viewer": r"search results rendered @|page hits equal /v1/search",
    "vector_servers": r"pgvector ",
    "scale_out": r"PostgreSQL .* vs SQLite @|two `memex serve` replicas vs one",
}

_VERDICTS = {"met": True, "**MISSED**": False, "-": None}
_COMMAND = re.compile(r"^- Command: `(?P<command>.*)` \(wall time (?P<minutes>[\d.]+) min\)$")
_LOAD = re.compile(r"^- Load average \(1/5/15 min\) at start (?P<start>\S+), at end (?P<end>\S+) ")


class ReportError(ValueError):
    """A file that looks like a run's report but cannot be read back as one."""


@dataclass(frozen=True)
class Report:
    path: Path
    run: Run
    sections: list[Section]


def parse(path: Path, titles: Mapping[str, str], *, docs: Path) -> Report | None:
    """The run and measured sections of one report; None when ``path`` is not a single
    run's report (no ``- Date:`` line under a ``# Benchmarks`` title)."""
    lines = path.read_text(encoding="utf-8").split("\n")
    if not lines or lines[0] != "# Benchmarks" or "## Summary" not in lines:
        return None
    summary_at = lines.index("## Summary")
    header = _fields(lines[:summary_at])
    if "Date" not in header:
        return None
    try:
        run = _run(header, lines[:summary_at], report=link(path, docs))
    except (KeyError, ValueError) as exc:
        raise ReportError(
            f"{path}: environment lines not as benchmarks.report writes them: {exc}"
        ) from exc
    headings = _headings(lines, summary_at + 1)
    sections = []
    for number, (at, title) in enumerate(headings):
        end = headings[number + 1][0] if number + 1 < len(headings) else len(lines)
        body = "\n".join(lines[at + 1 : end]).strip("\n")
        sections.append(Section(_key(title, titles), title, body=[body] if body else []))
    first = headings[0][0] if headings else len(lines)
    _attribute(path, _summary_rows(path, lines[summary_at + 1 : first]), sections)
    return Report(path, run, sections)


#: The key of a section no benchmark in the registry has (reported, never stored).
UNKNOWN = ""


def _key(title: str, titles: Mapping[str, str]) -> str:
    """The registry key of a heading; a benchmark renumbered since ("18. Viewer: ..." is
    "19. Viewer: ..." now) is found by its title without the number."""
    for key, known in titles.items():
        if title == known:
            return key
    words = title.split(". ", 1)[-1]
    found = [key for key, known in titles.items() if known.split(". ", 1)[-1] == words]
    return found[0] if len(found) == 1 else UNKNOWN


def link(path: Path, docs: Path) -> str | None:
    """``path`` as a link from a page in ``docs``; None for a file outside it (no link that
    the site would not serve)."""
    path, docs = path.resolve(), docs.resolve()
    return path.relative_to(docs).as_posix() if path.is_relative_to(docs) else None


def _fields(header: list[str]) -> dict[str, str]:
    fields = {}
    for line in header:
        if line.startswith("- ") and ": " in line:
            name, value = line[2:].split(": ", 1)
            fields[name] = value
    return fields


def _run(header: dict[str, str], lines: list[str], *, report: str | None) -> Run:
    command = next((m for line in lines if (m := _COMMAND.match(line))), None)
    load = next((m for line in lines if (m := _LOAD.match(line))), None)
    if command is None or load is None:
        raise ValueError("no `- Command:` or `- Load average` line")
    return Run(
        date=header["Date"],
        command=command["command"],
        commit=header["memex commit"],
        machine=header["Machine"],
        python=header["Python"],
        libraries=header["Libraries"],
        load_at_start=load["start"],
        load_at_end=load["end"],
        wall_minutes=float(command["minutes"]),
        quick=any(line.startswith("> **QUICK SMOKE RUN**") for line in lines),
        report=report,
    )


def _headings(lines: list[str], start: int) -> list[tuple[int, str]]:
    """``## `` headings outside fenced code, from ``start`` on."""
    found, fenced = [], False
    for at in range(start, len(lines)):
        line = lines[at]
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("## "):
            found.append((at, line[3:]))
    return found


def _summary_rows(path: Path, lines: list[str]) -> list[tuple[str | None, Check]]:
    """(section number or None, check) for each row of the summary table."""
    table = [line for line in lines if line.startswith("| ")]
    if not table:
        return []
    headers = _cells(table[0])
    numbered = tuple(headers) == SUMMARY_HEADERS
    if not numbered and tuple(headers) != SUMMARY_HEADERS[1:]:
        raise ReportError(f"{path}: summary columns {headers} are not {SUMMARY_HEADERS}")
    rows = []
    for line in table[1:]:
        cells = _cells(line)
        if len(cells) != len(headers):
            raise ReportError(f"{path}: summary row with {len(cells)} cells: {line}")
        number = cells.pop(0) if numbered else None
        name, figure, target, verdict, peer = cells
        if verdict not in _VERDICTS:
            raise ReportError(f"{path}: verdict {verdict!r} in: {line}")
        rows.append((number, Check(name, figure, target, peer, _VERDICTS[verdict])))
    return rows


def _cells(line: str) -> list[str]:
    # Cells are written as " | ".join(...); a cell holding " | " would be ambiguous, and
    # the column count check above refuses such a row rather than misreading it.
    return line.removeprefix("| ").removesuffix(" |").split(" | ")


def _attribute(path: Path, rows: list[tuple[str | None, Check]], sections: list[Section]) -> None:
    """Hand each summary row to the section it came from."""
    for number, check in rows:
        if number is not None:
            owners = [s for s in sections if s.number == number]
        elif len(sections) == 1:
            owners = sections
        else:
            owners = [s for s in sections if re.match(LEGACY_ROWS.get(s.key, "(?!)"), check.name)]
        if len(owners) != 1:
            raise ReportError(
                f"{path}: summary row {check.name!r} matches {len(owners)} of the report's "
                "sections; give benchmarks.reports.LEGACY_ROWS a pattern for it"
            )
        owners[0].checks.append(check)


@dataclass(frozen=True)
class Imported:
    key: str
    report: Path
    replaced: Run | None  # the run whose figures it replaced; None: the store had none


def import_reports(
    paths: Iterable[Path],
    store: ResultStore,
    titles: Mapping[str, str],
    *,
    say: Callable[[str], None] = print,
) -> list[Imported]:
    """Store each section of these reports that is newer than the stored one.

    Oldest report first, and only a strictly newer date replaces, so running it again
    changes nothing. Quick smoke runs are never imported.
    """
    docs = store.page.parent
    reports = []
    for path in paths:
        report = parse(path, titles, docs=docs)
        is_page = path.resolve() == store.page.resolve()
        if report is None:
            if not is_page:  # once assembled, the page is no run's report: expected
                say(f"skipped {path.name}: not one run's report from benchmarks.report.render")
        elif report.run.quick:
            say(f"skipped {path.name}: a --quick smoke run (its figures are not comparable)")
        elif is_page:  # about to be replaced by the assembly: no link to it as a report
            reports.append(Report(path, replace(report.run, report=None), report.sections))
        else:
            reports.append(report)
    stored = store.load()
    imported = []
    for report in sorted(reports, key=lambda r: r.run.when):
        run = report.run
        for section in report.sections:
            if section.key == UNKNOWN:
                say(
                    f"skipped {section.title!r} of {report.path.name}: no benchmark in "
                    "benchmarks.run.BENCHMARKS has that title"
                )
                continue
            old = stored.get(section.key)
            if old is not None and old.run.when >= run.when:
                continue
            entry = StoredSection(section, run)
            store.save(entry)
            stored[section.key] = entry
            imported.append(Imported(section.key, report.path, old.run if old else None))
    return imported


def default_reports(docs: Path) -> list[Path]:
    """docs/benchmarks.md and docs/benchmarks-*.md: every report the runs have written."""
    return sorted(docs.glob("benchmarks*.md"))
