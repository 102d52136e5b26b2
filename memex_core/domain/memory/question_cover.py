"""Whether a later fact holds a word of the question that an earlier one lacks (issue 30).

"Is Sam's contract permanent?": "Sam's on a 6 month contract", then "they made Sam
permanent!!". The later fact names what the question asks about and the earlier does not,
though MiniLM puts it further from the question. Recall's newer-first ordering
(:mod:`memex_core.services.newer_first`) lets such a later fact join an earlier one looser.
The same test serves a question asked of the later of two unrelated facts ("Who sings in
the band?": "Kez plays drums in the band", then "Ollie sings in the band"): the later one
leads, which is what was asked.

Words are compared by their first five letters ("permanent", "permanently"), leaving out
the words every question and fact has and the names the question holds (capitalised, not
first), "user" among them: a name says whom a fact is about, and facts name their subject
or not as it comes ("Where does Dana live?": "she's in Leeds", "Dana loves Manchester's
gigs"; "The user is allergic to walnuts", "Alice is allergic to sesame").
"""

from __future__ import annotations

import re

from memex_core.domain.memory.change_words import COMMON_WORDS

#: Words every question and fact has, and "user", which stands for the owner as a name does.
_COMMON = COMMON_WORDS | {"user", "users"}
_WORD = re.compile(r"[a-z][a-z0-9]+")
#: A capitalised word that does not open the question: a name.
_NAME = re.compile(r"(?<!^)\b[A-Z][a-z]+")
#: Letters a word is compared by.
STEM = 5


def _stems(text: str) -> set[str]:
    return {w[:STEM] for w in _WORD.findall(text.lower()) if len(w) > 2 and w not in _COMMON}


def adds_asked_word(question: str, earlier: str, later: str) -> bool:
    """Whether ``later`` holds a word of ``question`` that ``earlier`` does not, names
    left out."""
    return bool((_asked(question) & _stems(later)) - _stems(earlier))


def drops_asked_word(question: str, earlier: str, later: str) -> bool:
    """Whether ``earlier`` holds a word of ``question`` that ``later`` does not, ``later``
    none that ``earlier`` does not, yet ``later`` holds one of the question's words: by the
    question's words the two are the same kind of thing told apart by a word ("What is the
    frontend written in?": "The frontend is written in TypeScript", "The backend is written
    in Go"). A later fact that holds no word of the question names a new value only ("What
    phone do I have?": "phone: Pixel 6a", "got the iPhone 15 yesterday")."""
    asked = _asked(question)
    held = asked & _stems(later)
    return bool(held) and bool(asked & _stems(earlier) - held) and not held - _stems(earlier)


def _asked(question: str) -> set[str]:
    """The stems of ``question``'s words, its names left out."""
    asked = question.strip()
    return _stems(asked) - {name.lower()[:STEM] for name in _NAME.findall(asked)}


__all__ = ["STEM", "adds_asked_word", "drops_asked_word"]
