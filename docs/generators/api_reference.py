"""The HTTP API reference: every route of ``memex serve``, from the app's OpenAPI schema.

The app is built as ``memex serve`` builds it (:func:`memex_server.app.build_app`), over
a throwaway home, and ``app.openapi()`` gives the routes, their bodies and the types
they answer with. Which credential a route takes is read from its FastAPI dependencies
(:mod:`memex_server.auth`), and the error codes from :data:`memex_server.errors.CODES`,
so a route, field, default or code that changes in the code changes here too.

Output is byte-stable: routes in the order the app registers them, fields and schemas
sorted by name, no version, date or path of the throwaway home.
"""

from __future__ import annotations

import json
import re
import tempfile
from collections.abc import Callable, Iterator
from typing import Any

from generators.markdown import docstring

Schema = dict[str, Any]

# What each credential means, keyed by the dependency of memex_server.auth a route uses.
CREDENTIALS = {
    "operator": "the operator secret. An agent key gets 403 `operator_only`.",
    "agent": "an agent key (acts for the key's user, as `mx.agent(user)`), or the operator "
    "secret with a `Memex-User: <user id>` header.",
    "reader": "an agent key (reads its user's scope) or the operator secret (reads the whole "
    "home, or one user's scope with a `Memex-User: <user id>` header).",
    "none": "none.",
}
SHORT_CREDENTIALS = {
    "operator": "operator",
    "agent": "agent key",
    "reader": "agent key or operator",
    "none": "none",
}

# When each code is returned. Every code of memex_server.errors.CODES needs a line here:
# render() fails on one without it, so a new code cannot reach the API undocumented.
WHEN = {
    "missing_credentials": "A `/v1` route was called without `Authorization: Bearer ...`.",
    "invalid_credentials": "The agent key is unknown or revoked, or the secret is wrong.",
    "too_many_failures": "This client address sent too many wrong credentials lately "
    "(`[serve] auth_failures`, default 5, within `auth_window_s`, 300 s; once the server has "
    "seen `auth_global_failures` from all addresses together, one), so the credential was "
    "not even checked. Sent with `Retry-After`: the seconds until it may try again. Missing "
    "credentials and a revoked key sent as it was made do not count.",
    "operator_only": "An agent key called a `/v1/admin` route.",
    "agent_only": "The operator called a `/v1/memory` route without a `Memex-User` header "
    "(use it, or the `/v1/admin/memory` routes).",
    "forbidden": "An agent key sent `Memex-User`, or a memory write outside the caller's "
    "scope: another user's memory, or `shared/` while the server runs without "
    "`MEMEX_SHARED_WRITE_MODE=rw`.",
    "forbidden_host": "The `Host` header names neither this machine's loopback nor a name "
    "in `[serve] allowed_hosts` (a server on loopback refuses a page on another site that "
    "reached it by DNS rebinding). Any route but `/healthz` and `/readyz`.",
    "not_found": "An unknown id or path, and equally an id or path of another user's memory "
    "(the two are indistinguishable); also an unknown route.",
    "method_not_allowed": "The route exists, with another HTTP method.",
    "ambiguous_id": "An id prefix that matches more than one id: send more of it.",
    "plan_changed": "`.../dream/apply` with the digest of a plan that no longer holds (a fact "
    "was added, revised, forgotten or brought back since, or the consolidator decides "
    "otherwise now): nothing was applied; ask for a new plan and review it.",
    "body_too_large": "The body is over `memex serve --max-body` (JSON routes) or "
    "`--max-upload` (`/v1/admin/ingest`).",
    "empty_query": "A search or context query that is empty or blank.",
    "invalid_request": "A body or parameter the route does not take: an unknown field (for "
    "instance `user_id` on a `/v1/memory` route), a wrong type, a value out of range; or "
    "a request memex refused for a reason the message gives.",
    "internal_error": "A failure the server did not expect; its log has the traceback, the "
    "response never does. Memory writes are transactions: nothing was half-written.",
    "write_locked": "Another process holds the home's write lock (an ingest, a rebuild). "
    "Sent with `Retry-After: 5`.",
    "vectors_unavailable": "The vector store cannot answer right now (a chroma server that "
    "stopped). Sent with `Retry-After: 5`.",
    "catalog_unavailable": "The catalog's database server (PostgreSQL) is down, unreachable "
    "or lost the connection mid-request; a write it interrupted was rolled back whole. Retry "
    "once it is back. Sent with `Retry-After: 5`.",
    "replica_behind": "A search, recall or context pack on a replica whose keyword index is "
    "further behind the shared catalog than `[serve] max_lag_s` allows (its follower stopped "
    "or cannot keep up): refused rather than answered with possibly stale results. Retry, or "
    "ask another replica; `/readyz` shows the lag. Sent with `Retry-After: 1`.",
    "not_ready": "Reserved; no route answers with it yet. `/readyz` answers 503 with its own "
    "report (see [its route](#get-readyz)).",
}

