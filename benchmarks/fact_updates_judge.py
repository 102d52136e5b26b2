"""The judge level of the knowledge-update benchmark: a supersession judge alone, no Memex.

Each case's facts go to the judge in the order they were said, as ``remember`` would hand
them: the new fact (its ``valid_from`` read by the judge) against the earlier facts of the
case still current, closest first. A closed fact's ``valid_until`` is the closer's
``valid_from``. Then, against the case's ground truth (:mod:`benchmarks.fact_updates_cases`):

- *closings right*: the case's closings are exactly the expected ones;
- *wrong closings*: closings the case does not expect (an unrelated fact closed, a later fact
  closed by one told late about an earlier time);
- *current pick*: the fact that answers now is current and every fact it replaced is closed;
- *as-of pick*: at the ``as_of`` time (valid time: ``valid_from <= t < valid_until``) the
  fact that answered then is the only one of the case that holds.

Two naive judges give the floor: ``none`` closes nothing (every fact stays current: what a
store that only adds does, mem0-style without its LLM update step), ``same_subject`` closes
every earlier fact that starts with the same subject word.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.fact_updates_cases import UNRELATED, Case
from memex_core.domain.contracts import PluginContext
from memex_core.domain.memory.validity import (
    Supersession,
    SupersessionJudge,
    TimedFact,
    unknown_start,
)

NOW = float("inf")


class CloseNothing:
    """Every fact stays current."""

    def valid_from(self, text: str, said_at: float) -> float:
        return said_at

    def supersedes(self, new: TimedFact, earlier: Sequence[TimedFact]) -> list[Supersession]:
        return []


_LEAD = {"the", "a", "an", "our", "my", "update:", "after", "back", "in", "from", "these"}
_SAME = {"i": "i", "my": "i", "me": "i", "we": "we", "our": "we", "us": "we"}


def subject_word(text: str) -> str:
    """The first word that is not an article or a lead-in, possessive dropped ("alice")."""
    for word in re.findall(r"[\w':.-]+", text.lower()):
        word = re.sub(r"'s$", "", word).strip(":.,")
        if word and word not in _LEAD:
            return _SAME.get(word, word)
    return ""


class CloseSameSubject(CloseNothing):
    """Closes every earlier fact whose subject word is the new fact's."""

    def supersedes(self, new: TimedFact, earlier: Sequence[TimedFact]) -> list[Supersession]:
        mine = subject_word(new.text)
        return [
            Supersession(f.memory_id or "", mine, "same subject word")
            for f in earlier
            if subject_word(f.text) == mine
        ]


BASELINES: dict[str, type[CloseNothing]] = {"none": CloseNothing, "same_subject": CloseSameSubject}


def build_judge(name: str, home: Path) -> tuple[SupersessionJudge | None, str | None]:
    """The judge called ``name`` (a baseline, or one registered as ``supersession_judge``),
    or None and why not."""
    if name in BASELINES:
        return BASELINES[name](), None
    from memex_core.plugins import load_registry

    try:
        registry = load_registry()
        return registry.build("supersession_judge", name, PluginContext(home=home)), None
    except Exception as exc:  # a judge not registered yet, or its plugin missing
        why = f"no supersession judge {name!r} could be built ({exc})"
    if name == "rules":  # the class itself, before its registration lands
        try:
            from memex_rules.supersession import RulesSupersessionJudge

            return RulesSupersessionJudge(), None
        except Exception as exc:
            why += f"; memex_rules.supersession: {exc!r}"
    return None, why


@dataclass
class Outcome:
    """What a judge did with one case."""

    case: Case
    valid_from: list[float]
    closed: dict[int, int] = field(default_factory=dict)  # earlier -> the fact that closed it
    errors: list[str] = field(default_factory=list)

    @property
    def made(self) -> set[tuple[int, int]]:
        return {(new, old) for old, new in self.closed.items()}

    @property
    def wrong(self) -> set[tuple[int, int]]:
        return self.made - self.case.allowed

    @property
    def missed(self) -> set[tuple[int, int]]:
        return set(self.case.closes) - self.made

    @property
    def exact(self) -> bool:
        return not self.missed and not self.wrong

    def until(self, index: int) -> float:
        closer = self.closed.get(index)
        return NOW if closer is None else self.valid_from[closer]

    def holding(self, at: float) -> set[int]:
        return {i for i in range(len(self.case.facts)) if self.valid_from[i] <= at < self.until(i)}

    @property
    def current_right(self) -> bool | None:
        pick = self.case.current
        if pick is None:
            return None
        replaced = {old for _, old in self.case.closes}
        return pick.fact not in self.closed and not (replaced - set(self.closed))

    @property
    def as_of_right(self) -> bool | None:
        pick = self.case.as_of
        if pick is None or pick.at is None:
            return None
        return self.holding(pick.at) == {pick.fact}


