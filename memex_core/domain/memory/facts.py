"""Fact types and the text rules that compare facts without a model.

``DEFAULT_FACT_TYPES`` are mem0's seven categories under short names. The
comparison helpers (:func:`normalise_fact`, :func:`fact_tokens`,
:func:`text_similarity`) are what the rules consolidator uses, and what memex
falls back on when no embedder is available. They are for *comparing* facts;
a memory is always stored with the text it was given.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter

from memex_core.domain.contracts import FactType
from memex_core.errors import MemexError

#: What a fact type's name must look like (it ends up in config files and JSON).
FACT_TYPE_NAME = re.compile(r"[a-z][a-z0-9_]*")

#: The catch-all type extractors fall back on.
MISC = "misc"

#: The longest fact ``remember`` stores (characters of the text as given): a fact is a
#: sentence or a paragraph, about a page at most. A longer text is a document, for
#: ``memex ingest`` (or a conversation, whose facts the extractor draws out); stored as
#: one memory it would come back whole in every pack that reaches it.
MAX_FACT_CHARS = 4000


class FactTooLongError(MemexError, ValueError):
    """A fact over :data:`MAX_FACT_CHARS`: the message names the limit and what to do."""

    def __init__(self, length: int) -> None:
        self.length = length
        super().__init__(
            f"The fact is {length:,} characters; a remembered fact holds at most "
            f"{MAX_FACT_CHARS:,} (a sentence or a paragraph). Store a document with "
            "`memex ingest` (or remember it as a conversation, whose facts are extracted), "
            "or split it into shorter facts."
        )


def check_fact_length(text: str) -> None:
    """Raise :class:`FactTooLongError` if ``text`` is too long for one fact."""
    if len(text) > MAX_FACT_CHARS:
        raise FactTooLongError(len(text))


DEFAULT_FACT_TYPES: tuple[FactType, ...] = (
    FactType(
        "preference",
        "Personal preferences: likes, dislikes and specific preferences about food, "
        "products, activities and entertainment.",
        ("User prefers tea over coffee", "User does not like horror films"),
    ),
    FactType(
        "personal_detail",
        "Important personal details: names, relationships, where the user lives and "
        "important dates.",
        ("User's name is Dana", "User lives in Lyon", "User has two daughters"),
    ),
    FactType(
        "plan",
        "Plans and intentions: upcoming events, trips, goals and plans the user has shared.",
        ("User plans to move to Berlin next year", "User is going to Japan in April"),
    ),
    FactType(
        "activity_preference",
        "Activity and service preferences: dining, travel, hobbies and other services.",
        ("User likes hiking in the Alps", "User prefers window seats on flights"),
    ),
    FactType(
        "health",
        "Health and wellness: dietary restrictions, allergies, fitness routines and "
        "other wellness information.",
        ("User is allergic to peanuts", "User is vegetarian", "User runs every morning"),
    ),
    FactType(
        "professional",
        "Professional details: job titles, employer, work habits, career goals and "
        "other professional information.",
        ("User works as a data engineer at Acme", "User's team uses Python 3.12"),
    ),
    FactType(
        MISC,
        "Miscellaneous: favourite books, movies, brands and other details the user "
        "shares that fit no other type.",
        ("User's favourite book is Dune",),
    ),
)

# Apostrophes are deleted (don't -> dont, user's -> users) rather than turned
# into spaces, so a contraction stays one token and a possessive never looks
# like the bare subject "user".
_APOSTROPHES = str.maketrans("", "", "'\u2018\u2019\u02bc\u0060\u00b4")
# Leading subject noise: "the user likes", "user likes", "I like". Only a whole
# first word followed by more words is dropped, so "user" alone or "users ..."
# stay as they are.
_SUBJECT = re.compile(r"^(?:the user|user|i) (?=\S)")


def normalise_fact(text: str) -> str:
    """A comparison key for a fact: equal keys mean "the same fact, written differently".

    Steps: Unicode NFKC and casefold (full-width letters, ligatures, case);
    apostrophes deleted; every other punctuation or symbol character becomes a
    space; whitespace collapsed; then one leading subject, ``the user``,
    ``user`` or ``i``, is dropped, so "The user likes tea." and "User likes
    tea" compare equal. Nothing else is rewritten: "I like tea" and "User
    likes tea" differ (``like`` / ``likes``); :func:`text_similarity` covers that.
    """
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    folded = folded.translate(_APOSTROPHES)
    spaced = "".join(
        " " if unicodedata.category(ch)[0] in "PSZC" and not ch.isspace() else ch for ch in folded
    )
    collapsed = " ".join(spaced.split())
    return _SUBJECT.sub("", collapsed, count=1)


def stem_s(word: str) -> str:
    """Strip a plural or third-person ``s`` (berries -> berry, likes -> like, glass stays)."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def fact_tokens(text: str) -> list[str]:
    """The word tokens facts are compared by: :func:`normalise_fact`'s words, lightly stemmed."""
    return [stem_s(word) for word in normalise_fact(text).split()]


def text_similarity(a: str, b: str) -> float:
    """Cosine similarity in [0, 1] of two facts' bags of :func:`fact_tokens`.

    Used in place of embeddings when no embedder is available, and by the rules
    consolidator as a second opinion. Two empty texts are 0.0, not similar.
    """
    left, right = Counter(fact_tokens(a)), Counter(fact_tokens(b))
    if not left or not right:
        return 0.0
    dot = sum(count * right[token] for token, count in left.items())
    norm = math.sqrt(sum(c * c for c in left.values())) * math.sqrt(
        sum(c * c for c in right.values())
    )
    return dot / norm
