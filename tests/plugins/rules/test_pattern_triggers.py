"""The trigger words that let the rules judge skip patterns (memex_rules.pattern_triggers).

A pattern is skipped for a text only when none of its triggers is inside the text's words;
every reading (and every decision of the judge) must be the one trying every pattern gives.
"""

from __future__ import annotations

import ast
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memex_rules import supersession_open_changes, supersession_slots, supersession_time, wording
from memex_rules.pattern_triggers import TriggerIndex, substitute_each, triggers, words
from memex_rules.rules_text import compile_pattern

HERE = Path(__file__).resolve().parent
SAID_AT = 1_800_000_000.0


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        (r"(?:lives|moved)\s+(?P<v>.+)", {"lives", "moved"}),
        (r"(?:now\s+)?lives\s+in\s+(?P<v>.+)", {"lives"}),  # an optional word is no trigger
        (r"(?:re)?scheduled\s+(?P<v>.+)", {"scheduled"}),  # "rescheduled" holds "scheduled"
        (r"standardi[sz]ed\s+on", {"standardised", "standardized"}),
        (r"(?:is|works\s+as)\s+an?\s+(?P<r>nurse|teacher)", {"nurse", "teacher"}),
        (r"e-?mail", {"mail"}),  # "-" is no letter: only the run after it is certain
        (r"(?P<v>.+)", None),  # no letter is certain
        (r"\d+\s+(?:kg|lbs?)?", None),
        (r"(?P<x>\w+)\s+(?P=x)", None),  # a back-reference is not read
    ],
)
def test_triggers_are_read_off_the_pattern(pattern: str, expected: set[str] | None) -> None:
    found = triggers(compile_pattern(pattern))
    assert (set(found) if found is not None else None) == expected


def test_words_are_folded_as_a_case_blind_pattern_reads_them() -> None:
    # every character a case-blind pattern matches to an ASCII letter or digit (the Kelvin
    # sign to "k", the long s to "s", ...) is that letter in the words of a text
    any_letter = re.compile(r"(?i)[a-z0-9]")
    for code in range(sys.maxunicode + 1):
        char = chr(code)
        if any_letter.fullmatch(char):
            letters = [
                c for c in "abcdefghijklmnopqrstuvwxyz0123456789" if re.fullmatch(f"(?i){c}", char)
            ]
            assert words(f"x{char}y") == [f"x{letters[0]}y"], hex(code)


def test_an_index_gives_only_the_patterns_that_can_match_in_order() -> None:
    patterns = [compile_pattern(p) for p in (r"^.+\s+lives\s+in\s+.+", r"^.+$", r"moved\s+to")]
    index = TriggerIndex(["lives", "anything", "moved"], patterns)
    assert index.candidates("Alice moved to Berlin") == ["anything", "moved"]
    assert index.candidates("ALICE LIVES IN PARIS", "") == ["lives", "anything"]
    assert index.candidates("She relives it") == ["lives", "anything"]  # a piece of a word


def test_substituting_reads_the_words_a_replacement_brings() -> None:
    pairs = [(re.compile(p), r) for p, r in ((r"\bmy\b", "user's"), (r"\buser's\b", "the user's"))]
    index = TriggerIndex(pairs, [pattern for pattern, _ in pairs])
    assert substitute_each(index, "my cat") == "the user's cat"
    assert substitute_each(index, "a cat") == "a cat"


# --- the same readings with and without the index -----------------------------------------------


def _texts() -> list[str]:
    """Every fact of the knowledge-update benchmark's dev, test and broad splits (never the
    held-out fresh one) and every string of the rules tests."""
    from benchmarks.fact_updates_cases import BROAD_FILE, FILES

    texts: list[str] = []
    for path in (*FILES, BROAD_FILE):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                texts.extend(fact["text"] for fact in json.loads(line)["facts"])
    for path in sorted(HERE.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                texts.append(node.value)
    return list(dict.fromkeys(text for text in texts if 0 < len(text) < 700))


@pytest.fixture(scope="module")
def texts() -> list[str]:
    return _texts()


def _clear_caches() -> None:
    """Forget every reading the rules cached (the compiled tables stay)."""
    for name, module in list(sys.modules.items()):
        if name.startswith("memex_rules"):
            for value in vars(module).values():
                info = getattr(value, "cache_info", None)
                if info is not None and info().maxsize != 1:
                    value.cache_clear()


def _read(texts: list[str]) -> list[tuple[Any, ...]]:
    _clear_caches()
    slots = supersession_slots
    return [
        (
            slots.read_slots(text),
            slots.shaped_slots(text),
            slots.rough_subject(text),
            slots.prepare(text),
            wording.read_form(text),
            supersession_time.without_times(text),
            supersession_time.without_times(slots.prepare(text)),
            supersession_time.named_time(text, SAID_AT),
            supersession_open_changes.shaped_changes(slots.prepare(text)),
        )
        for text in texts
    ]


def _every_pattern(monkeypatch: pytest.MonkeyPatch, read: Callable[[], Any]) -> Any:
    """What ``read`` gives when every index gives every pattern, caches cleared before and
    after."""
    with monkeypatch.context() as patch:
        patch.setattr(TriggerIndex, "skips", False)
        _clear_caches()
        reference = read()
    _clear_caches()
    return reference


def test_every_reading_is_the_one_trying_every_pattern_gives(
    texts: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    filtered = _read(texts)
    reference = _every_pattern(monkeypatch, lambda: _read(texts))
    assert len(texts) > 3000
    for text, mine, theirs in zip(texts, filtered, reference, strict=True):
        assert mine == theirs, text


def test_the_judge_decides_as_it_does_trying_every_pattern(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from benchmarks.fact_updates_cases import BROAD_FILE, FILES, load
    from benchmarks.fact_updates_judge import run
    from memex_rules.supersession import RulesSupersessionJudge

    cases = load((*FILES, BROAD_FILE))

    def decide() -> list[tuple[Any, ...]]:
        outcomes = run(RulesSupersessionJudge(), cases)
        return [(o.case.id, o.valid_from, o.closed, o.errors) for o in outcomes]

    _clear_caches()
    assert decide() == _every_pattern(monkeypatch, decide)


def test_no_pattern_that_can_match_is_skipped(texts: list[str]) -> None:
    # stronger than the readings agreeing: each pattern found anywhere in a text it is
    # asked about is among those the index gives for that text
    prepared = [supersession_slots.prepare(text) for text in texts]
    plain = [supersession_time.without_times(text) for text in prepared]
    indexes: list[tuple[TriggerIndex[Any], list[str], Callable[[Any], re.Pattern[str]]]] = [
        (supersession_slots._index(), prepared + plain, lambda item: item[1]),
        (supersession_time._index(), texts + prepared, lambda item: item[1]),
        (supersession_open_changes._index(), prepared, lambda item: item),
        (wording._phrases(), [wording.spell_out(text) for text in texts], lambda item: item[0]),
        (wording._contractions(), [text.casefold() for text in texts], lambda item: item[0]),
        (supersession_slots._spelling(), texts, lambda item: item[0]),
    ]
    for index, asked, pattern_of in indexes:
        for text in asked:
            bits = index.bits(text)
            for bit, item in enumerate(index.items):
                if not bits >> bit & 1:
                    assert pattern_of(item).search(text) is None, (pattern_of(item).pattern, text)
