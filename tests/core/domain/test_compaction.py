"""Tool output is compacted to head, trouble lines and tail before indexing."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from memex_core.domain.compaction import compact_tool_output, is_trouble_line

LOG = "\n".join(
    [f"collecting item {i}" for i in range(300)]
    + ["tests/test_x.py::test_y FAILED", "E   AssertionError: 3 != 4"]
    + [f"passed {i}" for i in range(300)]
    + ["Process exited with code 1"]
)


def test_short_output_is_left_alone() -> None:
    assert compact_tool_output("ok\ndone", 100) == "ok\ndone"


def test_long_output_keeps_head_trouble_and_tail_within_budget() -> None:
    out = compact_tool_output(LOG, 800)
    assert out.startswith("collecting item 0")
    assert "E   AssertionError: 3 != 4" in out and "test_y FAILED" in out
    assert out.endswith("Process exited with code 1")
    assert "lines omitted" in out
    assert len(out) < 1000 < len(LOG)


def test_trouble_lines() -> None:
    for line in (
        "Traceback (most recent call last):",
        "warning: unused",
        "exit code 2",
        "npm ERR! missing script",
        "Permission denied",
    ):
        assert is_trouble_line(line), line
    assert not is_trouble_line("all 12 tests passed")


@given(st.text(max_size=3000), st.integers(min_value=0, max_value=2000))
def test_never_longer_than_the_input(text: str, budget: int) -> None:
    out = compact_tool_output(text, budget)
    assert len(out) <= len(text)
    if len(text) <= budget:
        assert out == text
