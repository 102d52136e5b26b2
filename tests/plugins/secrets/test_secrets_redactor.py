"""The detect_secrets redactor (plugin ``secrets``), registered through ``register_redactors``.

Every fake secret is assembled at run time, so this file holds no literal token
for a secret scanner (or memex itself, ingesting this repository) to trip on.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import memex_secrets
from memex_core.domain import PluginContext, Redaction, Redactor
from memex_core.plugins import PluginRegistry, load_registry
from memex_secrets import DetectSecretsRedactor, SecretsSettingError, SecretsSettings
from memex_secrets.settings import parse_settings


@pytest.fixture(scope="module")
def redactor() -> DetectSecretsRedactor:
    return DetectSecretsRedactor()


AWS_KEY = "AKIA" + "ZQ3DPLKMN7WB4XTR"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/" + "bPxRfiCYzq8KjHa5Te"  # 40 characters
GITHUB = "ghp_" + "aB3dE6fG9hJ2kL5mN8pQ1rS4tU7vW0xY3zA6"
GITHUB_PAT = (
    "github_pat_" + "11ABCDEFG0" + "x" * 6 + "Yz9Kq2Lm4Np6Rs8Tu0Vw2Xy4Za6Bc8De0Fg2Hi4Jk6Lm8No0Pq"
)
SLACK = "xoxb-" + "123456789012-1234567890123-" + "aBcDeFgHiJkLmNoPqRsTuVwX"
STRIPE = "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc"
OPENAI = "sk-proj-" + "Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4zAb3dEf6hIj9k"
OPENAI_LEGACY = "sk-" + "Ab3dEf6hIj9kLm2nOp5q" + "T3BlbkFJ" + "Rs8tUv1wXy4zAb3dEf6h"
ANTHROPIC = "sk-ant-api03-" + "Zx8vQ2mN7pL4kR9tW3yB6cF1hJ5dG0sAzX8vQ2mN7pL4kR9t"
JWT = (
    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9"
    + ".eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ"
    + ".SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"
)
RANDOM = "8sKj2LmQ9xZ4vB7nR1tY6wE3pA0cF5hGq"
PEM_BODY = "MIIEpAIBAAKCAQEA1c7+9zQ8mL3kR5tW7yB2\nnF4hJ6dG8sA0zX2vQ4mN6pL8kR0tW2yB4c=="
PEM = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----"
OPENSSH = (
    "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n"
    "-----END OPENSSH PRIVATE KEY-----"
)


@pytest.mark.parametrize(
    ("text", "secret", "kind"),
    [
        (f"aws_access_key_id = {AWS_KEY}", AWS_KEY, "aws_access_key"),
        (f'aws_secret_access_key = "{AWS_SECRET}"', AWS_SECRET, "aws_access_key"),
        (f"export GITHUB_TOKEN={GITHUB}", GITHUB, "github_token"),
        (f"use {GITHUB_PAT} for the API", GITHUB_PAT, "github_token"),
        (f"bot token {SLACK} posts to #ops", SLACK, "slack_token"),
        (f"stripe key {STRIPE} in prod", STRIPE, "stripe_access_key"),
        (f"OPENAI_API_KEY={OPENAI}", OPENAI, "openai_token"),
        (f"old key {OPENAI_LEGACY}", OPENAI_LEGACY, "openai_token"),
        (f"claude key {ANTHROPIC}.", ANTHROPIC, "anthropic_token"),
        (f"session cookie {JWT}.", JWT, "json_web_token"),
        ("password=hunter2longer", "hunter2longer", "secret_keyword"),
        ("db password: hunter2", "hunter2", "secret_keyword"),
        ("DB_PASSWORD=Tr0ub4dor&3", "Tr0ub4dor", "secret_keyword"),
        ("api_key=Zx8vQ2mN7pL4kR9t", "Zx8vQ2mN7pL4kR9t", "secret_keyword"),
        (
            'config: {"password": "correct horse battery"}',
            "correct horse battery",
            "secret_keyword",
        ),
        ("mysql --password s3cr3tPw -u root", "s3cr3tPw", "secret_keyword"),
        (
            'curl -H "Authorization: Bearer 7f3kQ9zLmP2xR8vT1wYb" https://api.example.com/v1',
            "7f3kQ9zLmP2xR8vT1wYb",
            "bearer_token",
        ),
        (
            "curl https://api.example.com -H 'authorization: token 9a8b7c6d5e4f3a2b1c0d'",
            "9a8b7c6d5e4f3a2b1c0d",
            "bearer_token",
        ),
        (
            "DATABASE_URL=postgres://admin:s3cretPass@db.example.com:5432/app",
            "s3cretPass",
            "basic_auth_credentials",
        ),
        (f"the blob is {RANDOM} (rotate it)", RANDOM, "high_entropy_string"),
        (f'token = "{RANDOM}"', RANDOM, "secret_keyword"),
    ],
)
def test_secret_is_replaced(
    redactor: DetectSecretsRedactor, text: str, secret: str, kind: str
) -> None:
    result = redactor.redact(text)
    assert secret not in result.text
    assert f"[REDACTED:{kind}]" in result.text
    assert kind in result.found
    assert all(secret not in found for found in result.found)  # types only, never values


def test_surroundings_stay(redactor: DetectSecretsRedactor) -> None:
    result = redactor.redact(f"before {AWS_KEY} after\nnext line")
    assert result == Redaction(
        "before [REDACTED:aws_access_key] after\nnext line", ("aws_access_key",)
    )
    assert (
        redactor.redact(f"session cookie {JWT}.").text
        == "session cookie [REDACTED:json_web_token]."
    )
    assert redactor.redact("password=hunter2longer&user=bob").text == (
        "password=[REDACTED:secret_keyword]&user=bob"
    )


@pytest.mark.parametrize(
    "block",
    [
        PEM,
        OPENSSH,
        # Indented, as in a YAML block.
        "-----BEGIN PRIVATE KEY-----\n  MIIEvQIBADANBgkqhkiG9w0BAQEFAASC\n"
        "  -----END PRIVATE KEY-----",
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF0AAAAB\n"
        "-----END PGP PRIVATE KEY BLOCK-----",
        # Pasted as a JSON string, with "\n" escapes on one line.
        '"-----BEGIN RSA PRIVATE KEY-----\\nMIIEpAIBAAKCAQEA1c7\\n'
        '-----END RSA PRIVATE KEY-----\\n"',
    ],
)
def test_whole_private_key_blocks_go(redactor: DetectSecretsRedactor, block: str) -> None:
    result = redactor.redact(f"Here is the key:\n{block}\nKeep this line.")
    assert "PRIVATE KEY" not in result.text
    assert "MIIE" not in result.text and "lQOY" not in result.text and "b3Bl" not in result.text
    assert result.text.startswith("Here is the key:\n")
    assert result.text.endswith("Keep this line.")
    assert result.found == ("private_key",)


def test_unclosed_private_key_takes_its_body(redactor: DetectSecretsRedactor) -> None:
    text = f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n\nThe rest is prose."
    result = redactor.redact(text)
    assert "MIIE" not in result.text and "nF4h" not in result.text
    assert result.text.endswith("The rest is prose.")


PROSE = """\
# Standup notes, Tuesday

