"""Benchmark 4f on hand-made data (no data set, no model): token states kept per text with
the special tokens dropped, BM25's idf over wordpiece ids, late interaction (each question
token's best cosine, weighted), int8 sketches of projected token vectors, and a score's
rank within its pool."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest

from benchmarks import locomo_token_match as tm


def test_each_question_token_takes_its_best_turn_token_weighted() -> None:
    e = np.eye(3, dtype=np.float32)
    question = e[:2]  # two tokens
    turn = np.stack([e[0], (e[1] + e[2]) / math.sqrt(2)])
    score = tm.max_sim(question, np.array([0.5, 0.5]), turn)
    assert score == pytest.approx(0.5 * 1.0 + 0.5 / math.sqrt(2))
    # weights move the score toward the token that matches better
    assert tm.max_sim(question, np.array([0.9, 0.1]), turn) > score
    assert tm.max_sim(question, np.array([0.5, 0.5]), turn[:0]) == 0.0


def test_idf_is_bm25s_over_wordpiece_ids_and_weights_sum_to_one() -> None:
    idf = tm.idf_table([np.array([1, 2, 2]), np.array([1])])
    assert idf[1] == pytest.approx(math.log(1 + 0.5 / 2.5))  # in both documents
    assert idf[2] == pytest.approx(math.log(2))  # in one of two (counted once)
    assert idf[-1] == pytest.approx(math.log(6))  # an id no document holds
    w = tm.idf_weights(np.array([1, 2, 7]), idf)
    assert w.sum() == pytest.approx(1.0)
    assert w[2] > w[1] > w[0]  # unseen, rare, common
    assert tm.idf_weights(np.array([1, 2]), None).tolist() == [0.5, 0.5]


def test_a_sketch_is_the_projected_unit_vector_in_int8() -> None:
    projection = np.eye(4, dtype=np.float32)[:, :2]  # keep the first two dimensions
    s = tm.Sketcher("first two", projection)
    rows = np.array([[3.0, 4.0, 9.0, 9.0]], dtype=np.float32)
    sketch = s.sketch(rows)
    assert sketch.dtype == np.int8
    assert sketch.tolist() == [[76, 102]]  # (0.6, 0.8) x 127, rounded
    assert s.read(sketch) == pytest.approx(np.array([[0.6, 0.8]]), abs=0.005)
    assert s.query(rows) == pytest.approx(np.array([[0.6, 0.8]]))
    assert s.bytes_per_token(4) == 2
    whole = tm.Sketcher("whole", None)
    assert whole.read(whole.sketch(rows)) is rows
    assert whole.bytes_per_token(4) == 16


def test_principal_directions_follow_the_spread() -> None:
    rng = np.random.default_rng(1)
    rows = np.stack([rng.normal(0, 10, 200), rng.normal(0, 1, 200)], axis=1)
    first = tm.principal(rows, 1)[:, 0]
    assert abs(first[0]) > 0.99


def test_a_scores_rank_in_its_pool() -> None:
    assert tm.rank_column([0.2, 0.9, 0.5]) == pytest.approx([1 / 3, 1.0, 1 / 2])
    assert tm.rank_column([0.5, 0.5]) == pytest.approx([1.0, 1 / 2])  # ties by order


@dataclass
class _Encoded:
    ids: list[int]
    special_tokens_mask: list[int]


class _Tokenizer:
    def encode_batch(self, texts: list[str]) -> list[_Encoded]:
        # [CLS] word ids [SEP]: 101 and 102 as BERT's, each word's id its length
        return [
            _Encoded([101, *(len(w) for w in t.split()), 102], [1] + [0] * len(t.split()) + [1])
            for t in texts
        ]


class _Encoder:
    tokenizer = _Tokenizer()

    def _forward_stacked(self, tokens: np.ndarray, lengths: list[int]) -> np.ndarray:
        assert sum(lengths) == len(tokens)
        # a token's state: its id on the first axis, 1 on the second
        return np.stack([tokens.astype(np.float32), np.ones(len(tokens))], axis=1)


def test_token_states_drop_the_special_tokens_of_each_text() -> None:
    states = tm.token_states(_Encoder(), ["ab cde", "f"])
    assert [ids.tolist() for ids, _ in states] == [[2, 3], [1]]
    first = states[0][1]
    assert np.linalg.norm(first, axis=1) == pytest.approx([1.0, 1.0])
    assert first[0] == pytest.approx(np.array([2, 1]) / math.sqrt(5))
