"""The tutorial's example plugin (docs/examples/memex-plugin-example), installed for real.

The package is built by pip from a copy of its folder into a temporary ``--target``
directory, and ``memex`` runs in a subprocess with that directory on PYTHONPATH:
plugins are then discovered from the package's own dist-info exactly as they are
for a user who ran ``pip install``. Nothing is installed into the test venv.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from importlib.metadata import PackageNotFoundError, distributions, version
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "docs" / "examples" / "memex-plugin-example"
SAMPLE = "sample/work.journal"
TUTORIAL = REPO / "docs" / "plugins" / "tutorial.md"


def _installed_names() -> list[str]:
    return sorted(d.metadata["Name"] or "" for d in distributions())


def _builds_offline() -> bool:
    """Whether this venv's setuptools can build a wheel with no download: since setuptools
    70.1 bdist_wheel is built in; before it the `wheel` package is needed. (torch, which CI
    installs first, requires setuptools>=77, so CI builds offline.) Looked up, not imported:
    importing setuptools puts its vendored packages on sys.path."""
    try:
        found = version("setuptools")
    except PackageNotFoundError:
        return False
    major, minor = (int(part) for part in found.split(".")[:2])
    return (major, minor) >= (70, 1) or importlib.util.find_spec("wheel") is not None


class Installed:
    """The copied package folder, the --target directory it was installed into, a home."""

    def __init__(self, work: Path) -> None:
        self.source = work / "memex-plugin-example"
        self.target = work / "site-packages"
        self.home = work / "memex-home"

    def env(self) -> dict[str, str]:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            p for p in (str(self.target), env.get("PYTHONPATH", "")) if p
        )
        env["MEMEX_HOME"] = str(self.home)
        env.pop("MEMEX_LOAD_PLUGINS", None)  # every installed plugin, as for a user
        env.pop("MEMEX_CHROMA_URL", None)
        return env

    def memex(self, *args: str) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(
            [sys.executable, "-m", "memex_core", *args],
            cwd=self.source,
            env=self.env(),
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, f"memex {' '.join(args)} failed:\n{result.stderr}"
        return result


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    before = _installed_names()
    done = Installed(tmp_path_factory.mktemp("example-plugin"))
    # A copy, because building writes build/ and *.egg-info next to the sources.
    shutil.copytree(
        EXAMPLE,
        done.source,
        ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__", ".*_cache"),
    )
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-cache-dir"]
    if _builds_offline():
        command += ["--no-build-isolation", "--no-index"]
    # else pip fetches the build backend from the configured index, as `pip install -e .` did.
    command += ["--target", str(done.target), str(done.source)]
    result = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"pip could not install the example:\n{result.stderr}"
    assert _installed_names() == before, "installing the example must not touch the test venv"
    return done


def test_the_package_advertises_its_plugin_in_the_memex_group(installed: Installed) -> None:
    (dist,) = distributions(path=[str(installed.target)])
    assert dist.metadata["Name"] == "memex-plugin-example"
    points = [(ep.group, ep.name, ep.value) for ep in dist.entry_points]
    assert points == [("memex", "journal", "memex_journal")]


def test_memex_plugins_lists_the_journal_source(installed: Installed) -> None:
    listed = json.loads(installed.memex("plugins", "--format", "json").stdout)
    journal = [c for c in listed["components"] if c["plugin"] == "journal"]
    assert journal == [
        {
            "kind": "source",
            "name": "journal",
            "plugin": "journal",
            "available": True,
            "install_hint": None,
            "description": (
                "Plain-text journal (*.journal): entries headed [YYYY-MM-DD HH:MM] Title."
            ),
        }
    ]
    assert listed["broken"] == []
    assert "journal" in installed.memex("plugins").stdout  # the table a user reads


def test_the_plugin_command_is_on_the_memex_command_line(installed: Installed) -> None:
    assert "journal-check" in installed.memex("--help").stdout
    checked = installed.memex("journal-check", SAMPLE).stdout
    assert checked.splitlines()[0] == f"{SAMPLE}: 3 entries, 2024-05-02T08:45 .. 2024-05-04"
    assert checked.strip() in TUTORIAL.read_text(encoding="utf-8"), "update the tutorial's output"


def test_memex_ingests_a_journal_and_dig_finds_it(installed: Installed) -> None:
    # --no-embed: the point is the plugin, not the embedding model; dig still runs hybrid.
    report = json.loads(installed.memex("ingest", SAMPLE, "--no-embed", "--format", "json").stdout)
    assert (report["new"], report["failed"], report["fragments_added"]) == (1, 0, 3)
    assert report["files"][0]["source_kind"] == "journal"
    hits = json.loads(
        installed.memex("dig", "why did the upload test time out", "--format", "json").stdout
    )
    assert hits[0]["source_kind"] == "journal"
    assert hits[0]["title"] == "Fixed the flaky upload test"
    assert "retry decorator swallowed the timeout" in hits[0]["content"]
    again = json.loads(installed.memex("ingest", SAMPLE, "--no-embed", "--format", "json").stdout)
    assert (again["new"], again["unchanged"]) == (0, 1)


def test_the_example_s_own_tests_pass(installed: Installed) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=installed.source,
        env=installed.env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert " passed" in result.stdout
