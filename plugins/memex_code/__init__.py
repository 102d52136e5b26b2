"""The ``code`` source: a git repository's tracked files, chunked at functions and classes.

Used only when named: ``memex ingest --source code REPO`` or ``memex ask`` (which indexes
the repository it is asked about). Plain ``memex ingest FOLDER`` never hands a folder to it,
so a notes folder or vault kept in git still goes to its own source. Python is cut with
``ast``; JavaScript, TypeScript, Go and Rust with tree-sitter when ``pip install
'memex[code]'`` installed its grammar wheels; everything else by blank-line blocks.

Configure in ``config.toml``::

    [source.code]
    max_file_bytes = 500000   # larger tracked files are skipped (and reported)
    max_chunk_chars = 4000    # a longer function is cut into line windows

Importing this package is cheap; the reader loads when the source is built.
"""

from __future__ import annotations

from typing import Any

from memex_core.domain import PluginContext
from memex_core.hookspecs import hookimpl

__all__ = ["register_sources"]


def _build(context: PluginContext) -> Any:
    from memex_code.chunks import DEFAULT_CHUNK_CHARS
    from memex_code.files import DEFAULT_MAX_FILE_BYTES
    from memex_code.source import CodeSource

    settings = context.settings
    return CodeSource(
        max_file_bytes=int(settings.get("max_file_bytes", DEFAULT_MAX_FILE_BYTES)),
        max_chunk_chars=int(settings.get("max_chunk_chars", DEFAULT_CHUNK_CHARS)),
    )


@hookimpl
def register_sources(register: Any) -> None:
    register(
        "code",
        _build,
        description=(
            "A git repository's tracked files, chunked at functions and classes; used only "
            "when named (memex ingest --source code REPO, memex ask)."
        ),
    )
