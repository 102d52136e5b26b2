"""The house rules that keep memex readable, checked on every run of the suite.

* The import contracts in pyproject.toml (``[tool.importlinter]``) hold: layers point down,
  the core imports no plugin or integration, and no package has an import circle, counting
  imports inside functions and ``TYPE_CHECKING`` blocks.
* No module of the product (memex_core, plugins, integrations), the benchmarks or the tests
  is over 600 lines.
* No test module imports another: what tests share lives in tests/support.
* CONTRIBUTING.md names every package, so a newcomer finds the room for a change.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
PRODUCT_ROOTS = (REPO / "memex_core", REPO / "plugins", REPO / "integrations")
#: Modules held to MAX_MODULE_LINES: the product's, the benchmarks' and the tests'.
SIZED_ROOTS = (*PRODUCT_ROOTS, REPO / "benchmarks", REPO / "tests")
MAX_MODULE_LINES = 600
#: Writes of an underscore attribute that are not another object's state, with the reason.
PRIVATE_WRITES_ALLOWED = {
    "memex_core/warm/capture.py": "marks the module's own Console.__init__ wrapper",
}


def product_modules() -> list[Path]:
    return sorted(
        path
        for root in PRODUCT_ROOTS
        for path in root.rglob("*.py")
        if "tests" not in path.relative_to(REPO).parts
    )


def packages() -> list[str]:
    """memex_core's subpackages and every plugin and integration package."""
    core = [
        f"memex_core/{path.parent.name}" for path in (REPO / "memex_core").glob("*/__init__.py")
    ]
    shipped = [
        path.parent.name
        for root in (REPO / "plugins", REPO / "integrations")
        for path in root.glob("memex_*/__init__.py")
    ]
    return sorted(core + shipped)


def test_import_contracts_hold() -> None:
    # In a process of its own: import-linter configures logging with dictConfig, which
    # disables every logger that exists by then, and so silenced later tests' log checks
    # (test_minilm_query_engine's warning) on the same pytest-xdist worker.
    script = (
        "import sys; from importlinter.cli import lint_imports; "
        "sys.exit(lint_imports(config_filename=sys.argv[1], no_cache=True))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(REPO / "pyproject.toml")],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    report = done.stdout + done.stderr
    assert done.returncode == 0, (
        "an import contract is broken (see pyproject.toml):\n" + report[-4000:]
    )


def test_the_import_contracts_name_every_shipped_package() -> None:
    """A new plugin or integration is held to the contracts from its first commit."""
    config = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    section = config[config.index("[tool.importlinter]") :]
    roots = section[: section.index("]", section.index("root_packages"))]
    missing = [name for name in packages() if "/" not in name and f'"{name}"' not in roots]
    assert not missing, f"add {missing} to [tool.importlinter] root_packages and the contracts"


def sized_modules() -> list[Path]:
    return sorted(path for root in SIZED_ROOTS for path in root.rglob("*.py"))


@pytest.mark.parametrize("path", sized_modules(), ids=lambda p: str(p.relative_to(REPO)))
def test_no_module_is_over_600_lines(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_MODULE_LINES, (
        f"{path.relative_to(REPO)} has {lines} lines: split it into modules with one job each"
    )


def test_no_product_module_writes_a_private_attribute_of_another_object() -> None:
    """``other._thing = ...`` across modules hides a dependency the types cannot see."""
    offenders = []
    for path in product_modules():
        if str(path.relative_to(REPO)) in PRIVATE_WRITES_ALLOWED:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, ast.Assign) else []
            for target in targets:
                if (
                    isinstance(target, ast.Attribute)
                    and target.attr.startswith("_")
                    and not target.attr.startswith("__")
                    and isinstance(target.value, ast.Name)
                    and target.value.id not in ("self", "cls")
                ):
                    offenders.append(f"{path.relative_to(REPO)}:{node.lineno} {target.value.id}")
    assert not offenders, "\n".join(offenders)


def test_contributing_names_every_package() -> None:
    guide = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    missing = [name for name in packages() if name not in guide]
    assert not missing, f"CONTRIBUTING.md says nothing of {missing}: add a line for each"


def test_contributing_commands_exist() -> None:
    """Every `nox -s NAME` the guide tells a contributor to run is a session in noxfile.py."""
    guide = (REPO / "CONTRIBUTING.md").read_text(encoding="utf-8")
    noxfile = (REPO / "noxfile.py").read_text(encoding="utf-8")
    sessions = set(re.findall(r"^def (\w+)\(session", noxfile, flags=re.MULTILINE))
    named = set(re.findall(r"nox -s ([\w-]+)", guide))
    assert named, "CONTRIBUTING.md names no nox session"
    assert named <= sessions, f"CONTRIBUTING.md names sessions noxfile.py lacks: {named - sessions}"


#: A test module's dotted name: tests.<folders>.test_<name>.
_TEST_MODULE = re.compile(r"^tests(?:\.\w+)*\.test_\w+$")


def test_no_test_module_imports_another() -> None:
    """A helper one test module takes from another runs that module's imports and fixtures
    wherever it is used, and hides where the shared code lives."""
    found = []
    for path in sorted((REPO / "tests").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            found += [
                f"{path.relative_to(REPO)}:{node.lineno} imports {name}"
                for name in names
                if _TEST_MODULE.match(name)
            ]
    assert not found, "move what they share to tests/support: " + "; ".join(found)
