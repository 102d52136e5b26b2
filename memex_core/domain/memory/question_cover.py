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

_COMMON_TEXT = """the and for with from this that these those are was were been has have had
not now new just our your their his her its who what which where when how why does did all
any out off over one two some more most very still also into onto than then them they you
she him get got use used using user users"""
_COMMON = frozenset(_COMMON_TEXT.split())
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
    asked = question.strip()
    names = {name.lower()[:STEM] for name in _NAME.findall(asked)}
    return bool(((_stems(asked) - names) & _stems(later)) - _stems(earlier))


__all__ = ["STEM", "adds_asked_word"]