SKIPPED_SCHEMAS = ("HTTPValidationError", "ValidationError")  # FastAPI's; errors are ours


def _spec_and_credentials() -> tuple[Schema, dict[tuple[str, str], str], str]:
    """The OpenAPI schema of a freshly built app, each route's credential, the schema's URL."""
    from memex_core.api import Memex
    from memex_server import auth
    from memex_server.app import build_app

    kinds = {auth.operator: "operator", auth.agent: "agent", auth.reader: "reader"}
    with tempfile.TemporaryDirectory(prefix="memex-api-reference-") as home, Memex(home) as mx:
        app = build_app(mx, admin_secret="not-a-secret")
        spec = app.openapi()
        credentials: dict[tuple[str, str], str] = {}
        for route in _api_routes(app.routes):
            calls = set(_dependency_calls(route.dependant))
            kind = next((k for call, k in kinds.items() if call in calls), "none")
            if kind == "none" and auth.caller in calls:
                raise SystemExit(f"{route.path}: checks credentials in a way this page cannot name")
            for method in route.methods:
                credentials[(method.lower(), route.path)] = kind
        return spec, credentials, app.openapi_url or ""


def _api_routes(routes: list[Any]) -> Iterator[Any]:
    """The app's routes with their handlers: FastAPI before 0.165 lists them flat, later
    ones keep each included router whole (``original_router``)."""
    from fastapi.routing import APIRoute

    for route in routes:
        if isinstance(route, APIRoute):
            yield route
        elif hasattr(route, "original_router"):
            yield from _api_routes(route.original_router.routes)


def _dependency_calls(dependant: Any) -> Iterator[Callable[..., Any]]:
    for dependency in dependant.dependencies:
        if dependency.call is not None:
            yield dependency.call
        yield from _dependency_calls(dependency)


# -- types -------------------------------------------------------------------------------------


def _anchor(name: str) -> str:
    return f"schema-{name.lower()}"


def _ref_name(schema: Schema) -> str | None:
    ref = schema.get("$ref")
    return ref.rsplit("/", 1)[-1] if isinstance(ref, str) else None


def _type(schema: Schema) -> str:
    """A JSON schema as a short type: `list[Fragment]`, `string | null`, `"hybrid" | ...`."""
    name = _ref_name(schema)
    if name:
        return f"[{name}](#{_anchor(name)})"
    for combinator in ("anyOf", "oneOf"):
        if combinator in schema:
            return " \\| ".join(_type(s) for s in schema[combinator])
    if "enum" in schema:
        return " \\| ".join(json.dumps(v) for v in schema["enum"])
    if "const" in schema:
        return json.dumps(schema["const"])
    kind = schema.get("type")
    if kind == "array":
        return f"list[{_type(schema.get('items', {}))}]"
    if kind == "object":
        extra = schema.get("additionalProperties")
        if isinstance(extra, dict) and extra:
            return f"dict[string, {_type(extra)}]"
        return "object"
    if kind == "string" and schema.get("format") == "binary":
        return "bytes"
    if isinstance(kind, str):
        return kind
    return "any"


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


def _constraints(schema: Schema) -> str:
    """Bounds of a field, as the server checks them (422 `invalid_request` outside)."""
    parts = []
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None and high is not None:
        parts.append(f"From {_number(low)} to {_number(high)}.")
    elif low is not None:
        parts.append(f"At least {_number(low)}.")
    elif high is not None:
        parts.append(f"At most {_number(high)}.")
    if "maxItems" in schema:
        parts.append(f"At most {schema['maxItems']} items.")
    if "maxLength" in schema:
        parts.append(f"At most {schema['maxLength']} characters.")
    return " ".join(parts)


def _cell(text: str) -> str:
    """Text for one table cell: one line, pipes escaped."""
    return " ".join(text.split()).replace("|", "\\|")


