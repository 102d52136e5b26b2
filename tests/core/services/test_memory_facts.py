"""Fact types (the seven defaults and files that define others) and fact comparison rules."""

from __future__ import annotations

from pathlib import Path

import pytest

from memex_core.domain import FactType
from memex_core.domain.memory.facts import (
    DEFAULT_FACT_TYPES,
    FACT_TYPE_NAME,
    fact_tokens,
    normalise_fact,
    text_similarity,
)
from memex_core.errors import MemexError
from memex_core.services.fact_types import FactTypesError, load_fact_types

FIXTURES = Path(__file__).parents[2] / "fixtures" / "fact_types"
DEFAULT_NAMES = [
    "preference",
    "personal_detail",
    "plan",
    "activity_preference",
    "health",
    "professional",
    "misc",
]

# --- the defaults ---------------------------------------------------------------------------


def test_defaults_are_mem0s_seven_categories_in_order() -> None:
    assert [t.name for t in DEFAULT_FACT_TYPES] == DEFAULT_NAMES
    for fact_type in DEFAULT_FACT_TYPES:
        assert FACT_TYPE_NAME.fullmatch(fact_type.name)
        assert fact_type.description.endswith(".")
        assert fact_type.examples, f"{fact_type.name} has no examples"
        assert all(e.startswith("User") for e in fact_type.examples)


# --- normalise_fact -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("User likes tea.", "user likes tea"),
        ("The user likes tea!", "User likes tea"),
        ("User   likes\ttea", "User likes tea"),
        ("User likes \uff54\uff45\uff41", "User likes tea"),  # full-width letters (NFKC)
        ("User likes Straße", "user likes strasse"),  # casefold, not lower()
        ("User doesn\u2019t like tea", "User doesn't like tea"),  # typographic apostrophe
        ("Likes tea", "User likes tea"),  # mem0-style facts have no subject
    ],
)
def test_normalise_fact_equates_spellings_of_the_same_fact(a: str, b: str) -> None:
    assert normalise_fact(a) == normalise_fact(b)


def test_normalise_fact_keeps_what_changes_the_meaning() -> None:
    assert normalise_fact("User doesn't like tea") == "doesnt like tea"
    assert normalise_fact("User doesn't like tea") != normalise_fact("User likes tea")
    # A possessive is not the bare subject: "User's name" keeps its first word.
    assert normalise_fact("User's name is Dana") == "users name is dana"
    assert normalise_fact("user") == "user"  # a lone word is never dropped
    assert normalise_fact("I like tea") == "like tea"
    assert normalise_fact("Users of the API need a key") == "users of the api need a key"
    assert normalise_fact("Python 3.12 - fast") == "python 3 12 fast"
    assert normalise_fact("  ...  ") == ""


# --- text_similarity ------------------------------------------------------------------------


def test_fact_tokens_strip_plural_and_third_person_s_only() -> None:
    assert fact_tokens("User likes berries and glasses") == ["like", "berry", "and", "glasse"]
    assert fact_tokens("This bus is glass") == ["this", "bus", "is", "glass"]


def test_text_similarity_is_a_cosine_over_normalised_tokens() -> None:
    assert text_similarity("User likes tea", "user likes tea.") == pytest.approx(1.0)
    assert text_similarity("User likes tea", "I like tea") == pytest.approx(1.0)
    # {like, tea} vs {like, green, tea}: 2 / (sqrt 2 * sqrt 3)
    assert text_similarity("User likes tea", "User likes green tea") == pytest.approx(
        2 / (2**0.5 * 3**0.5)
    )
    assert text_similarity("User likes tea", "Meetings are on Friday") == 0.0
    assert text_similarity("", "User likes tea") == 0.0
    assert text_similarity("...", "...") == 0.0


def test_text_similarity_is_symmetric_and_bounded() -> None:
    pairs = [
        ("User lives in Lyon", "User lives in Lyon with their partner"),
        ("User prefers tea over coffee", "User prefers coffee over tea"),
        ("User is allergic to peanuts", "User is not allergic to peanuts"),
    ]
    for a, b in pairs:
        score = text_similarity(a, b)
        assert score == pytest.approx(text_similarity(b, a))
        assert 0.0 < score <= 1.0 + 1e-9
    # Word order is not seen: a bag of words.
    assert text_similarity(*pairs[1]) == pytest.approx(1.0)


# --- load_fact_types: valid files -----------------------------------------------------------


