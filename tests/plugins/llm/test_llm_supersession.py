"""The ``llm`` supersession judge: the rules first, a scripted chat model for what they leave."""

from __future__ import annotations

import json
import logging
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from memex_core.domain import PluginContext
from memex_core.domain.memory.validity import EndingJudge, SupersessionJudge, TimedFact
from memex_llm import (
    LLMSettingError,
    LLMSupersessionJudge,
    build_supersession_judge,
    register_supersession_judges,
)
from memex_llm.supersession_prompt import parse_closings, user_prompt
from memex_rules.supersession import RulesSupersessionJudge
from tests.support.registrations import registered
from tests.support.scripted_chat import ScriptedChatModel, texts

RULES = RulesSupersessionJudge()
SAID = datetime(2026, 3, 10, 12, tzinfo=UTC).timestamp()
LATER = SAID + 10 * 86400
#: Facts about Alice the rules cannot read: they go to the model.
BEES = TimedFact("bees", "Alice keeps bees on the roof", SAID, SAID)
HIVES = TimedFact(None, "Alice gave her hives to a neighbour", LATER, LATER)


def _judge(*replies: str, **options: Any) -> tuple[LLMSupersessionJudge, ScriptedChatModel]:
    model = ScriptedChatModel(replies=list(replies))
    return LLMSupersessionJudge(model, RULES, **options), model


def _reply(closes: list[int], reason: str = "she gave the bees away") -> str:
    return json.dumps({"closes": closes, "reason": reason})


def test_the_judge_keeps_the_contract() -> None:
    judge, _model = _judge()
    assert isinstance(judge, SupersessionJudge)


def test_what_the_rules_decide_costs_no_model_call() -> None:
    judge, model = _judge()  # a call would fail: nothing is scripted
    paris = TimedFact("paris", "Alice lives in Paris", SAID, SAID)
    museums = TimedFact("museums", "Alice likes Berlin's museums", SAID, SAID)
    moved = TimedFact(None, "Alice moved to Berlin", LATER, LATER)
    closed = judge.supersedes(moved, [paris, museums])
    assert [c.memory_id for c in closed] == ["paris"]
    assert model.calls == []


def test_valid_from_is_read_by_the_rules() -> None:
    judge, model = _judge()
    assert judge.valid_from("Alice lived in Rome in 2019", SAID) == RULES.valid_from(
        "Alice lived in Rome in 2019", SAID
    )
    assert model.calls == []


def test_valid_until_is_read_by_the_rules() -> None:
    judge, model = _judge()
    assert isinstance(judge, EndingJudge)
    assert (
        judge.valid_until("Back in 2020 prod was still on Heroku", SAID)
        == datetime(2021, 1, 1, tzinfo=UTC).timestamp()
    )
    assert judge.valid_until("Prod runs on GCP", SAID) is None
    assert model.calls == []


def test_the_model_decides_the_facts_the_rules_cannot_read() -> None:
    judge, model = _judge(_reply([1]))
    bob = TimedFact("bob", "Bob keeps bees", SAID, SAID)
    closed = judge.supersedes(HIVES, [BEES, bob])
    assert [(c.memory_id, c.reason) for c in closed] == [("bees", "model: she gave the bees away")]
    [(_system, system), (_human, prompt)] = texts(model.calls[0])
    assert "same subject AND the same attribute" in system
    assert "New fact (true from 2026-03-20): Alice gave her hives to a neighbour" in prompt
    assert "[1] Alice keeps bees on the roof (true from 2026-03-10)" in prompt
    assert "Bob" not in prompt  # another subject is never asked about


def test_a_fact_with_an_unknown_start_is_shown_so_never_as_1970() -> None:
    paging = TimedFact("paging", "Until mid-2023 we paged through PagerDuty", 0.0, SAID, SAID)
    prompt = user_prompt(HIVES, [paging])
    assert "[1] Until mid-2023 we paged through PagerDuty (start unknown)" in prompt
    assert "1970" not in prompt


def test_the_model_may_close_nothing() -> None:
    judge, _model = _judge(_reply([], "another attribute"))
    assert judge.supersedes(HIVES, [BEES]) == []


def test_the_rules_closings_and_the_models_add_up() -> None:
    judge, model = _judge(_reply([1]))
    paris = TimedFact("paris", "Alice lives in Paris", SAID, SAID)
    new = TimedFact(None, "Alice moved to Berlin and gave her hives away", LATER, LATER)
    closed = judge.supersedes(new, [paris, BEES])
    assert [c.memory_id for c in closed] == ["paris", "bees"]
    assert len(model.calls) == 1


