"""Text hygiene: what JSON can spell but no UTF-8 text (the catalog, the indexes) can hold."""

from __future__ import annotations

import re
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
#: A JSON escape that may stand for half a surrogate pair.
SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def replace_lone_surrogates(value: Any) -> Any:
    """``value`` with every lone surrogate in its strings (and keys) replaced by U+FFFD.

    JSON can spell half a surrogate pair (``"\\ud800"``); Python keeps it, but no
    UTF-8 text (the catalog, the indexes) can hold it. Containers are rebuilt
    only when something changed.
    """
    if isinstance(value, str):
        return _SURROGATE.sub("\ufffd", value) if _SURROGATE.search(value) else value
    if isinstance(value, list):
        return [replace_lone_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {
            replace_lone_surrogates(key): replace_lone_surrogates(item)
            for key, item in value.items()
        }
    return value
