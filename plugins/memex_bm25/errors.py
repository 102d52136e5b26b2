"""Errors the bm25 keyword store reports to users; each names the file and the fix."""

from __future__ import annotations

from memex_core.errors import MemexError


class BM25SettingError(MemexError):
    """A ``[keyword.bm25]`` setting in config.toml has a value the store cannot use."""


class TokenizerMismatchError(MemexError):
    """The index on disk was built with another tokenizer than the configured one."""


class IndexUnreadableError(MemexError):
    """The index files are damaged or were written by an incompatible version."""
