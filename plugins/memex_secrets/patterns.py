"""memex's own secret patterns, for what detect-secrets 1.5 does not see in notes.

detect-secrets is built for source files: its keyword detector wants quotes
(``password = "x"``) and it has no rule for bearer tokens, today's OpenAI and
Anthropic keys (``sk-proj-...``, ``sk-ant-...``), GitHub fine-grained tokens or
whole PEM blocks (it flags only the ``BEGIN ... PRIVATE KEY`` line). Memory
text is prose, chat and pasted shell commands, so these fill the gaps.

Every line pattern has a ``secret`` group: only that part is replaced.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A whole PEM/OpenSSH/PGP private key: BEGIN through END. Without an END line the
# header and the key-looking lines after it go (real newlines or JSON's "\n").
PEM_BEGIN = re.compile(r"-{4,5} ?BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)? ?-{4,5}")
PEM_END = re.compile(r"-{4,5} ?END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)? ?-{4,5}")
# Without an END line: the key-looking lines after the header (real newlines or JSON's "\n").
PEM_BODY = re.compile(r"(?:(?:\r?\n|\\n)[ \t]*(?:[A-Za-z0-9+/=]+|[A-Za-z-]+: [^\n\\]*)[ \t]*)*")


def pem_blocks(text: str) -> list[tuple[int, int]]:
    """Spans of whole private-key blocks: BEGIN through END, or BEGIN and its body.

    Written as a loop rather than one ``BEGIN.*?END`` regex, which rescans the
    rest of the text for every BEGIN (minutes for a text of many BEGIN lines).
    """
    spans: list[tuple[int, int]] = []
    position = 0
    end_ahead = True  # once no END follows one BEGIN, none follows any later one
    while (begin := PEM_BEGIN.search(text, position)) is not None:
        end = PEM_END.search(text, begin.end()) if end_ahead else None
        if end is None:
            end_ahead = False
            stop = PEM_BODY.match(text, begin.end())
            finish = stop.end() if stop else begin.end()
        else:
            finish = end.end()
        spans.append((begin.start(), finish))
        position = finish
    return spans


# Keywords whose value is a secret. PASSWORDS take any value of 4+ characters
# (people pick words); the others only values that look generated (see _looks_generated).
_PASSWORD_WORDS = r"password|passwd|passphrase|db_?pass"
_KEY_WORDS = (
    r"secret|secret[_-]?key|api[_-]?key|apikey|access[_-]?key|private[_-]?key|client[_-]?secret"
    r"|access[_-]?token|auth[_-]?token|refresh[_-]?token|token"
)
_VALUE = r"(?P<q>[\"'`]?)(?P<secret>[^\s\"'`,;&]*[^\s\"'`,;&.)\]}>])(?P=q)"

# No pattern for what precedes the keyword (DB_PASSWORD, aws_secret_access_key
# match at the keyword): a lazy prefix made a line of 50,000 dashes take minutes.
ASSIGNMENT = re.compile(
    rf"(?P<word>{_PASSWORD_WORDS}|{_KEY_WORDS})"
    rf"[\"']?\s*(?::=|=>|=|:)\s*{_VALUE}",
    re.IGNORECASE,
)
CLI_FLAG = re.compile(
    r"(?<!\S)--(?P<word>password|passwd|pass|token|api-key|apikey|secret|auth-token|access-token)"
    rf"(?:=|\s+){_VALUE}",
    re.IGNORECASE,
)
_TOKEN = r"[A-Za-z0-9\-._~+/]+=*"
AUTH_HEADER = re.compile(
    rf"\b(?:authorization\s*[:=]\s*[\"']?(?:bearer|basic|token|digest|apikey)|bearer)\s+(?P<secret>{_TOKEN})",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class TokenPattern:
    """A known token format: the whole match is the secret (if it has a digit, when asked)."""

    kind: str
    regex: re.Pattern[str]
    needs_digit: bool = False

    def is_secret(self, token: str) -> bool:
        return not self.needs_digit or any(c.isdigit() for c in token)


_START = r"(?<![A-Za-z0-9_-])"
TOKENS = (
    TokenPattern("anthropic_token", re.compile(rf"{_START}sk-ant-[A-Za-z0-9_-]{{20,}}")),
    TokenPattern(
        "openai_token",
        re.compile(rf"{_START}sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{{20,}}"),
        needs_digit=True,
    ),
    TokenPattern("github_token", re.compile(rf"{_START}github_pat_[A-Za-z0-9_]{{22,}}")),
    TokenPattern("google_api_key", re.compile(rf"{_START}AIza[0-9A-Za-z_-]{{35}}")),
    TokenPattern("huggingface_token", re.compile(rf"{_START}hf_[A-Za-z0-9]{{30,}}")),
    TokenPattern("npm_token", re.compile(rf"{_START}npm_[A-Za-z0-9]{{36}}")),
)

_PLACEHOLDERS = frozenset(
    {
        "null",
        "none",
        "nil",
        "true",
        "false",
        "undefined",
        "required",
        "optional",
        "string",
        "str",
        "bytes",
        "secret",
        "password",
        "token",
        "redacted",
        "hidden",
        "example",
        "placeholder",
        "changeit",
        "env",
    }
)


def is_placeholder(value: str) -> bool:
    """Values that name or point to a secret rather than being one."""
    lowered = value.lower()
    return (
        lowered in _PLACEHOLDERS
        or value.startswith(("$", "%", "{", "<", "[REDACTED", "os.environ", "process.env"))
        or any(c in value for c in "([")  # a call or a lookup: password=get_secret("db")
        or not any(c.isalnum() for c in value)
        or len(set(value)) == 1  # xxxx, ****
    )


def looks_generated(value: str) -> bool:
    """Long enough and mixed enough to be a key rather than a word or an
    identifier (``csrfToken``): 8+ characters with both letters and digits."""
    return len(value) >= 8 and any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


# Object ids of AI APIs and transcripts (msg_01..., toolu_01..., agent_msg_01...,
# chatcmpl-...) are random but public: they name messages and tool calls, they
# grant nothing.
PUBLIC_ID = re.compile(
    r"(?:[a-z]+_)*(?:msg|msgbatch|toolu|srvtoolu|req|call|resp|fc|rs|file|asst|thread|run|batch)"
    r"_[A-Za-z0-9]+|(?:chatcmpl|file)-[A-Za-z0-9]+"
)
# UUID-shaped ids in any letters (detect-secrets' own filter knows only hex ones).
UUID_SHAPED = re.compile(
    r"[A-Za-z0-9]{8}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-[A-Za-z0-9]{4}-[A-Za-z0-9]{12}"
)


def is_public_id(value: str) -> bool:
    """Random-looking strings that are ids, not secrets."""
    return PUBLIC_ID.fullmatch(value) is not None or UUID_SHAPED.fullmatch(value) is not None


def keyword_value_is_secret(word: str, value: str) -> bool:
    """Whether ``value``, assigned to ``word``, should be redacted."""
    if is_placeholder(value):
        return False
    if re.fullmatch(_PASSWORD_WORDS + "|pass", word, re.IGNORECASE):
        return len(value) >= 4
    return looks_generated(value)
