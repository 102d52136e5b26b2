"""The Memory page's records table at 1280x800 (issue 32, item 8): the Memory column gets the
room the short columns (kind, status, revision, time) do not need, instead of wrapping a
record one word a line beside cells that are mostly empty."""

from __future__ import annotations

import pytest

from tests.browser.conftest import Tab

#: The share of the table the Memory column must have at least.
MIN_MEMORY_SHARE = 0.30

#: Widths of the records table, of its Memory column, and the tallest Memory cell's lines.
MEASURE_JS = """
() => {
  const table = document.querySelector('#records');
  const first = table.querySelector('thead th');
  const links = [...table.querySelectorAll('a.record-link')];
  const lines = links.map(a => {
    const style = getComputedStyle(a);
    return Math.round(a.getBoundingClientRect().height / parseFloat(style.lineHeight || 20));
  });
  const cells = [...table.querySelector('tbody tr').children];
  return {
    table: table.getBoundingClientRect().width,
    memory: first.getBoundingClientRect().width,
    lines: Math.max(...lines),
    scrolls: document.documentElement.scrollWidth > window.innerWidth,
    cells: cells.map(c => c.getBoundingClientRect().width),
  };
}
"""


@pytest.mark.parametrize("who", ["operator", "agent"], ids=["operator-every-user", "agent-bob"])
def test_the_memory_column_takes_the_room_of_the_row(tab: Tab, who: str) -> None:
    if who == "operator":
        tab.sign_in_operator("/memory?user=alice")
    else:
        tab.sign_in_agent("bob", "/memory")
    page = tab.page
    assert page.viewport_size == {"width": 1280, "height": 800}
    page.locator("#records").wait_for()
    measured = page.evaluate(MEASURE_JS)
    share = measured["memory"] / measured["table"]
    assert share >= MIN_MEMORY_SHARE, measured
    # alice's longest record, "Alice no longer drinks green tea; she prefers black coffee
    # now", took four lines beside one-line cells; now at most two.
    assert measured["lines"] <= 2, measured
    assert not measured["scrolls"], measured
