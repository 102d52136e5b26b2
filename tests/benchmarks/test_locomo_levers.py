"""The LoCoMo lever study's machinery on a hand-made study (no data, no home): hybrid search
replayed on cached candidates as SearchService does it, leave-one-conversation-out picks
that never look at the held-out conversation, and the rerank fitted and applied."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks import locomo_fusion as lf
from benchmarks import locomo_rerank as lr
from benchmarks.locomo_candidates import Candidates, Study, Turn
from benchmarks.locomo_levers import Reranking, held_out

pytest.importorskip("sklearn")


def study() -> Study:
    turns, by_position, questions = {}, {}, []
    for conv in ("c1", "c2", "c3"):
        for n in range(6):
            fid = f"{conv}-{n}"
            turns[fid] = Turn(fid, f"D1:{n}", conv, n, "Anna" if n % 2 else "Ben", "x" * n, 1)
            by_position[(conv, n)] = fid
        for answer in (1, 3, 5):  # the answer: a long turn by Anna, which keyword ranks 2nd
            ids = [f"{conv}-{n}" for n in (0, answer, 2, 4)]
            questions.append(
                Candidates(
                    question="What did Anna say?",
                    conversation=conv,
                    category=4,
                    evidence=[f"D1:{answer}"],
                    keyword=[(i, 4.0 - r) for r, i in enumerate(ids)],
                    keyword_plain=[],
                    semantic=[(i, 0.5 - r / 10) for r, i in enumerate(ids)],
                    shares={i: 1.0 for i in ids},
                )
            )
    return Study(turns, by_position, questions, floor=None)


def test_the_replay_fuses_and_keeps_ten() -> None:
    s = study()
    assert lf.hybrid(s.questions[0], lf.Fusion(), None)[:2] == ["c1-0", "c1-1"]
    per_query = lf.score_all(s, lambda q: lf.hybrid(q, lf.Fusion(), None)[:1])
    assert lf.micro(per_query) == (0.0, 0.0)  # the answer is always second


def test_held_out_picks_on_the_other_conversations_only() -> None:
    s = study()
    good = [(1.0, 1.0)] * 9
    # Setting "b" is best on c1 and c2 but worst on c3: c3's pick must be made without c3.
    b = [(1.0, 1.0)] * 6 + [(0.0, 0.0)] * 3
    a = [(0.5, 0.5)] * 9
    chosen = held_out(s, {lf.Fusion(0.1): a, lf.Fusion(0.2): b})
    assert chosen[:6] == [(0.5, 0.5)] * 6  # c1 (c2): a 0.5 on both others against b 0.5
    assert chosen[6:] == [(0.0, 0.0)] * 3  # c3 picks b (1.0 on c1 and c2), then scores 0
    assert held_out(s, {lf.Fusion(): good}) == good


def test_the_rerank_learns_what_the_signals_miss() -> None:
    s = study()
    reranking = Reranking(s, lf.Fusion(), depth=4)
    assert [len(rows) for rows in reranking.rows] == [4] * 9
    at10, at5 = lf.micro(reranking.cross_validate())
    assert (at10, at5) == (1.0, 1.0)  # everything in the pool fits in ten
    first = [reranking.ranked(i, reranking.fit(range(9)))[0] for i in range(9)]
    answers = [f"{q.conversation}-{q.evidence[0][-1]}" for q in s.questions]
    assert first == answers  # Anna's long turn: speaker named, length


def test_rerank_levers_choose_their_settings_inside_the_training_folds() -> None:
    s = study()
    reranking = Reranking(s, lf.Fusion(), depth=4)
    pools = lr.Pools(s, reranking.pools, reranking.rows)
    per_query, picks = lr.held_out(
        pools, [(lr.logistic, 0.0), (lr.trees(5, 0.1, 3), 0.5)], ["logistic", "trees"]
    )
    assert lf.micro(per_query) == (1.0, 1.0)
    assert set(picks) == {"c1", "c2", "c3"} and set(picks.values()) <= {"logistic", "trees"}
    assert lf.micro(lr.held_out(pools.masked(set()), [(lr.logistic, 0.0)])[0]) == (1.0, 1.0)
    assert lr.pool_recall(s, reranking.pools) == 1.0
    assert lr.pool_recall(s, [p[:1] for p in reranking.pools]) == 0.0  # the answer is second
    assert lr.by_category(s, per_query) == {4: 1.0}


def test_a_diverse_top_ten_spreads_over_sessions() -> None:
    s = study()
    for n, fid in enumerate(f"c1-{i}" for i in range(6)):
        s.turns[fid].session = 1 + n // 3  # c1-0..2 in session 1, c1-3..5 in session 2
    reranking = Reranking(s, lf.Fusion(), depth=6)
    pools = lr.Pools(s, reranking.pools, reranking.rows)
    ids = [h.id for h in pools.pools[0]]
    scores = np.array([1.0 - n / 10 for n in range(len(ids))])
    assert pools.ranked(0, scores) == ids
    spread = pools.ranked(0, scores, diversity=1.0)
    sessions = [s.turns[i].session for i in spread[:2]]
    assert sorted(sessions) == [1, 2]
