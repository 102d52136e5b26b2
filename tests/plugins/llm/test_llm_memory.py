"""The ``llm`` extractor and consolidator, driven by scripted langchain-core chat models."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pluggy
import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models.fake_chat_models import (
    FakeListChatModel,
    GenericFakeChatModel,
)
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

import memex_llm
from memex_core import hookspecs, plugins
from memex_core.domain import (
    ConsolidationDecision,
    Consolidator,
    Extractor,
    FactType,
    Fragment,
    MemoryFact,
    PluginContext,
    Provenance,
    SimilarMemory,
)
from memex_core.domain.memory.facts import DEFAULT_FACT_TYPES
from memex_core.errors import MemexError
from memex_core.plugins import PluginRegistry, PluginUnavailable
from memex_llm import (
    LLMConsolidator,
    LLMExtractor,
    LLMSettingError,
    ModelOutputError,
    build_consolidator,
    build_extractor,
    register_consolidators,
    register_extractors,
)
from tests.support.scripted_chat import ScriptedChatModel

REPO = Path(__file__).resolve().parents[3]


def conversation(*turns: tuple[str, str]) -> list[Fragment]:
    return [
        Fragment(
            id=f"msg-{n}",
            conversation_id="conv-1",
            role=role,
            content=text,
            provenance=Provenance("test", "chat.json", "conv-1", f"msg-{n}"),
        )
        for n, (role, text) in enumerate(turns, start=1)
    ]


CHAT = conversation(
    ("system", "You are a helpful assistant."),
    ("user", "Hi! I'm planning a trip to Tokyo in April. I'm vegetarian, by the way."),
    ("assistant", "Lovely! Tokyo has great vegetarian food. Do you like hiking?"),
    ("tool", '{"results": ["Mount Takao trail"]}'),
    ("user", "Yes, I love hiking. Also, I'm allergic to peanuts."),
)
GOOD_FACTS = {
    "facts": [
        {"text": "User is planning a trip to Tokyo in April", "type": "plan", "turns": [1]},
        {"text": "User is vegetarian", "type": "health", "turns": [1]},
        {"text": "User loves hiking", "type": "activity_preference", "turns": [3]},
        {"text": "User is allergic to peanuts", "type": "health", "turns": [3]},
    ]
}


def good_reply() -> str:
    return json.dumps(GOOD_FACTS)


# --- the extractor -------------------------------------------------------------------------


def test_extractor_returns_the_models_facts_with_their_turns() -> None:
    model = ScriptedChatModel(replies=[good_reply()])
    facts = LLMExtractor(model).extract(CHAT, DEFAULT_FACT_TYPES)
    assert facts == [
        MemoryFact("User is planning a trip to Tokyo in April", "plan", ("msg-2",)),
        MemoryFact("User is vegetarian", "health", ("msg-2",)),
        MemoryFact("User loves hiking", "activity_preference", ("msg-5",)),
        MemoryFact("User is allergic to peanuts", "health", ("msg-5",)),
    ]
    assert len(model.calls) == 1


def test_extraction_prompt_lists_the_fact_types_and_numbers_the_turns() -> None:
    model = ScriptedChatModel(replies=[good_reply()])
    LLMExtractor(model).extract(CHAT, DEFAULT_FACT_TYPES)
    (system, human) = model.calls[0]
    assert isinstance(system, SystemMessage) and isinstance(human, HumanMessage)
    prompt = str(system.content)
    for fact_type in DEFAULT_FACT_TYPES:
        assert f"- {fact_type.name}: {fact_type.description}" in prompt
        assert f'"{fact_type.examples[0]}"' in prompt
    assert '{"facts": [{"text": "User ...", "type": "<one of: preference, personal_detail' in (
        prompt
    )
    assert "never take a fact from them" in prompt
    # System and tool turns are not shown; the others are numbered from 1.
    assert human.content == (
        "Conversation:\n"
        "[1] user: Hi! I'm planning a trip to Tokyo in April. I'm vegetarian, by the way.\n"
        "[2] assistant: Lovely! Tokyo has great vegetarian food. Do you like hiking?\n"
        "[3] user: Yes, I love hiking. Also, I'm allergic to peanuts."
    )


def test_custom_fact_types_are_what_the_prompt_offers_and_accepts() -> None:
    pets = [FactType("pet", "The user's pets.", ("User has a beagle",)), FactType("misc", "Else.")]
    reply = '{"facts": [{"text": "User has a cat called Miso", "type": "Pet"}]}'
    model = ScriptedChatModel(replies=[reply])
    facts = LLMExtractor(model).extract(conversation(("user", "My cat Miso...")), pets)
    # The type is matched without regard to case and stored as declared.
    assert facts == [MemoryFact("User has a cat called Miso", "pet", ("msg-1",))]
    prompt = str(model.calls[0][0].content)
    assert '- pet: The user\'s pets. Examples: "User has a beagle".' in prompt
    assert "preference" not in prompt


def test_prose_and_code_fences_around_the_json_are_ignored() -> None:
    reply = (
        "Sure! Here are the facts I found in the conversation:\n\n"
        f"```json\n{json.dumps(GOOD_FACTS, indent=2)}\n```\n\n"
        "Let me know if you need anything else."
    )
    model = ScriptedChatModel(replies=[reply])
    facts = LLMExtractor(model).extract(CHAT, DEFAULT_FACT_TYPES)
    assert [f.text for f in facts] == [f["text"] for f in GOOD_FACTS["facts"]]
    assert len(model.calls) == 1


def test_prose_with_braces_before_the_json() -> None:
    reply = (
        "I used the format {text, type}. "
        '{"facts": [{"text": "User is vegetarian", "type": "health"}]}'
    )
    facts = LLMExtractor(ScriptedChatModel(replies=[reply])).extract(CHAT, DEFAULT_FACT_TYPES)
    # No turns given: the fact is credited to every user turn shown.
    assert facts == [MemoryFact("User is vegetarian", "health", ("msg-2", "msg-5"))]


def test_a_wrong_type_is_sent_back_once_and_the_corrected_reply_used() -> None:
    bad = '{"facts": [{"text": "User loves hiking", "type": "hobby", "turns": [3]}]}'
    fixed = (
        '{"facts": [{"text": "User loves hiking", "type": "activity_preference", "turns": [3]}]}'
    )
    model = ScriptedChatModel(replies=[bad, fixed])
    facts = LLMExtractor(model).extract(CHAT, DEFAULT_FACT_TYPES)
    assert facts == [MemoryFact("User loves hiking", "activity_preference", ("msg-5",))]
    first, second = model.calls
    assert second[:2] == first  # the original prompt, then the bad reply and the problem
    assert isinstance(second[2], AIMessage) and second[2].content == bad
    assert isinstance(second[3], HumanMessage)
    assert second[3].content == (
        "That reply could not be used: facts[0].type is 'hobby', which is not one of the "
        "fact types (preference, personal_detail, plan, activity_preference, health, "
        "professional, misc).\n"
        "Reply again with only the corrected JSON object, following the format above."
    )


def test_invented_turn_numbers_are_sent_back() -> None:
    bad = '{"facts": [{"text": "User is vegetarian", "type": "health", "turns": [2, 9]}]}'
    model = ScriptedChatModel(replies=[bad, good_reply()])
    LLMExtractor(model).extract(CHAT, DEFAULT_FACT_TYPES)
    assert "facts[0].turns has 9, but the turns are numbered 1 to 3" in str(
        model.calls[1][3].content
    )


def test_missing_keys_are_reported_by_field() -> None:
    bad = '{"facts": [{"fact": "User is vegetarian", "category": "health"}]}'
    model = ScriptedChatModel(replies=[bad, good_reply()])
    LLMExtractor(model).extract(CHAT, DEFAULT_FACT_TYPES)
    problem = str(model.calls[1][3].content)
    assert "facts.0.text: Field required; facts.0.type: Field required." in problem


def test_truncated_json_twice_raises_a_model_output_error() -> None:
    cut = '```json\n{"facts": [{"text": "User is vegetarian", "type": "health"}, {"text": "User lo'
    model = ScriptedChatModel(replies=[cut, cut])
    with pytest.raises(ModelOutputError) as caught:
        LLMExtractor(model).extract(CHAT, DEFAULT_FACT_TYPES)
    error = caught.value
    assert isinstance(error, MemexError)
    assert error.attempts == 2 and error.reply == cut
    assert error.problem == 'the JSON object with "facts" is not valid JSON (it looks cut off).'
    message = str(error)
    assert message.startswith("ScriptedChatModel (scripted-1) gave no usable fact extraction")
    assert "after 2 replies" in message
    assert 'Its last reply began: \'```json\\n{"facts": [{"text"' in message
    assert '[extractor] use = "rules"' in message
    assert len(model.calls) == 2


def test_no_json_at_all() -> None:
    reply = "I could not find any facts worth remembering in this conversation."
    with pytest.raises(ModelOutputError, match='holds no JSON object with a "facts" key'):
        LLMExtractor(ScriptedChatModel(replies=[reply] * 2)).extract(CHAT, DEFAULT_FACT_TYPES)


def test_max_retries_zero_asks_once() -> None:
    model = ScriptedChatModel(replies=['{"facts": [{"text": "x", "type": "nope"}]}'])
    with pytest.raises(ModelOutputError, match="after 1 reply: facts"):
        LLMExtractor(model, max_retries=0).extract(CHAT, DEFAULT_FACT_TYPES)
    assert len(model.calls) == 1
    with pytest.raises(ValueError, match="max_retries"):
        LLMExtractor(model, max_retries=-1)


def test_long_replies_are_shown_only_in_part() -> None:
    reply = "Let me think step by step. " * 40
    with pytest.raises(ModelOutputError) as caught:
        LLMExtractor(ScriptedChatModel(replies=[reply] * 2)).extract(CHAT, DEFAULT_FACT_TYPES)
    assert f"began: {reply[:300] + '...'!r}." in str(caught.value)
    assert len(str(caught.value)) < 800
    assert caught.value.reply == reply  # the whole reply is kept on the error


def test_nothing_from_the_user_means_no_model_call() -> None:
    model = ScriptedChatModel(replies=[])
    only_assistant = conversation(("assistant", "I prefer tea."), ("tool", "ok"), ("user", "  "))
    assert LLMExtractor(model).extract(only_assistant, DEFAULT_FACT_TYPES) == []
    assert model.calls == []


def test_empty_and_repeated_facts() -> None:
    assert (
        LLMExtractor(ScriptedChatModel(replies=['{"facts": []}'])).extract(CHAT, DEFAULT_FACT_TYPES)
        == []
    )
    twice = (
        '{"facts": [{"text": "User is vegetarian", "type": "health", "turns": [1]}, '
        '{"text": "The user is vegetarian.", "type": "health", "turns": [3]}]}'
    )
    facts = LLMExtractor(ScriptedChatModel(replies=[twice])).extract(CHAT, DEFAULT_FACT_TYPES)
    assert facts == [MemoryFact("User is vegetarian", "health", ("msg-2",))]


class RecordingHandler(BaseCallbackHandler):
    def __init__(self) -> None:
        self.prompts: list[list[BaseMessage]] = []

    def on_chat_model_start(self, serialized: Any, messages: Any, **kwargs: Any) -> None:
        self.prompts.extend(list(batch) for batch in messages)


def test_stock_fake_list_model_with_a_recording_callback() -> None:
    handler = RecordingHandler()
    model = FakeListChatModel(
        responses=[
            '{"facts": [{"text": "User is vegetarian", "type": "vegetarian"}]}',
            good_reply(),
        ],
        callbacks=[handler],
    )
    facts = LLMExtractor(model).extract(CHAT, DEFAULT_FACT_TYPES)
    assert len(facts) == 4
    assert [len(p) for p in handler.prompts] == [2, 4]
    assert "facts[0].type is 'vegetarian'" in str(handler.prompts[1][3].content)


def test_reply_as_a_list_of_content_blocks() -> None:
    blocks = [
        {"type": "text", "text": '{"facts": [{"text": "User loves hiking", '},
        {"type": "text", "text": '"type": "activity_preference", "turns": [3]}]}'},
    ]
    model = GenericFakeChatModel(messages=iter([AIMessage(content=blocks)]))  # type: ignore[arg-type]
    facts = LLMExtractor(model).extract(CHAT, DEFAULT_FACT_TYPES)
    assert facts == [MemoryFact("User loves hiking", "activity_preference", ("msg-5",))]


# --- the consolidator ------------------------------------------------------------------------

NEW = MemoryFact("User no longer drinks coffee; switched to green tea", "preference", ("msg-9",))
SIMILAR = [
    SimilarMemory("mem_7f3a", "User drinks two cups of coffee every morning", 0.82, "preference"),
    SimilarMemory("mem_09bc", "User prefers tea over coffee in the evening", 0.64, "preference"),
]


def decide(*replies: str, similar: list[SimilarMemory] = SIMILAR, **options: int):
    model = ScriptedChatModel(replies=list(replies))
    decision = LLMConsolidator(model, **options).decide(NEW, similar)
    return decision, model


def test_consolidation_prompt_numbers_the_memories_and_hides_their_ids() -> None:
    decision, model = decide(
        '{"action": "DELETE", "target": 1, "text": null, '
        '"reason": "The user stopped drinking coffee, so memory 1 is no longer true."}'
    )
    (system, human) = model.calls[0]
    assert "ADD: the new fact is new information" in str(system.content)
    assert '"target": <memory number or null>' in str(system.content)
    assert human.content == (
        "New fact (type: preference): User no longer drinks coffee; switched to green tea\n\n"
        "Existing memories:\n"
        "[1] User drinks two cups of coffee every morning (type: preference, similarity 0.82)\n"
        "[2] User prefers tea over coffee in the evening (type: preference, similarity 0.64)"
    )
    assert "mem_" not in str(system.content) + str(human.content)
    assert decision == ConsolidationDecision(
        "DELETE",
        NEW,
        "mem_7f3a",
        "The user stopped drinking coffee, so mem_7f3a is no longer true.",
        None,
    )
    assert decision.new_text == NEW.text  # the new fact is stored in its place


def test_update_maps_the_number_back_to_the_memory_id() -> None:
    decision, _ = decide(
        "```json\n"
        '{"action": "UPDATE", "target": 2, '
        '"text": "User prefers green tea over coffee at any time of day", '
        '"reason": "Extends [2] with the switch to green tea"}\n```'
    )
    assert (decision.action, decision.target_id) == ("UPDATE", "mem_09bc")
    assert decision.new_text == "User prefers green tea over coffee at any time of day"
    assert decision.reason == "Extends mem_09bc with the switch to green tea"


def test_delete_with_empty_text_stores_nothing_new() -> None:
    decision, _ = decide('{"action": "DELETE", "target": 1, "text": "", "reason": "outdated"}')
    assert decision.action == "DELETE" and decision.new_text == ""


def test_none_and_add() -> None:
    none, _ = decide('{"action": "none", "target": 1, "text": null, "reason": "already known"}')
    assert (none.action, none.target_id, none.reason) == ("NONE", "mem_7f3a", "already known")
    add, _ = decide('{"action": "ADD", "target": 2, "text": null, "reason": ""}')
    assert (add.action, add.target_id, add.new_text) == ("ADD", None, NEW.text)
    assert add.reason == "the model chose ADD"


def test_nothing_similar_is_added_without_asking() -> None:
    decision, model = decide(similar=[])
    assert (decision.action, decision.reason) == ("ADD", "no similar memory")
    assert model.calls == []


def test_invented_target_is_sent_back_and_corrected() -> None:
    invented = '{"action": "UPDATE", "target": 7, "text": "User drinks tea", "reason": "x"}'
    fixed = '{"action": "UPDATE", "target": 1, "text": "User drinks tea", "reason": "x"}'
    decision, model = decide(invented, fixed)
    assert decision.target_id == "mem_7f3a"
    assert model.calls[1][2].content == invented
    assert str(model.calls[1][3].content).startswith(
        "That reply could not be used: target is 7, but the memories are numbered 1 to 2; "
        "use one of those numbers (or null for ADD)."
    )


def test_update_without_target_is_sent_back() -> None:
    missing = '{"action": "UPDATE", "target": null, "text": "User drinks tea", "reason": "x"}'
    decision, model = decide(missing, '{"action": "NONE", "target": 2, "reason": "same"}')
    assert "UPDATE needs a target: the number of the memory it changes." in str(
        model.calls[1][3].content
    )
    assert decision.action == "NONE"


def test_twice_malformed_decision_raises() -> None:
    with pytest.raises(ModelOutputError) as caught:
        decide(
            'Decision: {"action": "MERGE", "target": 1}',
            '{"action": "REPLACE", "target": "first"}',
        )
    message = str(caught.value)
    assert "gave no usable consolidation decision after 2 replies" in message
    assert "target: Input should be a valid integer" in message
    assert '[consolidator] use = "rules"' in message
    assert 'Its last reply began: \'{"action": "REPLACE"' in message


def test_a_wrong_action_is_named() -> None:
    decision, model = decide(
        '{"action": "MERGE", "target": 1, "text": "a", "reason": "b"}',
        '{"action": "UPDATE", "target": 1, "text": "a", "reason": "b"}',
    )
    assert "action is 'MERGE'; it must be one of ADD, UPDATE, DELETE, NONE." in str(
        model.calls[1][3].content
    )
    assert decision.action == "UPDATE"


# --- configuration ---------------------------------------------------------------------------

SNIPPET = (
    '[extractor]\nuse = "llm"\n\n[extractor.llm]\nchat_model = "langchain_openai:ChatOpenAI"\n'
    'chat_model_args = { model = "gpt-4o-mini", temperature = 0 }'
)


def build(settings: dict[str, Any], tmp_path: Path, role: str = "extractor") -> Any:
    factory = build_extractor if role == "extractor" else build_consolidator
    return factory(PluginContext(tmp_path, settings))


def test_config_builds_a_working_extractor_from_a_stock_fake_model(tmp_path: Path) -> None:
    extractor = build(
        {
            "chat_model": "langchain_core.language_models.fake_chat_models:FakeListChatModel",
            "chat_model_args": {"responses": [good_reply()]},
            "max_retries": 2,
        },
        tmp_path,
    )
    assert isinstance(extractor, Extractor) and isinstance(extractor, LLMExtractor)
    assert extractor.max_retries == 2
    assert len(extractor.extract(CHAT, DEFAULT_FACT_TYPES)) == 4


def test_config_builds_a_consolidator_from_a_factory_function(tmp_path: Path) -> None:
    reply = '{"action": "NONE", "target": 1, "text": null, "reason": "same"}'
    consolidator = build(
        {
            "chat_model": "tests.support.scripted_chat:scripted_model",
            "chat_model_args": {"replies": [reply], "model_name": "local-7b"},
        },
        tmp_path,
        role="consolidator",
    )
    assert isinstance(consolidator, Consolidator) and isinstance(consolidator, LLMConsolidator)
    assert consolidator.chat_model.model_name == "local-7b"
    assert consolidator.decide(NEW, SIMILAR).action == "NONE"


@pytest.mark.parametrize(
    ("settings", "problem"),
    [
        ({}, "chat_model is not set"),
        (
            {"chat_model": "langchain_openai.ChatOpenAI"},
            'not of the form "package.module:callable"',
        ),
        ({"chat_model": "a:b", "chat_model_args": "gpt-4o"}, "chat_model_args = 'gpt-4o' must be"),
        ({"chat_model": "a:b", "max_retries": -1}, "max_retries = -1 must be a whole number"),
        ({"chat_model": "a:b", "model": "gpt-4o"}, "unknown setting(s) model"),
        (
            {"chat_model": "memex_no_such_provider:Chat"},
            "cannot import 'memex_no_such_provider' (No module named 'memex_no_such_provider'). "
            "Install it (pip install memex-no-such-provider)",
        ),
        ({"chat_model": "json:NoSuchModel"}, "'json' has no 'NoSuchModel'"),
        ({"chat_model": "json:__name__"}, "json:__name__ is not callable"),
        (
            {
                "chat_model": "tests.support.scripted_chat:scripted_model",
                "chat_model_args": {"x": 1},
            },
            "tests.support.scripted_chat:scripted_model(**chat_model_args) failed: TypeError:",
        ),
        ({"chat_model": "json:JSONDecoder"}, "returned a JSONDecoder, not a chat model"),
    ],
)
def test_bad_settings_show_the_snippet_to_add(
    tmp_path: Path, settings: dict[str, Any], problem: str
) -> None:
    with pytest.raises(LLMSettingError) as caught:
        build(settings, tmp_path)
    message = str(caught.value)
    assert message.startswith("config.toml [extractor.llm]: ")
    assert problem in message
    assert SNIPPET in message


def test_consolidator_errors_name_its_own_table(tmp_path: Path) -> None:
    with pytest.raises(LLMSettingError, match=r"^config.toml \[consolidator.llm\]: chat_model"):
        build({}, tmp_path, role="consolidator")


def test_plugin_registers_llm_components_that_need_langchain() -> None:
    calls: list[tuple[str, str, dict[str, Any]]] = []

    def register(name: str, factory: Any, **options: Any) -> None:
        calls.append((name, factory.__name__, options))

    register_extractors(register)
    register_consolidators(register)
    assert [(n, f) for n, f, _ in calls] == [
        ("llm", "build_extractor"),
        ("llm", "build_consolidator"),
    ]
    for _name, _factory, options in calls:
        assert options["requires"] == ("langchain_core",)
        assert options["extra"] == "langchain"


def _registry_with_llm() -> PluginRegistry:
    manager = pluggy.PluginManager("memex")
    manager.add_hookspecs(hookspecs)
    registry = PluginRegistry(manager)
    registry.register_plugin(memex_llm, name="llm")
    return registry


def test_registry_builds_the_llm_extractor_from_settings(tmp_path: Path) -> None:
    settings = {
        "chat_model": "langchain_core.language_models.fake_chat_models:FakeListChatModel",
        "chat_model_args": {"responses": ['{"facts": []}']},
    }
    built = _registry_with_llm().build("extractor", "llm", PluginContext(tmp_path, settings))
    assert isinstance(built, LLMExtractor)


def test_without_langchain_the_registry_says_what_to_install(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(plugins, "_module_missing", lambda name: name == "langchain_core")
    registry = _registry_with_llm()
    assert not registry.get("consolidator", "llm").available
    with pytest.raises(PluginUnavailable, match=r"pip install 'memex\[langchain\]'"):
        registry.build("consolidator", "llm", PluginContext(tmp_path, {}))


def test_the_plugin_loads_without_importing_langchain() -> None:
    code = (
        "import sys, memex_llm\n"
        "assert 'langchain_core' not in sys.modules, 'langchain_core imported'\n"
        "assert 'pydantic' not in sys.modules, 'pydantic imported'\n"
        "memex_llm.LLMExtractor\n"
        "assert 'langchain_core' in sys.modules\n"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "plugins"), str(REPO)])}
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
    )
    assert result.returncode == 0, result.stderr
