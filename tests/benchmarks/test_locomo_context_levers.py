"""Levers 3 and 4 of the LoCoMo study on hand-made data (no data set, no home): session
dates read from the file, turns as windows and dated texts, a third fused signal, and
time phrases as a filter (with memex's fallback) or a date-distance boost."""

from __future__ import annotations

import json
from datetime import date, datetime
from pathlib import Path

from benchmarks import locomo_fusion as lf
from benchmarks import locomo_time as lt
from benchmarks import locomo_units as lu
from benchmarks.locomo_candidates import Candidates, Study, Turn
from benchmarks.locomo_dated import Dated, load_dated, parse_when
from memex_core.query_time_phrases import TimePhrase, extract_time_phrase
from tests.support._data import shared_data_dir

NOW = datetime(2023, 7, 30, 12)


def study() -> Study:
    turns, by_position = {}, {}
    for n in range(4):
        fid = f"c1-{n}"
        turns[fid] = Turn(
            fid, f"D{n + 1}:1", "c1", n, "Anna" if n % 2 else "Ben", f"text {n}", n + 1
        )
        by_position[("c1", n)] = fid
    ids = list(turns)
    question = Candidates(
        question="What did Anna do in June?",
        conversation="c1",
        category=4,
        evidence=["D2:1"],
        keyword=[(i, 4.0 - r) for r, i in enumerate(ids)],
        keyword_plain=[],
        semantic=[(i, 0.5 - r / 10) for r, i in enumerate(ids)],
        shares={i: 1.0 for i in ids},
    )
    return Study(turns, by_position, [question], floor=None)


def dated() -> Dated:
    days = {1: datetime(2023, 5, 8, 13), 2: datetime(2023, 6, 9, 19), 3: datetime(2023, 7, 1, 9)}
    days[4] = datetime(2023, 7, 20, 10)
    return Dated(
        {("c1", n): d for n, d in days.items()},
        {"c1": ("Ben", "Anna")},
        {("c1", "D2:1"): "a photo of a tent"},
    )


def test_session_dates_speakers_and_captions_are_read_from_the_file(tmp_path: Path) -> None:
    sample = {
        "sample_id": "conv-1",
        "conversation": {
            "speaker_a": "Ben",
            "speaker_b": "Anna",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Ben", "dia_id": "D1:1", "text": "hi"},
                {"speaker": "Anna", "dia_id": "D1:2", "text": "look", "blip_caption": "a dog"},
            ],
            "session_2_date_time": "10:00 am on 9 June, 2023",
        },
        "qa": [],
    }
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([sample]))
    found = load_dated(path)
    assert found.sessions[("conv-1", 1)] == datetime(2023, 5, 8, 13, 56)
    assert found.speakers["conv-1"] == ("Ben", "Anna")
    assert found.captions == {("conv-1", "D1:2"): "a dog"}
    # a question is asked after the last session that holds turns (session 2 has none)
    assert found.anchor("conv-1", {("conv-1", 1)}) == datetime(2023, 5, 8, 12)
    assert parse_when("7:55  pm on 9 June, 2023") == datetime(2023, 6, 9, 19, 55)


def test_a_turn_as_a_window_with_its_date_or_with_its_caption() -> None:
    s, d = study(), dated()
    assert lu.window_text(s, "c1-0") == "Ben: text 0\nAnna: text 1"
    assert lu.window_text(s, "c1-3") is None  # the conversation's last turn
    assert lu.dated_text(s, d, "c1-1") == "Anna, 9 June 2023: text 1"
    assert lu.captioned_text(s, d, "c1-1") == "Anna: text 1 [photo: a photo of a tent]"
    assert lu.captioned_text(s, d, "c1-2") == "Ben: text 2"


def test_a_third_signal_with_no_weight_changes_nothing_and_with_weight_lifts_its_pick() -> None:
    s = study()
    q = s.questions[0]
    plain = lf.hybrid(q, lf.Fusion(), None)
    assert lu.three_way(q, [("c1-3", 0.9)], 0.0, None) == plain
    lifted = lu.three_way(q, [("c1-3", 0.9)], 1.0, None)
    assert lifted.index("c1-3") < plain.index("c1-3")


def test_distance_counts_days_outside_the_period_and_before_it_weighs_more() -> None:
    phrase = extract_time_phrase("camping in June", now=NOW)
    assert phrase is not None
    assert lt.distance(phrase, date(2023, 6, 15), 3.0) == 0.0
    assert lt.distance(phrase, date(2023, 7, 3), 3.0) == 3.0
    assert lt.distance(phrase, date(2023, 5, 29), 3.0) == 9.0
    assert lt.in_period(phrase, date(2023, 6, 30))
    assert not lt.in_period(phrase, date(2023, 7, 1))


def test_the_boost_moves_turns_near_the_period_up_and_keeps_order_without_weight() -> None:
    ranked = ["a", "b", "c"]
    assert lt.boosted(ranked, [5.0, 5.0, 0.0], 0.0) == ranked
    assert lt.boosted(ranked, [5.0, 5.0, 0.0], 2.0)[0] == "c"
    assert lt.boosted(ranked, [0.0, 0.0, 0.0], 2.0) == ranked  # ties share a rank


def time_study(question: str) -> lt.TimeStudy:
    s, d = study(), dated()
    s.questions[0].question = question
    days = {fid: d.day(t.conversation, t.session) for fid, t in s.turns.items()}
    phrases: dict[str, dict[int, TimePhrase]] = {"today": {}, "last session": {}}
    phrase = extract_time_phrase(question, now=NOW)
    assert phrase is not None
    phrases["last session"][0] = phrase
    everything = lt.Deep(s.questions[0].keyword, s.questions[0].semantic, s.questions[0].shares)
    deep = {question: everything, phrase.query: everything}
    return lt.TimeStudy(s, d, days, phrases, deep)


def test_the_filter_keeps_the_period_and_falls_back_when_it_holds_nothing() -> None:
    in_june = lt.Replay(time_study("What did Anna do in June?"))
    per_query, fell_back = in_june.filtered("last session")
    assert (fell_back, per_query[0][0]) == (0, 1.0)
    june_words = in_june.ts.phrases["last session"][0].query
    assert lt.pool(in_june.ts.deep[june_words], None, {"c1-1"}) == ["c1-1"]
    in_march = lt.Replay(time_study("What did Anna do in March?"))  # no session in March
    per_query, fell_back = in_march.filtered("last session")
    assert (fell_back, per_query[0][0]) == (1, 1.0)


def test_the_dev_conversations_dated_keep_their_ids_and_gain_date_speakers_and_captions() -> None:
    shared_data_dir("locomo")  # skips when the shared data is absent
    found = load_dated()
    plain = lu.dated_fragments(found)
    both = lu.dated_fragments(found, captions=True, title="both")
    assert [f.id for f in plain] == [f.id for f in both]
    first = both[0]  # conv-26, session 1: "1:56 pm on 8 May, 2023", Caroline and Melanie
    assert first.title == "conv-26 session 1, 8 May 2023, Caroline and Melanie"
    captioned = [f for f, p in zip(both, plain, strict=True) if f.content != p.content]
    assert captioned and all("[photo: " in f.content for f in captioned)
    assert all(f.timestamp is None for f in both)  # dates reach only the title here
