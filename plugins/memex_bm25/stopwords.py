"""The built-in English stopword list.

Words so common in English prose that matching them says almost nothing about
relevance. The list follows the widely used NLTK English list (function words,
pronouns, auxiliaries and their contractions split at the apostrophe, because
the tokenizer splits ``don't`` into ``don`` and ``t``).

Changing this list changes how documents are tokenized, so bump
``ENGLISH_VERSION`` with it: an index built with another version then asks for
``memex rebuild`` instead of silently mixing two tokenizations.
"""

from __future__ import annotations

ENGLISH_VERSION = 1

_ENGLISH_WORDS = """
    a about above after again against ain all am an and any are aren as at
    be because been before being below between both but by
    can couldn
    d did didn do does doesn doing don down during
    each
    few for from further
    had hadn has hasn have haven having he her here hers herself him himself his how
    i if in into is isn it its itself
    just
    ll
    m ma me mightn more most mustn my myself
    needn no nor not now
    o of off on once only or other our ours ourselves out over own
    re
    s same shan she should shouldn so some such
    t than that the their theirs them themselves then there these they this those
    through to too
    under until up
    ve very
    was wasn we were weren what when where which while who whom why will with won
    wouldn
    y you your yours yourself yourselves
"""

ENGLISH: frozenset[str] = frozenset(_ENGLISH_WORDS.split())
