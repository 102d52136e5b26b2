"""``memex forget --purge``'s receipt as a table: what each catalog table and index held
before and after the purge, and what it removed."""

from __future__ import annotations

from memex_core.domain.memory.receipts import PurgeReceipt


def _count(value: int | None) -> str:
    return "-" if value is None else f"{value:,}"


def receipt_rows(receipt: PurgeReceipt) -> list[tuple[str, str, str, str]]:
    """(what, before, after, removed) for every table and index the receipt counts."""
    before, after = receipt.before, receipt.after
    rows = [
        (name, _count(count), _count(after.tables.get(name)), _count(removed))
        for name, count in before.tables.items()
        for removed in [receipt.rows_removed[name]]
    ]
    rows.append(
        (
            f"keyword index ({receipt.keyword_store or 'none'})",
            _count(before.keyword_entries),
            _count(after.keyword_entries),
            _count(receipt.keyword_entries_removed),
        )
    )
    rows.append(
        (
            f"vector store ({receipt.vector_store or 'not in use'})",
            _count(before.vectors),
            _count(after.vectors),
            _count(receipt.vectors_removed),
        )
    )
    return rows


def print_receipt(receipt: PurgeReceipt) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title="Receipt", title_justify="left")
    for column in ("catalog table or index", "before", "after", "removed"):
        table.add_column(column, justify="left" if column.startswith("catalog") else "right")
    for row in receipt_rows(receipt):
        table.add_row(*row)
    console = Console(highlight=False)
    console.print(table)
    if receipt.catalog_log_emptied is False:
        console.print(
            "The catalog's write-ahead log could not be emptied (a reader held it open): "
            "it may hold copies of the purged rows until its next checkpoint empties it.",
            markup=False,
        )
    console.print(
        f"Access-log entries blanked (target and detail replaced by \\[purged]): "
        f"{receipt.log_entries_blanked:,}. A negative 'removed' is a row the purge's own "
        "bookkeeping wrote (the change journal, vector deletes queued).",
    )