def test_yaml_file_replaces_the_defaults() -> None:
    types = load_fact_types(FIXTURES / "household.yaml")
    assert [t.name for t in types] == ["pet", "diet", "home", "misc"]
    pet = types[0]
    assert pet == FactType(
        "pet",
        "The user's pets, their names, breeds, food and vet visits.",
        ("User has a beagle called Rex", "User's cat eats only wet food"),
    )
    assert types[2].examples == ()


def test_toml_file_extends_the_defaults_and_can_replace_one() -> None:
    types = load_fact_types(FIXTURES / "engineering.toml")
    names = [t.name for t in types]
    assert names == [*DEFAULT_NAMES, "tooling", "codebase_convention"]
    professional = next(t for t in types if t.name == "professional")
    assert professional.description == "Job title, employer, team and on-call duties."
    assert professional.examples == ("User is on the payments team at Acme",)
    health = next(t for t in types if t.name == "health")
    assert health == DEFAULT_FACT_TYPES[4]  # untouched


def test_extends_defaults_with_no_entries_is_the_defaults() -> None:
    assert load_fact_types(str(FIXTURES / "extends_only.yml")) == DEFAULT_FACT_TYPES


def test_a_single_example_string_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "one.yaml"
    path.write_text("fact_types:\n  - name: pet\n    description: Pets.\n    examples: A cat\n")
    assert load_fact_types(path) == (FactType("pet", "Pets.", ("A cat",)),)


# --- load_fact_types: errors name the file, the entry and the fix ---------------------------


def _error(path: Path) -> FactTypesError:
    with pytest.raises(FactTypesError) as caught:
        load_fact_types(path)
    assert isinstance(caught.value, MemexError)
    assert str(path) in str(caught.value)
    return caught.value


def test_duplicate_name_names_both_entries() -> None:
    error = _error(FIXTURES / "duplicate_name.toml")
    assert error.entry == "fact_types entry 3 'pet'"
    assert "duplicate name 'pet' (entry 1 has it too)" in str(error)
    assert "rename one or merge them" in str(error)


def test_missing_description_names_the_entry() -> None:
    error = _error(FIXTURES / "missing_description.yaml")
    assert error.entry == "fact_types entry 2 'hobby'"
    assert "missing `description`" in str(error)


def test_bad_name_suggests_a_valid_one() -> None:
    error = _error(FIXTURES / "bad_name.yaml")
    assert error.entry == "fact_types entry 1 'Travel Plans'"
    assert "[a-z][a-z0-9_]*" in str(error)
    assert "'travel_plans'" in str(error)


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [
        ("empty.yaml", "", "expected a table with a `fact_types` list"),
        ("list.yaml", "- name: pet\n", "expected a table with a `fact_types` list"),
        ("none.yaml", "fact_types: []\n", "defines no fact types"),
        ("notlist.toml", 'fact_types = "pet"\n', "`fact_types` must be a list"),
        ("extends.yaml", "extends_defaults: 'yes'\n", "use true or false"),
        ("typo.yaml", "fact_type: []\n", "unknown top-level key(s) fact_type"),
        ("entry.yaml", "fact_types: [pet]\n", "each entry must be a table"),
        ("noname.yaml", "fact_types: [{description: x}]\n", "missing `name`"),
        (
            "key.toml",
            '[[fact_types]]\nname = "pet"\ndescription = "x"\nexample = ["a"]\n',
            "unknown key(s) example",
        ),
        (
            "examples.yaml",
            "fact_types: [{name: pet, description: x, examples: [1, 2]}]\n",
            "`examples` must be a list of non-empty strings",
        ),
        ("blank.yaml", "fact_types: [{name: pet, description: '  '}]\n", "missing `description`"),
        ("syntax.toml", "[[fact_types]\n", "invalid TOML"),
        ("syntax.yaml", "fact_types:\n  - name: [pet\n", "invalid YAML"),
        ("types.json", "{}", "name the file *.yaml, *.yml or *.toml"),
    ],
)
def test_invalid_files_say_what_to_fix(tmp_path: Path, name: str, text: str, expected: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert expected in str(_error(path))


def test_yaml_syntax_error_gives_the_line(tmp_path: Path) -> None:
    path = tmp_path / "types.yaml"
    path.write_text("fact_types:\n  - name: pet\n    description: [unclosed\n")
    assert "line 4" in (_error(path).entry or "")


def test_missing_file(tmp_path: Path) -> None:
    assert "no such file" in str(_error(tmp_path / "absent.yaml"))
