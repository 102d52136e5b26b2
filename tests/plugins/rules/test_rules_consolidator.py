"""The ``rules`` consolidator: what a new fact does to the memories like it, without a
model; and the plugin's settings and registration."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchmarks.reworded_facts import generate
from memex_core.domain import (
    ConsolidationDecision,
    Consolidator,
    Extractor,
    MemoryFact,
    PluginContext,
    SimilarMemory,
)
from memex_rules import (
    RulesConsolidator,
    RulesExtractor,
    RulesSettingError,
    build_consolidator,
    contradicts,
    parse_settings,
    register_consolidators,
    register_extractors,
)
from memex_rules.compare import DIFFERENT, SAME, compare
from memex_rules.consolidator import TEXT_NEAR_DUPLICATE, content_words
from memex_rules.wording import key, read_form

# --- the consolidator -----------------------------------------------------------------------


def fact(text: str, kind: str = "preference") -> MemoryFact:
    return MemoryFact(text, kind, ("conv-1/1",))


def memory(memory_id: str, text: str, similarity: float) -> SimilarMemory:
    return SimilarMemory(memory_id, text, similarity, "preference")


def decide(new: str, *similar: SimilarMemory, **settings: float) -> ConsolidationDecision:
    return RulesConsolidator(**settings).decide(fact(new), list(similar))


def test_exact_match_after_normalisation_is_none() -> None:
    decision = decide(
        "The user prefers tea over coffee.",
        memory("mem_a", "User lives in Lyon", 0.6),
        memory("mem_b", "user prefers tea over coffee", 0.7),
    )
    assert (decision.action, decision.target_id) == ("NONE", "mem_b")
    assert decision.reason == "same as mem_b after normalisation"


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("User no longer likes coffee", "User likes coffee"),
        ("User does not like coffee", "User likes coffee"),
        ("User doesn't like coffee anymore", "User likes coffee"),
        ("User likes coffee", "User does not like coffee"),
        ("User dislikes coffee", "User likes coffee"),
        ("User hates coffee", "User loves coffee"),
        ("User is no longer vegetarian", "User is vegetarian"),
        ("User never eats pork", "User eats pork"),
        ("Coffee is something the user no longer enjoys", "User likes coffee"),
        ("User used to live in Lyon", "User lives in Lyon"),
        ("User can't stand jazz", "User is a big fan of jazz"),
        ("User is not a vegan", "User is a vegan"),
    ],
)
def test_flipped_negation_deletes_the_old_memory_and_adds_the_new(new: str, old: str) -> None:
    assert contradicts(new, old)
    decision = decide(new, memory("mem_x", old, 0.93))
    assert (decision.action, decision.target_id) == ("DELETE", "mem_x")
    assert decision.new_text == new  # the new fact is stored in its place
    assert decision.reason.startswith(f"contradicts mem_x ({old!r}): the negation is flipped")


def test_a_reversed_preference_is_a_contradiction() -> None:
    old = "User prefers tea over coffee"
    for new in ("User prefers coffee over tea", "User would rather drink coffee than tea"):
        decision = decide(new, memory("mem_t", old, 0.97))
        assert (decision.action, decision.target_id) == ("DELETE", "mem_t"), new
        assert "the comparison is reversed" in decision.reason


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("User likes coffee", "User loves coffee"),  # same polarity
        ("User does not like tea", "User likes coffee"),  # another object
        ("User does not like coffee", "User does not like coffee at night"),
        ("User likes coffee but not tea", "User likes coffee and tea"),  # the "not" is partial
        ("User's sister does not like coffee", "User likes coffee"),  # another person
        ("User prefers tea over juice", "User prefers coffee over tea"),  # not the same pair
    ],
)
def test_not_contradictions(new: str, old: str) -> None:
    assert not contradicts(new, old)


def test_a_contradiction_within_joined_clauses_keeps_both() -> None:
    decision = decide(
        "User likes coffee but not tea", memory("mem_c", "User likes coffee and tea", 0.95)
    )
    assert decision.action == "ADD"


# Rewordings: each text in a row states the first one's fact. They fold at any similarity
# memex offers (the words decide), in both directions.
REWORDINGS = [
    (
        "User loves hiking",
        "User enjoys hiking",
        "Hiking is something the user loves",
        "User really likes hiking",
        "User is into hiking",
    ),
    (
        "User does not eat meat",
        "User doesn't eat meat",
        "User never eats meat",
        "User doesnt eat meat",
    ),
    (
        "User lives in Lyon",
        "User is based in Lyon",
        "User resides in Lyon",
        "User's based in Lyon",
        "Actually, the user lives in Lyon.",
    ),
    ("User works as a nurse", "User is a nurse", "User is employed as a nurse", "User's a nurse"),
    ("User has two kids", "User has 2 children"),
    (
        "User goes swimming every Thursday",
        "User goes swimming on Thursdays",
        "Every Thursday, the user goes swimming",
        "User swims every Thursday",
    ),
    (
        "User prefers tea over coffee",
        "User would rather have tea than coffee",
        "User likes tea better than coffee",
        "User favours tea over coffee",
        "User prefers tea to coffee",
        "Over coffee, the user prefers tea",
        "User prefers tea instead of coffee",
    ),
    (
        "User's favourite colour is green",
        "User's favorite color is green",
        "Green is the user's favourite colour",
    ),
    ("User's wife is called Sara", "User's wife's name is Sara", "My wife is named Sara"),
    (
        "User can't stand horror movies",
        "User hates horror films",
        "User dislikes horror movies",
        "User is not a fan of horror movies",
    ),
    (
        "User would like to learn Japanese",
        "User wants to learn Japanese",
        "User hopes to learn Japanese",
        "User'd like to learn Japanese",
        "Learning Japanese is a goal of the user",
        "User's goal is to learn Japanese",
    ),
    (
        "User is planning a trip to Peru in May",
        "User plans to visit Peru in May",
        "In May, the user plans to visit Peru",
        "User intends to visit Peru in May",
    ),
    ("I'm vegetarian", "User is vegetarian", "The user is vegetarian"),
    ("User works from home on Fridays", "On Fridays, the user works from home"),
    ("User is learning the guitar", "User learns the guitar"),
    (
        "User is allergic to penicillin",
        "User has an allergy to penicillin",
        "Penicillin gives the user an allergic reaction",
    ),
    ("User's team uses Kafka", "User's team works with Kafka", "Kafka is used by the user's team"),
    (
        "User no longer drinks coffee",
        "User doesn't drink coffee anymore",
        "User used to drink coffee",
    ),
    ("User has oat milk every morning", "User takes oat milk each morning"),
    ("User runs every day", "User runs daily", "User goes running every day"),
    ("User's mom is a teacher", "User's mother works as a teacher"),
    # A memory of users/alice says "Alice" or "User" for the same person.
    ("Alice speaks Spanish", "User speaks Spanish", "the user speaks spanish!"),
    ("Alice's sister lives in Porto", "The sister of the user lives in Porto"),
]


@pytest.mark.parametrize(
    ("first", "other"),
    [(row[0], other) for row in REWORDINGS for other in row[1:]],
)
def test_rewordings_of_one_fact_fold(first: str, other: str) -> None:
    for new, old in ((other, first), (first, other)):
        decision = decide(new, memory("mem_r", old, 0.55))
        assert (decision.action, decision.target_id) == ("NONE", "mem_r"), (new, old, decision)
        assert decision.reason.startswith("same fact as mem_r in other words")


def test_the_name_read_as_the_user_is_named_in_the_reason() -> None:
    decision = decide("Alice speaks Spanish", memory("mem_s", "User speaks Spanish", 0.8))
    assert decision.reason == (
        "same fact as mem_s in other words (the same content words after equivalences; "
        "'alice' read as the user)"
    )


# Distinct facts, most of them one slot apart (who, what kind, when, where, how many).
# Whatever the cosine, neither is folded into the other.
DISTINCT = [
    ("User lives in Lyon", "User lives in Lisbon"),
    ("User's sister lives in Lyon", "User lives in Lyon"),
    ("User's sister lives in Lyon", "User's brother lives in Lyon"),
    ("Alice's sister lives in Porto", "User lives in Porto"),
    ("User's mother is a nurse", "User is a nurse"),
    ("User works at Acme", "User's wife works at Acme"),
    ("User's team uses Python", "User uses Python"),
    ("The team of the user uses Python", "User uses Python"),
    ("User's office is in Berlin", "User is in Berlin"),
    ("My sister loves sushi", "I love sushi"),
    ("User works as a nurse", "User works as a teacher"),
    ("User is a software engineer", "User is a data engineer"),
    ("User has two kids", "User has three kids"),
    ("User has 2 cats", "User has 2 dogs"),
    ("User is 34", "User is 43"),
    ("User was born in 1990", "User was born in 1991"),
    ("User runs every Monday", "User runs every Tuesday"),
    ("User goes to the gym on Mondays", "User goes to the gym on Fridays"),
    ("User goes rowing every Thursday", "User goes rowing on Saturdays"),
    ("User drinks green tea", "User drinks black tea"),
    ("User prefers herbal tea over lemonade", "User prefers black tea over lemonade"),
    ("User likes Thai food", "User likes Indian food"),
    ("User likes dark chocolate", "User likes milk chocolate"),
    ("User is allergic to peanuts", "User is allergic to shellfish"),
    ("User takes vitamin D", "User takes vitamin C"),
    ("User plans to visit Japan in April", "User plans to visit Japan in May"),
    ("User moved to Berlin in 2019", "User moved to Berlin in 2021"),
    ("User moved from Berlin to Lisbon", "User moved from Lisbon to Berlin"),
    ("User flies to Madrid on Monday", "User flies to Madrid on Tuesday"),
    ("User wakes up at 6am", "User wakes up at 7am"),
    ("User's flight is on March 3", "User's flight is on March 5"),
    ("User's rent is 1200 euros", "User's rent is 1500 euros"),
    ("User lives in Lyon", "User wants to live in Lyon"),
    ("User owns a Tesla", "User wants a Tesla"),
    ("User wants to learn the piano", "User plays the piano"),
    ("User runs", "User likes running"),
    ("User plays tennis", "User watches tennis"),
    ("User studies law", "User teaches law"),
    ("User speaks French", "User is learning French"),
    ("User's favourite book is Dune", "User's favourite film is Dune"),
    ("User's daughter is called Emma", "User's dog is called Emma"),
    ("User has a cat named Miso", "User has a dog named Miso"),
    ("User's manager is Priya", "User's mentor is Priya"),
    ("User's father lives in Nairobi", "User's grandfather lives in Nairobi"),
    ("User works from home on Fridays", "User works from the office on Fridays"),
    ("User prefers window seats", "User prefers aisle seats"),
    ("User is vegetarian", "User's partner is vegetarian"),
    ("User likes sushi", "User's son likes sushi"),
    ("Alice likes sushi", "Bob likes sushi"),
    ("Dana prefers tea over coffee", "Sam prefers tea over coffee"),
    ("User is married to Sam", "User was married to Sam"),
    ("User is a nurse", "User was a nurse"),
    ("User had a dog", "User has a dog"),
    ("User lived in Berlin", "User lives in Berlin"),
    ("User works at Globex", "User worked at Globex"),
    ("User will move to Porto", "User moved to Porto"),
    ("User visited Japan", "User plans to visit Japan"),
    ("User is going to Tokyo in April", "User went to Tokyo in April"),
    ("User eats meat only on weekends", "User eats meat on weekends"),
    ("User sometimes drinks wine", "User drinks wine"),
    ("User lives near Paris", "User lives in Paris"),
    ("User works outside London", "User works in London"),
    ("User is from Lyon", "User lives in Lyon"),
    ("User drives to work", "User cycles to work"),
    ("User has a meeting with Bob every Monday", "User has a meeting with Alice every Monday"),
    ("User likes coffee", "User likes coffee but not tea"),
    ("User can swim", "User can not swim well"),
    # A word added after the object changes it; a number is never mere detail.
    ("User likes cats", "User likes cat videos"),
    ("User likes chocolate", "User likes chocolate cake"),
    ("User is allergic to milk", "User is allergic to milk chocolate"),
    ("User plays football", "User plays football video games"),
    ("User works at Acme", "User works at Acme Bank"),
    ("User lives in York", "User lives in New York"),
    ("User has a kid", "User has two kids"),
    ("User has one kid", "User has two kids"),
    ("User has kids", "User has 3 kids"),
    ("User prefers tea over coffee", "User prefers tea over coffee cake"),
]


@pytest.mark.parametrize(("one", "two"), DISTINCT)
def test_distinct_facts_are_never_folded(one: str, two: str) -> None:
    for new, old in ((one, two), (two, one)):
        decision = decide(new, memory("mem_d", old, 0.97))
        assert decision.action == "ADD", (new, old, decision)
        assert decision.target_id is None


def test_a_changed_slot_is_named_in_the_reason() -> None:
    decision = decide(
        "Alice prefers herbal tea over lemonade",
        memory("mem_t", "Alice prefers black tea over lemonade", 0.9),
    )
    assert decision.reason == (
        "new: closest is mem_t (cosine 0.90, word overlap 0.80); "
        "another fact: adds herbal, drops black"
    )
    decision = decide("User's sister likes sushi", memory("mem_s", "User likes sushi", 0.93))
    assert decision.reason.endswith("another fact: sister changes what it is about")
    decision = decide("User does not like sushi rolls", memory("mem_s", "User likes sushi", 0.91))
    assert decision.reason.endswith("another fact: the polarity differs")


def test_near_duplicate_adding_nothing_is_none() -> None:
    decision = decide("User loves hiking", memory("mem_h", "User loves hiking in the Alps", 0.94))
    assert (decision.action, decision.target_id) == ("NONE", "mem_h")
    assert (
        decision.reason == "near-duplicate of mem_h (cosine 0.94); the stored text says more: alps"
    )


def test_near_duplicate_with_more_content_updates_to_the_new_text() -> None:
    decision = decide(
        "User loves hiking in the Alps with friends",
        memory("mem_h", "User loves hiking in the Alps", 0.95),
    )
    assert (decision.action, decision.target_id) == ("UPDATE", "mem_h")
    assert decision.new_text == "User loves hiking in the Alps with friends"
    assert decision.reason == "near-duplicate of mem_h (cosine 0.95); the new fact adds: friends"


def test_a_fact_that_adds_and_drops_words_is_another_fact() -> None:
    # The old rules kept "the stored text says more" here, losing "in summer".
    decision = decide(
        "User loves hiking in summer",
        memory("mem_h", "User loves hiking in the Alps with friends", 0.92),
    )
    assert decision.action == "ADD"
    assert decision.reason.endswith("another fact: adds summer, drops alps, friends")


def test_word_overlap_finds_near_duplicates_when_the_cosine_is_low() -> None:
    # No embedder or a weak one: the words alone are close (cosine 0.4 is far below 0.9).
    decision = decide(
        "User loves hiking in the Alps in summer",
        memory("mem_h", "User loves hiking in the Alps", 0.4),
    )
    assert decision.action == "UPDATE"
    assert decision.reason == (
        "near-duplicate of mem_h (word overlap 0.89); the new fact adds: summer"
    )


# A fact and the same fact with more detail: the longer one is kept (at a high cosine).
REFINEMENTS = [
    ("User loves hiking", "User loves hiking in the Alps"),
    ("User prefers tea", "User prefers green tea"),
    ("User plays the piano", "User plays the piano daily"),
    ("User moved to Lisbon", "User moved to Lisbon last year"),
    ("User lives in Lyon", "User lives in Lyon with their partner"),
    ("User works at Acme", "User works at Acme as a data engineer"),
    ("User speaks French", "User speaks French and German"),
    ("User is vegetarian", "User has been vegetarian since college"),
]


@pytest.mark.parametrize(("short", "long"), REFINEMENTS)
def test_a_fact_with_more_detail_is_kept_over_the_shorter(short: str, long: str) -> None:
    update = decide(long, memory("mem_s", short, 0.95))
    assert (update.action, update.target_id, update.new_text) == ("UPDATE", "mem_s", long)
    none = decide(short, memory("mem_l", long, 0.95))
    assert (none.action, none.target_id) == ("NONE", "mem_l")


def test_unrelated_or_not_close_enough_is_added() -> None:
    assert decide("User prefers tea").reason == "no similar memory"
    decision = decide("User prefers green tea", memory("mem_c", "User prefers coffee", 0.72))
    assert decision.action == "ADD"
    assert decision.target_id is None
    assert decision.reason == (
        "new: closest is mem_c (cosine 0.72, word overlap 0.58); "
        "another fact: adds green, tea, drops coffee"
    )


def test_near_duplicate_threshold_is_a_setting() -> None:
    similar = memory("mem_c", "User prefers coffee", 0.8)
    added = decide("User prefers strong black coffee", similar)
    assert added.action == "ADD"
    assert added.reason == (
        "new: closest is mem_c (cosine 0.80, word overlap 0.77); "
        "says more or less of it, but is not close enough"
    )
    decision = decide("User prefers strong black coffee", similar, near_duplicate=0.8)
    assert decision.action == "UPDATE"


def test_exact_match_wins_over_contradiction_and_near_duplicates() -> None:
    decision = decide(
        "User likes coffee",
        memory("mem_neg", "User does not like coffee", 0.95),
        memory("mem_same", "User likes coffee.", 0.9),
    )
    assert (decision.action, decision.target_id) == ("NONE", "mem_same")


def test_a_rewording_wins_over_a_closer_contradiction() -> None:
    decision = decide(
        "User enjoys coffee",
        memory("mem_neg", "User does not like coffee", 0.95),
        memory("mem_same", "Coffee is something the user likes", 0.7),
    )
    assert (decision.action, decision.target_id) == ("NONE", "mem_same")


def test_the_generated_fact_set_keeps_every_fact() -> None:
    """Every pair of the benchmark's facts of one user: rewordings relate, distinct facts don't.

    Pairs the consolidator sees in a dream are a subset of these (the similar ones).
    """
    facts = generate(users=2, per_user=120)
    forms = {w.text: read_form(w.text) for w in facts.wordings()}
    for user in facts.users:
        mine = [w for w in facts.wordings() if w.user == user]
        for index, one in enumerate(mine):
            for two in mine[index + 1 :]:
                found = compare(forms[two.text], forms[one.text])
                if one.fact_id == two.fact_id:
                    assert found.kind == SAME or found.overlap >= TEXT_NEAR_DUPLICATE, (one, two)
                else:
                    assert found.kind == DIFFERENT, (one.text, two.text, found)


def test_forms_read_the_equivalences() -> None:
    assert content_words("Alice's sister's based in Berlin.") == {
        "alice",
        "sister",
        "live",
        "berlin",
    }
    # Words show as first written, or as the synonym they stand for.
    assert content_words("The user goes biking on Saturdays") == {"user", "cycle", "saturdays"}
    form = read_form("Over coffee, Alice prefers tea")
    assert form.words == read_form("Alice would rather drink tea than coffee").words
    assert "than:coffe" in form.words
    assert read_form("User's sister likes sushi").possessed == {"sister"}
    assert read_form("The sister of Alice likes sushi").possessed == {"sister"}
    assert read_form("User hates jazz").negated and not read_form("User likes jazz").negated
    assert key("hikes") == key("hiking") == key("hike")
    assert key("movies") == key("movie")


# --- settings and registration ---------------------------------------------------------------


def test_settings_are_checked() -> None:
    assert parse_settings(None).near_duplicate == 0.9
    assert parse_settings({"near_duplicate": 1}).near_duplicate == 1.0
    for bad in (0, 1.5, True, "0.9", float("nan")):
        with pytest.raises(RulesSettingError, match=r"near_duplicate = .*e\.g\. near_duplicate"):
            parse_settings({"near_duplicate": bad})
    with pytest.raises(RulesSettingError, match=r"unknown setting.*near_dup;"):
        parse_settings({"near_dup": 0.9})
    with pytest.raises(ValueError, match="near_duplicate"):
        RulesConsolidator(near_duplicate=0)


def test_plugin_registers_both_components_named_rules(tmp_path: Path) -> None:
    registered: dict[str, tuple[Any, dict[str, Any]]] = {}

    def register(name: str, factory: Any, **options: Any) -> None:
        registered[factory.__name__] = (name, options)

    register_extractors(register)
    register_consolidators(register)
    assert {k: v[0] for k, v in registered.items()} == {
        "build_extractor": "rules",
        "build_consolidator": "rules",
    }
    assert all(not v[1].get("requires") for v in registered.values())  # needs nothing
    built = build_consolidator(PluginContext(tmp_path, {"near_duplicate": 0.95}))
    assert isinstance(built, Consolidator)
    assert built.near_duplicate == 0.95
    assert isinstance(RulesExtractor(), Extractor)