def run_case(judge: SupersessionJudge, case: Case) -> Outcome:
    valid_from: list[float] = []
    outcome = Outcome(case, valid_from)
    for index, fact in enumerate(case.facts):
        try:
            valid_from.append(float(judge.valid_from(fact.text, fact.at)))
        except Exception as exc:  # a judge that raises is scored as reading no time
            outcome.errors.append(f"valid_from({fact.text!r}): {exc!r}")
            valid_from.append(fact.at)
        until = _ended(judge, fact.text, fact.at)
        if until is not None and until < valid_from[index]:
            valid_from[index] = unknown_start(until)
        new = TimedFact(None, fact.text, valid_from[index], fact.at)
        # As remember does (memex_core.services.supersession.plan): a fact that ended by its
        # own words ("the monolith was on Rails 4.2 through 2019") is shown only the facts
        # that began before it ended.
        earlier = [
            TimedFact(f"m{j}", case.facts[j].text, valid_from[j], case.facts[j].at)
            for j in reversed(range(index))
            if j not in outcome.closed
            and (until is None or valid_from[j] < min(valid_from[index], until))
        ]
        try:
            closings = judge.supersedes(new, earlier) if earlier else []
        except Exception as exc:
            outcome.errors.append(f"supersedes({fact.text!r}): {exc!r}")
            closings = []
        for closing in closings:
            old = int(closing.memory_id[1:])
            outcome.closed.setdefault(old, index)
    return outcome


def _ended(judge: SupersessionJudge, text: str, said_at: float) -> float | None:
    """When the judge reads ``text`` as over by its own words (an optional reading), or None."""
    reads = getattr(judge, "valid_until", None)
    if not callable(reads):
        return None
    try:
        until = reads(text, said_at)
    except Exception:  # a judge that raises reads no end
        return None
    return None if until is None else float(until)


def run(judge: SupersessionJudge, cases: Sequence[Case]) -> list[Outcome]:
    return [run_case(judge, case) for case in cases]


@dataclass
class Tally:
    """Figures over a group of outcomes."""

    cases: int = 0
    exact: int = 0
    expected: int = 0  # closings expected
    right: int = 0  # expected closings made
    wrong: int = 0  # closings not expected
    wrong_cases: int = 0  # cases with at least one
    current: int = 0
    current_of: int = 0
    as_of: int = 0
    as_of_of: int = 0

    def add(self, outcome: Outcome) -> None:
        self.cases += 1
        self.exact += outcome.exact
        self.expected += len(outcome.case.closes)
        self.right += len(outcome.case.closes) - len(outcome.missed)
        self.wrong += len(outcome.wrong)
        self.wrong_cases += bool(outcome.wrong)
        for name in ("current", "as_of"):
            verdict = getattr(outcome, f"{name}_right")
            if verdict is not None:
                setattr(self, f"{name}_of", getattr(self, f"{name}_of") + 1)
                setattr(self, name, getattr(self, name) + verdict)


def tally(outcomes: Sequence[Outcome]) -> Tally:
    out = Tally()
    for outcome in outcomes:
        out.add(outcome)
    return out


def share(part: int, whole: int) -> str:
    return f"{part / whole:.3f} ({part}/{whole})" if whole else "-"


def wrong_rate(outcomes: Sequence[Outcome]) -> tuple[int, int]:
    """Unrelated pairs with a fact closed, and the pairs."""
    pairs = [o for o in outcomes if o.case.type == UNRELATED]
    return sum(bool(o.wrong) for o in pairs), len(pairs)
