"""The written part of the knowledge-update set (:mod:`benchmarks.fact_updates_cases`).

``python -m benchmarks.fact_updates_written`` rewrites ``datasets/fact_updates_written.jsonl``;
the same seed gives the same file. The templates (:mod:`benchmarks.fact_updates_templates`)
follow how people state and restate facts in chat and work notes: several wordings for the
first statement and for the change (an explicit change verb, "now", "no longer", a plain
restatement with no change word at all), subjects "I", names, "we" and "the team".

A pattern's ``{S}`` is the subject, ``{P}`` its possessive, ``{O}`` its object form;
``[lives|live]`` is the verb for a third-person subject and for "I"/"we";
``[is|am|are]`` names the three forms (third person, "I", "we").
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from benchmarks.fact_updates_cases import LATE, UNRELATED, UPDATE, WRITTEN_FILE, split_of
from benchmarks.fact_updates_kinds import LATE_KINDS, UPDATES
from benchmarks.fact_updates_pairs import PAIRS
from benchmarks.fact_updates_templates import Kind, Pair

SEED = 30
PER_KIND = 18
PER_LATE = 8
PER_PAIR = 16
NAMES = (
    "Alice", "Bob", "Chen", "Dana", "Emeka", "Fatima", "Goran", "Hana", "Ivan", "Julia",
    "Kofi", "Lena", "Mateo", "Nadia", "Omar", "Priya", "Quinn", "Rosa", "Sven", "Tariq",
)  # fmt: skip
#: Who each subject kind may be: "name" draws from NAMES.
SUBJECTS = {
    "I": ("I", "my", "me"),
    "we": ("we", "our", "us"),
    "team": ("the team", "the team's", "the team"),
}


def person(who: str) -> int:
    """0: third person singular, 1: "I", 2: "we"."""
    return {"I": 1, "we": 2}.get(who, 0)


def render(pattern: str, who: str, name: str, slots: dict[str, str]) -> str:
    if who == "name":
        subject, possessive, obj = name, f"{name}'s", name
    else:
        subject, possessive, obj = SUBJECTS[who]
    if who in ("name", "team") and -1 < pattern.find("{S}") < pattern.find("{P}"):
        possessive = "their"  # "Dana changed their email", not "Dana changed Dana's email"
    form = person(who)

    def verb(match: re.Match[str]) -> str:
        forms = match.group(1).split("|")
        if len(forms) == 3:
            return forms[form]
        return forms[0] if form == 0 else forms[1]

    text = re.sub(r"\[([^\]]+)\]", verb, pattern)
    text = text.replace("{S}", subject).replace("{P}", possessive).replace("{O}", obj)
    text = text.format(**slots).replace("{n}", name.lower() or "sam")
    return text[0].upper() + text[1:]


def answer(kind: Kind, slots: dict[str, str], name: str) -> str:
    return kind.answer(slots).replace("{n}", name.lower() or "sam")


def _time(day: datetime, rng: random.Random) -> datetime:
    return day.replace(hour=rng.randrange(8, 21), minute=rng.randrange(60), second=0)


def _iso(value: datetime) -> str:
    return value.strftime("%Y-%m-%dT%H:%M:%SZ")


def _subject(kind_subjects: Sequence[str], rng: random.Random) -> tuple[str, str]:
    who = rng.choice(kind_subjects)
    return who, (rng.choice(NAMES) if who == "name" else "")


def update_case(kind: Kind, number: int, rng: random.Random) -> dict[str, Any]:
    who, name = _subject(kind.subjects, rng)
    steps = 3 if kind.chain and rng.random() < 0.3 else 2
    slots = kind.draw(rng, steps)
    start = datetime(2022, 1, 1, tzinfo=UTC) + timedelta(days=rng.randrange(700))
    times = [_time(start, rng)]
    for _ in range(steps - 1):
        times.append(_time(times[-1] + timedelta(days=rng.randrange(20, 300)), rng))
    texts = [render(rng.choice(kind.first), who, name, slots[0])]
    for step in range(1, steps):
        merged = {**{f"old_{k}": v for k, v in slots[step - 1].items()}, **slots[step]}
        texts.append(render(rng.choice(kind.change), who, name, merged))
    closes = [[i, i - 1] for i in range(1, steps)]
    held = rng.randrange(steps - 1)  # the fact asked about "as of": any but the last
    as_of = times[held] + (times[held + 1] - times[held]) * rng.uniform(0.2, 0.8)
    asked = held
    period = dated_back(texts[held + 1], times[held + 1])
    if period is not None and as_of >= period[0]:
        # "Omar went keto last month", said on 31 July, began in June: asked as of 21 July,
        # the case would want "vegetarian" against its own words. Asked before June instead
        # when the earlier fact was said before it, else after June, answered by the change.
        fraction = (as_of - times[held]) / (times[held + 1] - times[held])
        began, ended = period
        if began > times[held]:
            as_of = times[held] + (began - times[held]) * fraction
        else:
            as_of, asked = ended + (times[held + 1] - ended) * fraction, held + 1
    return {
        "id": f"w-{kind.key}-{number:03d}",
        "type": UPDATE,
        "kind": kind.key,
        "subject": name or who,
        "facts": [{"text": t, "at": _iso(at)} for t, at in zip(texts, times, strict=True)],
        "closes": closes,
        "question": render(rng.choice(kind.questions), who, name, slots[-1]),
        "current": {"fact": steps - 1, "answer": answer(kind, slots[-1], name)},
        "as_of": {
            "at": _iso(as_of),
            "fact": asked,
            "answer": answer(kind, slots[asked], name),
            **({"since": _iso(period[1])} if period and asked > held else {}),
        },
    }


def dated_back(text: str, said: datetime) -> tuple[datetime, datetime] | None:
    """The period a change the text dates back happened in ("last month": the month before
    ``said``; "last week": the week before, from Monday), as (start, end), or None."""
    if "last month" in text:
        ended = said.replace(day=1, hour=0, minute=0, second=0)
        return (ended - timedelta(days=1)).replace(day=1), ended
    if "last week" in text:
        ended = said.replace(hour=0, minute=0, second=0) - timedelta(days=said.weekday())
        return ended - timedelta(days=7), ended
    return None


def late_case(kind: Kind, number: int, rng: random.Random) -> dict[str, Any]:
    """Now-fact first, then a fact about an earlier year told later: nothing closes."""
    who, name = _subject(kind.subjects, rng)
    old_slots, now_slots = kind.draw(rng, 2)  # versions are drawn rising
    said = datetime(2024, 1, 1, tzinfo=UTC) + timedelta(days=rng.randrange(300))
    first = _time(said, rng)
    second = _time(first + timedelta(days=rng.randrange(3, 90)), rng)
    year = rng.randrange(2015, 2022)
    pattern = rng.choice(kind.late)
    text = render(pattern, who, name, {**old_slots, "year": str(year), "next": str(year + 2)})
    as_of = datetime(year, rng.randrange(3, 11), rng.randrange(1, 28), tzinfo=UTC)
    return {
        "id": f"w-late-{kind.key}-{number:03d}",
        "type": LATE,
        "kind": kind.key,
        "subject": name or who,
        "facts": [
            {"text": render(rng.choice(kind.first), who, name, now_slots), "at": _iso(first)},
            {"text": text, "at": _iso(second)},
        ],
        "closes": [],
        "question": render(rng.choice(kind.questions), who, name, now_slots),
        "current": {"fact": 0, "answer": answer(kind, now_slots, name)},
        "as_of": {"at": _iso(as_of), "fact": 1, "answer": answer(kind, old_slots, name)},
    }


def pair_case(pair: Pair, number: int, rng: random.Random) -> dict[str, Any]:
    who, name = _subject(pair.subjects, rng)
    slots = pair.draw(rng)
    first = _time(datetime(2023, 1, 1, tzinfo=UTC) + timedelta(days=rng.randrange(600)), rng)
    second = _time(first + timedelta(days=rng.randrange(1, 200)), rng)
    a, b = rng.choice(pair.first), rng.choice(pair.second)
    if rng.random() < 0.5:  # either attribute may come first
        a, b = b, a
    return {
        "id": f"w-pair-{pair.key}-{number:03d}",
        "type": UNRELATED,
        "kind": pair.key,
        "subject": name or who,
        "facts": [
            {"text": render(a, who, name, slots), "at": _iso(first)},
            {"text": render(b, who, name, slots), "at": _iso(second)},
        ],
        "closes": [],
        "question": "",
        "current": None,
        "as_of": None,
    }


def _unique(make: Any, key: Any, number: int, rng: random.Random, seen: set[str]) -> dict:
    for _ in range(50):
        case = make(key, number, rng)
        texts = " | ".join(f["text"] for f in case["facts"])
        if texts not in seen:
            seen.add(texts)
            return case
    raise AssertionError(f"{key.key}: too few values for distinct cases")


def generate(seed: int = SEED) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    seen: set[str] = set()
    cases = []
    for kind in UPDATES:
        cases += [_unique(update_case, kind, n, rng, seen) for n in range(1, PER_KIND + 1)]
    for kind in (k for k in UPDATES if k.key in LATE_KINDS):
        cases += [_unique(late_case, kind, n, rng, seen) for n in range(1, PER_LATE + 1)]
    for pair in PAIRS:
        cases += [_unique(pair_case, pair, n, rng, seen) for n in range(1, PER_PAIR + 1)]
    out = []
    for case in cases:
        ordered = {"id": case["id"], "source": "written", "split": split_of(case["id"])}
        out.append({**ordered, **case})
    return out


def main() -> None:
    cases = generate()
    lines = [json.dumps(c, ensure_ascii=False) for c in cases]
    WRITTEN_FILE.parent.mkdir(parents=True, exist_ok=True)
    WRITTEN_FILE.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"{len(cases)} cases -> {WRITTEN_FILE}")


if __name__ == "__main__":
    main()
