"""What the built-in plugins register: one row per component, from the registry itself."""

from __future__ import annotations


def render() -> str:
    from memex_core.plugins import KIND_HOOKS, load_registry

    kinds = list(KIND_HOOKS)
    registrations = sorted(
        load_registry().registrations(), key=lambda reg: (kinds.index(reg.kind), reg.name)
    )
    out = ["| kind | name | plugin | what it is |", "|---|---|---|---|"]
    for reg in registrations:
        extra = f" (`pip install 'memex[{reg.extra}]'`)" if reg.extra else ""
        description = (reg.description or "").replace("|", "\\|")
        out.append(f"| {reg.kind} | `{reg.name}` | `{reg.plugin}` | {description}{extra} |")
    return "\n".join(out)