We met to talk about the migration plan. Alice will write the schema changes and Bob
reviews them before Friday; the rollout waits for the password reset fix (issue 4312).
Commit 3f2a9c1e8b7d6a5f4e3d2c1b0a9f8e7d6c5b4a3f fixed the build, and the run
123e4567-e89b-12d3-a456-426614174000 was green. The sha256 is
9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08.

See https://github.com/example/memex/blob/main/docs/memory-design-2024-06-11.md and
/home/alice/projects/memex/plugins/memex_secrets/redactor.py for details.
The server at 203.0.113.7 answers on port 8443. Mail alice@example.com.

```python
def login(user, password):
    token_count = 1500
    key = settings.get("api_key")
    password = os.environ["DB_PASSWORD"]
    return check(user, password)
```

Run `curl -H "Authorization: Bearer $TOKEN" https://api.example.com` with your own token.
Set password: <your password> in the config, or api_key: ${API_KEY}.
The tool call toolu_01CmJLnyFaa1pUUyHwSoZhcK answered message msg_0167kgZUrgcT7dg7uZK7hVSg.
Tokens: 4096. The secret to good notes is writing them the same day.
"""


def test_prose_and_code_without_secrets_are_unchanged(redactor: DetectSecretsRedactor) -> None:
    result = redactor.redact(PROSE)
    assert result == Redaction(PROSE, ())


def test_several_secrets_and_kinds(redactor: DetectSecretsRedactor) -> None:
    text = f"{PROSE}\naws {AWS_KEY}\n{PEM}\nslack {SLACK} and github {GITHUB}\r\nend\r\n"
    result = redactor.redact(text)
    for secret in (AWS_KEY, SLACK, GITHUB, PEM_BODY):
        assert secret not in result.text
    assert result.found == ("aws_access_key", "github_token", "private_key", "slack_token")
    assert result.text.startswith(PROSE)
    assert result.text.endswith("\r\nend\r\n")  # line endings are kept


def test_redacting_twice_changes_nothing(redactor: DetectSecretsRedactor) -> None:
    once = redactor.redact(f"password: hunter2longer and {AWS_KEY}\n{PEM}\ntoken = '{RANDOM}'")
    twice = redactor.redact(once.text)
    assert twice == Redaction(once.text, ())


def test_long_lines_are_scanned_everywhere(redactor: DetectSecretsRedactor) -> None:
    # Secrets at every offset around the window edges of a long line.
    for offset in (0, 700, 767, 1000, 1020, 1800, 5000):
        line = "x " * (offset // 2) + f" {GITHUB} " + "y " * 3000
        result = redactor.redact(line)
        assert GITHUB not in result.text, offset
        assert "[REDACTED:github_token]" in result.text
    huge_token = "eyJ" + RANDOM * 200  # a 6,600-character random token
    assert RANDOM not in redactor.redact(f"blob {huge_token} end").text


@pytest.mark.parametrize(
    "text",
    [
        "-" * 50_000,
        "password" * 8_000 + '="x"',
        ("password" * 5 + "=") * 1_000,
        "sk-" * 20_000,
        "xoxb-1-" * 5_000,
        "a://" * 10_000,
        "-----BEGIN RSA PRIVATE KEY-----\n" * 2_000,
    ],
    ids=["dashes", "keyword-run", "keyword-assignments", "sk-prefixes", "slack", "schemes", "pems"],
)
def test_adversarial_lines_finish(redactor: DetectSecretsRedactor, text: str) -> None:
    # Several detect-secrets regexes backtrack quadratically; these once took minutes.
    result = redactor.redact(text)
    assert isinstance(result.text, str)


_WORDS = st.lists(
    st.sampled_from(["the", "note", "said", "key", "token", "plan", "42", "-", ",", "\n", "Alice"]),
    max_size=40,
).map(" ".join)


@settings(max_examples=100, deadline=None)
@given(_WORDS, _WORDS, st.sampled_from([AWS_KEY, GITHUB, SLACK, STRIPE, OPENAI, JWT, RANDOM]))
def test_a_secret_anywhere_never_survives(before: str, after: str, secret: str) -> None:
    result = _shared_redactor().redact(f"{before} {secret} {after}")
    assert secret not in result.text
    assert result.found


_REDACTOR: list[DetectSecretsRedactor] = []


def _shared_redactor() -> DetectSecretsRedactor:
    if not _REDACTOR:
        _REDACTOR.append(DetectSecretsRedactor())
    return _REDACTOR[0]


# --- settings ------------------------------------------------------------------------


def test_entropy_can_be_turned_off() -> None:
    quiet = DetectSecretsRedactor(parse_settings({"entropy": False}))
    assert quiet.redact(f"the blob is {RANDOM}").text == f"the blob is {RANDOM}"
    assert AWS_KEY not in quiet.redact(f"key {AWS_KEY}").text  # formats still found


def test_plugins_can_be_disabled() -> None:
    no_keyword = DetectSecretsRedactor(SecretsSettings(disable=("KeywordDetector",)))
    # memex's own keyword patterns still see unquoted values ...
    assert "hunter2longer" not in no_keyword.redact("password=hunter2longer").text
    # ... but a quoted value with spaces is detect-secrets' KeywordDetector's alone.
    assert "correct horse" in no_keyword.redact('"password": "correct horse battery"').text
    no_aws = DetectSecretsRedactor(SecretsSettings(disable=("AWSKeyDetector",), entropy=False))
    assert AWS_KEY in no_aws.redact(f"key {AWS_KEY}").text


def test_stricter_entropy_limit_finds_more() -> None:
    text = 'value "aB3dE6gH9jK2mN5pQ8rS1tU4"'
    assert DetectSecretsRedactor(SecretsSettings(entropy_limit=5.5)).redact(text).text == text
    assert "aB3d" not in DetectSecretsRedactor(SecretsSettings(entropy_limit=4.0)).redact(text).text


@pytest.mark.parametrize(
    ("settings_table", "message"),
    [
        ({"entropy": "no"}, "entropy = 'no'"),
        ({"entropy_limit": True}, "entropy_limit = True"),
        ({"entropy_limit": 9}, "between 3 and 6"),
        ({"min_entropy_length": 4}, "at least 8"),
        ({"disable": "KeywordDetector"}, "a list"),
        ({"verify": True}, "unknown setting(s) verify"),
    ],
)
def test_bad_settings_name_the_fix(settings_table: dict[str, object], message: str) -> None:
    with pytest.raises(SecretsSettingError, match=r"\[redactor\.detect_secrets\]") as info:
        parse_settings(settings_table)
    assert message in str(info.value)


def test_unknown_plugin_to_disable_is_refused() -> None:
    with pytest.raises(SecretsSettingError, match="AWSKeyDetector"):
        DetectSecretsRedactor(SecretsSettings(disable=("NoSuchDetector",)))


# --- registration --------------------------------------------------------------------


def _registry() -> PluginRegistry:
    registry = load_registry()
    if not any(r.name == "detect_secrets" for r in registry.registrations("redactor")):
        # Until pyproject.toml advertises the plugin under the memex entry points.
        registry.register_plugin(memex_secrets, name="secrets")
    return registry


def test_registers_through_register_redactors(tmp_path: Path) -> None:
    registry = _registry()
    registration = registry.get("redactor", "detect_secrets")
    assert registration.available
    assert registration.requires == ("detect_secrets",)
    built = registry.build("redactor", "detect_secrets", PluginContext(tmp_path))
    assert isinstance(built, Redactor)
    assert built.redact(f"key {AWS_KEY}").found == ("aws_access_key",)


def test_build_reads_the_settings_table(tmp_path: Path) -> None:
    registry = _registry()
    built = registry.build(
        "redactor", "detect_secrets", PluginContext(tmp_path, {"entropy": False})
    )
    assert built.settings == SecretsSettings(entropy=False)
    with pytest.raises(SecretsSettingError):
        registry.build("redactor", "detect_secrets", PluginContext(tmp_path, {"entropy": 1}))


def test_hook_implementation_registers_one_redactor() -> None:
    calls: list[tuple[str, dict[str, object]]] = []
    memex_secrets.register_redactors(register=lambda name, factory, **kw: calls.append((name, kw)))
    assert [name for name, _ in calls] == ["detect_secrets"]
    assert calls[0][1]["requires"] == ("detect_secrets",)
