"""Stored-XSS corpus: text a chat export, a note or a memory may hold that a careless page
would run as script. The viewer must show every one as text.

Each payload, if a page ran it, calls ``alert`` (a dialog the browser tests listen for) or
sets ``window.__xss`` (a global they read after the page loads); payloads that need a click
(``javascript:`` URLs) are caught by checking the page has no such link. Sources: the OWASP
XSS filter-evasion cheat sheet, PortSwigger's XSS cheat sheet, and what turns up in real chat
exports and notes (people paste HTML, ask about XSS, quote templates and markdown).

No NUL bytes or other control characters: ingest keeps only printable text, so those would
not be stored as written and the "shown literally" check would compare the wrong thing.
"""

from __future__ import annotations

PAYLOADS: tuple[str, ...] = (
    # script tags
    "<script>alert(1)</script>",
    "<script>window.__xss=1</script>",
    "<SCRIPT>alert(2)</SCRIPT>",
    "<ScRiPt>alert(3)</sCrIpT>",
    "<script src=data:text/javascript,alert(4)></script>",
    "<script>/*</script><script>*/alert(5)</script>",
    '"><script>alert(6)</script>',
    "'><script>window.__xss=7</script>",
    "</title><script>alert(8)</script>",
    "</textarea><script>alert(9)</script>",
    "</script><script>alert(10)</script>",
    "<scr<script>ipt>alert(11)</scr</script>ipt>",
    # event handlers
    "<img src=x onerror=alert(12)>",
    '<img src="x" onerror="window.__xss=13">',
    "<IMG SRC=x OnErRoR=alert(14)>",
    "<body onload=alert(15)>",
    "<svg onload=alert(16)>",
    "<svg/onload=window.__xss=17>",
    "<details open ontoggle=alert(18)>",
    "<input autofocus onfocus=alert(19)>",
    "<select autofocus onfocus=window.__xss=20>",
    "<video><source onerror=alert(21)></video>",
    "<audio src=x onerror=alert(22)>",
    "<iframe onload=alert(23)></iframe>",
    "<marquee onstart=alert(24)>x</marquee>",
    "<div onpointerover=alert(25) style=position:fixed;inset:0>cover</div>",
    '" onmouseover="alert(26)" x="',
    "' autofocus onfocus='window.__xss=27' x='",
    # javascript: and data: URLs
    '<a href="javascript:alert(28)">click me</a>',
    "<a href=JaVaScRiPt:alert(29)>click</a>",
    '<a href="jav&#x09;ascript:alert(30)">tab</a>',
    "<iframe src=javascript:alert(31)></iframe>",
    '<iframe srcdoc="<script>parent.__xss=32</script>"></iframe>',
    '<object data="javascript:alert(33)"></object>',
    '<embed src="data:text/html,<script>alert(34)</script>">',
    '<form action="javascript:alert(35)"><button>go</button></form>',
    '<meta http-equiv="refresh" content="0;url=javascript:alert(36)">',
    "<base href=javascript:alert(37)//>",
    # SVG and MathML tricks
    "<svg><script>alert(38)</script></svg>",
    "<svg><animate onbegin=alert(39) attributeName=x dur=1s>",
    '<svg><a xlink:href="javascript:alert(40)"><text x=20 y=20>svg link</text></a></svg>',
    "<svg><foreignObject><img src=x onerror=alert(41)></foreignObject></svg>",
    '<math><mtext><table><mglyph><style><img src=x onerror="alert(42)">',
    '<math href="javascript:alert(43)">math</math>',
    "<svg><style><img src=x onerror=alert(44)></style></svg>",
    # broken and mutated markup
    "<img src=x onerror=alert(45)//",
    '<<img src=x onerror="alert(46)">',
    "<img/src=x/onerror=alert(47)>",
    '<noscript><p title="</noscript><img src=x onerror=alert(48)>"></noscript>',
    '<style>@import "javascript:alert(49)";</style>',
    "<!--<img src=x onerror=alert(50)>-->",
    '<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;:alert(51)">entity</a>',
    "&lt;script&gt;alert(52)&lt;/script&gt;",
    "<template><img src=x onerror=alert(53)></template>",
    # template injection (Jinja, Angular, Vue, Handlebars, ERB)
    "{{7*7}}",
    "{{ config.items() }}",
    "{% raw %}{{ self.__init__.__globals__ }}{% endraw %}",
    "${alert(57)}",
    "{{constructor.constructor('alert(58)')()}}",
    "<%= 7*7 %>",
    "#{7*7}",
    # markdown link and image tricks (notes and chat replies are markdown)
    "[click](javascript:alert(61))",
    "[x](JAVASCRIPT:window.__xss=62)",
    "![img](x onerror=alert(63))",
    '[a](https://example.org "title" onclick=alert(64))',
    "<https://example.org/?q=<script>alert(65)</script>>",
    "[[<img src=x onerror=alert(66)>]]",
    "```html\n<script>alert(67)</script>\n```",
    # what people paste into chats and notes
    "How do I stop <script>document.cookie</script> from leaking? I tried "
    "<img src=x onerror=alert(68)> in the comment box and it ran.",
    'My React app renders <div dangerouslySetInnerHTML={{__html: "<b>hi</b>"}} /> '
    "and the linter complains.",
    "The Jinja template has {{ user.name|safe }} and {% for x in items %}{{ x }}{% endfor %}",
    "Paste this into the console: javascript:void(window.__xss=71)",
)

#: What a page ran if any payload executed: the browser tests read it after each load.
TRAP_INIT_SCRIPT = """
window.__xss = undefined;
window.__xss_dialogs = [];
"""


def numbered(payloads: tuple[str, ...] = PAYLOADS) -> list[tuple[str, str]]:
    """(marker, payload) pairs: the marker ``xss-case-NN`` finds a payload in a page's text."""
    return [(f"xss-case-{n:02d}", p) for n, p in enumerate(payloads)]


assert len(PAYLOADS) >= 50
