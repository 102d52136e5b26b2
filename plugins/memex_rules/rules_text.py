"""Text helpers the statement reader's parts share: case-blind patterns, word sets."""

from __future__ import annotations

import re


def compile_pattern(pattern: str) -> re.Pattern[str]:
    """``pattern`` compiled to match regardless of case, as every statement shape is."""
    return re.compile(pattern, re.IGNORECASE)


def squash(text: str) -> str:
    """``text`` with every run of whitespace made one space, and none at either end."""
    return " ".join(text.split())


def word_set(text: str) -> frozenset[str]:
    """The space-separated words of ``text`` as a set (keeps long word lists readable)."""
    return frozenset(text.split())
