"""The third part of the rules judge's attribute table: the language of change itself.

How people tell that something moved on, whatever the thing: a piece of work or a process
going through its stages ("is researching adoption agencies" -> "has applied to adoption
agencies" -> "passed the adoption agency interviews"), a tally that grows ("has won two
tournaments" -> "four"), a status that "went from planned to in progress", a version
"migrated from Django 3.2 to 4.1", an address to "use for Bob from now on", a service
"handed over" to another team, an injury healed. Same
:class:`~memex_rules.supersession_table.Rule` shape; the values are read by
:mod:`memex_rules.supersession_readers_changes`.
"""

from __future__ import annotations

from memex_rules.supersession_table import ADVERB_WORDS, STATUS, Rule
from memex_rules.supersession_values import THINGS

#: Who does the work: one or two words ("Caroline", "user", "we", "the team", "user's sister").
_WHO = r"^(?P<w>(?:the\s+)?(?:[\w-]+'s\s+)?[\w-]+(?:\s+(?-i:[A-Z])[\w-]*)?)\s+"
_ADV = rf"(?:(?:{ADVERB_WORDS})\s+)*"
_IS = rf"(?:is|are|was|has\s+been|have\s+been)\s+{_ADV}"
_HAS = rf"(?:(?:has|have|had)\s+{_ADV})?"
#: The stages of a piece of work or a process, each its own verb group (the reader names it).
STAGES = (
    (
        "considering",
        rf"{_IS}(?:researching|looking\s+into|considering|exploring|thinking\s+about|"
        r"weighing\s+up|weighing|searching\s+for|looking\s+for|shopping\s+for)",
    ),
    (
        "in progress",
        rf"{_IS}(?:working\s+on|building|writing|drafting|preparing|renovating|"
        r"training\s+for|studying\s+for|practi[cs]ing\s+for|saving\s+(?:up\s+)?for|setting\s+up)",
    ),
    (
        "applied",
        rf"{_HAS}(?:applied|signed\s+up|registered|put\s+in\s+an\s+application)|"
        rf"{_IS}applying",
    ),
    ("submitted", rf"{_HAS}(?:submitted|sent\s+(?:off|in|out)?|entered|pitched)"),
    (
        "interviewed",
        rf"{_HAS}(?:interviewed|auditioned|had\s+(?:an?|her|his|their|my)\s+(?:first\s+|second\s+|"
        r"final\s+)?(?:interview|audition))|"
        rf"{_IS}(?:interviewing|auditioning)",
    ),
    (
        "accepted",
        rf"(?:{_IS}|got\s+{_ADV})(?:accepted|admitted|approved|selected|shortlisted)|"
        rf"{_HAS}got\s+into",
    ),
    (
        "offered",
        rf"{_HAS}(?:got|received|has|was\s+made)\s+(?:an?\s+|the\s+)?(?:job\s+)?offer",
    ),
    ("found", rf"{_HAS}(?:found|secured|landed)"),
    ("bought", rf"{_HAS}(?:bought|purchased)"),
    ("rejected", rf"(?:{_IS}|got\s+{_ADV})(?:rejected|turned\s+down|declined)"),
    ("passed", rf"{_HAS}(?:passed|aced)"),
    ("failed", rf"{_HAS}(?:failed|flunked)"),
    ("done", rf"{_HAS}(?:defended|completed|finished|wrapped\s+up)"),
    ("retaken", rf"{_HAS}(?:retook|retaken|re-?took|redid|redone)"),
    ("signed", rf"{_HAS}(?:signed|closed|sealed)"),
    ("open", rf"{_HAS}(?:opened|launched|unveiled)"),
    ("published", rf"{_HAS}(?:published|released)"),
)
#: How far along a person's piece of work or process each stage is: a later fact of an
#: earlier stage ("Alice is looking for a car" after "Alice bought a car") is another round
#: of it, not a change of the first, and closes nothing.
STAGE_RANK = {
    stage: rank
    for rank, stages in enumerate(
        (
            "considering",
            "in progress",
            "done",
            "applied|submitted|interviewed",
            "offered",
            "accepted|rejected|passed|failed|retaken|signed|open|published|found|bought|cancelled",
        )
    )
    for stage in stages.split("|")
}


def goes_back(new: str, old: str) -> bool:
    """True when stage ``new`` comes before stage ``old`` of one piece of work."""
    return STAGE_RANK.get(new, -1) < STAGE_RANK.get(old, -1) and new in STAGE_RANK


_PREP = r"(?:to|for|into|with|at|on|in|about|off|by|from)"
_STAGE_GROUPS = "|".join(f"(?P<g{index}>{verbs})" for index, (_n, verbs) in enumerate(STAGES))
#: Stages a thing itself is in: "Joanna's latest screenplay was rejected by a studio".
_PASSIVE = (
    r"(?P<v>accepted|rejected|approved|published|selected|shortlisted|turned\s+down|"
    r"picked\s+up|opened|open|finished|complete|completed)"
)

_NUMBER = (
    r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|a\s+dozen|"
    r"twenty|thirty|forty|fifty)"
)
ORDINALS = tuple(
    "second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth".split()  # noqa: SIM905
)
_ORDINAL = r"(?:" + "|".join(ORDINALS) + r"|\d+(?:st|nd|rd|th))"
_TALLY_VERB = (
    r"(?P<t>won|run|ran|completed|finished|written|published|read|visited|climbed|earned|"
    r"released|recorded|played|taught|raised|sold|built|made|hosted|organi[sz]ed)"
)

