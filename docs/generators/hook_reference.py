"""The hook reference: every hook spec, the contract its components honour, the types they use.

All of it comes from ``memex_core.hookspecs`` and ``memex_core.domain``: the hook
docstrings, the Protocols they name (``memex_core.domain.Source``...), and the
dataclasses those mention, followed transitively. What the built-in plugins
register through each hook is read from the registry.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from collections.abc import Callable
from typing import Any

from generators.markdown import docstring

_DOMAIN_REF = re.compile(r"memex_core\.domain\.(\w+)")
_NAME = re.compile(r"\b[A-Z]\w+\b")
ALWAYS = ("PluginContext", "SourceError")
WIDTH = 100  # the width ruff formats memex at
# Highlighted as Python, but in the attribute form that `ruff format` leaves alone: these are
# declarations generated for reading (``def f(...): ...``), not code to reformat.
PYTHON_FENCE = "``` { .python }"  # what every factory receives, what sources raise


def _hooks() -> list[tuple[str, Callable[..., Any]]]:
    from memex_core import hookspecs

    return [
        (name, value)
        for name, value in vars(hookspecs).items()
        if name.startswith("register_") and inspect.isfunction(value)
    ]


def _domain() -> dict[str, type]:
    from memex_core import domain

    found = (getattr(domain, name) for name in domain.__all__)
    return {cls.__name__: cls for cls in found if inspect.isclass(cls)}


def _literal(value: object) -> str:
    """A default as source code, strings in double quotes (as ruff writes them)."""
    text = repr(value)
    if isinstance(value, str) and text.startswith("'") and '"' not in value:
        text = f'"{text[1:-1]}"'
    return text


def _annotation(value: Any) -> str:
    return value if isinstance(value, str) else inspect.formatannotation(value)


def _parts(func: Callable[..., Any]) -> tuple[list[str], str]:
    """The parameters of ``func`` as written in source, and its `` -> return`` (or "")."""
    sig = inspect.signature(func)
    params = []
    for param in sig.parameters.values():
        text = param.name
        if param.kind is param.VAR_POSITIONAL:
            text = f"*{text}"
        elif param.kind is param.VAR_KEYWORD:
            text = f"**{text}"
        if param.annotation is not param.empty:
            text += f": {_annotation(param.annotation)}"
        if param.default is not param.empty:
            text += f" = {_literal(param.default)}"
        params.append(text)
    empty = sig.return_annotation is sig.empty
    return params, "" if empty else f" -> {_annotation(sig.return_annotation)}"


def _signature(func: Callable[..., Any]) -> str:
    params, returns = _parts(func)
    return f"({', '.join(params)}){returns}"


def _members(cls: type) -> list[tuple[str, Any]]:
    return [
        (name, value)
        for name, value in vars(cls).items()
        if not name.startswith("_") and (inspect.isfunction(value) or isinstance(value, property))
    ]


def _name(value: object) -> str:
    return getattr(value, "__name__", repr(value))


def _fields(cls: type) -> list[str]:
    if dataclasses.is_dataclass(cls):
        lines = []
        for field in dataclasses.fields(cls):
            line = f"{field.name}: {_annotation(field.type)}"
            if field.default is not dataclasses.MISSING:
                line += f" = {_literal(field.default)}"
            elif field.default_factory is not dataclasses.MISSING:
                line += f" = field(default_factory={_name(field.default_factory)})"
            lines.append(line)
        return lines
    own = vars(cls).get("__annotations__", {})
    return [f"{name}: {_annotation(value)}" for name, value in own.items()]


def _class_line(cls: type) -> str:
    bases = [b.__name__ for b in cls.__orig_bases__] if hasattr(cls, "__orig_bases__") else []
    bases = bases or [b.__name__ for b in cls.__bases__ if b is not object]
    decorator = ""
    if dataclasses.is_dataclass(cls):
        params = getattr(cls, "__dataclass_params__", None)
        decorator = "@dataclass(frozen=True)\n" if params and params.frozen else "@dataclass\n"
    return f"{decorator}class {cls.__name__}{'(' + ', '.join(bases) + ')' if bases else ''}:"


def _referenced(cls: type, known: dict[str, type]) -> list[str]:
    """Domain classes named in ``cls``'s fields and method signatures, in order."""
    text = " ".join(_fields(cls))
    text += " ".join(_signature(v) for _, v in _members(cls) if inspect.isfunction(v))
    names = [n for n in _NAME.findall(text) if n in known and n != cls.__name__]
    return list(dict.fromkeys(names))


def _def(name: str, func: Callable[..., Any], indent: str = "    ") -> str:
    """``def name(...) -> ...: ...``, one parameter per line when it would not fit."""
    params, returns = _parts(func)
    line = f"{indent}def {name}({', '.join(params)}){returns}: ..."
    if len(line) <= WIDTH:
        return line
    lines = [f"{indent}    {param}," for param in params]
    return "\n".join([f"{indent}def {name}(", *lines, f"{indent}){returns}: ..."])


