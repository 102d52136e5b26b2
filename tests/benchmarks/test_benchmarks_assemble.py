"""docs/benchmarks.md assembled from stored sections: the reports read back, the merge of a
rerun section, provenance on every section, and the committed page matching its store.

No benchmark is measured here: a merge run's section comes from a stand-in benchmark.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from benchmarks import run as bench_run
from benchmarks.assemble import DEFAULT_STORE, page_text, registry_titles, write_page
from benchmarks.report import Check, Section, render
from benchmarks.reports import ReportError, default_reports, import_reports, parse
from benchmarks.store import ResultStore

DOCS = DEFAULT_STORE.parent
TITLES = registry_titles()


def run_reports() -> list[Path]:
    """The committed reports written by benchmarks.report.render (one run each)."""
    return [path for path in default_reports(DOCS) if parse(path, TITLES, docs=DOCS) is not None]


def sections_of(text: str) -> dict[str, str]:
    """Each ``## `` heading's text up to the next one (summary and runs included)."""
    parts = re.split(r"^(?=## )", text, flags=re.MULTILINE)
    return {part.split("\n", 1)[0]: part for part in parts if part.startswith("## ")}


def summary_lines(text: str) -> list[str]:
    summary = sections_of(text)["## Summary"]
    return [line for line in summary.split("\n") if line.startswith("| ")][1:]  # no header


# -- the importer on the real reports ---------------------------------------------------


def test_the_committed_reports_are_found() -> None:
    names = {path.name for path in run_reports()}
    assert {
        "benchmarks-search-over-http.md",
        "benchmarks-scifact-and-locomo.md",
        "benchmarks-remember-and-dream.md",
    } <= names
    assert "benchmarks-scale-out-postgres.md" not in names  # hand-written: skipped, said so


