"""memex plugin ``bm25``: the default keyword store.

An incremental BM25 index that scores exactly like ``rank_bm25.BM25Okapi``,
persisted as numpy arrays under ``$MEMEX_HOME/index/bm25`` and configured by the
``[keyword.bm25]`` table of config.toml (see :mod:`memex_bm25.settings`).

Importing this package is cheap: numpy and the store load only when memex
builds the component.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memex_core.hookspecs import hookimpl

if TYPE_CHECKING:
    from memex_bm25.store import BM25Store
    from memex_core.domain import PluginContext


def build_store(context: PluginContext) -> BM25Store:
    from memex_bm25.store import BM25Store

    return BM25Store.open(context.home / "index" / "bm25", settings=context.settings)


@hookimpl
def register_keyword_stores(register: Any) -> None:
    register(
        "bm25",
        build_store,
        requires=("numpy", "Stemmer"),
        description="BM25 (Okapi, exact rank_bm25 scores) over numpy postings, incremental",
    )