def _check_markup(page: str) -> str:
    """Fail on a ``<`` outside code: Markdown would pass ``<n>`` on as an HTML tag."""
    prose = re.sub(r"```.*?```", "", page, flags=re.DOTALL)
    for line in re.sub(r"`[^`\n]*`", "", prose).splitlines():
        if "<" in line:
            raise SystemExit(f"api reference: put this in backticks, or avoid '<': {line}")
    return page


def _description(schema: Schema) -> str:
    text = schema.get("description", "")
    return _cell(docstring(text)) if text else ""


def _fields_table(schema: Schema) -> list[str]:
    """A request body's fields: type, default (or required), description and bounds."""
    properties: dict[str, Schema] = schema.get("properties", {})
    if not properties:
        return ["No fields: send `{}`."]
    required = set(schema.get("required", ()))
    out = ["| field | type | default | description |", "|---|---|---|---|"]
    for name in sorted(properties):
        field = properties[name]
        if name in required:
            default = "required"
        elif "default" in field:
            default = f"`{json.dumps(field['default'])}`"
        elif "null" in _type(field):
            default = "`null`"  # the schema leaves a None default out
        else:
            default = "optional"  # made when the request is read (default_factory: [])
        notes = [n for n in (_description(field), _cell(_constraints(field))) if n]
        out.append(f"| `{name}` | {_type(field)} | {default} | {' '.join(notes)} |")
    return out


def _answer_table(schema: Schema) -> list[str]:
    """A response type's fields (every one is always present in a response)."""
    properties: dict[str, Schema] = schema.get("properties", {})
    described = any("description" in field for field in properties.values())
    out = ["| field | type | description |" if described else "| field | type |"]
    out.append("|---|---|---|" if described else "|---|---|")
    for name in sorted(properties):
        row = f"| `{name}` | {_type(properties[name])} |"
        out.append(row + (f" {_description(properties[name])} |" if described else ""))
    return out


# -- routes ------------------------------------------------------------------------------------


def _operations(spec: Schema, openapi_url: str) -> Iterator[tuple[str, str, Schema]]:
    for path, methods in spec["paths"].items():
        for method, operation in methods.items():
            yield method, path, operation
    if openapi_url:
        yield (
            "get",
            openapi_url,
            {
                "summary": "This API's OpenAPI schema (the source of this page)",
                "description": f"The OpenAPI {spec['openapi']} document of every route above.",
                "tags": ["health"],
                "responses": {"200": {"content": {"application/json": {"schema": {}}}}},
            },
        )


def _route_anchor(method: str, path: str) -> str:
    return f"{method}-{path}".lower().replace("/", "-").replace(".", "-").replace("--", "-")


def _response(operation: Schema) -> str:
    content = operation.get("responses", {}).get("200", {}).get("content", {})
    schema = content.get("application/json", {}).get("schema")
    if not schema:
        return "JSON, as described above" if schema is not None else "nothing"
    return _type(schema)


def _errors(kind: str, operation: Schema) -> str:
    codes = []
    if kind != "none":
        codes += ["missing_credentials", "invalid_credentials"]
    codes += {"operator": ["operator_only"], "agent": ["agent_only", "forbidden"]}.get(kind, [])
    codes += ["forbidden"] if kind == "reader" else []
    if "requestBody" in operation:
        codes.append("body_too_large")
    if "requestBody" in operation or operation.get("parameters"):
        codes.append("invalid_request")
    return ", ".join(f"`{code}`" for code in codes)


def _route(
    method: str, path: str, operation: Schema, kind: str, schemas: dict[str, Schema]
) -> list[str]:
    heading = f"### {method.upper()} {path} {{ #{_route_anchor(method, path)} }}"
    out = [heading, "", f"{operation.get('summary', '')}.", ""]
    if operation.get("description"):
        out += [docstring(operation["description"]), ""]
    out += [f"**Credentials:** {CREDENTIALS[kind]}", ""]
    parameters = operation.get("parameters", [])
    if parameters:
        out += ["**Query parameters:**", ""]
        out += ["| parameter | type | default | description |", "|---|---|---|---|"]
        for parameter in sorted(parameters, key=lambda p: str(p["name"])):
            schema = parameter.get("schema", {})
            if parameter.get("required"):
                default = "required"
            else:
                default = f"`{json.dumps(schema['default'])}`" if "default" in schema else ""
            text = _cell(docstring(parameter.get("description", "")))
            out.append(f"| `{parameter['name']}` | {_type(schema)} | {default} | {text} |")
        out.append("")
    body = operation.get("requestBody")
    if body:
        (media, content), *_ = sorted(body["content"].items())
        schema = content.get("schema", {})
        name = _ref_name(schema)
        if name:
            out += [f"**Request body** (`{media}`, `{name}`):", ""]
            out += [*_fields_table(schemas[name]), ""]
        else:
            out += [f"**Request body** (`{media}`): {_type(schema)}, the file itself.", ""]
    out += [f"**Response** (200): {_response(operation)}", ""]
    errors = _errors(kind, operation)
    if errors:
        out += [f"**Errors:** {errors}; and those [memex itself raises](#errors).", ""]
    return out


