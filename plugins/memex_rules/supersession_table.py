"""The attributes the rules judge knows, as patterns over a prepared fact: this module holds
the personal ones (where someone lives, work, studies, preferences, relationships, statuses,
age, contact), :mod:`memex_rules.supersession_table_projects` the rest.

Each :class:`Rule` is a pattern for what follows the subject ("lives in X", "works at X",
"is married to X") or, with ``whole``, for the whole sentence ("X is Alice's favourite
colour"). ``single`` attributes hold one value at a time (where someone lives, their
employer, a plan's date, a tool's version): another value closes the earlier fact.
Multi-valued ones (likes, uses, visited) close only when the same value flips ("no longer
likes jazz"). ``weak`` rules give way to any other rule that read the same subject.

Values pass through a *kind* check (:mod:`memex_rules.supersession_readers`): a date must look
like a date, a job like a job, a place must not be a team or a tool, and so on.
"""

from __future__ import annotations

from dataclasses import dataclass

from memex_rules.supersession_values import ANY, JOB, NEG, THINGS

ADVERB_WORDS = (
    rf"now|currently|still|also|recently|finally|just|officially|actually|already|"
    rf"eventually|permanently|happily|newly|then|even|really|since|soon|temporarily|{NEG}"
)
ADVERB = rf"(?:{ADVERB_WORDS})"
#: Words that mark a fact as an update even when its verb does not ("now", "no longer").
CHANGE_WORDS = (
    rf"\b(?:now|currently|nowadays|these\s+days|recently|finally|officially|newly|{NEG}|"
    r"anymore|again|switched|changed|moved|upgraded|updated|migrated|relocated|quit|left|"
    r"replaced|renamed|became|turned|promoted|transferred|rescheduled|postponed|"
    r"new(?=\s+(?:job|role|position|e-?mail|address|phone|number|favou?rite|home|house|"
    r"apartment|car|partner|girlfriend|boyfriend|name|team|manager|boss|school|title|diet|"
    r"major|surname|last\s+name|owner|employer|company|city|doctor|landlord)))\b"
)


@dataclass(frozen=True)
class Rule:
    attribute: str
    pattern: str
    kind: str = "plain"
    single: bool = True
    weak: bool = False
    whole: bool = False
    keeps_times: bool = False
    change: bool = False
    past: bool = False
    ended: bool = False
    value: str = ""


