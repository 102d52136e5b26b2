"""Documents added to the keyword index since its last segment was built, kept flat."""

from __future__ import annotations

import math
from array import array
from collections.abc import Mapping
from typing import Any

import numpy as np

from memex_bm25.segment import DocColumns, Segment

#: Filter columns kept as string-table codes, each named after what it encodes.
TABLES = ("source", "role", "conversation", "owner", "collection")


class PendingDocs:
    """Documents added since the last segment build, kept flat and compact."""

    def __init__(self) -> None:
        self.tokens = array("q")
        self.doc_len: list[int] = []
        self.ids: list[str] = []
        self.codes: dict[str, list[int]] = {name: [] for name in TABLES}
        self.timestamp: list[float] = []
        self.timed: list[bool] = []
        self.private: list[bool] = []

    def __len__(self) -> int:
        return len(self.doc_len)

    def append(
        self,
        fragment_id: str,
        terms: list[int],
        codes: Mapping[str, int],
        ts: Any,
        private: bool,
    ) -> None:
        self.tokens.extend(terms)
        self.doc_len.append(len(terms))
        self.ids.append(fragment_id)
        for name in TABLES:
            self.codes[name].append(codes[name])
        self.timed.append(ts is not None)
        self.timestamp.append(float(ts) if ts is not None else math.nan)
        self.private.append(private)

    def to_segment(self, n_terms: int) -> Segment:
        doc_len = np.array(self.doc_len, dtype=np.int64)
        encoded = [value.encode("utf-8", "surrogatepass") for value in self.ids]
        width = max((len(value) for value in encoded), default=1) or 1
        docs = DocColumns(
            doc_len=doc_len.astype(np.int32),
            ids=np.array(encoded, dtype=f"S{width}"),
            source=np.array(self.codes["source"], dtype=np.int32),
            role=np.array(self.codes["role"], dtype=np.int32),
            conversation=np.array(self.codes["conversation"], dtype=np.int32),
            timestamp=np.array(self.timestamp, dtype=np.float64),
            timed=np.array(self.timed, dtype=bool),
            owner=np.array(self.codes["owner"], dtype=np.int32),
            collection=np.array(self.codes["collection"], dtype=np.int32),
            private=np.array(self.private, dtype=bool),
        )
        tokens = np.array(self.tokens, dtype=np.int64)
        return Segment.build(tokens, doc_len, docs, n_terms)
