"""Reading the shared benchmark material (SciFact in BEIR layout, LoCoMo) into plain records.

The material lives outside the repository (``MEMEX_TEST_DATA``, default
``<repo>/../shared/data``) and is never copied in. Loaders return ``None``-free
records; callers check :func:`missing` first and skip with its message.
"""

from __future__ import annotations

import csv
import json
import os
import re
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]

#: SciFact abstracts are sentences joined with single spaces; split them back for passages.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9(\[])")


def data_root() -> Path:
    configured = os.environ.get("MEMEX_TEST_DATA")
    return Path(configured) if configured else REPO_ROOT.parent / "shared" / "data"


def scifact_dir() -> Path:
    return data_root() / "beir" / "scifact"


def locomo_file() -> Path:
    return data_root() / "locomo" / "locomo_dev.json"


def missing(*paths: Path) -> str | None:
    """Why the data is unavailable (the first absent path), or None when all are present."""
    for path in paths:
        if not path.exists():
            return f"data not found at {path} (set MEMEX_TEST_DATA to the shared/data folder)"
    return None


# -- SciFact ---------------------------------------------------------------------------


@dataclass(frozen=True)
class BeirDoc:
    doc_id: str
    title: str
    text: str

    @property
    def content(self) -> str:
        return f"{self.title} {self.text}".strip()

    def sentences(self) -> list[str]:
        return [s for s in _SENTENCE_END.split(self.text) if s.strip()]


@dataclass
class BeirSet:
    docs: list[BeirDoc]
    queries: dict[str, str]  # every query id -> text
    qrels: dict[str, dict[str, float]]  # test query id -> {doc id: grade}

    def test_queries(self) -> list[tuple[str, str]]:
        return [(qid, self.queries[qid]) for qid in self.qrels if qid in self.queries]


def load_scifact(folder: Path | None = None, split: str = "test") -> BeirSet:
    """Corpus, queries and the qrels of ``split`` (``test``: 300 queries; ``train``: 809)."""
    folder = folder or scifact_dir()
    docs = []
    with (folder / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                docs.append(BeirDoc(str(row["_id"]), row.get("title") or "", row.get("text") or ""))
    queries = {}
    with (folder / "queries.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            if line.strip():
                row = json.loads(line)
                queries[str(row["_id"])] = row["text"]
    qrels: dict[str, dict[str, float]] = defaultdict(dict)
    with (folder / "qrels" / f"{split}.tsv").open(encoding="utf-8", newline="") as handle:
        reader = csv.reader(handle, delimiter="\t")
        next(reader)  # header: query-id corpus-id score
        for query_id, doc_id, score in reader:
            qrels[query_id][doc_id] = float(score)
    return BeirSet(docs, queries, dict(qrels))


# -- LoCoMo ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Turn:
    conversation_id: str
    dia_id: str
    speaker: str
    text: str
    session: int
    role: str  # speaker_a -> "user", speaker_b -> "assistant" (memex roles; not used by metrics)

    @property
    def content(self) -> str:
        return f"{self.speaker}: {self.text}"


@dataclass(frozen=True)
class Question:
    conversation_id: str
    question: str
    category: int
    evidence: tuple[str, ...]  # valid dia_ids only


@dataclass
class LocomoSet:
    turns: list[Turn]
    questions: list[Question]
    skipped_category5: int = 0
    malformed_ids: list[str] = field(default_factory=list)
    skipped_no_evidence: int = 0

    def sessions(self) -> dict[tuple[str, int], list[Turn]]:
        grouped: dict[tuple[str, int], list[Turn]] = defaultdict(list)
        for turn in self.turns:
            grouped[(turn.conversation_id, turn.session)].append(turn)
        return dict(grouped)


_SESSION_KEY = re.compile(r"^session_(\d+)$")


def load_locomo(path: Path | None = None) -> LocomoSet:
    """Turns and questions; drops category 5 and evidence ids naming no turn of the conversation.

    A question left with no valid evidence is skipped (counted in ``skipped_no_evidence``).
    """
    samples = json.loads((path or locomo_file()).read_text(encoding="utf-8"))
    out = LocomoSet([], [])
    for sample in samples:
        conv_id = sample["sample_id"]
        conversation = sample["conversation"]
        roles = {conversation["speaker_a"]: "user", conversation["speaker_b"]: "assistant"}
        known: set[str] = set()
        for key, value in conversation.items():
            match = _SESSION_KEY.match(key)
            if not match or not isinstance(value, list):
                continue
            for turn in value:
                known.add(turn["dia_id"])
                out.turns.append(
                    Turn(
                        conv_id,
                        turn["dia_id"],
                        turn["speaker"],
                        turn["text"],
                        int(match.group(1)),
                        roles.get(turn["speaker"], "user"),
                    )
                )
        for item in sample["qa"]:
            if item.get("category") == 5:
                out.skipped_category5 += 1
                continue
            evidence = []
            for dia_id in item.get("evidence", []):
                if dia_id in known:
                    evidence.append(dia_id)
                else:
                    out.malformed_ids.append(dia_id)
            if not evidence:
                out.skipped_no_evidence += 1
                continue
            out.questions.append(
                Question(conv_id, item["question"], int(item["category"]), tuple(evidence))
            )
    return out