def _render_class(cls: type, link: Callable[[str], str | None]) -> list[str]:
    body = [f"    {line}" for line in _fields(cls)]
    members = _members(cls)
    methods: list[str] = []
    init = vars(cls).get("__init__")
    is_protocol = bool(getattr(cls, "_is_protocol", False))
    if not dataclasses.is_dataclass(cls) and not is_protocol and inspect.isfunction(init):
        methods.append(_def("__init__", init))
    for name, value in members:
        if isinstance(value, property):
            getter = value.fget
            returns = inspect.signature(getter).return_annotation if getter else None
            kind = (
                "" if returns in (None, inspect.Signature.empty) else f" -> {_annotation(returns)}"
            )
            methods.append(f"    @property\n    def {name}(self){kind}: ...")
        else:
            methods.append(_def(name, value))
    if body and methods:
        body.append("")
    body += methods
    out = [f"### {cls.__name__}", "", PYTHON_FENCE, _class_line(cls), *(body or ["    ..."])]
    out += ["```", "", docstring(inspect.getdoc(cls) or "", link), ""]
    described = [(n, v) for n, v in members if inspect.getdoc(v)]
    for name, value in described:
        doc = docstring(inspect.getdoc(value) or "", link).replace("\n", "\n  ")
        out.append(f"- `{name}`: {doc}")
    return [*out, ""] if described else out


def _with_extensions(names: list[str], known: dict[str, type]) -> list[str]:
    """``names`` and the domain Protocols that extend them (``GraphAwareRanker`` for ``Ranker``)."""
    out = []
    for name in names:
        out.append(name)
        out += [
            other
            for other, cls in known.items()
            if other != name and known[name] in cls.__mro__ and getattr(cls, "_is_protocol", False)
        ]
    return list(dict.fromkeys(out))


def _choice(kind: str) -> str:
    """How config.toml picks and configures a component of ``kind`` (from memex's config)."""
    from memex_core.config import DEFAULT_COMPONENTS, SETTINGS_TABLES

    if kind == "source":
        return "Every available source is offered each file; settings: `[source.<name>]`."
    if kind == "chat_model":
        return (
            "`memex ask` builds the `llm` one with the `[ask]` table's `chat_model`, "
            "`chat_model_args` and `max_retries`."
        )
    table = SETTINGS_TABLES[kind]
    return (
        f"`[{table}] use` picks one (default `{DEFAULT_COMPONENTS[kind]}`); "
        f"its settings: `[{table}.<name>]`."
    )


def render() -> str:
    from memex_core import hookspecs
    from memex_core.plugins import KIND_HOOKS, load_registry

    known = _domain()
    registry = load_registry()
    hooks = _hooks()
    contracts = {
        name: _with_extensions(
            [
                n
                for n in dict.fromkeys(_DOMAIN_REF.findall(inspect.getdoc(hook) or ""))
                if n in known
            ],
            known,
        )
        for name, hook in hooks
    }
    contract_names = list(dict.fromkeys(n for names in contracts.values() for n in names))
    types: list[str] = []
    queue = [*ALWAYS, *(n for c in contract_names for n in _referenced(known[c], known))]
    while queue:
        name = queue.pop(0)
        if name in types or name in contract_names:
            continue
        types.append(name)
        queue += _referenced(known[name], known)
    shown = set(contract_names) | set(types)

    def link(text: str) -> str | None:
        name = text.removeprefix("memex_core.domain.")
        return f"#{name.lower()}" if name in shown else None

    kind_of = {hook: kind for kind, hook in KIND_HOOKS.items()}
    out = [
        "## How a plugin registers components",
        "",
        docstring(inspect.getdoc(hookspecs) or "", link),
    ]
    out += ["", "## Hooks", ""]
    for name, hook in hooks:
        out += [f"### {name}", "", PYTHON_FENCE, "@hookimpl"]
        out += [f"def {name}{_signature(hook)}:", "    ...", "```", ""]
        out += [docstring(inspect.getdoc(hook) or "", link), ""]
        if name in kind_of:
            kind = kind_of[name]
            built_in = sorted(registry.registrations(kind), key=lambda r: r.name)
            listed = ", ".join(
                f"`{r.name}`" + ("" if r.plugin == r.name else f" (plugin `{r.plugin}`)")
                for r in built_in
            )
            out += [f"Built in: {listed or 'none'}. {_choice(kind)}", ""]
        else:
            impls = getattr(registry.manager.hook, name).get_hookimpls()
            plugins = sorted(registry.manager.get_name(i.plugin) or "?" for i in impls)
            listed = ", ".join(f"`{p}`" for p in plugins)
            out += [f"Built-in plugins implementing it: {listed or 'none'}.", ""]
        if contracts[name]:
            refs = ", ".join(f"[`{c}`](#{c.lower()})" for c in contracts[name])
            out += [f"Contract: {refs}.", ""]
    out += ["## Contracts", ""]
    out += ["Protocols a component must satisfy (structurally: no base class needed).", ""]
    for name in contract_names:
        out += _render_class(known[name], link)
    out += ["## Types", "", "Values that contracts take and return, from `memex_core.domain`.", ""]
    for name in types:
        out += _render_class(known[name], link)
    return "\n".join(out)