# -- schemas -----------------------------------------------------------------------------------


def _refs(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        name = _ref_name(value)
        if name:
            yield name
        for item in value.values():
            yield from _refs(item)
    elif isinstance(value, list):
        for item in value:
            yield from _refs(item)


def _shown_schemas(spec: Schema) -> list[str]:
    """Schemas a response names, and whatever those and the bodies' fields name, transitively.
    Request bodies themselves are described with their route."""
    schemas = spec["components"]["schemas"]
    roots: list[str] = []
    for methods in spec["paths"].values():
        for operation in methods.values():
            for status, response in operation.get("responses", {}).items():
                if status == "200":
                    roots += _refs(response)
            body = operation.get("requestBody", {})
            for content in body.get("content", {}).values():
                for name in _refs(content):
                    roots += _refs(schemas[name].get("properties", {}))
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in seen or name in SKIPPED_SCHEMAS:
            continue
        seen.add(name)
        todo += _refs(schemas[name])
    return sorted(seen)


def _schema(name: str, schema: Schema) -> list[str]:
    out = [f"### {name} {{ #{_anchor(name)} }}", ""]
    if schema.get("description"):
        out += [docstring(schema["description"]), ""]
    if schema.get("type") == "object" or "properties" in schema:
        out += [*_answer_table(schema), ""]
    else:
        out += [f"{_type(schema)}", ""]
    return out


# -- the page ----------------------------------------------------------------------------------


def _error_table() -> list[str]:
    from memex_server.errors import CODES

    missing = sorted(set(CODES) - set(WHEN))
    if missing:
        raise SystemExit(f"docs/generators/api_reference.py: say when {missing} is returned")
    out = ["| status | code | when |", "|---|---|---|"]
    for code, status in sorted(CODES.items(), key=lambda item: (item[1], item[0])):
        out.append(f"| {status} | `{code}` | {WHEN[code]} |")
    return out


def render() -> str:
    spec, credentials, openapi_url = _spec_and_credentials()
    schemas: dict[str, Schema] = spec["components"]["schemas"]
    operations = list(_operations(spec, openapi_url))
    tags: list[str] = []
    for _, _, operation in operations:
        tag = (operation.get("tags") or ["other"])[0]
        if tag not in tags:
            tags.append(tag)

    out = ["## Routes", "", "| method | path | credentials | what it does |", "|---|---|---|---|"]
    for method, path, operation in operations:
        kind = credentials.get((method, path), "none")
        if (kind == "none") != (not operation.get("security")):
            raise SystemExit(f"{method.upper()} {path}: cannot tell which credential it takes")
        anchor = _route_anchor(method, path)
        summary = _cell(operation.get("summary", ""))
        who = SHORT_CREDENTIALS[kind]
        out.append(f"| {method.upper()} | [`{path}`](#{anchor}) | {who} | {summary} |")
    out.append("")
    for tag in tags:
        out += [f"## {tag.capitalize()} routes", ""]
        for method, path, operation in operations:
            if (operation.get("tags") or ["other"])[0] == tag:
                kind = credentials.get((method, path), "none")
                out += _route(method, path, operation, kind, schemas)
    out += [
        "## Errors",
        "",
        "Every failure is JSON with a stable code, never a traceback:",
        "",
        "```json",
        '{"error": {"code": "not_found", "message": "...what went wrong and the fix..."}}',
        "```",
        "",
        *_error_table(),
        "",
        "## Schemas",
        "",
        "What the routes answer with. Times are seconds since the epoch (UTC).",
        "",
    ]
    for name in _shown_schemas(spec):
        out += _schema(name, schemas[name])
    return _check_markup("\n".join(out))
