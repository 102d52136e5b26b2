"""memex plugin ``rules``: memory extraction, consolidation and supersession without a model.

The default extractor, consolidator and supersession judge (``[extractor] use = "rules"``,
``[consolidator] use = "rules"``, ``[supersession] use = "rules"``). The extractor keeps
first-person statements ("I prefer tea", "my name is Dana", "remember that ...")
rewritten in the third person ("User prefers tea"); the consolidator reads each
fact's content words after a small English equivalence table (:mod:`memex_rules.wording`), compares
them (:mod:`memex_rules.compare`: a rewording has the same words, a fact with a
changed slot adds some and drops others) and, with the cosines memex supplies,
decides ADD, UPDATE, DELETE or NONE. The supersession judge
(:mod:`memex_rules.supersession`) reads each fact's subject, attribute and value and closes
the earlier facts a new one updates ("Alice moved to Berlin" closes "Alice lives in Paris",
not "Alice likes Berlin's museums"). Settings::

    [consolidator.rules]
    near_duplicate = 0.9
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memex_core.domain import PluginContext
from memex_core.hookspecs import hookimpl
from memex_core.plugins import lazy_exports

if TYPE_CHECKING:
    from memex_rules.compare import Comparison, compare
    from memex_rules.consolidator import RulesConsolidator, content_words, contradicts
    from memex_rules.extractor import USER_ROLES, RulesExtractor
    from memex_rules.settings import RulesSettingError, RulesSettings, parse_settings
    from memex_rules.statements import Statement, read_statement, read_statements
    from memex_rules.supersession import RulesSupersessionJudge
    from memex_rules.wording import FactForm, read_form

#: Where each public name lives. They load on first use: every ``memex`` process imports
#: this package to find the plugins, and a search never extracts or consolidates memory
#: (the wording tables and statement patterns cost ~30-50 ms to import).
_EXPORTS = {
    "Comparison": "compare",
    "compare": "compare",
    "RulesConsolidator": "consolidator",
    "content_words": "consolidator",
    "contradicts": "consolidator",
    "USER_ROLES": "extractor",
    "RulesExtractor": "extractor",
    "RulesSettingError": "settings",
    "RulesSettings": "settings",
    "parse_settings": "settings",
    "Statement": "statements",
    "read_statement": "statements",
    "read_statements": "statements",
    "RulesSupersessionJudge": "supersession",
    "FactForm": "wording",
    "read_form": "wording",
}

__all__ = [
    "USER_ROLES",
    "Comparison",
    "FactForm",
    "RulesConsolidator",
    "RulesExtractor",
    "RulesSettingError",
    "RulesSettings",
    "RulesSupersessionJudge",
    "Statement",
    "build_consolidator",
    "build_extractor",
    "build_supersession_judge",
    "compare",
    "content_words",
    "contradicts",
    "parse_settings",
    "read_form",
    "read_statement",
    "read_statements",
]


__getattr__ = lazy_exports(__name__, _EXPORTS)


def build_extractor(context: PluginContext) -> RulesExtractor:
    from memex_rules.extractor import RulesExtractor

    return RulesExtractor()


def build_consolidator(context: PluginContext) -> RulesConsolidator:
    from memex_rules.consolidator import RulesConsolidator
    from memex_rules.settings import parse_settings

    return RulesConsolidator(near_duplicate=parse_settings(context.settings).near_duplicate)


def build_supersession_judge(context: PluginContext) -> RulesSupersessionJudge:
    # the judge that also reads questions (memex_rules.question_slots): same closings
    from memex_rules.question_slots import RulesJudge
    from memex_rules.supersession_settings import parse_judge_settings

    settings = parse_judge_settings(context.settings)
    return RulesJudge(
        changes_named_again=settings.changes_named_again, moved_subjects=settings.moved_subjects
    )


@hookimpl
def register_extractors(register: Any) -> None:
    register(
        "rules",
        build_extractor,
        description="First-person statements (I prefer..., my name is...) as facts; no model.",
    )


@hookimpl
def register_consolidators(register: Any) -> None:
    register(
        "rules",
        build_consolidator,
        description=(
            "Text rules: rewordings (same content words after equivalences), flipped "
            "negations, facts that add detail; no model."
        ),
    )


@hookimpl
def register_supersession_judges(register: Any) -> None:
    register(
        "rules",
        build_supersession_judge,
        description=(
            "Text rules: a new fact closes an earlier one of the same subject and "
            "attribute (lives in, works at, a date, a version, a name...); no model."
        ),
    )
