"""The broad split of the knowledge-update set: the writers' text files to JSON Lines.

Three writers wrote the cases by hand, blind to the supersession rules, the templates and the
fresh split, one file per writer and type (``a-updates.txt``, ``a-late.txt``,
``a-unrelated.txt``, the same for ``b`` and ``c``), one case per line, fields split by " | ",
facts by " ; ", each fact ``text @ YYYY-MM-DD``::

    U | kind | subject | question | fact1 @ date ; fact2 @ date [; fact3 @ date] | answer1 ; answer2 [; answer3]
    L | kind | subject | question | current fact @ date ; late fact about the past @ date | current answer ; past answer | a date in the past period
    N | shape | subject | fact1 @ date ; fact2 @ date

``python -m benchmarks.fact_updates_broad FOLDER`` rewrites ``datasets/fact_updates_broad.jsonl``
from them and prints the lines it dropped and why. ``--split blind`` converts the *blind*
split's writers instead (``d`` and ``e``, text under ``datasets/fact_updates_blind/``, ids
``k-<writer>-...``) to ``datasets/fact_updates_blind.jsonl``; its unrelated files carry each
pair's questions on the line after the pair::

    Q | question about fact 0? | its answer | question about fact 1? | its answer

(each answer a phrase of its own fact and not of the other), written to
``datasets/fact_updates_blind_questions.jsonl`` (the broad split keeps its questions in a file
written by hand apart). The conversion is the fresh split's: each
later fact of an update closes the one before, the as-of question asks at the midpoint of
the first two facts; a late case asks as of its last field's date; facts are said at noon
UTC (a minute apart within a case, so two facts of one day keep their order). A case's id is
``b-<writer>-<u|l|n>-<line number>`` (``k-`` for blind): appending lines keeps the earlier ids.
``--split blind2`` converts the second blind split the same way (writers ``f`` and ``g``, text
under ``datasets/fact_updates_blind2/``, ids ``m-<writer>-...``), ``--split blind3`` the third
(writers ``h`` and ``i``, ``datasets/fact_updates_blind3/``, ids ``n-<writer>-...``) and
``--split blind4`` the fourth (``j``, ``k``, ``datasets/fact_updates_blind4/``, ``p-...``),
``--split blind5`` the fifth (``l``, ``m``, ``datasets/fact_updates_blind5/``, ``q-...``),
``--split blind6`` the sixth (``s``, ``t``, ``datasets/fact_updates_blind6/``, ``r-...``),
``--split blind7`` the seventh (``u``, ``v``, ``datasets/fact_updates_blind7/``, ``w-...``),
``--split blind8`` the eighth (``y``, ``z``, ``datasets/fact_updates_blind8/``, ``x-...``).
"""  # noqa: E501

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from benchmarks.fact_updates_cases import (
    BLIND,
    BLIND2,
    BLIND2_FILE,
    BLIND3,
    BLIND3_FILE,
    BLIND4,
    BLIND4_FILE,
    BLIND5,
    BLIND5_FILE,
    BLIND6,
    BLIND6_FILE,
    BLIND7,
    BLIND7_FILE,
    BLIND8,
    BLIND8_FILE,
    BLIND_FILE,
    BROAD,
    BROAD_FILE,
    DATASETS,
    LATE,
    UNRELATED,
    UPDATE,
    case_from,
    check,
    iso,
)

WRITERS = ("a", "b", "c")


@dataclass(frozen=True)
class Split:
    """Where a split written as text lands: its name, id prefix, writers and files."""

    name: str
    prefix: str
    writers: tuple[str, ...]
    path: Path
    folder: Path
    questions: Path | None = None  # the pairs' questions from "Q" lines (None: kept apart)


