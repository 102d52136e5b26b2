"""Installing only the client, as docs/deployment.md tells a machine that calls a
``memex serve``: a wheel built from this checkout, installed with the ``client`` extra
into a fresh virtual environment (no system site-packages), from whatever index pip is
configured with. memex is on no public index, so the wheel is the way.

Checked there: none of the server's, the stores' or the models' packages came with it;
``memex --help`` runs; ``memex serve`` says which extra it needs; and the command line's
remote mode and ``MemexClient`` write and search through a real ``memex serve``.

That test is slow (a minute and a half on two cores, most of it pip): marked so the fast
loop leaves it out. A quick one checks that the documentation says to install this way.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from memex_client import MemexClient
from tests.support.server_fixtures import CLIENT_TIMEOUT, keyword_only_home, served

CHECKOUT = Path(__file__).resolve().parents[3]
#: What a build reads: the packages (pyproject's package roots) and the project's metadata.
BUILT_FROM = ("memex_core", "plugins", "integrations", "pyproject.toml", "README.md")
#: None of these may come with the client extra: they are the server's, the stores' and the
#: models' (and what would bring a browser or a test runner).
NOT_FOR_CLIENTS = (
    "fastapi",
    "uvicorn",
    "jinja2",
    "chromadb",
    "onnxruntime",
    "torch",
    "psycopg",
    "mcp",
    "langchain_core",
    "llama_index",
    "playwright",
    "pytest",
)
PIP_TIMEOUT = 540


def run(command: list[str], env: dict[str, str], cwd: Path, timeout: float = 120) -> str:
    done = subprocess.run(
        command, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, f"{command} exited {done.returncode}:\n{done.stderr[-3000:]}"
    return done.stdout


def build_wheel(root: Path) -> Path:
    """A wheel of this checkout, built from a copy: a build writes build/ and *.egg-info
    next to the sources, which must not land in the working tree."""
    source = root / "source"
    for name in BUILT_FROM:
        path = CHECKOUT / name
        if path.is_dir():
            ignored = shutil.ignore_patterns("__pycache__", "*.egg-info", "build")
            shutil.copytree(path, source / name, ignore=ignored)
        else:
            shutil.copy2(path, source / name)
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(root / "dist")]
    try:
        import setuptools  # noqa: F401  # the build backend is here: no download for it
    except ImportError:
        pass
    else:
        command.append("--no-build-isolation")
    run([*command, str(source)], dict(os.environ), root, timeout=PIP_TIMEOUT)
    (wheel,) = (root / "dist").glob("memex-*.whl")
    return wheel


def client_environment(root: Path, bin_dir: Path) -> dict[str, str]:
    """This process's environment without its virtual environment or Python paths, the
    fresh one first on PATH, and a home directory of its own."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME", "MEMEX_HOME", "MEMEX_URL")
        and not key.startswith("MEMEX_API")
    }
    env["PATH"] = os.pathsep.join([str(bin_dir), "/usr/bin", "/bin"])
    env["HOME"] = str(root / "user")
    (root / "user").mkdir()
    return env


#: Files that tell a reader how to install the client.
INSTALL_DOCS = ("README.md", "docs", "integrations/memex_client")
#: ``pip install 'memex[client]'`` alone: it needs memex on an index, and it is on none.
BARE_INSTALL = re.compile(r"""pip install\s+['"]?memex\[client\]""")


def test_the_docs_install_the_client_from_a_checkout_or_a_wheel() -> None:
    guide = (CHECKOUT / "docs" / "deployment.md").read_text(encoding="utf-8")
    # The commands test_the_client_installs_from_a_wheel_and_talks_to_a_server runs.
    assert "pip install '/path/to/memex[client]'" in guide
    assert "pip wheel --no-deps . -w dist" in guide
    assert 'pip install "$(ls dist/memex-*.whl)[client]"' in guide
    bare = []
    for name in INSTALL_DOCS:
        root = CHECKOUT / name
        files = [root] if root.is_file() else [*root.rglob("*.md"), *root.rglob("*.py")]
        for path in files:
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if BARE_INSTALL.search(line):
                    bare.append(f"{path.relative_to(CHECKOUT)}:{number}: {line.strip()}")
    assert bare == [], "\n".join(bare)


@pytest.mark.slow
def test_the_client_installs_from_a_wheel_and_talks_to_a_server(tmp_path: Path) -> None:
    wheel = build_wheel(tmp_path)
    venv.create(tmp_path / "venv", with_pip=True, system_site_packages=False)
    bin_dir = tmp_path / "venv" / "bin"
    python = str(bin_dir / "python")
    env = client_environment(tmp_path, bin_dir)
    pip_env = {**env, "HOME": os.environ.get("HOME", env["HOME"])}  # pip's cache, if any
    run([python, "-m", "pip", "install", "-q", f"{wheel}[client]"], pip_env, tmp_path, PIP_TIMEOUT)

    found = run(
        [
            python,
            "-c",
            "import importlib.util, sys; print(' '.join(m for m in sys.argv[1:] "
            "if importlib.util.find_spec(m)))",
            *NOT_FOR_CLIENTS,
        ],
        env,
        tmp_path,
    )
    assert found.split() == [], f"the client extra brought {found.strip()}"
    where = run([python, "-c", "import memex_client; print(memex_client.__file__)"], env, tmp_path)
    assert where.startswith(str(tmp_path / "venv")), where  # not this checkout's

    assert "memex: search everything" in run([str(bin_dir / "memex"), "--help"], env, tmp_path)
    refused = subprocess.run(
        [str(bin_dir / "memex"), "serve", "--port", "0"],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert refused.returncode == 1
    assert "memex serve needs FastAPI and uvicorn" in refused.stderr
    assert "Traceback" not in refused.stderr

    with served(keyword_only_home(tmp_path / "home")) as service:
        operator = MemexClient(
            service.url, admin_secret=service.admin_secret, timeout=CLIENT_TIMEOUT
        )
        key = operator.create_key("alice", name="laptop")["key"]
        remote = {**env, "MEMEX_URL": service.url, "MEMEX_API_KEY": key}
        memex = str(bin_dir / "memex")
        run([memex, "remember", "Alice takes her coffee black"], remote, tmp_path)
        dug = run([memex, "dig", "coffee", "--format", "json"], remote, tmp_path)
        assert "Alice takes her coffee black" in dug
        searched = run(
            [
                python,
                "-c",
                "from memex_client import MemexClient; "
                "print([hit.text for hit in MemexClient().agent().search('coffee')])",
            ],
            remote,
            tmp_path,
        )
        assert "Alice takes her coffee black" in searched