@pytest.mark.parametrize("path", run_reports(), ids=lambda path: path.name)
def test_a_reports_sections_and_summary_rows_survive_the_store(path: Path, tmp_path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    store = ResultStore(tmp_path / "benchmarks")
    report = parse(path, TITLES, docs=tmp_path)  # outside the store's folder: no link
    assert report is not None and report.sections and report.run.report is None
    import_reports([path], store, TITLES, say=lambda _: None)
    stored = store.load()
    assert list(stored) == sorted(s.key for s in report.sections)
    original = sections_of(text)
    rows = []
    for section in report.sections:
        entry = stored[section.key]
        assert entry.run == report.run
        # Rendered again as benchmarks.report.render renders a section: the same text.
        again = "\n".join([f"## {entry.section.title}", "", *entry.section.body, ""])
        assert again.rstrip("\n") == original[f"## {section.title}"].rstrip("\n")
        rows += [
            f"| {c.name} | {c.figure} | {c.target} | {c.verdict} | {c.peer} |"
            for c in entry.section.checks
        ]
    # Every summary row lands in exactly one section, in the report's order.
    numbered = "| section | benchmark |" in text
    expected = summary_lines(text)
    if numbered:  # the section column, which the store keeps as the section itself
        expected = ["| " + line.split(" | ", 1)[1] for line in expected]
    assert rows == expected


def test_the_report_date_and_environment_are_read(tmp_path: Path) -> None:
    # A committed report with its header lines pinned, so a rerun of the report (which rewrites
    # its date, commit and load) does not change what this test expects.
    docs = tmp_path / "docs"
    docs.mkdir()
    header = {
        "Date": "2026-11-25 21:22 UTC",
        "memex commit": "54a9db4 (with uncommitted changes)",
        "Command": "`python -m benchmarks.run --only service"
        " --output docs/benchmarks-search-over-http.md` (wall time 6.1 min)",
        "Load average (1/5/15 min)": "at start 0.96/1.06/1.39, at end 1.98/1.53/1.48 on 2 cores:"
        " the machine is shared, so timings above ~1 per core are contended.",
    }
    text = (DOCS / "benchmarks-search-over-http.md").read_text(encoding="utf-8")
    for name, value in header.items():
        text, count = re.subn(
            rf"^- {re.escape(name)}:? .*$",
            f"- {name} {value}" if name.startswith("Load") else f"- {name}: {value}",
            text,
            count=1,
            flags=re.MULTILINE,
        )
        assert count == 1, name
    (docs / "benchmarks-search-over-http.md").write_text(text, encoding="utf-8")
    report = parse(docs / "benchmarks-search-over-http.md", TITLES, docs=docs)
    assert report is not None
    run = report.run
    assert run.date == "2026-11-25 21:22 UTC"
    assert run.command == (
        "python -m benchmarks.run --only service --output docs/benchmarks-search-over-http.md"
    )
    assert run.commit == "54a9db4 (with uncommitted changes)"
    assert run.machine.startswith("AMD EPYC, 2 logical cores")
    assert (run.load_at_start, run.load_at_end, run.wall_minutes) == (
        "0.96/1.06/1.39",
        "1.98/1.53/1.48",
        6.1,
    )
    assert not run.quick and "rank-bm25 0.2.2" in run.libraries


def fake_report(docs: Path, name: str, date: str, figure: str, *, quick: bool = False) -> Path:
    """A report as benchmarks.run writes one, its Date line set to ``date``."""
    title = TITLES["keyword"]
    section = Section("keyword", title, [Check("keyword query p50 @ 10", figure, "-")], [figure])
    text = render(
        [section, Section("adds", TITLES["adds"], skipped="not selected (--only)")],
        command=f"python -m benchmarks.run --only keyword --output docs/{name}",
        quick=quick,
        wall_seconds=60,
        load_at_start="1.00/1.00/1.00",
    )
    text = re.sub(r"^- Date: .*$", f"- Date: {date}", text, count=1, flags=re.MULTILINE)
    path = docs / name
    path.write_text(text, encoding="utf-8")
    return path


def test_the_newer_report_wins_whatever_the_file_order(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    newer = fake_report(docs, "benchmarks-a.md", "2026-11-25 10:00 UTC", "2.00 ms")
    older = fake_report(docs, "benchmarks-b.md", "2026-11-24 10:00 UTC", "1.00 ms")
    quick = fake_report(docs, "benchmarks-c.md", "2026-11-26 10:00 UTC", "9.00 ms", quick=True)
    store = ResultStore(docs / "benchmarks")
    said: list[str] = []
    imported = import_reports([newer, older, quick], store, TITLES, say=said.append)
    assert [(i.key, i.report.name) for i in imported] == [
        ("keyword", "benchmarks-b.md"),
        ("keyword", "benchmarks-a.md"),
    ]
    entry = store.load()["keyword"]
    assert entry.section.checks[0].figure == "2.00 ms" and entry.run.report == "benchmarks-a.md"
    assert said == [f"skipped {quick.name}: a --quick smoke run (its figures are not comparable)"]
    assert import_reports([older, newer], store, TITLES, say=said.append) == []  # idempotent


def test_a_renumbered_section_is_found_and_an_unknown_one_skipped(tmp_path: Path) -> None:
    path = fake_report(tmp_path, "benchmarks-x.md", "2026-11-25 10:00 UTC", "1 ms")
    text = path.read_text(encoding="utf-8")
    renumbered = text.replace("1. Keyword query latency", "7. Keyword query latency")
    path.write_text(renumbered.replace("| 1 | keyword", "| 7 | keyword"), encoding="utf-8")
    report = parse(path, TITLES, docs=tmp_path)
    assert report is not None and [s.key for s in report.sections] == ["keyword"]
    path.write_text(text.replace("1. Keyword query latency", "1. Gone"), encoding="utf-8")
    said: list[str] = []
    store = ResultStore(tmp_path / "benchmarks")
    assert import_reports([path], store, TITLES, say=said.append) == []
    assert said == [
        "skipped '1. Gone' of benchmarks-x.md: no benchmark in benchmarks.run.BENCHMARKS has "
        "that title"
    ]


def test_a_report_whose_row_has_no_section_is_refused(tmp_path: Path) -> None:
    path = fake_report(tmp_path, "benchmarks-x.md", "2026-11-25 10:00 UTC", "1 ms")
    text = path.read_text(encoding="utf-8").replace("| 1 | keyword query", "| 7 | keyword query")
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ReportError, match="matches 0 of the report's sections"):
        parse(path, TITLES, docs=tmp_path)


# -- the page ------------------------------------------------------------------------------


def test_the_committed_page_is_what_its_store_gives() -> None:
    """`python -m benchmarks.assemble --check`: nothing on the page is edited by hand."""
    store = ResultStore(DEFAULT_STORE)
    assert store.page.read_text(encoding="utf-8") == page_text(store, TITLES), (
        "docs/benchmarks.md is stale: run `python -m benchmarks.assemble --no-import`"
    )


def test_every_section_on_the_page_opens_with_its_run() -> None:
    store = ResultStore(DEFAULT_STORE)
    stored = store.load()
    assert {"keyword", "service", "abstention", "viewer", "vector_servers"} <= set(stored)
    page = sections_of(store.page.read_text(encoding="utf-8"))
    summary = "\n".join(summary_lines(store.page.read_text(encoding="utf-8")))
    for key, entry in stored.items():
        # A section stored by a standalone benchmark (not in the registry: 21b, 21c) is
        # titled as stored, as the page renders it.
        text = page[f"## {TITLES.get(key, entry.section.title)}"]
        provenance = text.split("\n")[2]
        run = entry.run
        assert provenance.startswith(f"*Measured {run.date}* by `{run.command}`")
        assert run.commit in provenance and run.machine in provenance
        assert f"at start {run.load_at_start}" in provenance
        for check in entry.section.checks:
            assert f"| {check.name} | {check.figure} |" in summary
            assert f"| {check.peer} | {run.date} |" in summary
    # Every issue report still in the docs is linked from the sections it holds.
    for entry in stored.values():
        if entry.run.report:
            assert (DOCS / entry.run.report).exists()


# -- a merge run ---------------------------------------------------------------------------


@pytest.fixture
def scratch_store(tmp_path: Path) -> ResultStore:
    """The committed store copied, with its page, into a folder of its own."""
    store = ResultStore(tmp_path / "docs" / "benchmarks")
    shutil.copytree(DEFAULT_STORE, store.folder)
    write_page(store, TITLES)
    return store


def test_a_merge_replaces_its_section_and_keeps_the_others_byte_for_byte(
    scratch_store: ResultStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    before_page = scratch_store.page.read_text(encoding="utf-8")
    before_files = {p.name: p.read_bytes() for p in scratch_store.folder.glob("*.json")}
    title = TITLES["service"]

    def service(ctx: object) -> Section:
        return Section(
            "service",
            title,
            [
                Check(
                    "hybrid searches/s over HTTP @ 100,000, 8 clients",
                    "123/s",
                    ">= 100/s",
                    "-",
                    True,
                )
            ],
            ["A new run's body.", "| a | b |\n|---|---|\n| 1 | 2 |"],
        )

    monkeypatch.setitem(bench_run.BENCHMARKS, "service", (title, service))
    argv = ["--only", "service", "--store", str(scratch_store.folder)]
    assert bench_run.main(argv) == 0

    after_page = scratch_store.page.read_text(encoding="utf-8")
    before, after = sections_of(before_page), sections_of(after_page)
    assert set(before) == set(after)
    for heading in before:
        if heading not in (f"## {title}", "## Summary", "## Runs"):
            assert after[heading] == before[heading], heading
    section = after[f"## {title}"]
    assert "A new run's body.\n\n| a | b |" in section
    assert f"by `python -m benchmarks.run {' '.join(argv)}`" in section.split("\n")[2]
    entry = scratch_store.load()["service"]
    assert entry.run.wall_minutes is not None and entry.run.load_at_end  # finished
    assert entry.seconds is not None and entry.run.report is None
    old_rows = [line for line in summary_lines(before_page) if not line.startswith("| 14 |")]
    new_rows = [line for line in summary_lines(after_page) if not line.startswith("| 14 |")]
    assert new_rows == old_rows
    assert [line for line in summary_lines(after_page) if line.startswith("| 14 |")] == [
        "| 14 | hybrid searches/s over HTTP @ 100,000, 8 clients | 123/s | >= 100/s | met | - | "
        f"{entry.run.date} |"
    ]
    for path in scratch_store.folder.glob("*.json"):
        if path.name != "service.json":
            assert path.read_bytes() == before_files[path.name], path.name
    assert json.loads((scratch_store.folder / "service.json").read_text())["body"][0] == [
        "A new run's body."
    ]


def test_a_failed_section_keeps_its_earlier_figures(
    scratch_store: ResultStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = scratch_store.path("service").read_bytes()

    def broken(ctx: object) -> Section:
        raise RuntimeError("the server did not start")

    monkeypatch.setitem(bench_run.BENCHMARKS, "service", (TITLES["service"], broken))
    assert bench_run.main(["--only", "service", "--store", str(scratch_store.folder)]) == 1
    assert scratch_store.path("service").read_bytes() == before


def test_a_run_with_its_own_report_leaves_the_page_alone_unless_merged(
    scratch_store: ResultStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    title = TITLES["hooks"]
    monkeypatch.setitem(
        bench_run.BENCHMARKS, "hooks", (title, lambda ctx: Section("hooks", title, body=["new"]))
    )
    page = scratch_store.page.read_bytes()
    report = scratch_store.page.parent / "benchmarks-hooks.md"
    store = ["--store", str(scratch_store.folder)]
    assert bench_run.main(["--only", "hooks", "--output", str(report), *store]) == 0
    assert scratch_store.page.read_bytes() == page
    assert "## 16. Capture hook latency" in report.read_text(encoding="utf-8")
    # ... and `python -m benchmarks.assemble` brings it in later, linked from its section.
    import_reports([report], scratch_store, TITLES, say=lambda _: None)
    assert scratch_store.load()["hooks"].run.report == "benchmarks-hooks.md"
    assert bench_run.main(["--only", "hooks", "--output", str(report), "--merge", *store]) == 0
    assert "[benchmarks-hooks.md](benchmarks-hooks.md)" in scratch_store.page.read_text()


def test_quick_figures_never_reach_the_committed_page() -> None:
    with pytest.raises(SystemExit):
        bench_run.parse_args(["--quick", "--only", "keyword"])
    args = bench_run.parse_args(["--quick", "--only", "keyword", "--output", "/tmp/q.md"])
    assert args.quick and not args.merge
    page = bench_run.parse_args(["--only", "keyword", "--output", str(DOCS / "benchmarks.md")])
    assert page.output is None and page.merge  # the page is assembled, never overwritten
