"""What a floor of its own for memory recall would keep and let through, by cosine alone.

The relevance floor is calibrated (:mod:`memex_core.services.calibration`) as the highest
cosine between its probes (random letter strings, off-topic questions) and its reference
texts, chat turns down to "A", "B", "C": with MiniLM the single letters against a letter
string set it. Facts are never one letter. This study embeds, with the default embedder:

- the calibration's probes against its references (which reference sets the floor), and
  against :data:`FACT_LIKE`, facts written for this study in the style a memory holds (not
  benchmark 21's): what the same rule gives when the references are facts;
- for a sweep of floors, on benchmark 21's tuning splits (dev, test, broad; never fresh):
  the share of questions whose answering fact (now, as of) has at least that cosine with
  the question, and the share of benchmark 18's generated queries (another seed than the
  calibration's) asked of broad's users as :mod:`benchmarks.memory_abstention` asks them
  whose best fact of that user reaches it (semantic evidence alone: keyword evidence and the
  slot signal are not modelled, so this is the floor's part of what recall would answer).

Diagnostic only::

    nice python -m benchmarks.memory_floor_study
"""

from __future__ import annotations

import math
import shutil
import tempfile
from pathlib import Path

import numpy as np

from benchmarks.abstention import generated_queries
from benchmarks.context import RunContext, Sizes
from benchmarks.fact_updates_cases import BROAD, BROAD_FILE, FILES, UNRELATED, load
from benchmarks.memory_abstention import USERS_PER_QUERY
from memex_core.services import calibration

FACT_LIKE: tuple[str, ...] = (
    "I work at a bank in Leeds.",
    "Standup moved to 10:15.",
    "My sister lives in Porto.",
    "We deploy on Thursdays.",
    "The team lead is Priya.",
    "I'm vegetarian now.",
    "Rent is $1,800 a month.",
    "Our CI runs on GitHub Actions.",
    "I drive a 2015 Honda Civic.",
    "Dentist appointment on the 14th.",
    "The wifi password is on the fridge.",
    "I switched to the night shift.",
    "My daughter started piano lessons.",
    "The budget for Q3 is 40k.",
    "We use Postgres 15 in production.",
    "I run 5k three times a week.",
    "Mum's birthday is in June.",
    "I moved to Lisbon.",
    "Sprint length is two weeks.",
    "My manager is Tom.",
    "Gym membership is £35 a month.",
    "The client meeting is on Fridays at 2pm.",
    "I'm learning Spanish.",
    "Our office is on the third floor.",
    "I take the 7:40 train.",
    "Coffee: oat flat white.",
    "The cat is called Miso.",
    "Salary: 52k",
    "Phone: Pixel 7",
)
FLOORS = (0.30, 0.32, 0.34, 0.36, 0.38, 0.40, 0.417)


def _unit(rows: object) -> np.ndarray:
    matrix = np.asarray(rows, dtype=float)
    return matrix / np.linalg.norm(matrix, axis=1, keepdims=True)


def main() -> None:
    tmp = Path(tempfile.mkdtemp(prefix="memory-floor-study-"))
    try:
        _run(RunContext(tmp=tmp, sizes=Sizes.quick(), quick=False))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _run(ctx: RunContext) -> None:
    embedder = ctx.inner_embedder()
    probes = [*calibration.nonsense_probes(), *calibration.OFF_TOPIC_PROBES]
    asked = _unit([embedder.embed_query(p) for p in probes])
    for name, references in (("chat turns", calibration.REFERENCE_TEXTS), ("facts", FACT_LIKE)):
        sims = asked @ _unit(embedder.embed_documents(list(references))).T
        row, column = np.unravel_index(int(sims.argmax()), sims.shape)
        value = math.ceil((float(sims.max()) + calibration.MARGIN) * 1000) / 1000
        print(
            f"calibration against {name}: highest {sims.max():.3f} ({probes[row]!r} /"
            f" {references[column]!r}) -> floor {value:.3f}"
        )
    cases = [c for c in load((*FILES, BROAD_FILE)) if c.split in ("dev", "test", BROAD)]
    cache = ctx.disk_cache()
    texts = [f.text for c in cases for f in c.facts]
    cache.fill(texts, embedder.embed_documents)
    facts = dict(zip(texts, _unit(cache.matrix(texts)), strict=True))
    answering: dict[str, list[float]] = {"current": [], "as_of": []}
    for case in cases:
        if case.type == UNRELATED or not case.question:
            continue
        question = _unit([embedder.embed_query(case.question)])[0]
        for name, pick in (("current", case.current), ("as_of", case.as_of)):
            if pick is not None:
                answering[name].append(float(question @ facts[case.facts[pick.fact].text]))
    broad = [c for c in cases if c.split == BROAD]
    queries = generated_queries()
    best: dict[str, list[float]] = {"nonsense": [], "off-topic": []}
    vectors = _unit([embedder.embed_query(q) for _, q in queries])
    for n, ((kind, _), vector) in enumerate(zip(queries, vectors, strict=True)):
        for k in range(USERS_PER_QUERY):
            case = broad[(n * USERS_PER_QUERY + k) % len(broad)]
            best[kind].append(max(float(vector @ facts[f.text]) for f in case.facts))
    # Each update case's question asked of the next case's user, as memory_abstention asks
    # it: another person's facts (sometimes one does answer it, so not a false-hit rate).
    questioned = [c for c in broad if c.type != UNRELATED and c.question]
    for n, case in enumerate(questioned):
        other = questioned[(n + 1) % len(questioned)]
        vector = _unit([embedder.embed_query(case.question or "")])[0]
        best.setdefault("another's question", []).append(
            max(float(vector @ facts[f.text]) for f in other.facts)
        )
    print("| floor | " + " | ".join([*answering, *best]) + " |")
    print("|---|" + "---|" * (len(answering) + len(best)))
    for floor in FLOORS:
        cells = [
            f"{sum(v >= floor for v in values) / len(values):.1%}"
            for values in (*answering.values(), *best.values())
        ]
        print(f"| {floor:.3f} | " + " | ".join(cells) + " |")
    print(
        "answering facts: share of questions whose answering fact reaches the floor; "
        "nonsense/off-topic: share of recalls whose best fact does"
    )


if __name__ == "__main__":
    main()
