"""Ingest keeps ``<private>`` spans and secrets out of storage, for every source.

The same pass serves ``memex ingest`` and live capture (which ingests the
agent's transcript), so both store the same text.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from memex_core.cli import cli
from memex_core.errors import MemexError
from memex_core.services.scrubbing import PRIVATE_PLACEHOLDER, FragmentScrubber
from tests.support.claude_code_builders import Transcript, text, thinking, tool_use
from tests.support.component_doubles import fast_memex
from tests.support.export_builders import T0, chatgpt_conversation

TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"  # a GitHub token's shape
PRIVATE_WORDS = "my locker combination is 31 7 22"


def _chatgpt_export(path: Path) -> Path:
    conversation = chatgpt_conversation(
        "conv-deploy",
        "Deploying the shop",
        [
            ("user", f"Push with this token {TOKEN} please", T0),
            ("assistant", "Pushed. Rotate the token afterwards.", T0 + 60),
            ("user", f"Also <private>{PRIVATE_WORDS}</private> remember the deploy day", T0 + 120),
            ("user", f"<private>{PRIVATE_WORDS}</private>", T0 + 180),
        ],
    )
    path.write_text(json.dumps([conversation]), encoding="utf-8")
    return path


def _transcript(path: Path) -> Path:
    session = Transcript()
    session.user(f"deploy with GITHUB_TOKEN={TOKEN} <private>{PRIVATE_WORDS}</private>")
    session.assistant(
        "msg_1",
        thinking(f"the user pasted {TOKEN}; never echo it"),
        text("Deploying now."),
        tool_use("toolu_1", "Bash", command="git push"),
    )
    session.tool_result("toolu_1", f"remote: using token {TOKEN}\nEverything up-to-date")
    return session.write(path)


def _stored_bytes(home: Path) -> bytes:
    """Every byte memex wrote under the home (catalog, WAL, indexes)."""
    return b"".join(p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file())


def test_chatgpt_export_is_stored_without_secrets_or_private_spans(
    memex_home: Path, tmp_path: Path
) -> None:
    mx = fast_memex(memex_home)
    report = mx.ingest(_chatgpt_export(tmp_path / "conversations.json"))
    contents = {f.content for f in mx.get([r.id for r in mx.search("deploy token", limit=20)])}
    mx.close()

    assert report.private_spans_removed == 2
    assert report.secrets_redacted["github_token"] == 1
    assert any("[REDACTED:github_token]" in c for c in contents)
    stored = _stored_bytes(memex_home)
    assert TOKEN.encode() not in stored
    assert PRIVATE_WORDS.encode() not in stored


def test_a_wholly_private_message_keeps_its_place_but_not_its_text(
    memex_home: Path, tmp_path: Path
) -> None:
    mx = fast_memex(memex_home)
    mx.ingest(_chatgpt_export(tmp_path / "conversations.json"))
    rows = mx.query("SELECT id, content FROM fragments ORDER BY timestamp")[1]
    mx.close()

    assert len(rows) == 4, "every message keeps its fragment and id"
    assert rows[-1][1] == PRIVATE_PLACEHOLDER
    assert "remember the deploy day" in rows[2][1] and PRIVATE_WORDS not in rows[2][1]


def test_claude_code_transcript_text_tool_output_and_thinking_are_scrubbed(
    memex_home: Path, tmp_path: Path
) -> None:
    path = _transcript(tmp_path / "session.jsonl")
    mx = fast_memex(memex_home)
    report = mx.ingest(path)
    ids = [row[0] for row in mx.query("SELECT id FROM fragments")[1]]
    fragments = mx.get(ids)
    mx.close()

    assert report.secrets_redacted["github_token"] == 3  # prompt, thinking, tool output
    for fragment in fragments:
        assert TOKEN not in fragment.content
        assert TOKEN not in (fragment.index_text or "")
        assert TOKEN not in json.dumps(fragment.metadata)
    assert any("[REDACTED:github_token]" in f.metadata.get("thinking", "") for f in fragments)
    assert TOKEN.encode() not in _stored_bytes(memex_home)


def test_ids_do_not_depend_on_scrubbing(memex_home: Path, tmp_path: Path) -> None:
    """Capture and a later ingest must agree on ids: scrubbing never changes one."""
    path = _transcript(tmp_path / "session.jsonl")
    mx = fast_memex(memex_home)
    source = next(s for s in mx.sources() if s.source_kind == "claude_code")
    raw = list(source.ingest(path))
    scrubbed = mx.ingest_scrubber().fragments(raw)
    mx.close()

    assert [f.id for f in scrubbed] == [f.id for f in raw]
    assert [f.content for f in scrubbed] != [f.content for f in raw]


def test_redaction_can_be_turned_off_but_private_spans_still_go(
    memex_home: Path, tmp_path: Path
) -> None:
    mx = fast_memex(memex_home, ingest={"redact_secrets": False})
    report = mx.ingest(_chatgpt_export(tmp_path / "conversations.json"))
    mx.close()

    assert not report.secrets_redacted
    stored = _stored_bytes(memex_home)
    assert TOKEN.encode() in stored
    assert PRIVATE_WORDS.encode() not in stored


def test_a_bad_setting_names_the_key_and_the_fix(memex_home: Path) -> None:
    mx = fast_memex(memex_home, ingest={"redact_secrets": "yes"})
    with pytest.raises(MemexError, match=r"\[ingest\] redact_secrets = 'yes'.*true"):
        mx.ingest_scrubber()
    mx.close()


def test_obsidian_notes_are_scrubbed_too(memex_home: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    (vault / ".obsidian").mkdir(parents=True)
    (vault / "Deploy.md").write_text(
        f"# Deploy\n\nToken: {TOKEN}\n\n<private>{PRIVATE_WORDS}</private>\n\nShip on Fridays.\n",
        encoding="utf-8",
    )
    mx = fast_memex(memex_home)
    report = mx.ingest(vault)
    mx.close()

    assert report.secrets_redacted["github_token"] == 1
    assert report.private_spans_removed == 1
    stored = _stored_bytes(memex_home)
    assert TOKEN.encode() not in stored and PRIVATE_WORDS.encode() not in stored
    assert b"Ship on Fridays" in stored


def test_the_cli_says_what_was_kept_out(memex_home: Path, tmp_path: Path) -> None:
    export = _chatgpt_export(tmp_path / "conversations.json")
    runner = CliRunner()
    text_run = runner.invoke(cli, ["ingest", "--no-embed", str(export)])
    assert text_run.exit_code == 0, text_run.output
    assert "2 <private> span(s) dropped" in text_run.output
    assert "1 secret(s) redacted (github_token 1)" in text_run.output
    assert TOKEN not in text_run.output

    again = tmp_path / "again.json"
    again.write_text(export.read_text().replace("conv-deploy", "conv-other"), encoding="utf-8")
    json_run = runner.invoke(cli, ["ingest", "--no-embed", "--format", "json", str(again)])
    summary = json.loads(json_run.output)
    assert summary["private_spans_removed"] == 2
    assert summary["secrets_redacted"] == {"github_token": 1}


def test_scrubbing_twice_changes_nothing() -> None:
    from memex_secrets import DetectSecretsRedactor

    scrubber = FragmentScrubber(DetectSecretsRedactor())
    once = scrubber.text(f"token {TOKEN} <private>x</private> end")
    assert scrubber.text(once) == once


def test_without_the_redactor_plugin_ingest_goes_on_and_says_so(
    memex_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """MEMEX_LOAD_PLUGINS without ``secrets``: private spans still go, the report says why
    secrets were not redacted, and a redactor named in config.toml is still required."""
    monkeypatch.setenv("MEMEX_LOAD_PLUGINS", "chatgpt,bm25,rrf")
    export = _chatgpt_export(tmp_path / "conversations.json")
    result = CliRunner().invoke(cli, ["ingest", "--no-embed", "--format", "json", str(export)])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    assert summary["new"] == 1 and summary["private_spans_removed"] == 2
    assert "detect_secrets" in summary["redaction_skipped"]
    assert PRIVATE_WORDS.encode() not in _stored_bytes(memex_home)

    (memex_home / "config.toml").write_text('[redactor]\nuse = "detect_secrets"\n')
    named = CliRunner().invoke(cli, ["ingest", "--no-embed", str(export)])
    assert named.exit_code != 0
    assert "detect_secrets" in named.output


def test_an_index_text_holding_the_content_is_not_redacted_twice() -> None:
    """Code's index text is its title, its content and its identifiers' words: with a
    line-by-line redactor only the title and words are scanned again, the content's
    scrubbed text is put back, and the result is what a full scan gives."""
    from memex_core.domain import Fragment, Provenance, Redaction
    from memex_secrets import DetectSecretsRedactor

    scanned: list[str] = []

    class Counting(DetectSecretsRedactor):
        def redact(self, text: str) -> Redaction:
            scanned.append(text)
            return super().redact(text)

    class WholeTexts(DetectSecretsRedactor):
        line_local = False

    content = f'TOKEN = "{TOKEN}"\n\ndef push():\n    return TOKEN'
    title = "deploy.py: push (L1-4)"
    fragment = Fragment(
        id="f1",
        conversation_id="code-1",
        role="note",
        content=content,
        provenance=Provenance("code", "/repo/deploy.py", "deploy.py", "deploy.py#push"),
        title=title,
        index_text=f"{title}\n{content}\npush token {TOKEN}",
    )
    fast = FragmentScrubber(Counting()).fragment(fragment)
    assert fast == FragmentScrubber(WholeTexts()).fragment(fragment)
    assert TOKEN not in (fast.index_text or "") and TOKEN not in fast.content
    assert [text for text in scanned if content in text] == [content]  # once, not twice
