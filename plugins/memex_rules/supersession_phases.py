"""A process one step further: a new fact closes an earlier one about the same person's same
process (a visa, an adoption, a job hunt, a building project) that it moves to a later or
another step of the same rank: looking -> applied -> decided.

"Yuki applied for the skilled worker visa" -> "Yuki's visa was refused, she's appealing" ->
"Yuki's appeal succeeded and the visa came through"; "Daniel is waiting on planning
permission for the extension" -> "Planning came through, builders start on Daniel's
extension in June". The earlier fact closes when

- both name the same person (a capitalised name in both) and share another word of the
  process (a lower-case stem, or another name: "the Ocado job" / "an interview at Ocado");
- each names a step of a process (a word list in three ranks: looking or waiting, applied
  or under way, decided or done), the new fact's latest step is no earlier than the earlier
  fact's, and the steps differ;
- the new fact is neither a question, a plan, a wish nor negated.

The reading is one regular expression for the steps, then word sets, cached per text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from memex_rules.rules_text import RELATIVES, word_set
from memex_rules.supersession_measures import stem
from memex_rules.supersession_states import state_changed

#: The steps of a process, by rank: 1 looking or waiting, 2 applied or under way, 3 decided.
_STEPS = {
    1: r"researching|looking\s+(?:into|for|at)|searching|applying|shopping\s+around|"
    r"waiting\s+(?:on|for)|on\s+the\s+market|house-hunting|job-hunting|job\s+hunting",
    2: r"applied|application\s+(?:went\s+in|is\s+in|was\s+submitted)|submitted|interview|"
    r"interviews|interviewed|shortlisted|appealing|appealed|accepted\s+an\s+offer|"
    r"under\s+offer|under\s+way|underway|builders\s+start|work\s+starts",
    3: r"approved|refused|rejected|denied|granted|got\s+the\s+(?:\w+\s+)?job|succeeded|"
    r"came\s+through|exchanged|completed|finished|all-clear|signed\s+off|got\s+in",
}
_STEP = re.compile(
    r"(?i)\b(?:" + "|".join(f"(?P<r{rank}>{words})" for rank, words in _STEPS.items()) + r")\b"
)
_NOT_HELD = re.compile(
    r"(?i)\?|\b(?:if|might|maybe|perhaps|could|would|should|will|wants?|hoping|hope|"
    r"thinking|considering|going\s+to|wish|unless|whether|not|never|no|didn't|hasn't|wasn't)\b"
)
_KIN = re.compile(r"(?i)'s\s+" + RELATIVES + r"\b")
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
_STOP = word_set(
    "the a an and or but so to of for on in at by with from as is are was were be been being "
    "has have had got get gets his her their our my your its it he she they we i them him "
    "this that these those now still just last next week month year today yesterday "
    "first second third new again also very all some any one two who which what when where "
    "there here then after before since until done started start starts very really apart "
    "monday tuesday wednesday thursday friday saturday sunday january february march april "
    "may june july august september october november december"
)


@dataclass(frozen=True)
class _Reading:
    steps: frozenset[str]
    rank: int
    names: frozenset[str]  # capitalised words, "'s" dropped, lower case
    words: frozenset[str]  # lower-case stems that are neither function words nor steps


@lru_cache(maxsize=8192)
def _read(text: str) -> _Reading | None:
    text = text[:400]
    steps = {}
    for match in _STEP.finditer(text):
        rank = int(next(name for name, value in match.groupdict().items() if value)[1:])
        steps[" ".join(match.group(0).lower().split())] = rank
    if not steps:
        return None
    said = _STEP.sub(" ", text)
    names, words = set(), set()
    for at, word in enumerate(_WORD.findall(said)):
        if word.lower() in _STOP or word.lower().removesuffix("'s") in _STOP:
            continue
        if word[:1].isupper():
            if at > 0 or word.endswith("'s") or len(_WORD.findall(said)) > 1:
                names.add(word.lower().removesuffix("'s"))
        elif len(word) >= 4:
            words.add(stem(word))
    return _Reading(frozenset(steps), max(steps.values()), frozenset(names), frozenset(words))


def step_taken(new_text: str, old_text: str) -> tuple[str, str] | None:
    """Why ``new_text`` closes ``old_text`` as a later step of the same person's process (see
    the module doc) or as another state of their relationship or health
    (:mod:`memex_rules.supersession_states`), as (key, reason), or None."""
    return _step(new_text, old_text) or state_changed(new_text, old_text)


def _step(new_text: str, old_text: str) -> tuple[str, str] | None:
    new = _read(new_text)
    if new is None:
        return None
    old = _read(old_text)
    if old is None or new.steps == old.steps or new.rank < old.rank:
        return None
    people = new.names & old.names
    if not people or _NOT_HELD.search(new_text[:400]) or _NOT_HELD.search(old_text[:400]):
        return None
    if bool(_KIN.search(new_text)) != bool(_KIN.search(old_text)):
        return None  # "Yuki applied for a visa" / "Yuki's sister's visa was approved"
    shared = (new.words & old.words) | (people if len(people) > 1 else set())
    if not shared:
        return None
    who, what = sorted(people)[0], " ".join(sorted(shared - people) or sorted(shared))
    before, after = (", ".join(sorted(r.steps)) for r in (old, new))
    return f"{who}: {what}", f"{who}'s {what}: {before} -> {after}"
