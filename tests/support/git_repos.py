"""Small git repositories for the code source's tests and the homes that search code."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git(repo: Path, *args: str) -> str:
    """``git -C repo ARGS``; its output."""
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    )
    return done.stdout


def make_repo(root: Path, files: dict[str, str | bytes]) -> Path:
    """A repository at ``root`` holding ``files`` (path -> text or bytes), committed once."""
    root.mkdir(parents=True)
    git(root, "init", "-q")
    git(root, "config", "user.email", "t@example.com")
    git(root, "config", "user.name", "t")
    write(root, files)
    git(root, "add", ".")
    git(root, "commit", "-qm", "init")
    return root


def write(root: Path, files: dict[str, str | bytes]) -> None:
    """``files`` (path -> text or bytes) written under ``root``, folders made as needed."""
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
