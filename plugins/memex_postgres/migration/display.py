"""What ``memex migrate`` shows while it works: one rich progress bar per table, with rows/s."""

from __future__ import annotations

from typing import Any


class TableBars:
    """An :class:`~memex_postgres.migration.engine.Observer` drawing on stderr; draws
    nothing when stderr is not a terminal or ``quiet`` is set."""

    def __init__(self, quiet: bool = False) -> None:
        from rich.console import Console

        self.console = Console(stderr=True)
        self.enabled = not quiet and self.console.is_terminal
        self._progress: Any = None
        self._tasks: dict[str, Any] = {}

    def _bars(self) -> Any:
        if self._progress is None:
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
            )

            self._progress = Progress(
                TextColumn("[bold]{task.description:<24}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]:>12}"),
                TimeElapsedColumn(),
                console=self.console,
            )
            self._progress.start()
        return self._progress

    def phase(self, text: str) -> None:
        if self.enabled:
            self.console.print(f"[dim]{text}...[/dim]")

    def table_started(self, name: str, total: int, done: int) -> None:
        if self.enabled:
            bars = self._bars()
            self._tasks[name] = bars.add_task(name, total=max(total, done), completed=done, rate="")

    def advanced(self, name: str, rows: int) -> None:
        if self.enabled and name in self._tasks:
            task = self._tasks[name]
            self._progress.advance(task, rows)
            speed = self._progress.tasks[task].speed
            self._progress.update(task, rate=f"{speed:,.0f} rows/s" if speed else "")

    def table_finished(self, name: str) -> None:
        if self.enabled and name in self._tasks:
            task = self._tasks[name]
            self._progress.update(task, total=self._progress.tasks[task].completed)

    def close(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
