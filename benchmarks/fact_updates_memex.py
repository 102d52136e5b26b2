"""The end-to-end level of the knowledge-update benchmark: the facts through ``Memex``.

One home with the default components (MiniLM and Chroma, the configured supersession judge),
a user per case: user ids keep cases apart (a fact of one user never closes another's).
Each fact is remembered in the order it was said with ``at`` its time; then

- ``recall(question)``: the top hit must be the fact that answers now (*current*);
- ``recall(question, as_of=t)``: the top hit must be the fact that answered then (*as-of*);
- every fact's record: which facts were closed, and by which (the judge level's scoring,
  :mod:`benchmarks.fact_updates_judge`, applied to what the home recorded); an unrelated
  pair must keep both facts current;
- *nothing lost*: every fact remembered is still readable, with its chain (``history``);
- an unrelated pair with questions (:func:`benchmarks.fact_updates_cases.pair_questions`):
  ``recall(question)`` about each fact must put that fact on top (*asked fact on top*), not
  its neighbour (recall puts the newer of two facts about the same thing first).
"""

from __future__ import annotations

import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benchmarks.context import RunContext, Sizes, log
from benchmarks.fact_updates_cases import UNRELATED, Case, Pick, iso
from benchmarks.fact_updates_judge import Outcome
from memex_core.api import Memex
from memex_core.domain.search_options import SearchOptions

LIMIT = 5


@dataclass
class Answered:
    """What ``recall`` put on top, now and as of the earlier time, for one case."""

    outcome: Outcome  # the closings the home recorded
    current: bool | None = None
    as_of: bool | None = None
    current_top: str = ""
    as_of_top: str = ""
    current_unfloored: bool | None = None  # the same with the relevance floor off
    as_of_unfloored: bool | None = None
    lost: int = 0
    history_ok: bool = True
    errors: list[str] = field(default_factory=list)
    asked: list[bool] = field(default_factory=list)  # unrelated pairs: asked fact on top
    asked_top: list[str] = field(default_factory=list)


@dataclass
class HomeRun:
    name: str
    answered: list[Answered]
    remember_seconds: float
    recall_seconds: float
    remembered: int
    recalls: int


def _top(hits: Sequence[Any]) -> tuple[str, str]:
    return (hits[0].memory_id, hits[0].text) if hits else ("", NOTHING)


def _same(top: str, expected: str) -> bool:
    """The top hit is the expected fact (a fact not stored, id "", is never on top)."""
    return bool(expected) and top == expected


