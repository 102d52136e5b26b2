"""Word tables the supersession readers check values against: statuses, possessed nouns,
purposes, owned things. Kept apart so :mod:`memex_rules.supersession_readers` reads as code."""

from __future__ import annotations

from memex_rules.rules_text import compile_pattern, word_set

STATUSES = (
    (
        "in progress",
        r"in\s+progress|underway|under\s+way|ongoing|in\s+development|in\s+the\s+works|"
        r"started|kicked\s+off|resumed|restarted|unblocked|reopened|on\s+track|behind\s+schedule|"
        r"back\s+on\s+track",
    ),
    ("in review", r"in\s+review|under\s+review|pending"),
    ("submitted", r"submitted"),
    ("in testing", r"in\s+testing|in\s+qa|in\s+beta"),
    ("on hold", r"on\s+hold|paused|stalled|halted|put\s+on\s+hold"),
    ("blocked", r"blocked"),
    ("done", r"done|finished|complete|completed|wrapped\s+up|over|closed|merged"),
    (
        "shipped",
        r"shipped|launched|released|live|went\s+live|deployed|generally\s+available|ga|"
        r"went\s+ga",
    ),
    ("cancelled", r"cancell?ed|abandoned|shelved|scrapped|dropped"),
    ("planned", r"planned|scheduled|approved|a\s+go|green-?lit|greenlit|not\s+started|open"),
    ("delayed", r"delayed|postponed"),
    ("rejected", r"rejected"),
    ("deprecated", r"deprecated|archived"),
)
STATUS_OF = tuple((name, compile_pattern(rf"^(?:{words})$")) for name, words in STATUSES)

POSSESSED_AS = (
    ("last name", r"(?:last\s+|family\s+|maiden\s+|sur)name"),
    ("first name", r"first\s+name"),
    ("name", r"(?:full\s+|middle\s+|nick|legal\s+|preferred\s+)?name"),
    ("job", r"job(?:\s+title)?|occupation|profession|role|title|position"),
    ("works at", r"employer|company|workplace"),
    ("email", r"e-?mail(?:\s+address)?"),
    ("phone", r"phone(?:\s+number)?|mobile(?:\s+number)?|cell(?:\s+(?:phone|number))?|number"),
    ("address", r"(?:home\s+|mailing\s+|postal\s+)?address"),
    ("is from", r"hometown|home\s+town"),
    ("lives in", r"city|home"),
    ("school", r"school|university|college"),
    ("studies", r"major"),
    ("boss", r"manager|boss|supervisor"),
    ("team", r"team|department"),
    ("time zone", r"time\s*zone"),
    ("date", r"deadline|due\s+date|date"),
    (
        "relationship",
        r"wife|husband|spouse|partner|girlfriend|boyfriend|fianc[ée]e?|"
        r"relationship\s+status|marital\s+status",
    ),
)
POSSESSED_OF = tuple((name, compile_pattern(rf"^(?:{words})$")) for name, words in POSSESSED_AS)

PURPOSE_STOP = compile_pattern(
    r"^(?:work|love|fun|now|good|years?|months?|weeks?|days?|a\s+while|ages|free|real|"
    r"sure|once|school|a\s+living|her|him|them|me|us|it|this|that|example|instance|"
    r"the\s+(?:first|last|next)|myself|herself|himself|themselves|ourselves|user)\b"
)

#: One word a subject-first purpose fact may start with ("Hosting is on Hetzner").
PURPOSES = compile_pattern(
    r"^(?:hosting|ci|cd|deploys?|deployments?|auth|authentication|login|frontend|backend|"
    r"storage|logging|logs|monitoring|alerting|analytics|search|payments?|billing|email|"
    r"chat|messaging|docs|documentation|tracking|testing|tests|database|db|cache|caching|"
    r"queues?|infra|infrastructure|production|prod|staging|builds?|packaging|linting|"
    r"formatting|orm|routing|state|styling|css|observability|tracing|metrics|secrets|dns|"
    r"cdn|email|notes|design|planning|backups?|repo|repository|code|source|wiki|website|site|"
    r"blog|newsletter|app|api|tickets|issues|bugs|tasks|chat|tracking)$"
)

OWNED_THINGS = compile_pattern(
    r"\b(?:service|system|api|app|pipeline|repo|repository|project|module|component|dashboard|"
    r"database|library|feature|process|platform|infrastructure|infra|website|site|backend|"
    r"frontend|codebase|reporting|login|billing|payments|deploys|deployment|on-call|roadmap|"
    r"onboarding|search|analytics|sdk|cli|integration|migration|release|budget|account)$"
)

DIETS = word_set(
    "vegetarian vegan pescatarian pescetarian carnivore omnivore keto paleo flexitarian "
    "gluten-free dairy-free plant-based mediterranean low-carb raw halal kosher"
)

SCHOOLS = compile_pattern(
    r"\b(?:school|college|university|academy|institute|uni|polytechnic|conservatory|"
    r"seminary|kindergarten|preschool|high|mit|stanford|harvard|oxford|cambridge)\b"
)

CLUBS = compile_pattern(
    r"\b(?:club|gym|group|team|class|classes|league|band|choir|community|course|program|"
    r"programme|society|circle|meetup|forum|discord|server|church|army|navy|military|party)$"
)

NOT_ACTIVITY = word_set("is was has does goes says agrees thinks knows needs wants works lives")