TO_BE = r"(?:is|are|was|were|has\s+been|have\s+been|will\s+be|got|gets|became|has\s+become)"
A_THE = r"(?:(?:a|an|the)\s+)"
POSS = r"(?:her|his|their|my|its|the|our)\s+"
ORDINAL = r"(?:second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|\d+(?:st|nd|rd|th))"
#: A place of work a move may go to ("moved to the Leeds office", "moved to a new team"):
#: not where someone lives.
_WORKPLACE = (
    r"(?:the|a|an|our|my|his|her|their)\s+(?:[\w'-]+\s+){0,2}(?:office|offices|team|squad|"
    r"desk|floor|department|dept|building|site|campus|branch|role|job|position|unit|ward|"
    r"group|org|hub)\b"
)
_PLACE_PREP = r"(?:in|at|on|near|outside(?:\s+of)?|inside)"
#: Verbs that set a date with or without a preposition ("due Friday", "set for May 3").
DATE_STATE = (
    r"(?:(?:re)?scheduled|planned|set|booked|due|slated|fixed|happening|taking\s+place|"
    r"expected|held|on)"
)
#: Verbs that change a date, with its preposition ("moved to June 1", not "moved last month").
DATE_CHANGE = (
    r"(?:moved(?:\s+(?:up|forward|back|out))?|postponed|pushed(?:\s+back|\s+out)?|delayed|brought\s+forward|changed|"
    r"shifted|bumped|put\s+off|rescheduled|extended|pulled\s+in|brought\s+in|slipped|slid)"
)
DATE_PREP = r"(?:to|for|on|until|till|in|at|by|from\s+.+?\s+to)"
STATUS = (
    r"planned|in\s+progress|underway|under\s+way|ongoing|in\s+development|in\s+the\s+works|"
    r"on\s+hold|paused|blocked|stalled|done|finished|complete|completed|shipped|launched|"
    r"released|live|cancell?ed|abandoned|shelved|scrapped|approved|rejected|deployed|"
    r"in\s+review|in\s+testing|in\s+beta|deprecated|archived|delayed|postponed|on\s+track|"
    r"behind\s+schedule|wrapped\s+up|over|closed|open|merged|started|halted|dropped|"
    r"kicked\s+off|went\s+live|not\s+started|a\s+go|green-?lit|greenlit|resumed|restarted|"
    r"unblocked|reopened|back\s+on\s+track|generally\s+available|ga|went\s+ga|scheduled|pending|submitted"
)
POSSESSED = (
    r"(?:(?:full|first|last|middle|nick|maiden|legal|preferred|family)\s*name|surname|name|"
    r"job(?:\s+title)?|"
    r"occupation|profession|role|title|position|employer|company|workplace|email(?:\s+address)?|"
    r"e-mail(?:\s+address)?|phone(?:\s+number)?|mobile(?:\s+number)?|cell(?:\s+(?:phone|number))?|"
    r"(?:phone\s+)?number|(?:home\s+|mailing\s+|postal\s+)?address|age|birthday|hometown|"
    r"home\s+town|city|home|school|university|college|major|diet|salary|rent|budget|"
    r"time\s*zone|manager|boss|supervisor|doctor|dentist|therapist|team|department|status|"
    r"deadline|due\s+date|date|launch\s+date|release\s+date|start\s+date|end\s+date|"
    r"wedding\s+date|version|car|wife|husband|spouse|partner|girlfriend|boyfriend|"
    r"fianc[ée]e?|weight|height|native\s+language|first\s+language|pronouns|nationality|"
    r"religion|website|username|handle|github|twitter|linkedin|rank|grade|level|score|"
    r"relationship\s+status|marital\s+status|mortgage|landlord|address)"
)