CHANGE_RULES: tuple[Rule, ...] = (
    # --- a piece of work or a process and its stages -------------------------------------------
    Rule(
        "status",
        _WHO + rf"(?:{_STAGE_GROUPS})\s+(?:{_PREP}\s+)?(?P<o>.+)",
        kind="progress",
        whole=True,
    ),
    Rule(
        "status",
        rf"^(?P<s>[^,;]+?'s\s+[^,;]+?)\s+(?:is|was|got|has\s+been|were|are)\s+{_ADV}{_PASSIVE}\b.*",
        kind="progress_of",
        whole=True,
    ),
    # --- a tally that grows: "has won two tournaments", "won his fourth tournament" -------------
    Rule(
        "tally",
        rf"(?:has|have)\s+{_ADV}{_TALLY_VERB}\s+(?:(?:a\s+total\s+of|over|about|around|nearly|"
        rf"almost|exactly)\s+)?(?P<c>{_NUMBER})\s+(?P<o>.+)",
        kind="tally",
    ),
    Rule(
        "tally",
        rf"{_ADV}{_TALLY_VERB}\s+(?:her|his|their|my|its|our)\s+(?P<c>{_ORDINAL})\s+(?P<o>.+)",
        kind="tally",
    ),
    # "got a third turtle": a count of things told by its ordinal
    Rule(
        "has",
        r"(?:got|adopted|bought|welcomed|took\s+in|brought\s+home)\s+(?:a|an|her|his|their|my)\s+"
        rf"(?P<c>{_ORDINAL})\s+(?:[\w-]+\s+)?(?P<a>{THINGS})\b.*",
        kind="ordinal_count",
    ),
    # --- a status "went from planned to in progress" ------------------------------------------
    Rule(
        "status",
        rf"(?:went|moved|changed|switched|was\s+moved|got\s+moved)\s+from\s+(?:{STATUS})\s+"
        rf"(?:to|into)\s+(?P<v>{STATUS})",
        kind="status",
    ),
    # --- versions: "We migrated everything from Django 3.2 to 4.1" ------------------------------
    Rule(
        "version",
        r"(?:upgraded|updated|bumped|moved|migrated|switched|went)\s+(?:everything|all|us|it|"
        r"(?:the|our)\s+[\w-]+(?:\s+[\w-]+)?\s+)?\s*from\s+(?P<a>[a-z][\w.+#-]*(?:\s+[a-z][\w+#-]*)?)"
        r"\s+v?(?P<p>\d+(?:\.\d+)*\w*)\s+to\s+(?:[a-z][\w.+#-]*\s+)?v?(?P<v>\d+(?:\.\d+)*\w*)\b.*",
        kind="version",
    ),
    # --- an address to use for someone "from now on" --------------------------------------------
    Rule(
        "email",
        r"^(?:please\s+)?(?:use|write\s+to|email|e-mail|try)\s+(?P<v>\S+@\S+)\s+(?:for|to\s+reach|"
        r"to\s+contact|when\s+(?:emailing|contacting|writing\s+to))\s+(?P<s>(?-i:[A-Z])[\w-]*)\b.*",
        kind="email_for",
        whole=True,
    ),
    Rule(
        "email",
        r"^(?:you\s+can\s+|please\s+)?(?:reach|contact|email|e-mail|write\s+to)\s+(?:me|user)\s+"
        r"(?:at|on|via)\s+(?P<v>\S+@\S+)(?P<s>).*",
        kind="email_to_me",
        whole=True,
    ),
    # --- a diet switched to: "I've switched to a vegan diet" -------------------------------------
    Rule(
        "diet",
        r"(?:(?:has|have)\s+)?(?:switched|moved|changed|converted|went\s+over)\s+(?:over\s+)?to\s+(?:a\s+|an\s+|being\s+)?"
        r"(?P<v>[\w-]+)(?:\s+diet)?\b.*",
        kind="diet",
        change=True,
    ),
    Rule(
        "name",
        r"^(?P<v>(?-i:[A-Z])[\w-]*(?:\s+(?-i:[A-Z])[\w-]*)*)\s+is\s+(?:now\s+)?(?P<s>[^,;]+?)'s\s+"
        r"(?:new\s+)?name",
        kind="name",
        whole=True,
    ),
    # --- a thing handed from one owner to another ----------------------------------------------
    Rule(
        "owner",
        r"^(?P<p>.+?)(?<!\bwas)(?<!\bbeen)(?<!\bgot)\s+(?:handed|passed|transferred)\s+(?:over\s+)?"
        r"(?P<s>(?!over\b)(?:the\s+)?[\w-]+"
        r"(?:\s+[\w-]+){0,2}?)\s+(?:over\s+)?to\s+(?P<v>.+)",
        kind="owner_handed",
        whole=True,
        change=True,
    ),
    Rule(
        "owner",
        r"^(?P<s>(?:the\s+)?[\w-]+(?:\s+[\w-]+){0,2}?)\s+(?:was|has\s+been|got|is\s+being)\s+"
        r"(?:handed|passed|transferred)\s+(?:over\s+)?to\s+(?P<v>.+)",
        kind="owner_handed",
        whole=True,
        change=True,
    ),
    # --- an injury and its healing --------------------------------------------------------------
    Rule(
        "health",
        r"(?:is|was|has\s+been|got)\s+(?:still\s+)?(?:sidelined|laid\s+up|out)\s+(?:by|with)\s+"
        r"(?:an?\s+|(?:her|his|their|my)\s+)?(?:[\w-]+\s+)?(?:injury|illness|surgery|infection)\b.*",
        kind="fixed",
        value="sick",
    ),
    Rule(
        "health",
        r"(?:can|could|is\s+able\s+to)\s+(?:[\w-]+\s+){1,2}again\s+(?:without\s+(?:any\s+)?pain|"
        r"after\s+(?:her|his|their|my)\s+(?:injury|surgery|illness))\b.*",
        kind="fixed",
        value="well",
        change=True,
        keeps_times=True,
    ),
)
