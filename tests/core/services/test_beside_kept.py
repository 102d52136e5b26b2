"""Which memory candidates under the floor are kept beside a kept fact of their owner
(memex_core.services.beside_kept): each way alone, and never another owner's fact."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from memex_core.domain import SEMANTIC, FusedHit
from memex_core.domain.memory.change_words import announces_change
from memex_core.domain.memory.quantity_series import same_series
from memex_core.services.beside_kept import BesideKept, kept_beside

TEXTS = {
    "kept": ("u", "weighed in at 88.2"),
    "series": ("u", "84.9 this morning, slowly slowly"),
    "like": ("u", "weighed 88 kilos at the gym"),
    "change": ("u", "switched scales, the old one was off"),
    "near": ("u", "gym on Mondays"),
    "bob": ("bob", "84.1 this morning"),  # a series point, but bob's
}
#: Cosine of each candidate's vector with the kept fact's.
COSINES = {"kept": 1.0, "series": 0.1, "like": 0.6, "change": 0.4, "near": 0.1, "bob": 0.9}


def _fragments() -> dict[str, Any]:
    return {
        i: SimpleNamespace(id=i, owner=owner, content=text, conversation_id=i, source_kind="x")
        for i, (owner, text) in TEXTS.items()
    }


def _vectors(ids: Any) -> dict[str, list[float]]:
    return {i: [COSINES[i], (1.0 - COSINES[i] ** 2) ** 0.5] for i in ids}


def _head() -> list[tuple[FusedHit, bool]]:
    similarity = {"near": 0.4}
    return [(FusedHit(i, 1.0, {}, {SEMANTIC: similarity.get(i, 0.1)}), i == "kept") for i in TEXTS]


def _kept(beside: BesideKept) -> set[str]:
    return kept_beside(_head(), _fragments(), beside, _vectors, None)


def test_each_way_keeps_its_own_and_never_another_owners() -> None:
    assert _kept(BesideKept()) == set()
    assert _kept(BesideKept(kin=0.45)) == {"like"}  # bob's vector is close, but bob's
    assert _kept(BesideKept(kin=0.45, changed=announces_change)) == {"like", "change"}
    assert _kept(BesideKept(near=0.35)) == {"near"}
    assert _kept(BesideKept(series=same_series)) == {"series"}


def test_any_on_says_whether_any_way_is_on() -> None:
    assert not BesideKept().any_on
    assert not BesideKept(changed=announces_change).any_on  # looser kin needs kin on
    assert BesideKept(chain=True).any_on
    assert BesideKept(series=same_series).any_on
