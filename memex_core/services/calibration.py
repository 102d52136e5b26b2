"""Calibrating the relevance floor for an embedder (``[search] min_semantic_similarity =
"auto"``).

The floor is the cosine similarity above which a candidate found by meaning alone is
believed. It differs per embedder (MiniLM puts unrelated sentences at 0.0-0.3, other
models elsewhere), so it is measured, not written down: the embedder embeds texts that
ship with memex, and the floor is the highest similarity any *unrelated* pair reaches:

- the **reference** texts stand for what a memory holds: chat turns of every length,
  from "B" and "Solve it" (which every nonsense query lands near) to requests about
  code, cooking, travel, health, money, work and school;
- the **probes** are queries that none of them answers: strings of random letters
  (from a fixed seed) and questions about topics the references never touch
  (astronomy, medieval history, marine biology, geology, opera, ...).

No benchmark question is used: the benchmark generates its own nonsense with another
seed and asks about other topics (docs/benchmarks-relevance-floor.md). The result is
deterministic for a given embedder build (same texts, same seed, no sampling), recorded
in the catalog with the embedder's signature, computed once and reused until the vector
index is rebuilt or another embedder builds it.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from memex_core.domain import Embedder

#: Catalog setting holding the calibrated floor (JSON: embedder, method, value...).
FLOOR_SETTING = "relevance_floor"
#: Bumped when the texts or the rule change: a floor recorded by another method is redone.
METHOD = "unrelated-max-v1"
#: Added to the highest unrelated similarity: a memory holds thousands of texts, so its
#: nearest unrelated neighbour sits a little higher than the nearest of these 72.
MARGIN = 0.02
SEED = "memex relevance floor calibration v1"

REFERENCE_TEXTS: tuple[str, ...] = (
    "A",
    "B",
    "C",
    "ok",
    "yes",
    "no",
    "thanks!",
    "Solve it",
    "continue",
    "go on",
    "What do you mean?",
    "Can you explain that again?",
    "Sure, here is the updated version.",
    "That works, thank you.",
    "Let me know if you have any other questions.",
    "I'm not sure I understand the question.",
    "Could you make it shorter?",
    "Please rewrite this in a more formal tone.",
    "Fix the bug in this function.",
    "Why does my Python script raise a KeyError?",
    "How do I undo the last git commit?",
    "Write a SQL query that counts orders per customer.",
    "The build fails with a missing dependency error.",
    "Add type hints to this class and a docstring.",
    "def add(a, b):\n    return a + b",
    "TypeError: 'NoneType' object is not subscriptable",
    "npm install fails behind the company proxy",
    "How should I structure a REST API for a todo app?",
    "Explain the difference between a list and a tuple.",
    "My docker container exits immediately after starting.",
    "What can I cook with rice, eggs and spinach?",
    "How long should I bake a chicken breast at 200 degrees?",
    "Give me a vegetarian lasagna recipe for six people.",
    "Plan a three-day trip to Lisbon on a budget.",
    "Which documents do I need to renew my passport?",
    "Is it cheaper to take the train or fly to Berlin?",
    "How many hours of sleep does an adult need?",
    "I have a headache and a sore throat since yesterday.",
    "Suggest a beginner running plan for a 5k race.",
    "How much should I save each month for retirement?",
    "Explain how a mortgage interest rate works.",
    "Help me draft an email asking my manager for a raise.",
    "Summarise the meeting notes into three action items.",
    "Write a cover letter for a junior data analyst job.",
    "How do I prepare for a job interview at a startup?",
    "Explain photosynthesis to a ten-year-old.",
    "Help me with my calculus homework on derivatives.",
    "What is the best way to learn Spanish vocabulary?",
    "Recommend a few novels similar to The Great Gatsby.",
    "My cat keeps scratching the sofa, what can I do?",
    "We went to the beach with the kids last weekend.",
    "I just adopted a puppy and she is adorable.",
    "My sister's wedding is next month and I am nervous.",
    "I started painting again, mostly landscapes.",
    "The team meeting moved to Thursday afternoon.",
    "Remind me to call the dentist tomorrow.",
    "Translate 'good morning' into French.",
    "Generate ten names for a coffee shop.",
    "What is a good birthday present for my dad?",
    "Compare the pros and cons of electric cars.",
)

#: Questions on topics the reference texts never touch (and the benchmark does not ask).
OFF_TOPIC_PROBES: tuple[str, ...] = (
    "How far is the Andromeda galaxy from the Milky Way?",
    "Which comet returns to the inner solar system every 76 years?",
    "What causes the rings of Saturn to stay so thin?",
    "Who won the Battle of Hastings in 1066?",
    "Why did the Byzantine Empire fall to the Ottomans?",
    "What did medieval monks copy in their scriptoria?",
    "How do octopuses change the colour of their skin?",
    "Where do humpback whales migrate in winter?",
    "How deep can an emperor penguin dive?",
    "How are basalt columns formed from cooling lava?",
    "What makes a geode hollow inside?",
    "Which tectonic plates meet at the San Andreas fault?",
    "Who composed the opera La Traviata?",
    "What is the range of a countertenor voice?",
    "How many strings does a concert harp have?",
    "What is the rule for castling in chess?",
    "Which knot do sailors use to tie a bowline?",
    "How are Japanese swords folded by a swordsmith?",
    "What is the half-life of carbon-14?",
    "How do bees communicate with the waggle dance?",
)

_CONSONANTS = "bcdfghjklmnpqrstvwxz"
_VOWELS = "aeiouy"


def nonsense_probes(count: int = 40, seed: str = SEED) -> list[str]:
    """``count`` strings of one to three random "words" of 3-8 letters, mostly
    consonants, from a fixed seed: queries no text can answer."""
    rng = random.Random(seed)
    probes: list[str] = []
    for _ in range(count):
        words = []
        for _ in range(rng.randint(1, 3)):
            letters = [
                rng.choice(_VOWELS if rng.random() < 0.2 else _CONSONANTS)
                for _ in range(rng.randint(3, 8))
            ]
            words.append("".join(letters))
        probes.append(" ".join(words))
    return probes


def _unit(vector: Iterable[float]) -> list[float]:
    values = [float(x) for x in vector]
    norm = math.sqrt(sum(x * x for x in values)) or 1.0
    return [x / norm for x in values]


def _cosine(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


@dataclass(frozen=True)
class Calibration:
    """A floor measured for one embedder, as recorded in the catalog."""

    embedder: str  # its signature, "name:dimension"
    value: float
    method: str = METHOD
    highest_unrelated: float = 0.0
    pairs: int = 0

    def to_json(self) -> str:
        return json.dumps(
            {
                "embedder": self.embedder,
                "value": self.value,
                "method": self.method,
                "highest_unrelated": self.highest_unrelated,
                "pairs": self.pairs,
            },
            sort_keys=True,
        )

    @classmethod
    def from_json(cls, text: str | None) -> Calibration | None:
        """The recorded calibration, or None when there is none or it cannot be read
        (then it is measured again)."""
        if not text:
            return None
        try:
            raw = json.loads(text)
            return cls(
                embedder=str(raw["embedder"]),
                value=float(raw["value"]),
                method=str(raw["method"]),
                highest_unrelated=float(raw.get("highest_unrelated", 0.0)),
                pairs=int(raw.get("pairs", 0)),
            )
        except (ValueError, KeyError, TypeError):
            return None


def calibrate(embedder: Embedder, signature: str) -> Calibration:
    """Measure the floor for ``embedder``: the highest cosine similarity between a probe
    and a reference text, plus :data:`MARGIN`, rounded up to 0.001. Deterministic."""
    probes = [*nonsense_probes(), *OFF_TOPIC_PROBES]
    references = [_unit(v) for v in embedder.embed_documents(list(REFERENCE_TEXTS))]
    queries = [_unit(embedder.embed_query(p)) for p in probes]
    highest = max(_cosine(q, r) for q in queries for r in references)
    value = min(1.0, math.ceil((highest + MARGIN) * 1000) / 1000)
    return Calibration(
        embedder=signature,
        value=value,
        highest_unrelated=round(highest, 4),
        pairs=len(probes) * len(references),
    )


__all__ = [
    "FLOOR_SETTING",
    "METHOD",
    "OFF_TOPIC_PROBES",
    "REFERENCE_TEXTS",
    "Calibration",
    "calibrate",
    "nonsense_probes",
]