SPLIT_OF = {
    BROAD: Split(BROAD, "b", WRITERS, BROAD_FILE, Path("/work/broad")),
    BLIND: Split(
        BLIND,
        "k",
        ("d", "e"),
        BLIND_FILE,
        DATASETS / "fact_updates_blind",
        DATASETS / "fact_updates_blind_questions.jsonl",
    ),
    BLIND2: Split(
        BLIND2,
        "m",
        ("f", "g"),
        BLIND2_FILE,
        DATASETS / "fact_updates_blind2",
        DATASETS / "fact_updates_blind2_questions.jsonl",
    ),
    BLIND3: Split(
        BLIND3,
        "n",
        ("h", "i"),
        BLIND3_FILE,
        DATASETS / "fact_updates_blind3",
        DATASETS / "fact_updates_blind3_questions.jsonl",
    ),
    BLIND4: Split(
        BLIND4,
        "p",
        ("j", "k"),
        BLIND4_FILE,
        DATASETS / "fact_updates_blind4",
        DATASETS / "fact_updates_blind4_questions.jsonl",
    ),
    BLIND5: Split(
        BLIND5,
        "q",
        ("l", "m"),
        BLIND5_FILE,
        DATASETS / "fact_updates_blind5",
        DATASETS / "fact_updates_blind5_questions.jsonl",
    ),
    BLIND6: Split(
        BLIND6,
        "r",
        ("s", "t"),
        BLIND6_FILE,
        DATASETS / "fact_updates_blind6",
        DATASETS / "fact_updates_blind6_questions.jsonl",
    ),
    BLIND7: Split(
        BLIND7,
        "w",
        ("u", "v"),
        BLIND7_FILE,
        DATASETS / "fact_updates_blind7",
        DATASETS / "fact_updates_blind7_questions.jsonl",
    ),
    BLIND8: Split(
        BLIND8,
        "x",
        ("y", "z"),
        BLIND8_FILE,
        DATASETS / "fact_updates_blind8",
        DATASETS / "fact_updates_blind8_questions.jsonl",
    ),
}
FILES = {UPDATE: "updates", LATE: "late", UNRELATED: "unrelated"}
LETTER = {UPDATE: "U", LATE: "L", UNRELATED: "N"}
FIELDS = {UPDATE: 6, LATE: 7, UNRELATED: 4}
_FACT = re.compile(r"^(?P<text>.*\S)\s*@\s*(?P<day>\d{4}-\d{2}-\d{2})$")
_DAY = re.compile(r"@\s*\d{4}-\d{2}-\d{2}")


#: Late facts whose past time neither the text nor the day it was said gives (no year, no
#: "last season"): the as-of date their writer chose cannot be read by anyone, so the case is
#: dropped rather than its text changed.
UNDATED = {
    "Maya did reception and Year 1 at Little Oaks before we moved her to St Anne's",
    "Before Dr Collins, Mum was with Dr Fairley for about twenty years",
    "When Maya was a baby, my mother-in-law Ruth did all our babysitting",
}


class Malformed(ValueError):
    """A line that cannot become a sound case (the message says why)."""


def _day(value: str) -> datetime:
    try:
        return datetime.strptime(value.strip(), "%Y-%m-%d").replace(hour=12, tzinfo=UTC)
    except ValueError:
        raise Malformed(f"date {value.strip()!r} is not YYYY-MM-DD") from None


def _fields(line: str, count: int) -> list[str]:
    parts = [p.strip() for p in line.split(" | ")]
    if len(parts) != count:  # "a|b" written without spaces
        parts = [p.strip() for p in line.split("|")]
    if len(parts) != count:
        raise Malformed(f"{len(parts)} fields, {count} expected")
    if any(not p for p in parts):
        raise Malformed("an empty field")
    return parts


def _facts(raw: str) -> list[dict[str, str]]:
    parts = [p.strip() for p in raw.split(" ; ")]
    if len(_DAY.findall(raw)) != len(parts):  # "fact @ day;fact @ day"
        tolerant = [p.strip() for p in raw.split(";")]
        parts = tolerant if all(_FACT.match(p) for p in tolerant) else parts
    if len(_DAY.findall(raw)) != len(parts):
        raise Malformed(f"{len(_DAY.findall(raw))} dates for {len(parts)} facts")
    facts = []
    for n, part in enumerate(parts):
        match = _FACT.match(part)
        if match is None:
            raise Malformed(f"fact {part!r} has no ' @ YYYY-MM-DD'")
        at = _day(match["day"]) + timedelta(minutes=n)
        facts.append({"text": match["text"].strip(), "at": iso(at.timestamp())})
    return facts


def _answers(raw: str, count: int) -> list[str]:
    answers = [a.strip() for a in raw.split(" ; ")]
    if len(answers) != count:
        answers = [a.strip() for a in raw.split(";")]
    if len(answers) != count or not all(answers):
        raise Malformed(f"{len(answers)} answers for {count} facts")
    return answers


def _seconds(value: str) -> float:
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def case_of(
    kind: str, writer: str, number: int, line: str, split: Split = SPLIT_OF[BROAD]
) -> dict[str, Any]:
    """One line of a writer's file as a case (the JSON of :mod:`fact_updates_cases`)."""
    parts = _fields(line, FIELDS[kind])
    if parts[0].upper() != LETTER[kind]:
        raise Malformed(f"type letter {parts[0]!r} in the {FILES[kind]} file")
    case: dict[str, Any] = {
        "id": f"{split.prefix}-{writer}-{LETTER[kind].lower()}-{number:04d}",
        "source": "written",
        "split": split.name,
        "type": kind,
        "kind": re.sub(r"\W+", "_", parts[1].strip().lower()).strip("_"),
        "subject": parts[2],
    }
    if kind == UNRELATED:
        facts = _facts(parts[3])
        case.update(facts=facts, closes=[], question="", current=None, as_of=None)
        return case
    facts = _facts(parts[4])
    answers = _answers(parts[5], len(facts) if kind == UPDATE else 2)
    case.update(facts=facts, question=parts[3])
    if kind == UPDATE:
        first, second = (_seconds(f["at"]) for f in facts[:2])
        if second <= first:
            raise Malformed("an update said no later than the fact it changes")
        case.update(
            closes=[[n, n - 1] for n in range(1, len(facts))],
            current={"fact": len(facts) - 1, "answer": answers[-1]},
            as_of={"at": iso((first + second) / 2), "fact": 0, "answer": answers[0]},
        )
        return case
    if len(facts) != 2:
        raise Malformed(f"{len(facts)} facts in a late case, 2 expected")
    if facts[1]["text"] in UNDATED:
        raise Malformed("the late fact gives no time: its as-of date cannot be read")
    then = _day(parts[6]).timestamp()
    if then >= _seconds(facts[0]["at"]):
        raise Malformed("the past date is not before the current fact was said")
    case.update(
        closes=[],
        current={"fact": 0, "answer": answers[0]},
        as_of={"at": iso(then), "fact": 1, "answer": answers[1]},
    )
    return case


