"""The index records which build of the embedder wrote its vectors (MiniLM's int8 graph
gives vectors at cosine ~0.99 of float32's) and refuses to mix two builds."""

from __future__ import annotations

import pytest

from memex_core.api import Memex
from memex_core.errors import EmbedderMismatchError
from memex_core.services.indexing import EMBEDDER_BUILD_SETTING
from tests.support.export_builders import app_turn


def test_the_default_build_records_nothing_and_an_int8_build_is_refused(
    fast_mx: Memex,
) -> None:
    fast_mx.add_fragments(app_turn("The kettle whistles at noon"), origin="app:test")
    assert fast_mx.catalog.get_setting(EMBEDDER_BUILD_SETTING) is None
    fast_mx.embedder.build = "int8"  # type: ignore[attr-defined]
    with pytest.raises(EmbedderMismatchError, match=r"precision = \"fp32\""):
        fast_mx.add_fragments(app_turn("The bread rises overnight"), origin="app:test")


def test_an_int8_build_is_recorded_and_kept_apart_until_rebuilt(fast_mx: Memex) -> None:
    fast_mx.embedder.build = "int8"  # type: ignore[attr-defined]
    fast_mx.add_fragments(app_turn("The kettle whistles at noon"), origin="app:test")
    assert fast_mx.catalog.get_setting(EMBEDDER_BUILD_SETTING) == "int8"
    fast_mx.embedder.build = ""  # type: ignore[attr-defined]
    with pytest.raises(EmbedderMismatchError, match="memex rebuild --vectors"):
        fast_mx.add_fragments(app_turn("The bread rises overnight"), origin="app:test")
    fast_mx.rebuild(vectors=True)
    assert fast_mx.catalog.get_setting(EMBEDDER_BUILD_SETTING) is None
    assert fast_mx.stats().embedded == fast_mx.stats().fragments
