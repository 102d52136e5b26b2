"""``memex hooks install|uninstall|status`` on real-looking settings files: merged with
the user's hooks, backed up, idempotent, re-pointed when memex moves, removed to the
byte, refused when the file does not parse; Codex's config.toml edited as text."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from memex_capture import hooks_claude, hooks_codex, layout
from memex_capture.cli import hooks
from memex_capture.hooks_common import hook_argv, hook_command

USER_SETTINGS: dict[str, Any] = {
    "model": "opus",
    "hooks": {
        "SessionStart": [
            {"matcher": "startup", "hooks": [{"type": "command", "command": "bd prime"}]}
        ],
        "PostToolUse": [
            {
                "matcher": "Edit|Write",
                "hooks": [{"type": "command", "command": "npx prettier --write", "timeout": 30}],
            }
        ],
        "Notification": [{"hooks": [{"type": "command", "command": "notify-send claude"}]}],
    },
    "permissions": {"allow": ["Bash(git status)"], "deny": []},
    "env": {"ÉDITEUR": "vim"},
}

CODEX_CONFIG = """\
# Codex settings, by hand
model = "gpt-5-codex"   # the default model
approval_policy = "on-request"

# Profiles below
[profiles.fast]
model = "o4-mini"

[mcp_servers.memex]
command = "memex-mcp"
args = ["--home", "~/.memex"]
"""


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    """A fake user (HOME, ~/.claude, ~/.codex), a git project as cwd, and a memex home."""
    user = tmp_path / "user"
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    (project / "lib").mkdir()
    monkeypatch.setenv("HOME", str(user))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.delenv("MEMEX_HOME", raising=False)
    monkeypatch.chdir(project / "lib")
    return {
        "user": user,
        "project": project,
        "home": tmp_path / "memex-home",
        "claude": user / ".claude" / "settings.json",
        "codex": user / ".codex" / "config.toml",
        "codex_hooks": user / ".codex" / "hooks.json",
    }


def invoke(*args: str) -> Result:
    result = CliRunner().invoke(hooks, list(args), catch_exceptions=False)
    return result


def write_json(path: Path, data: dict[str, Any]) -> bytes:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    path.write_text(text, encoding="utf-8")
    return text.encode()


def backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(f"{path.name}.memex-backup-*"))


def ours(data: dict[str, Any], event: str) -> list[dict[str, Any]]:
    return [
        entry
        for group in data["hooks"].get(event, [])
        for entry in group["hooks"]
        if "memex_capture/hook.py" in entry["command"]
    ]


# -- Claude Code -----------------------------------------------------------------------------


def test_install_merges_with_the_users_hooks(places: dict[str, Path]) -> None:
    original = write_json(places["claude"], USER_SETTINGS)
    result = invoke("install", "claude-code", "--home", str(places["home"]))
    assert result.exit_code == 0, result.output
    data = json.loads(places["claude"].read_text())
    # Everything of the user's is still there, first, in its order.
    assert list(data) == list(USER_SETTINGS)
    assert data["model"] == "opus" and data["env"] == {"ÉDITEUR": "vim"}
    assert data["hooks"]["SessionStart"][0] == USER_SETTINGS["hooks"]["SessionStart"][0]
    assert data["hooks"]["PostToolUse"][0] == USER_SETTINGS["hooks"]["PostToolUse"][0]
    assert data["hooks"]["Notification"] == USER_SETTINGS["hooks"]["Notification"]
    command = hook_command("claude-code", str(places["home"]))
    assert shlex.split(command) == [
        sys.executable,
        "-S",
        str(Path(hooks_claude.__file__).with_name("hook.py")),
        "claude-code",
        "--home",
        str(places["home"]),
    ]
    for event, matcher in hooks_claude.EVENTS.items():
        [entry] = ours(data, event)
        assert entry == {"type": "command", "command": command, "timeout": 10}
        group = data["hooks"][event][-1]
        assert group.get("matcher") == matcher
    # The file it changed is backed up, byte for byte.
    [backup] = backups(places["claude"])
    assert backup.read_bytes() == original


def test_install_is_idempotent(places: dict[str, Path]) -> None:
    write_json(places["claude"], USER_SETTINGS)
    invoke("install", "claude-code", "--home", str(places["home"]))
    first = places["claude"].read_bytes()
    result = invoke("install", "claude-code", "--home", str(places["home"]))
    assert "unchanged" in result.output
    assert places["claude"].read_bytes() == first
    assert len(backups(places["claude"])) == 1


def test_install_after_memex_moved_repoints_its_entries_in_place(places: dict[str, Path]) -> None:
    write_json(places["claude"], USER_SETTINGS)
    hooks_claude.install(places["claude"], str(places["home"]), python="/old/venv/bin/python")
    # The user adds a hook of their own after ours.
    data = json.loads(places["claude"].read_text())
    data["hooks"]["Stop"].append({"hooks": [{"type": "command", "command": "say done"}]})
    write_json(places["claude"], data)
    invoke("install", "claude-code", "--home", str(places["home"]))
    moved = json.loads(places["claude"].read_text())
    for event in hooks_claude.EVENTS:
        [entry] = ours(moved, event)
        assert entry["command"] == hook_command("claude-code", str(places["home"]))
    assert [g["hooks"][0]["command"] for g in moved["hooks"]["Stop"]] == [
        hook_command("claude-code", str(places["home"])),
        "say done",
    ]


def test_uninstall_removes_only_memex_and_restores_the_bytes(places: dict[str, Path]) -> None:
    original = write_json(places["claude"], USER_SETTINGS)
    invoke("install", "claude-code", "--home", str(places["home"]))
    result = invoke("uninstall", "claude-code")
    assert result.exit_code == 0, result.output
    assert places["claude"].read_bytes() == original
    assert "unchanged" in invoke("uninstall", "claude-code").output


def test_install_into_a_missing_file_and_uninstall_leaves_an_empty_object(
    places: dict[str, Path],
) -> None:
    invoke("install", "claude-code", "--home", str(places["home"]))
    assert set(json.loads(places["claude"].read_text())["hooks"]) == set(hooks_claude.EVENTS)
    assert backups(places["claude"]) == []  # nothing to back up
    invoke("uninstall", "claude-code")
    assert json.loads(places["claude"].read_text()) == {}


def test_project_settings_at_the_git_root(places: dict[str, Path]) -> None:
    write_json(places["claude"], USER_SETTINGS)
    user_before = places["claude"].read_bytes()
    result = invoke("install", "claude-code", "--project", "--home", str(places["home"]))
    assert result.exit_code == 0, result.output
    project_file = places["project"] / ".claude" / "settings.json"
    assert set(json.loads(project_file.read_text())["hooks"]) == set(hooks_claude.EVENTS)
    assert places["claude"].read_bytes() == user_before
    invoke("uninstall", "claude-code", "--project")
    assert json.loads(project_file.read_text()) == {}
    assert places["claude"].read_bytes() == user_before


def test_claude_config_dir_is_honoured(
    places: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))
    invoke("install", "claude-code", "--home", str(places["home"]))
    assert (tmp_path / "claude-config" / "settings.json").exists()
    assert not places["claude"].exists()


def test_invalid_json_is_refused_and_left_untouched(places: dict[str, Path]) -> None:
    places["claude"].parent.mkdir(parents=True)
    broken = b'{\n  "model": "opus",\n  "hooks": {},\n}\n'
    places["claude"].write_bytes(broken)
    result = CliRunner().invoke(hooks, ["install", "claude-code", "--home", str(places["home"])])
    assert result.exit_code != 0
    assert str(places["claude"]) in result.output
    assert "line 4" in result.output and "not valid JSON" in result.output
    assert places["claude"].read_bytes() == broken
    assert backups(places["claude"]) == []


def test_hooks_that_are_not_an_object_are_refused(places: dict[str, Path]) -> None:
    write_json(places["claude"], {"hooks": ["nope"]})
    result = CliRunner().invoke(hooks, ["install", "claude-code", "--home", str(places["home"])])
    assert result.exit_code != 0 and '"hooks" is a list' in result.output


def test_settings_symlink_is_written_through(places: dict[str, Path], tmp_path: Path) -> None:
    target = tmp_path / "dotfiles" / "claude-settings.json"
    write_json(target, USER_SETTINGS)
    places["claude"].parent.mkdir(parents=True)
    places["claude"].symlink_to(target)
    invoke("install", "claude-code", "--home", str(places["home"]))
    assert places["claude"].is_symlink()
    assert ours(json.loads(target.read_text()), "Stop")


# -- Codex ------------------------------------------------------------------------------------


def write_codex(places: dict[str, Path], text: str) -> None:
    places["codex"].parent.mkdir(parents=True, exist_ok=True)
    places["codex"].write_text(text, encoding="utf-8")


def test_codex_notify_is_inserted_keeping_comments_and_keys(places: dict[str, Path]) -> None:
    write_codex(places, CODEX_CONFIG)
    result = invoke("install", "codex", "--home", str(places["home"]))
    assert result.exit_code == 0, result.output
    text = places["codex"].read_text()
    data = tomllib.loads(text)
    assert data["notify"] == hook_argv("codex", str(places["home"]))
    assert {k: v for k, v in data.items() if k != "notify"} == tomllib.loads(CODEX_CONFIG)
    # Every line of the user's file is still there, in order; ours sits before the tables.
    assert [line for line in text.splitlines() if not line.startswith("notify =")] == (
        CODEX_CONFIG.splitlines()
    )
    assert text.index("notify =") < text.index("# Profiles below")
    [backup] = backups(places["codex"])
    assert backup.read_text() == CODEX_CONFIG
    # Lifecycle hooks for the Codex releases that read hooks.json.
    lifecycle = json.loads(places["codex_hooks"].read_text())
    assert set(lifecycle["hooks"]) == set(hooks_codex.EVENTS)
    # Idempotent, and uninstall gives the bytes back (and removes the hooks.json it made).
    assert invoke("install", "codex", "--home", str(places["home"])).output.count("unchanged") == 2
    invoke("uninstall", "codex")
    assert places["codex"].read_text() == CODEX_CONFIG
    assert not places["codex_hooks"].exists()


def test_codex_previous_notify_is_chained_and_restored(places: dict[str, Path]) -> None:
    config = CODEX_CONFIG.replace(
        'approval_policy = "on-request"\n',
        'approval_policy = "on-request"\nnotify = [\n  "notify-send",\n  "Codex done",\n]\n',
    )
    write_codex(places, config)
    invoke("install", "codex", "--home", str(places["home"]))
    data = tomllib.loads(places["codex"].read_text())
    assert data["notify"] == [
        *hook_argv("codex", str(places["home"])),
        "--then",
        "notify-send",
        "Codex done",
    ]
    # A second install does not chain memex to itself.
    invoke("install", "codex", "--home", str(places["home"]))
    assert tomllib.loads(places["codex"].read_text())["notify"] == data["notify"]
    status = json.loads(invoke("status", "--format", "json", "--home", str(places["home"])).output)
    assert status["agents"]["codex"]["notify"]["chained"] == ["notify-send", "Codex done"]
    invoke("uninstall", "codex")
    restored = tomllib.loads(places["codex"].read_text())
    assert restored == tomllib.loads(config)
    assert "# the default model" in places["codex"].read_text()


def test_codex_without_a_config_file(places: dict[str, Path]) -> None:
    invoke("install", "codex", "--home", str(places["home"]))
    assert tomllib.loads(places["codex"].read_text()) == {
        "notify": hook_argv("codex", str(places["home"]))
    }
    invoke("uninstall", "codex")
    assert places["codex"].read_text() == ""


def test_codex_home_env_is_honoured(
    places: dict[str, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex-home"))
    invoke("install", "codex", "--home", str(places["home"]))
    assert (tmp_path / "codex-home" / "config.toml").exists()
    assert not places["codex"].exists()


def test_invalid_toml_is_refused_and_left_untouched(places: dict[str, Path]) -> None:
    broken = 'model = "gpt-5"\nnotify = ["a",\n[profiles\n'
    write_codex(places, broken)
    result = CliRunner().invoke(hooks, ["install", "codex", "--home", str(places["home"])])
    assert result.exit_code != 0
    assert str(places["codex"]) in result.output and "not valid TOML" in result.output
    assert places["codex"].read_text() == broken
    assert backups(places["codex"]) == []


def test_set_notify_replaces_a_multiline_array_only() -> None:
    text = 'a = 1\nnotify = [\n  "x", # first\n  "y",\n]\nb = 2\n[t]\nnotify = "inner"\n'
    new = hooks_codex.set_notify(text, ["z"])
    assert new == 'a = 1\nnotify = ["z"]\nb = 2\n[t]\nnotify = "inner"\n'
    assert hooks_codex.set_notify(new, None) == 'a = 1\nb = 2\n[t]\nnotify = "inner"\n'


# -- status -------------------------------------------------------------------------------------


def test_status_json_after_install_and_a_hook_run(places: dict[str, Path]) -> None:
    write_json(places["claude"], USER_SETTINGS)
    home = str(places["home"])
    invoke("install", "claude-code", "--home", home)
    invoke("install", "codex", "--home", home)
    event = {"session_id": "s", "cwd": str(places["project"]), "hook_event_name": "Stop"}
    subprocess.run(
        hook_argv("claude-code", home),
        input=json.dumps(event).encode(),
        env={**os.environ, "MEMEX_CAPTURE_NO_WORKER": "1"},
        check=True,
    )
    result = invoke("status", "--format", "json", "--home", home)
    report = json.loads(result.output)
    assert report["home"] == home
    user, project = report["agents"]["claude-code"]["settings"]
    assert (user["scope"], user["installed"], project["installed"]) == ("user", True, False)
    assert user["events"] == sorted(hooks_claude.EVENTS) and user["missing_events"] == []
    [command] = user["commands"]
    assert command["ok"] and command["home"] == home
    codex = report["agents"]["codex"]
    assert codex["notify"]["installed"] and codex["notify"]["ok"]
    assert codex["lifecycle"]["installed"]
    assert list(report["fired"]) == ["claude-code"] and list(report["fired"]["claude-code"]) == [
        "Stop"
    ]
    assert report["worker_running"] is False
    assert report["spool"]["lines_waiting"] == 1
    assert report["hook_log"] == layout.hook_log(home)
    assert report["hook_errors"] == {"count": 0, "last": None}
    text = invoke("status", "--home", home).output
    assert "Worker: not running" in text and "1 event(s) waiting" in text
    assert "claude-code  Stop" in text


def test_status_shows_the_newest_hook_error(places: dict[str, Path]) -> None:
    home = str(places["home"])
    for stdin in (b"", b"not json"):
        subprocess.run(
            hook_argv("claude-code", home),
            input=stdin,
            env={**os.environ, "MEMEX_CAPTURE_NO_WORKER": "1"},
            check=True,
        )
    report = json.loads(invoke("status", "--format", "json", "--home", home).output)
    assert report["hook_errors"]["count"] == 2
    assert "input is not JSON" in report["hook_errors"]["last"]
    assert "Hook errors: 2 in" in invoke("status", "--home", home).output


def test_status_honours_memex_s_global_home(places: dict[str, Path]) -> None:
    memex = Path(sys.executable).with_name("memex")
    if not memex.exists():
        pytest.skip(f"no memex script beside {sys.executable}")
    command = [str(memex), "--home", str(places["home"]), "hooks", "status", "--format", "json"]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    assert json.loads(done.stdout)["home"] == str(places["home"])


def test_status_flags_a_command_whose_python_is_gone(places: dict[str, Path]) -> None:
    hooks_claude.install(places["claude"], str(places["home"]), python="/gone/venv/bin/python")
    report = json.loads(invoke("status", "--format", "json", "--home", str(places["home"])).output)
    [command] = report["agents"]["claude-code"]["settings"][0]["commands"]
    assert command["ok"] is False and command["python_exists"] is False
    assert command["hook_exists"] is True
    assert "BROKEN" in invoke("status", "--home", str(places["home"])).output


def test_memex_command_line_has_the_hooks_group() -> None:
    memex = Path(sys.executable).with_name("memex")
    if not memex.exists():
        pytest.skip(f"no memex script beside {sys.executable}")
    done = subprocess.run([str(memex), "hooks", "--help"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    for command in ("install", "uninstall", "status"):
        assert command in done.stdout
