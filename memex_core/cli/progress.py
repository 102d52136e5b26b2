"""A rich progress bar that satisfies the services' Progress protocol."""

from __future__ import annotations

from typing import Any


class RichProgress:
    """Draws on stderr; draws nothing when stderr is not a terminal or ``quiet`` is set."""

    def __init__(self, quiet: bool = False) -> None:
        from rich.console import Console

        self.console = Console(stderr=True)
        self.enabled = not quiet and self.console.is_terminal
        self._progress: Any = None
        self._task: Any = None
        #: Counted whether drawn or not, so an interrupted command can say how far it got
        #: (memex_core.cli.interrupt): the last ``start``'s total (None before any) and
        #: the steps advanced since.
        self.total: int | None = None
        self.done = 0

    def start(self, description: str, total: int | None) -> None:
        self.total, self.done = total, 0
        if not self.enabled:
            return
        from rich.markup import escape
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
            console=self.console,
        )
        self._progress.start()
        self._task = self._progress.add_task(escape(description), total=total)

    def advance(self, amount: int = 1, description: str | None = None) -> None:
        self.done += amount
        if self._progress is None:
            return
        from rich.markup import escape

        if description:
            # A file's name is shown as written, not read as markup (the column styles it).
            self._progress.update(self._task, description=escape(description[:60]))
        if amount:
            self._progress.advance(self._task, amount)

    def finish(self) -> None:
        if self._progress is not None:
            self._progress.stop()
            self._progress = None
