"""PNG charts for the growth benchmark (matplotlib, Agg backend: no display needed).

matplotlib is a bench-only dependency; without it the charts are skipped and the
report says so.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Series:
    label: str
    xs: Sequence[float]
    ys: Sequence[float]


def unavailable() -> str | None:
    if importlib.util.find_spec("matplotlib") is None:
        return "matplotlib is not installed (the bench session installs it)"
    return None


def line_chart(
    path: Path, title: str, ylabel: str, series: Sequence[Series], *, log_y: bool = True
) -> Path:
    """A log-x (corpus size) line chart with one line per series, written to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, NullFormatter

    figure, axes = plt.subplots(figsize=(7, 4.2), dpi=110)
    markers = "os^dvx"
    for number, one in enumerate(series):
        if not one.xs:
            continue
        axes.plot(one.xs, one.ys, marker=markers[number % len(markers)], label=one.label)
    axes.set_xscale("log")
    if log_y:
        axes.set_yscale("log")
    # Whole numbers with separators from 100 up; below, as many digits as the value has
    # (a linear axis of seconds reads 0.8, 1.2, not 1, 1).
    plain = FuncFormatter(lambda value, _: f"{value:,.0f}" if value >= 100 else f"{value:g}")
    axes.xaxis.set_major_formatter(plain)
    axes.xaxis.set_minor_formatter(NullFormatter())
    axes.yaxis.set_major_formatter(plain)
    if log_y:
        axes.yaxis.set_minor_formatter(plain)  # 300, not 3 x 10^2
    axes.set_xticks(sorted({x for one in series for x in one.xs}))
    axes.set_xlabel("fragments in the corpus")
    axes.set_ylabel(ylabel)
    axes.set_title(title)
    axes.grid(True, which="both", alpha=0.3)
    axes.legend(fontsize=8)
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path)
    plt.close(figure)
    return path
