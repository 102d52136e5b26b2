"""Query-string numbers of the pages, read leniently: a page link someone edited by hand
(``?limit=abc``) shows the page with the default instead of the API's JSON error."""

from __future__ import annotations


def bounded(value: str | None, default: int, low: int, high: int) -> int:
    """``value`` as a whole number within ``low..high``; ``default`` if it is not one."""
    try:
        number = int(value) if value not in (None, "") else default
    except ValueError:
        number = default
    return min(max(number, low), high)
