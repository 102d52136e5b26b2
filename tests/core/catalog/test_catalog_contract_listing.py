"""The catalog contract on every engine: ``fragment_ids_matching`` lists the fragments the
filters pass (what ``count_matching`` counts), in the order they were stored, at most
``limit``; a memory write ranks an owner's listed facts by their vectors itself."""

from __future__ import annotations

from dataclasses import replace

from memex_core.catalog import SqlCatalog
from memex_core.domain import SearchFilters
from tests.support.catalog_builders import document


def test_the_listing_holds_what_the_filters_pass_in_stored_order(catalog: SqlCatalog) -> None:
    for n, (kind, owner) in enumerate(
        [("obsidian", ""), ("memory", "users/alice"), ("code", ""), ("memory", "users/bob")]
    ):
        parsed = document(kind, "/root", f"{n}.md", [f"text {n} a", f"text {n} b"])
        parsed = replace(
            parsed, fragments=[replace(f, owner=owner, collection="c") for f in parsed.fragments]
        )
        catalog.store_document(
            run_id=catalog.start_run("sync"),
            root="/root",
            source_kind=kind,
            document=parsed,
            sha256=str(n),
            size=1,
            mtime_ns=1,
        )
    alice = SearchFilters(
        owners=("users/alice",), collections=("c",), source_kinds=("memory",), include_private=True
    )
    assert catalog.fragment_ids_matching(alice, 10) == [
        "memory-/root-1.md#0",
        "memory-/root-1.md#1",
    ]
    assert catalog.fragment_ids_matching(alice, 1) == ["memory-/root-1.md#0"]
    everything = SearchFilters(include_private=True)
    listed = catalog.fragment_ids_matching(everything, 10)
    assert len(listed) == catalog.count_matching(everything)[0] == 6  # code only when named
    assert [i.split("-")[0] for i in listed] == ["obsidian"] * 2 + ["memory"] * 4
    assert catalog.fragment_ids_matching(SearchFilters(owners=("users/carol",)), 10) == []
