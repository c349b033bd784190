"""What was wrong with a request FastAPI could not read into a route's arguments, in the words of
the API's other errors (docs/protocol.md, "Errors"): one sentence, `<what was wrong>: <what is
allowed>`, for `{"detail": ...}` or the site's page.

FastAPI's own answer is its list of pydantic errors, each holding the input it refused whole (a
60,000-character name came back as it was sent). Here a refusal names the field, says what was
wrong (its length, its kind, missing, not JSON, sent as a form) and quotes the field's own rule
(its `description`), showing at most a short, escaped prefix of anything sent.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from fastapi.routing import APIRoute
from pydantic import BaseModel
from pydantic.fields import FieldInfo
from starlette.requests import Request

FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")
SHOWN = 24  # characters of a refused text shown back
MOST = 3  # refusals named in one answer; the rest are counted
LONGEST = 600  # characters of an error message; a longer one has its middle left out

_INTS = ("int_type", "int_parsing", "int_parsing_size", "int_from_float")
_RANGES = ("greater_than", "greater_than_equal", "less_than", "less_than_equal")
# A run this long with no space, quote or bracket is no word of a message: it is something sent.
_ECHO = re.compile(r"[^\s'\"()\[\]{},:;]{41,}")


def is_form(content_type: str) -> bool:
    return content_type.strip().lower().startswith(FORMS)


def quoted(text: str) -> str:
    """`text` quoted and escaped (as Python's repr: control and invisible characters as codes),
    only its start when it is long."""
    if len(text) <= SHOWN:
        return repr(text)
    return f"{text[:SHOWN]!r}... ({len(text):,} characters)"


def kind(value: Any) -> str:
    """What a refused value is, in JSON's terms, with at most a short prefix of it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"a number ({value})" if abs(value) < 10**12 else "a number"
    if isinstance(value, float):
        return f"a number ({value!r})"
    if isinstance(value, str):
        return f"text ({value!r})" if len(value) <= SHOWN else f"text ({len(value):,} characters)"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, Mapping):
        return "a JSON object"
    return "not JSON"


def brief(message: str) -> str:
    """`message` with anything sent that it repeats cut to a prefix: a long run of characters
    with no space (a name, a path, a value), and the middle of a message still too long."""
    message = _ECHO.sub(lambda m: f"{m.group()[:SHOWN]}... ({len(m.group()):,} characters)", message)
    if len(message) > LONGEST:
        cut = len(message) - 500
        message = f"{message[:400]} ... ({cut:,} characters left out) ... {message[-100:]}"
    return message


