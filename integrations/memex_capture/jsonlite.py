"""JSON for the hook process without the ``json`` package's import cost (standard library only).

``import json`` is most of a hook's start-up: the package imports ``re``, which builds its
flag enums and compiles json's patterns in Python at import time. Benchmark 16 measured the
hook at 1.06x ``python -S -c 'import json'`` and that at ~2x ``python -S -c pass``. The
C accelerator ``_json``, which ``json`` itself runs on, needs none of that: this module
drives it exactly as ``json.loads`` and ``json.dumps`` do (the scanner with json's
default context; ``c_make_encoder`` with the arguments ``JSONEncoder.iterencode`` passes),
so it returns the same objects and the same text
(``tests/integrations/capture/test_capture_hook.py`` compares them on real payloads).
Anything it does not handle itself (an error, a BOM, UTF-16 bytes, an option it does not
know) is handed to the real ``json``, imported then, so errors read
exactly as json's.

``memex_capture.spool`` and the hook import it in place of ``json``.
"""

from __future__ import annotations

import _json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_WHITESPACE = " \t\n\r"
_INFINITY = float("inf")
_CONSTANTS = {"-Infinity": -_INFINITY, "Infinity": _INFINITY, "NaN": float("nan")}


class _Context:
    """The attributes ``_json.make_scanner`` reads, as ``json.JSONDecoder()`` sets them."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


_scan_once = _json.make_scanner(_Context())  # type: ignore[arg-type]  # duck-typed context
#: What callers catch: every error raised here (json's own, from the fallback) is one.
JSONDecodeError = ValueError


def real_json() -> Any:
    """The standard ``json`` package, imported now (only for what this module hands on)."""
    import json

    return json


def raw_decode(text: str, index: int = 0) -> tuple[Any, int]:
    """One JSON value starting at ``text[index]`` and where it ends (``JSONDecoder.raw_decode``)."""
    try:
        return _scan_once(text, index)
    except Exception:  # the real json says what is wrong
        return real_json().JSONDecoder().raw_decode(text, index)


def loads(data: str | bytes) -> Any:
    """``json.loads(data)`` for UTF-8 input; anything else goes to the real json."""
    try:
        if isinstance(data, bytes):
            if data[:4].count(0) or data.startswith((b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")):
                raise ValueError("a BOM or UTF-16/32: json detects the encoding")
            text = data.decode("utf-8", "surrogatepass")
        else:
            text = data
        start = len(text) - len(text.lstrip(_WHITESPACE))
        value, end = _scan_once(text, start)
        if text[end:].strip(_WHITESPACE):
            raise ValueError("extra data")
        return value
    except Exception:  # the real json gives the value or its own error
        return real_json().loads(data)


def _default(value: object) -> Any:
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


def dumps(
    value: Any,
    *,
    ensure_ascii: bool = True,
    separators: tuple[str, str] | None = None,
    **options: Any,
) -> str:
    """``json.dumps(value, ensure_ascii=..., separators=...)``; other options: the real json."""
    if options:
        return real_json().dumps(value, ensure_ascii=ensure_ascii, separators=separators, **options)
    item_separator, key_separator = separators or (", ", ": ")
    encode_string = _json.encode_basestring_ascii if ensure_ascii else _json.encode_basestring
    if isinstance(value, str):
        return encode_string(value)
    encoder = _json.make_encoder(
        {}, _default, encode_string, None, key_separator, item_separator, False, False, True
    )
    return "".join(encoder(value, 0))