def test_a_bad_reply_is_sent_back_once_then_used() -> None:
    judge, model = _judge("closes: 1", _reply([1]))
    closed = judge.supersedes(HIVES, [BEES])
    assert [c.memory_id for c in closed] == ["bees"]
    assert len(model.calls) == 2
    assert "could not be used" in texts(model.calls[1])[-1][1]


def test_a_number_out_of_range_is_refused_and_retried() -> None:
    judge, model = _judge(_reply([3]), _reply([1]))
    assert [c.memory_id for c in judge.supersedes(HIVES, [BEES])] == ["bees"]
    assert "numbered 1 to 1" in texts(model.calls[1])[-1][1]


def test_a_model_that_stays_wrong_leaves_the_rules_answer(caplog: pytest.LogCaptureFixture) -> None:
    judge, model = _judge("no idea", "still no idea", max_retries=1)
    paris = TimedFact("paris", "Alice lives in Paris", SAID, SAID)
    with caplog.at_level(logging.WARNING, logger="memex_llm.supersession"):
        closed = judge.supersedes(HIVES, [BEES, paris])
    assert closed == []  # the rules close nothing here, and the model's word is not taken
    assert len(model.calls) == 2
    assert "the rules decided" in caplog.text


class _Broken(ScriptedChatModel):
    def _generate(self, *args: Any, **kwargs: Any) -> Any:
        raise ConnectionError("provider unreachable")


def test_a_model_that_cannot_be_reached_leaves_the_rules_answer() -> None:
    judge = LLMSupersessionJudge(_Broken(replies=[]), RULES)
    paris = TimedFact("paris", "Alice lives in Paris", SAID, SAID)
    new = TimedFact(None, "Alice moved to Berlin; she gave her hives away", LATER, LATER)
    closed = judge.supersedes(new, [paris, BEES])
    assert [c.memory_id for c in closed] == ["paris"]


def test_at_most_max_asked_facts_go_to_the_model() -> None:
    judge, model = _judge(_reply([2]), max_asked=2)
    earlier = [TimedFact(f"b{n}", f"Alice keeps bees in hive {n}", SAID, SAID) for n in range(5)]
    closed = judge.supersedes(HIVES, earlier)
    assert [c.memory_id for c in closed] == ["b1"]
    prompt = texts(model.calls[0])[1][1]
    assert "[2] Alice keeps bees in hive 1" in prompt and "[3]" not in prompt


def test_a_later_fact_is_never_offered_to_the_model() -> None:
    judge, model = _judge()
    later = TimedFact("later", "Alice keeps bees on the roof", LATER + 1, LATER + 1)
    assert judge.supersedes(HIVES, [later]) == []
    assert model.calls == []


def test_options_are_checked() -> None:
    with pytest.raises(ValueError, match="max_asked"):
        LLMSupersessionJudge(ScriptedChatModel(replies=[]), RULES, max_asked=0)


@pytest.mark.parametrize(
    ("reply", "closes"),
    [
        ('{"closes": [2, 1, 2], "reason": "x"}', [1, 2]),
        ('Sure! ```json\n{"closes": []}\n```', []),
    ],
)
def test_replies_are_read_from_their_json(reply: str, closes: list[int]) -> None:
    assert parse_closings(reply, 2).closes == closes


# --- registration ------------------------------------------------------------------------------


def test_the_plugin_registers_the_judge_named_llm(tmp_path: Path) -> None:
    factory, options = registered(register_supersession_judges)["llm"]
    assert options["requires"] == ("langchain_core",)
    settings = {
        "chat_model": "tests.support.scripted_chat:scripted_model",
        "chat_model_args": {"replies": [_reply([1])]},
        "max_retries": 0,
    }
    judge = factory(PluginContext(tmp_path, settings))
    assert judge.max_retries == 0
    assert [c.memory_id for c in judge.supersedes(HIVES, [BEES])] == ["bees"]


def test_a_missing_chat_model_names_the_supersession_table(tmp_path: Path) -> None:
    with pytest.raises(LLMSettingError, match=r"\[supersession\.llm\]: chat_model is not set"):
        build_supersession_judge(PluginContext(tmp_path, {}))


def test_questions_are_read_by_the_rules_without_a_model_call() -> None:
    from memex_rules.question_slots import RulesJudge

    model = ScriptedChatModel(replies=[])
    judge = LLMSupersessionJudge(model, RulesJudge())
    test = judge.answering("Where does Alice work?")
    assert test is not None and test("Alice joined Airbus") and not test("Bob joined Airbus")
    assert judge.answering("zzqxj qqvvkw") is None
    assert model.calls == []
    # rules that read no questions: the search is left as it was
    assert _judge()[0].answering("Where does Alice work?") is None