def _and(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


def _body_model(route: APIRoute | None) -> type[BaseModel] | None:
    model = route.body_field.field_info.annotation if route is not None and route.body_field else None
    return model if isinstance(model, type) and issubclass(model, BaseModel) else None


def _field(route: APIRoute | None, where: str, name: object) -> FieldInfo | None:
    if route is None:
        return None
    if where == "body":
        model = _body_model(route)
        return model.model_fields.get(str(name)) if model is not None else None
    params = {"query": route.dependant.query_params, "path": route.dependant.path_params}.get(where, [])
    return next((p.field_info for p in params if p.alias == name), None)


def reads(route: APIRoute | None, method: str, where: str) -> str:
    """What a route reads in its body (`where` "body") or its query string."""
    if route is None:
        return "see docs/protocol.md"
    address = f"{method} {route.path}"
    if where == "query":
        params = route.dependant.query_params
        if not params:
            return f"{address} reads no query parameters"
        named = [f"{p.alias} ({p.field_info.description or 'see docs/protocol.md'})" for p in params]
        return f"{address} reads the query parameter{'s' if len(named) > 1 else ''} {_and(named)}"
    model = _body_model(route)
    if model is None:
        return f"{address} reads no body"
    needed = [f'"{n}"' for n, f in model.model_fields.items() if f.is_required()]
    optional = [f'"{n}"' for n, f in model.model_fields.items() if not f.is_required()]
    text = f"{address} reads a JSON object with {_and(needed)}" if needed else f"{address} reads a JSON object"
    return f"{text} (and optionally {_and(optional)})" if optional and needed else text


def _is_json(content_type: str) -> bool:
    """Whether FastAPI reads a body of this type as JSON (what it does not, it keeps as bytes)."""
    main = content_type.split(";")[0].strip().lower()
    return main == "application/json" or (main.startswith("application/") and main.endswith("+json"))


def _clip(text: str) -> str:
    return text if len(text) <= 40 else f"{text[:40]}..."


def _whole_body(request: Request, route: APIRoute | None, error: Mapping[str, Any]) -> str:
    """What is wrong with the body as a whole, and what the route reads."""
    content_type = request.headers.get("content-type", "")
    wanted = reads(route, request.method, "body")
    if error["type"] == "json_invalid":
        reason = str(error.get("ctx", {}).get("error", ""))
        if reason.startswith("not JSON: "):
            return f"the body is not JSON ({reason.removeprefix('not JSON: ')}): {wanted}"
        return f"the body is not JSON this server reads ({reason}): {wanted}"
    if error["type"] == "missing":
        return f"the body is empty: {wanted}"
    if not _is_json(content_type):
        main = _clip(content_type.split(";")[0].strip().lower())
        if is_form(main):
            what = f"the body is a form ({main}), not JSON"
        elif main:
            what = f"the body is sent as {main}, not application/json"
        else:
            what = "the body is sent without its Content-Type"
        return f"{what}: {wanted}, sent as application/json"
    return f"the body is {kind(error.get('input'))}, not a JSON object: {wanted}"


def _problem(kind_of: str, value: Any) -> str:
    """What is wrong with one field's value, by pydantic's error type."""
    if kind_of == "missing":
        return "is missing"
    if kind_of in ("string_too_long", "string_too_short") and isinstance(value, str):
        return f"is {len(value):,} characters long"
    if kind_of == "string_type":
        return f"is {kind(value)}, not text"
    if kind_of in _INTS:
        return f"is {kind(value)}, not a whole number"
    if kind_of in ("dict_type", "model_type", "model_attributes_type"):
        return f"is {kind(value)}, not a JSON object"
    if kind_of in ("bool_type", "bool_parsing"):
        return f"is {kind(value)}, not true or false"
    if kind_of in _RANGES:
        shown = _clip(value) if isinstance(value, str) else kind(value)
        return f"is {shown}, out of range"
    return f"is {kind(value)}, which is refused"


def _one(request: Request, route: APIRoute | None, error: Mapping[str, Any]) -> str:
    loc = tuple(error.get("loc") or ("body",))
    where = str(loc[0])
    if where == "body" and (len(loc) == 1 or error["type"] == "json_invalid"):
        return _whole_body(request, route, error)
    name = ".".join(str(part) if len(str(part)) <= SHOWN else quoted(str(part)) for part in loc[1:])
    field = _field(route, where, loc[1])
    rule = field.description if field is not None else None
    problem = f"{name} {_problem(error['type'], error.get('input'))}"
    return f"{problem}: {rule}" if rule else problem


def _unknown(route: APIRoute | None, method: str, where: str, keys: list[str]) -> str:
    """The fields sent that the route does not read, and what it reads. (Unknown query parameters
    are not refused: a cache-buster or a tracking tag on an address is common and harmless.)"""
    noun = "query parameter" if where == "query" else "field"
    named = [quoted(key) for key in keys[:MOST]] + ([f"{len(keys) - MOST:,} more"] if len(keys) > MOST else [])
    what = f"there is no {noun} {named[0]}" if len(named) == 1 else f"there are no {noun}s {_and(named)}"
    return f"{what} here: {reads(route, method, where)}"


def explain(request: Request, errors: Sequence[Any]) -> tuple[int, str]:
    """The status and message for a request refused with these pydantic errors: 404 when its
    address names nothing (a path parameter that is not one), else 422."""
    route = request.scope.get("route")
    route = route if isinstance(route, APIRoute) else None
    in_path = [e for e in errors if tuple(e.get("loc") or ())[:1] == ("path",)]
    messages: list[str] = []
    unknown: dict[str, list[str]] = {}  # by where they were sent: named together
    for error in in_path or errors:
        loc = tuple(error.get("loc") or ())
        if error["type"] == "extra_forbidden" and len(loc) > 1:
            unknown.setdefault(str(loc[0]), []).append(str(loc[-1]))
            continue
        message = _one(request, route, error)
        if message not in messages:
            messages.append(message)
    messages += [_unknown(route, request.method, where, keys) for where, keys in unknown.items()]
    text = "; ".join(messages[:MOST])
    if len(messages) > MOST:
        text += f"; and {len(messages) - MOST} more"
    return (404 if in_path else 422), brief(text)