def _case(mx: Memex, case: Case, run: HomeRun, pairs: Sequence[Pick] = ()) -> Answered:
    user = case.user
    ids: list[str] = []
    started = time.perf_counter()
    refused: list[str] = []
    for fact in case.facts:
        try:
            result = mx.remember(fact.text, user=user, at=fact.at)
        except ValueError as exc:  # a fact remember refuses is a miss, not the run's end
            refused.append(f"remember({fact.text!r}): {exc}")
            ids.append("")
            continue
        ids.append(result.memory_ids[0] if result.memory_ids else "")
    run.remember_seconds += time.perf_counter() - started
    run.remembered += len(case.facts)
    index = {memory_id: i for i, memory_id in enumerate(ids) if memory_id}
    records = {}
    lost = 0
    for memory_id in ids:
        try:
            records[memory_id] = mx.agent(user).get(memory_id)
        except Exception:  # a fact that can no longer be read is lost
            lost += 1
    valid_from = [
        float(getattr(records.get(i), "valid_from", None) or case.facts[n].at)
        for n, i in enumerate(ids)
    ]
    outcome = Outcome(case, valid_from)
    for n, memory_id in enumerate(ids):
        closer = getattr(records.get(memory_id), "superseded_by", None)
        if closer in index:
            outcome.closed[n] = index[closer]
        elif closer is not None:  # ended by its own words ("back in 2020"): no closer
            outcome.errors.append(f"fact {n} closed by a memory outside the case ({closer})")
    outcome.errors.extend(refused)
    answered = Answered(outcome, lost=lost)
    if ids and ids[-1]:
        try:
            chain = mx.history(ids[-1], user=user)
            answered.history_ok = bool(chain)
        except Exception as exc:
            answered.history_ok = False
            answered.errors.append(f"history: {exc!r}")
    for pick in pairs if case.type == UNRELATED else ():
        memory_id, text = _top(mx.recall(pick.question, user=user, limit=LIMIT))
        answered.asked.append(_same(memory_id, ids[pick.fact]))
        answered.asked_top.append(text)
    if case.type == UNRELATED or case.current is None or case.as_of is None:
        return answered
    started = time.perf_counter()
    now = mx.recall(case.question, user=user, limit=LIMIT)
    answered.current_top = _top(now)[1]
    answered.current = _same(_top(now)[0], ids[case.current.fact])
    assert case.as_of.at is not None
    then = mx.recall(case.question, user=user, limit=LIMIT, as_of=iso(case.as_of.at))
    answered.as_of_top = _top(then)[1]
    answered.as_of = _same(_top(then)[0], ids[case.as_of.fact])
    run.recall_seconds += time.perf_counter() - started
    run.recalls += 2
    # Without the relevance floor: whether the right fact leads once every hit is shown
    # (a question sharing no word with its facts may fall under the floor).
    agent = mx.agent(user)
    for name, pick in (("current", case.current), ("as_of", case.as_of)):
        at = iso(pick.at) if pick.at is not None else None
        asked = SearchOptions(query=case.question, limit=LIMIT, floor="off", as_of=at)
        top = _top(agent.search(asked))[0]
        setattr(answered, f"{name}_unfloored", _same(top, ids[pick.fact]))
    return answered


def cached_context(prefix: str, cases: Sequence[Case]) -> RunContext:
    """A run context in a new temporary folder (``ctx.tmp``, the caller removes it) whose
    bench vector cache holds every fact of ``cases``: homes built on it embed nothing."""
    ctx = RunContext(tmp=Path(tempfile.mkdtemp(prefix=prefix)), sizes=Sizes.quick(), quick=False)
    texts = [f.text for c in cases for f in c.facts]
    ctx.disk_cache().fill(texts, ctx.inner_embedder().embed_documents, log=log)
    return ctx


def run_home(
    mx: Memex, name: str, cases: Sequence[Case], questions: dict[str, list[Pick]] | None = None
) -> HomeRun:
    """``questions``: case id -> questions about each fact of an unrelated pair."""
    run = HomeRun(name, [], 0.0, 0.0, 0, 0)
    for number, case in enumerate(cases, 1):
        run.answered.append(_case(mx, case, run, (questions or {}).get(case.id, ())))
        if number % 100 == 0:
            log(f"fact updates, {name}: {number}/{len(cases)} cases")
    return run


NOTHING = "(nothing)"


def empty(answered: Sequence[Answered], name: str) -> tuple[int, int]:
    """Questions ``recall`` answered with no hit at all (a retrieval miss, not a closing's),
    for ``current`` or ``as_of``, and the questions asked."""
    asked = [a for a in answered if getattr(a, name) is not None]
    return sum(getattr(a, f"{name}_top") == NOTHING for a in asked), len(asked)


def asked_on_top(answered: Sequence[Answered]) -> tuple[int, int]:
    """Unrelated pairs' questions whose own fact ``recall`` put on top, and questions asked."""
    verdicts = [v for a in answered for v in a.asked]
    return sum(verdicts), len(verdicts)


def accuracy(answered: Sequence[Answered], name: str) -> tuple[int, int]:
    """Right answers and cases asked, for ``current`` or ``as_of``."""
    verdicts = [getattr(a, name) for a in answered if getattr(a, name) is not None]
    return sum(verdicts), len(verdicts)
