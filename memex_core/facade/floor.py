"""The relevance floor: how similar a candidate found by meaning alone must be to be kept.

``[search] min_semantic_similarity`` (or a search's ``floor``) is a number, ``"off"``, or
``"auto"`` (the default): the value calibrated for the embedder that built the vectors,
measured once and recorded in the catalog (:mod:`memex_core.services.calibration`). The
evidence rule that applies it is :mod:`memex_core.domain.relevance`.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

from memex_core.domain.relevance import RelevanceFloorSettingError, parse_floor_setting
from memex_core.errors import MemexError

if TYPE_CHECKING:
    from memex_core.facade.components import HomeComponents
    from memex_core.services.calibration import Calibration


class RelevanceFloor:
    """A home's relevance floor, its calibration kept once measured or read."""

    def __init__(self, parts: HomeComponents) -> None:
        self._parts = parts
        self._calibrated: Calibration | None = None

    def relevance_floor(self, setting: str | float | None = None) -> float | None:
        """See ``Memex.relevance_floor``."""
        raw = self._parts.config.search_setting("min_semantic_similarity", None)
        try:
            chosen = parse_floor_setting(raw if setting is None else setting)
        except RelevanceFloorSettingError as exc:
            where = "" if setting is not None else f" (in {self._parts.config.config_path})"
            raise MemexError(f"{exc}{where}") from exc
        if chosen.is_off:
            return None
        if not chosen.is_auto:
            return chosen.value
        if self._parts.semantic_unavailable_reason() is not None:
            return None
        return self.calibrated_floor().value

    def floor_signature(self) -> str:
        """See ``Memex.floor_signature``."""
        from memex_core.services.indexing import embedder_signature

        build = getattr(self._parts.embedder, "build", None)
        signature = embedder_signature(self._parts.embedder)
        return f"{signature}:{build}" if build else signature

    def calibrated_floor(self, *, recalibrate: bool = False) -> Calibration:
        """See ``Memex.calibrated_floor``."""
        from memex_core.services.calibration import (
            FLOOR_SETTING,
            METHOD,
            Calibration,
            calibrate,
        )

        signature = self.floor_signature()
        declared = getattr(self._parts.embedder, "similarity_floor", None)
        if isinstance(declared, int | float) and not isinstance(declared, bool):
            # The embedder's author measured it (or, for a bag-of-words test double,
            # knows that no similarity means anything): nothing to calibrate.
            return Calibration(signature, float(declared), method="declared by the embedder")
        if not recalibrate:
            cached = self._calibrated
            if cached is not None and cached.embedder == signature:
                return cached
            recorded = self.recorded_floor()
            if recorded and recorded.embedder == signature and recorded.method == METHOD:
                self._calibrated = recorded
                return recorded
        measured = calibrate(self._parts.embedder, signature)
        with contextlib.suppress(Exception):
            # A home that cannot be written (read-only copy) still searches; it measures
            # again next time.
            self._parts.catalog.set_setting(FLOOR_SETTING, measured.to_json())
        self._calibrated = measured
        return measured

    def recorded_floor(self) -> Calibration | None:
        """See ``Memex.recorded_floor``."""
        from memex_core.services.calibration import FLOOR_SETTING, Calibration

        return Calibration.from_json(self._parts.catalog.get_setting(FLOOR_SETTING))
