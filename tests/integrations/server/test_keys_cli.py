"""`memex keys`: what `keys list` prints is enough to revoke a key, at 80 columns too."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from memex_server.command import keys


def _keys(home: Path, *args: str) -> str:
    result = CliRunner().invoke(
        keys, list(args), obj={"home": str(home)}, env={"COLUMNS": "80"}, catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    return result.output


def test_keys_list_shows_ids_and_names_whole_at_80_columns(tmp_path: Path) -> None:
    home = tmp_path / "home"
    made = [
        json.loads(_keys(home, "create", "--user", user, "--name", name, "--format", "json"))
        for user, name in (("alice", "customer-support-bot"), ("bob", "nightly-coding-agent"))
    ]
    _keys(home, "create", "--user", "alice", "--name", "old-bot", "--collection", "work:acme")
    _keys(home, "revoke", "old-bot")
    shown = _keys(home, "list", "--all")
    for key in made:
        assert key["id"] in shown and key["name"] in shown and key["user"] in shown
    assert "old-bot" in shown and "work:acme" in shown
    assert "…" not in "".join(line[:60] for line in shown.splitlines())  # id..collection