#: The personal attributes; :mod:`memex_rules.supersession_table_projects` has the rest.
PERSONAL_RULES: tuple[Rule, ...] = (
    # --- where someone lives -----------------------------------------------------------------
    Rule(
        "lives in",
        r"(?:lives|is\s+living|resides|is\s+residing|is\s+staying|stays|has\s+lived|"
        r"has\s+been\s+living|is\s+(?:based|located|settled)|settled|has\s+settled|is\s+settling|"
        rf"makes\s+{POSS}home)\s+(?:down\s+)?{_PLACE_PREP}?\s*(?P<v>.+)",
        kind="place",
    ),
    Rule("lives in", rf"lived\s+{_PLACE_PREP}\s+(?P<v>.+)", kind="place", past=True),
    Rule(
        "lives in",
        r"(?:moved|has\s+moved|relocated|has\s+relocated|moved\s+house|emigrated|immigrated|"
        r"went\s+back|returned|is\s+back|came\s+back|has\s+returned|moves|moved\s+over)\s+"
        r"(?:back\s+|over\s+|away\s+|house\s+)?(?:from\s+(?P<p>.+?)\s+)?(?:to|into|in\s+to|home\s+to)\s+"
        # "Tom's moved to the Leeds office": a workplace, not a home
        rf"(?!{_WORKPLACE})(?P<v>.+)",
        kind="place",
        change=True,
    ),
    Rule("lives in", rf"is\s+(?:back\s+)?{_PLACE_PREP}\s+(?P<v>.+)\s+for\s+good", kind="place"),
    Rule(
        ANY,
        r"(?:moved\s+out\s+of|moved\s+away\s+from|left|quit|resigned\s+from|retired\s+from|"
        r"handed\s+in\s+(?:her|his|their|my)\s+notice\s+(?:at|to)|stopped\s+paying\s+for|"
        rf"{NEG}\s+pays\s+for|"
        r"got\s+rid\s+of|turned\s+off|switched\s+off|shut\s+down|killed|sunset|"
        r"stopped|gave\s+up|has\s+given\s+up|abandoned|had\s+to\s+rehome|rehomed|"
        r"stepped\s+down\s+from|graduated\s+from|dropped\s+out\s+of|finished|"
        r"(?:was|got)\s+(?:laid\s+off|fired|let\s+go)\s+(?:from|by)|divorced|broke\s+up\s+with|"
        r"split\s+(?:up\s+)?(?:with|from)|separated\s+from|stopped\s+using|uninstalled|"
        rf"dropped|ditched|moved\s+off(?:\s+of)?|migrated\s+(?:off|away\s+from))\s+(?:{POSS})?"
        r"(?:job\s+(?:at|with)\s+|position\s+(?:at|with)\s+)?(?P<v>.+)",
        kind="ended",
        change=True,
        ended=True,
    ),
    Rule(
        ANY,
        r"(?:left|quit)\s+(?P<p>.+?)\s+(?:for|to\s+join|to\s+work\s+(?:at|for))\s+(?P<v>.+)",
        kind="switch",
        change=True,
    ),
    Rule(
        "is from",
        r"(?:is\s+(?:originally\s+)?from|comes\s+from|grew\s+up\s+in|was\s+(?:born|raised)\s+in)"
        r"\s+(?P<v>.+)",
        kind="place",
    ),
    # --- work ----------------------------------------------------------------------------------
    Rule(
        "works at",
        r"(?:works|is\s+working|has\s+worked|has\s+been\s+working|is\s+employed|works\s+full-time|"
        r"works\s+part-time|is\s+interning|interns|is\s+(?:now\s+)?(?:an?\s+)?intern(?:ing)?|"
        r"is\s+now\s+working|has\s+a\s+job|has\s+a\s+new\s+job)"
        # not "with": "Sam's team works with Kafka" names a tool or a partner, not an employer
        r"(?:\s+as\s+(?P<r>.+?))?\s+(?:at|for|by|in)\s+(?P<v>.+)",
        kind="employer",
    ),
    Rule(
        "works at",
        r"(?:started\s+(?:working|(?:a|her|his|their|my)\s+(?:new\s+)?job|work|a\s+(?:new\s+)?position|"
        r"(?:a|her|his|their|my)\s+new\s+role)|"
        r"got\s+(?:a\s+)?(?:new\s+)?job|took\s+a\s+(?:new\s+)?job|accepted\s+a\s+(?:new\s+)?"
        r"(?:job|position|role|offer)(?:\s+offer)?|landed\s+a\s+(?:new\s+)?(?:job|role|position)|"
        r"got\s+hired|was\s+hired|has\s+been\s+hired|signed\s+with|moved\s+to\s+a\s+job|"
        r"switched\s+jobs?|changed\s+jobs?|began\s+working)"
        r"(?:\s+as\s+(?P<r>.+?))?\s+(?:at|for|with|by|to)\s+(?P<v>.+)",
        kind="employer",
        change=True,
    ),
    Rule("works at", r"worked\s+(?:at|for)\s+(?P<v>.+)", kind="employer", past=True),
    # "first week at Wise done", "Jonas's first week at Klarna went well": a new employer
    Rule(
        "works at",
        r"^(?P<s>[\w-]+?)(?:'s)?\s+first\s+(?:day|week|month|shift)\s+(?:at|with)\s+"
        r"(?P<v>(?-i:[A-Z])[\w&.-]*(?:\s+(?-i:[A-Z])[\w&.-]*)*)(?:\s+.*)?",
        kind="joined",
        change=True,
        whole=True,
    ),
    # "I spent two years at Deliveroo": time spent at a company (a name) is a job held
    Rule(
        "works at",
        r"spent\s+(?:(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|a\s+few|several|"
        r"\d+)\s+)?(?:years?|months?)\s+(?:working\s+)?(?:at|with|for)\s+(?P<v>(?-i:[A-Z]).+)",
        kind="employer",
        past=True,
    ),
    Rule(
        "works at",
        # "for" a name is an employer; "the product owner for search" is a part of the work
        rf"(?:is|works\s+as)\s+{A_THE}(?P<r>(?:[\w-]+\s+){{0,3}}?{JOB})\s+"
        r"(?:at|with|in|for(?=\s+(?-i:[A-Z])))\s+(?P<v>.+)",
        kind="employer",
    ),
    Rule("works at", r"joined\s+(?P<v>.+?)(?:\s+as\s+(?P<r>.+))?", kind="joined", change=True),
    Rule(
        "works at",
        r"(?:is\s+(?:now\s+)?(?P<x>unemployed|jobless|between\s+jobs|out\s+of\s+work|retired|"
        r"self-employed|a\s+freelancer|freelancing)|(?P<y>retired|lost\s+(?:her|his|their|my)\s+job|"
        r"(?:quit|left)\s+(?:her|his|their|my)\s+job|(?:was|got)\s+(?:laid\s+off|fired|let\s+go))"
        r"(?:\s+(?:at|with|from|by)\s+.+)?)",
        kind="no_employer",
        change=True,
    ),
    Rule("job", r"(?:works|is\s+working)\s+as\s+(?:a\s+|an\s+|the\s+)?(?P<v>.+)", kind="role"),
    Rule("job", rf"(?:is|was\s+hired\s+as|started\s+as)\s+{A_THE}(?P<v>.+)", kind="job_noun"),
    Rule(
        "job",
        r"(?:was|got|has\s+been|is\s+being)\s+promoted\s+to\s+(?:a\s+|an\s+|the\s+)?(?P<v>.+)",
        kind="role",
        change=True,
    ),
    Rule(
        "job",
        rf"(?:became|is\s+becoming|moved\s+into\s+a\s+role\s+as)\s+{A_THE}(?P<v>.+)",
        kind="job_noun",
        change=True,
    ),
    Rule("job", r"is\s+(?:the\s+)?(?P<v>head\s+of\s+.+|(?:ceo|cto|cfo|coo|vp)\b.*)", kind="role"),
    Rule(
        "team",
        r"(?:moved|transferred|switched|was\s+moved|got\s+moved|was\s+transferred|"
        r"got\s+transferred|joined|is\s+(?:on|in)|works\s+(?:on|in))\s+(?:to\s+)?(?:the\s+)?"
        r"(?P<v>[\w-]+(?:\s+[\w-]+){0,2}\s+(?:team|department|group|division|squad|org))\b.*",
        kind="plain",
    ),
    # --- studies -------------------------------------------------------------------------------
    Rule(
        "studies",
        r"(?:studies|is\s+studying|majors\s+in|is\s+majoring\s+in|has\s+a\s+major\s+in|"
        r"is\s+doing\s+(?:a|an|her|his|their|my)\s+[\w'.]+(?:\s+degree)?\s+in|is\s+pursuing\s+"
        r"(?:a|an)\s+(?:[\w'.]+\s+)?(?:degree\s+)?in|is\s+a\s+(?:[\w-]+\s+)?student\s+(?:of|in)|"
        r"switched\s+(?:her|his|their|my)\s+major\s+to|changed\s+(?:her|his|their|my)\s+major\s+to)"
        r"\s+(?!(?:at|in|on|with|for|from|during|hard|late|abroad|every|each|daily|weekly|"
        r"nightly|most|all|together|alone|online|part-time|full-time)\b)(?P<v>.+?)(?:\s+at\s+.+)?",
        kind="plain",
    ),
    # a course of study by what it leads to: "is doing the Google Data Analytics certificate",
    # "is enrolled in the Open University MSc in Data Science"
    Rule(
        "studies",
        r"(?:is\s+(?:now\s+)?(?:doing|taking|enrolled\s+(?:in|on)|studying\s+for)|enrolled\s+(?:in|on))\s+"
        r"(?P<v>(?:a|an|the|her|his|their|my)\s+(?:[\w'.&-]+\s+){0,5}?(?:certificate|cert|degree|"
        r"diploma|msc|ma|bsc|ba|phd|masters?|mba|apprenticeship|bootcamp|qualification|nvq|"
        r"a-levels?)\b.*)",
        kind="plain",
    ),
    Rule(
        "school",
        r"(?:studies|is\s+studying|is\s+(?:now\s+)?(?:a\s+)?(?:[\w-]+\s+){0,2}?student|"
        r"is\s+enrolled|enrolled|started\s+(?:college|university|school|grad\s+school)|"
        r"goes\s+to\s+(?:school|college|university)|transferred)\s+(?:[\w-]+\s+){0,3}?"
        r"(?:at|to)\s+(?P<v>.+)",
        kind="plain",
    ),
    Rule("school", r"(?:attends|goes\s+to)\s+(?P<v>.+)", kind="school"),
    # --- preferences ---------------------------------------------------------------------------
    # how answers are laid out: "prefers answers in bullet points", "prefers full paragraphs"
    Rule(
        "answer format",
        r"(?:(?:prefers|wants)\s+(?:(?:answers?|responses?|replies)\s+(?:in|as)\s+)?|"
        r"likes\s+(?:answers?|responses?|replies)\s+(?:in|as)\s+)"
        r"(?P<v>(?:[\w-]+\s+){0,2}?(?:paragraphs|bullet\s+points|bullets|bullet\s+lists|"
        r"(?:numbered\s+)?lists|tables|prose|markdown|plain\s+text))\b.*",
        kind="plain",
    ),
    Rule(
        "favourite",
        r"^(?P<s>.+?)'s\s+(?:new\s+|current\s+|all-time\s+|absolute\s+)?(?:favou?rite|preferred|"
        r"go-to|top)\s+(?P<a>[\w-]+(?:\s+[\w-]+)??)\s+(?:is|are|has\s+become|became|"
        rf"is\s+now|changed\s+to|has\s+changed\s+to|{NEG}\s+is)\s+(?P<v>.+)",
        kind="favourite",
        whole=True,
    ),
    Rule(
        "favourite",
        r"^(?P<v>.+?)\s+(?:is|are|has\s+become|became)\s+(?:now\s+|still\s+|no\s+longer\s+)?"
        r"(?P<s>[^,;]+?)'s\s+(?:new\s+|all-time\s+)?(?:favou?rite|preferred|go-to)\s+"
        r"(?P<a>[\w-]+(?:\s+[\w-]+)?)",
        kind="favourite",
        whole=True,
    ),
    Rule(
        "favourite",
        r"(?:likes|loves|enjoys|prefers)\s+(?P<v>.+?)\s+(?:the\s+)?(?:best|most)",
        kind="best",
    ),
    Rule(
        "prefers",
        r"(?:prefers|would\s+rather\s+(?:have|use|drink|eat)|likes|loves|enjoys|"
        r"has\s+switched\s+to|now\s+prefers)\s+(?P<v>.+?)\s+(?:over|to|rather\s+than|"
        r"instead\s+of|more\s+than|better\s+than)\s+(?P<o>.+)",
        kind="pair",
    ),
    Rule(
        "likes",
        r"(?:likes|loves|enjoys|adores|is\s+(?:really\s+)?into|is\s+(?:a\s+)?(?:big\s+|huge\s+)?"
        r"fan\s+of|is\s+fond\s+of|is\s+passionate\s+about|is\s+obsessed\s+with|prefers|"
        r"is\s+interested\s+in|is\s+keen\s+on|has\s+gotten\s+into|got\s+into|fell\s+in\s+love\s+"
        r"with)\s+(?P<v>.+)",
        kind="multi",
        single=False,
        weak=True,
    ),
    Rule(
        "likes",
        r"(?:dislikes|hates|detests|loathes|can\s+not\s+stand|is\s+not\s+(?:a\s+)?fan\s+of|"
        r"is\s+(?:tired|sick)\s+of|has\s+gone\s+off|went\s+off|(?:has\s+)?lost\s+interest\s+in|"
        r"got\s+tired\s+of|grew\s+tired\s+of|is\s+over|is\s+done\s+with)\s+(?P<v>.+)",
        kind="multi_not",
        single=False,
        weak=True,
    ),
    Rule(
        "diet",
        r"(?:is|went|has\s+gone|turned|became|has\s+become|switched\s+to\s+being)\s+"
        r"(?:(?:a|an|fully|strictly|strict)\s+)*(?P<v>vegetarian|vegan|pescatarian|pescetarian|"
        r"carnivore|omnivore|keto|paleo|flexitarian|gluten-free|dairy-free|plant-based)\b.*",
    ),
    Rule(
        "diet", r"(?:eats|started\s+eating|is\s+eating)\s+meat\b.*", kind="fixed", value="omnivore"
    ),
    # --- the train or bus someone catches: "I get the 7:42 from Reading", "I'm on the 7:51 now"
    Rule(
        "train",
        r"(?:gets|catches|takes|is\s+on|(?:is\s+)?(?:getting|catching|taking))\s+the\s+"
        r"(?P<v>\d{1,2}[:.]\d{2})(?:\s+(?:train|bus|tram|ferry|service))?(?:\s+(?:from|to|into|"
        r"out\s+of)\s+[\w ]+?)*(?:\s+(?:now|these\s+days|instead|every\s+day|most\s+days|"
        r"in\s+the\s+morning))*(?:[,;].*)?",
        kind="clock",
    ),
    # --- relationships -------------------------------------------------------------------------
    Rule(
        "relationship",
        r"(?:is|got|has\s+been|was|has\s+gotten)\s+(?:now\s+|happily\s+|recently\s+|just\s+)?"
        r"(?P<st>married|engaged|wed)(?:\s+to\s+(?P<v>.+))?",
        kind="relationship",
    ),
    Rule("relationship", r"(?P<st>married|wed)\s+(?P<v>.+)", kind="relationship", change=True),
    Rule(
        "relationship",
        r"(?:is\s+(?P<st>dating)|is\s+(?:now\s+)?seeing|is\s+in\s+a\s+(?:serious\s+)?"
        r"relationship\s+with|is\s+going\s+out\s+with|started\s+dating|started\s+seeing|"
        r"is\s+together\s+with|got\s+together\s+with|is\s+partnered\s+with)\s+(?P<v>.+)",
        kind="relationship",
    ),
    Rule(
        "relationship",
        r"has\s+a\s+(?:new\s+)?(?P<st>girlfriend|boyfriend|partner|wife|husband|fianc[ée]e?)"
        r"(?:\s+(?:named|called))?\s*(?P<v>.*)",
        kind="relationship",
    ),
    Rule(
        "relationship",
        r"(?:is\s+(?:now\s+)?|got\s+|became\s+)(?P<st>single|divorced|separated|widowed|unmarried|"
        r"in\s+a\s+relationship)\b.*",
        kind="relationship",
    ),
    # --- statuses ------------------------------------------------------------------------------
    Rule("pregnant", r"is\s+(?:now\s+)?(?:\d+\s+\w+\s+)?pregnant\b.*", kind="fixed", value="yes"),
    Rule(
        "pregnant",
        r"(?:had|has\s+had|gave\s+birth(?:\s+to)?|delivered|welcomed)\s*(?:her|their|a|the|"
        r"a\s+baby|twins)?.*",
        kind="birth",
        change=True,
    ),
    Rule(
        "health",
        r"(?:is|has\s+been|got|fell|became)\s+(?:now\s+|still\s+|currently\s+|very\s+|really\s+)?"
        r"(?:sick|ill|unwell|injured|hurt|in\s+(?:the\s+)?hospital|hospitali[sz]ed|bedridden|"
        r"on\s+sick\s+leave|recovering(?:\s+from\s+.+)?)\b.*",
        kind="fixed",
        value="sick",
    ),
    Rule(
        "health",
        r"(?:has|caught|got)\s+(?:the\s+|a\s+|an\s+)?(?:flu|cold|covid(?:-19)?|fever|cough|"
        r"infection|migraine|concussion|broken\s+\w+|sprained\s+\w+|pneumonia|sore\s+throat|"
        r"stomach\s+bug|bronchitis|strep(?:\s+throat)?)\b.*",
        kind="fixed",
        value="sick",
    ),
    Rule(
        "health",
        r"(?:recovered|has\s+recovered|is\s+(?:now\s+|finally\s+|fully\s+)?(?:better|healthy|well|"
        r"recovered|cured|out\s+of\s+(?:the\s+)?hospital|back\s+on\s+(?:her|his|their|my)\s+feet|"
        r"feeling\s+better|back\s+to\s+normal)|got\s+better|feels\s+better|"
        r"was\s+discharged)\b.*",
        kind="fixed",
        value="well",
        change=True,
    ),
    Rule(
        "has",
        r"(?:has|owns|got|adopted|bought|has\s+got|now\s+has|is\s+raising|keeps)\s+"
        r"(?P<c>a|an|one|two|three|four|five|six|seven|eight|nine|ten|\d+|no)\s+"
        # "two pet turtles" counts turtles; "a third turtle" is read by its ordinal
        rf"(?:(?!{THINGS}\b|{ORDINAL}\b)[\w-]+\s+){{0,2}}(?:pets?\s+)?(?P<a>{THINGS})\b.*",
        kind="count",
    ),
    Rule(
        "has",
        r"is\s+(?:a\s+)?(?:mother|father|mom|mum|dad|parent)\s+(?:of|to)\s+(?P<c>\w+)"
        r"(?:\s+(?P<a>kids|children|boys|girls))?.*",
        kind="count",
    ),
    Rule(
        "has",
        r"(?:sold|gave\s+away|gave\s+up|lost|got\s+rid\s+of|rehomed|gave|found\s+a\s+home\s+for)\s+"
        rf"(?:her|his|their|my|the|its)\s+(?:[\w-]+\s+){{0,2}}?(?P<a>{THINGS})\b(?:\s+away)?.*",
        kind="count_end",
        change=True,
    ),
    Rule(
        "has",
        rf"^(?P<s>.+?)'s\s+(?:[\w-]+\s+){{0,2}}?(?P<a>{THINGS})\b(?:\s+[\w-]+)?\s+"
        r"(?:died|passed\s+away|passed|ran\s+away|was\s+put\s+down|was\s+stolen|got\s+stolen|"
        r"was\s+sold|was\s+totall?ed)\b.*",
        kind="count_end",
        whole=True,
        change=True,
    ),
    Rule(
        "status",
        rf"(?:{TO_BE}\s+|went\s+|has\s+gone\s+|is\s+being\s+|has\s+|have\s+)?(?:{ADVERB}\s+)?"
        rf"(?P<v>{STATUS})",
        kind="status",
    ),
    Rule(
        "status",
        r"^(?:we|the\s+team|user|i)\s+(?:(?:have|has|just|finally|officially)\s+)*"
        r"(?P<v>finished|completed|shipped|launched|released|cancell?ed|abandoned|paused|started|"
        r"kicked\s+off|scrapped|shelved|wrapped\s+up|deployed|approved|postponed|delayed|"
        r"put\s+on\s+hold|dropped|halted|resumed|restarted)\s+(?P<s>.+)",
        kind="status",
        whole=True,
    ),
    # --- age, contact, possessed attributes ----------------------------------------------------
    Rule(
        "age",
        r"(?:is|turned|just\s+turned|has\s+turned|turns)\s+(?P<v>\d{1,3}|[a-z]+-?[a-z]*)"
        r"(?:\s+(?:years?|yrs?)(?:\s+old|\s+of\s+age)?)?",
        kind="age",
    ),
    Rule(
        "contact",
        r"(?:can\s+be\s+reached|is\s+reachable|can\s+be\s+contacted)\s+(?:at|on|via)\s+(?P<v>.+)",
        kind="contact",
    ),
    Rule(
        "possessed",
        rf"^(?P<s>.+?)'s\s+(?:new\s+|current\s+|updated\s+|present\s+|actual\s+)?(?P<a>{POSSESSED})"
        rf"\s+(?:{ADVERB}\s+)?(?:is|are|has\s+become|became|is\s+now|changed\s+to|was\s+changed\s+to|"
        r"has\s+changed\s+to|moved\s+to|was\s+moved\s+to|will\s+be|reads|went\s+(?:up|down)\s+to|"
        r"rose\s+to|dropped\s+to|fell\s+to|increased\s+to|decreased\s+to|is\s+up\s+to|=)\s+(?P<v>.+)",
        kind="possessed",
        whole=True,
        keeps_times=True,
    ),
)