def questions_of(line: str, facts: list[dict[str, str]]) -> list[dict[str, Any]]:
    """A "Q" line as the questions of the unrelated pair before it (each answer in its own
    fact's text and not in the other's)."""
    parts = _fields(line, 5)
    if parts[0].upper() != "Q":
        raise Malformed(f"type letter {parts[0]!r} for a pair's questions")
    texts = [f["text"].lower() for f in facts]
    found = []
    for n, (question, answer) in enumerate(((parts[1], parts[2]), (parts[3], parts[4]))):
        if not question.endswith("?"):
            raise Malformed(f"question {question!r} does not end with '?'")
        if answer.lower() not in texts[n] or answer.lower() in texts[1 - n]:
            raise Malformed(f"answer {answer!r} is not in fact {n} alone")
        found.append({"fact": n, "question": question, "answer": answer})
    return found


def convert(folder: Path, split: Split = SPLIT_OF[BROAD]) -> tuple[list[dict[str, Any]], list[str]]:
    """Every sound case of the writers' files, and a line per line dropped (why); an
    unrelated case followed by a "Q" line carries its questions under ``"questions"``."""
    cases: list[dict[str, Any]] = []
    dropped: list[str] = []
    seen: dict[tuple[str, ...], str] = {}
    for writer in split.writers:
        for kind, name in FILES.items():
            path = folder / f"{writer}-{name}.txt"
            if not path.exists():
                continue
            last: dict[str, Any] | None = None  # the case a "Q" line belongs to
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if not line.strip() or line.lstrip().startswith("#"):
                    continue
                where = f"{path.name}:{number}"
                if kind == UNRELATED and line.lstrip()[:1].upper() == "Q":
                    try:
                        if last is None:
                            raise Malformed("questions with no sound pair before them")
                        last["questions"] = questions_of(line.strip(), last["facts"])
                    except Malformed as exc:
                        dropped.append(f"{where}: {exc}")
                    last = None
                    continue
                last = None
                try:
                    raw = case_of(kind, writer, number, line.strip(), split)
                    problems = check(case_from(raw))
                    if problems:
                        raise Malformed("; ".join(problems))
                except Malformed as exc:
                    dropped.append(f"{where}: {exc}")
                    continue
                texts = tuple(f["text"].lower() for f in raw["facts"])
                if texts in seen:
                    dropped.append(f"{where}: the same facts as {seen[texts]}")
                    continue
                seen[texts] = where
                cases.append(raw)
                last = raw
    return cases, dropped


def write(cases: Iterable[dict[str, Any]], path: Path = BROAD_FILE) -> None:
    lines = [json.dumps(c, ensure_ascii=False) for c in cases]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def write_split(cases: list[dict[str, Any]], split: Split) -> None:
    """The cases to the split's file, their pairs' questions (if any) to its questions file."""
    asked = [{"id": c["id"], "questions": c.pop("questions")} for c in cases if "questions" in c]
    write(cases, split.path)
    if split.questions is not None:
        write(asked, split.questions)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=None)
    parser.add_argument("--split", choices=sorted(SPLIT_OF), default=BROAD)
    args = parser.parse_args(argv)
    split = SPLIT_OF[args.split]
    folder = args.folder or split.folder
    cases, dropped = convert(folder, split)
    if not cases:
        print(f"no case found under {folder}: expected {split.writers[0]}-updates.txt and the like")
        return 1
    asked = sum("questions" in c for c in cases)
    write_split(cases, split)
    for line in dropped:
        print("dropped", line)
    by_type = {t: sum(c["type"] == t for c in cases) for t in FILES}
    kinds = len({c["kind"] for c in cases if c["type"] == UPDATE})
    print(
        f"{split.name}: {len(cases)} cases {by_type}, {kinds} update kinds, {asked} pairs with"
        f" questions, {len(dropped)} lines dropped"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
