"""Benchmark material as memex fragments, built with the same helper every source uses.

``message_fragments`` splits text longer than ``max_chars`` (2,000 by default) into
linked chunks. SciFact is scored per document, so :func:`scifact_fragments` can keep
each abstract whole (``whole=True``: one fragment per document, as BEIR and the
reference figures index it) or chunk it as ingest would (``whole=False``); either
way ``provenance.source_id`` is the document id, so chunk hits map back to it.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from benchmarks.data import BeirDoc, LocomoSet
from memex_core.domain import Fragment
from memex_core.domain.chunking import DEFAULT_MAX_CHARS, message_fragments

SCIFACT_KIND = "beir-scifact"
LOCOMO_KIND = "locomo"
#: Longer than any SciFact abstract (the longest title + text is about 10,100 characters).
NO_SPLIT = 1_000_000


def scifact_fragments(docs: list[BeirDoc], *, whole: bool = True) -> Iterator[Fragment]:
    for doc in docs:
        yield from message_fragments(
            source_kind=SCIFACT_KIND,
            source_path="beir/scifact/corpus.jsonl",
            conversation_id=f"scifact-{doc.doc_id}",
            message_id=doc.doc_id,
            role="user",
            text=doc.content,
            timestamp=None,
            title=doc.title or None,
            max_chars=NO_SPLIT if whole else DEFAULT_MAX_CHARS,
        )


def locomo_fragments(locomo: LocomoSet) -> Iterator[Fragment]:
    """One fragment per turn, content ``"speaker: text"``, conversation id = LoCoMo sample id."""
    for turn in locomo.turns:
        yield from message_fragments(
            source_kind=LOCOMO_KIND,
            source_path="locomo/locomo_dev.json",
            conversation_id=turn.conversation_id,
            message_id=turn.dia_id,
            role=turn.role,
            text=turn.content,
            timestamp=None,
            title=f"{turn.conversation_id} session {turn.session}",
        )


def passage_corpus(
    docs: list[BeirDoc], locomo: LocomoSet | None, size: int, seed: int = 0
) -> list[Fragment]:
    """``size`` realistic passages: windows of 1-3 consecutive SciFact sentences or LoCoMo turns.

    Every window of each width over each abstract (and each LoCoMo session) is a
    candidate; ``size`` of them are drawn with a fixed seed. Overlapping windows
    repeat real text with variation, so term statistics stay natural-language-like.
    If the candidates run short they are reused with a numbered locator (new ids).
    """
    units: list[tuple[str, str, list[str]]] = [
        (SCIFACT_KIND, f"scifact-{doc.doc_id}", doc.sentences()) for doc in docs
    ]
    if locomo is not None:
        for (conv_id, session), turns in sorted(locomo.sessions().items()):
            units.append((LOCOMO_KIND, f"{conv_id}-s{session}", [t.content for t in turns]))
    candidates = [
        (kind, conv, start, width)
        for kind, conv, parts in units
        for width in (1, 2, 3)
        for start in range(len(parts) - width + 1)
    ]
    texts = {conv: parts for _, conv, parts in units}
    rng = random.Random(seed)
    rng.shuffle(candidates)
    out: list[Fragment] = []
    round_no = 0
    while len(out) < size and candidates:
        for kind, conv, start, width in candidates[: size - len(out)]:
            text = " ".join(texts[conv][start : start + width])
            message = f"p{start}w{width}" + (f"r{round_no}" if round_no else "")
            out.extend(
                message_fragments(
                    source_kind=kind,
                    source_path="bench",
                    conversation_id=conv,
                    message_id=message,
                    role="user",
                    text=text,
                    timestamp=None,
                    title=None,
                    max_chars=NO_SPLIT,
                )
            )
        round_no += 1
    return out[:size]
