"""Typing tool arguments by the request's JSON Schema, the way vLLM coerces them."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

_ALIASES = {
    "str": "string", "text": "string", "varchar": "string", "char": "string",
    "enum": "string", "int": "integer", "int32": "integer", "int64": "integer",
    "uint": "integer", "uint32": "integer", "uint64": "integer", "long": "integer",
    "short": "integer", "unsigned": "integer", "float": "number", "float32": "number",
    "float64": "number", "double": "number", "bool": "boolean", "dict": "object",
    "arr": "array", "list": "array", "sequence": "array",
}
_ENUM_TYPES = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"),
               (list, "array"), (dict, "object"))
STRING = frozenset(("string",))


def read_tools(tools: Sequence[Any], warnings: list[str]) -> list[Mapping[str, Any]]:
    """The request's tool definitions as plain mappings.

    A definition may be a mapping or an object with ``model_dump()`` (the pydantic
    models servers such as vLLM pass); one that is neither, or whose function has no
    name, cannot type any call's arguments: it is left out with a warning, instead of
    its calls silently losing their typing.
    """
    out: list[Mapping[str, Any]] = []
    for i, tool in enumerate(tools):
        if not isinstance(tool, Mapping):
            dump = getattr(tool, "model_dump", None)
            try:
                tool = dump() if callable(dump) else None
            except Exception as exc:  # a broken model: report it, parse on untyped
                warnings.append(f"tool definition {i} cannot be read: model_dump() "
                                f"raised {type(exc).__name__}: {exc}")
                continue
        fn = tool.get("function", tool) if isinstance(tool, Mapping) else None
        if not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str):
            warnings.append(f"tool definition {i} cannot be read (no function name); "
                            "its calls' arguments stay untyped")
            continue
        out.append(tool)
    return out


def tool_properties(tools: Sequence[Mapping[str, Any]] | None, name: str) -> dict[str, Any] | None:
    """The ``properties`` of tool ``name``'s parameters; None without tools or schema."""
    for tool in tools or ():
        fn = tool.get("function", tool) if isinstance(tool, Mapping) else None
        if isinstance(fn, Mapping) and fn.get("name") == name:
            params = fn.get("parameters")
            props = params.get("properties") if isinstance(params, Mapping) else None
            return dict(props) if isinstance(props, Mapping) else None
    return None


def tool_names(tools: Sequence[Mapping[str, Any]] | None) -> frozenset[str]:
    """Names of the request's function tools."""
    names = set()
    for tool in tools or ():
        fn = tool.get("function", tool) if isinstance(tool, Mapping) else None
        if isinstance(fn, Mapping) and isinstance(fn.get("name"), str):
            names.add(fn["name"])
    return frozenset(names)


def schema_types(schema: Any) -> frozenset[str]:
    """JSON types a schema admits (``type``, ``enum``, ``anyOf``/``oneOf``/``allOf``,
    ``nullable``); a schema that says nothing admits only strings, as in vLLM."""
    if not isinstance(schema, Mapping):
        return STRING
    types: set[str] = set()
    declared = schema.get("type")
    for t in declared if isinstance(declared, list) else [declared]:
        if isinstance(t, str):
            types.add(_ALIASES.get(t.strip().lower(), t.strip().lower()))
    enum = schema.get("enum")
    if isinstance(enum, list):
        for value in enum:
            if value is None:
                types.add("null")
            else:
                types.update(name for cls, name in _ENUM_TYPES if type(value) is cls)
    for key in ("anyOf", "oneOf", "allOf"):
        choices = schema.get(key)
        if isinstance(choices, list):
            for choice in choices:
                types.update(schema_types(choice))
    if schema.get("nullable") is True:
        types.add("null")
    return frozenset(types) if types else STRING


def _finite(value: Any) -> bool:
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(map(_finite, value))
    if isinstance(value, dict):
        return all(map(_finite, value.values()))
    return True


def coerce(raw: str, types: frozenset[str]) -> Any:
    """Best typed value for raw text: null, integer, number, boolean, object, array,
    string, in that order of preference; never a value JSON cannot hold."""
    if "null" in types and raw.lower() == "null":
        return None
    if "integer" in types:
        try:
            return int(raw)
        except ValueError:
            pass
    if "number" in types:
        try:
            return int(raw)
        except ValueError:
            pass
        try:
            val = float(raw)
        except ValueError:
            val = math.nan
        if math.isfinite(val):
            return int(val) if val == int(val) else val
    if "boolean" in types:
        low = raw.strip().lower()
        if low in ("true", "1"):
            return True
        if low in ("false", "0"):
            return False
    if "object" in types or "array" in types:
        try:
            parsed = json.loads(raw)
        except ValueError:
            parsed = None
        if isinstance(parsed, (dict, list)) and _finite(parsed):
            return parsed
    if "string" in types:
        return raw
    try:
        parsed = json.loads(raw)
    except ValueError:
        return raw
    return parsed if _finite(parsed) else raw


def coerce_value(value: Any, schema: Any) -> Any:
    """A parsed value typed by its schema, recursing into properties and items."""
    if not isinstance(schema, Mapping):
        return value
    if isinstance(value, str):
        return coerce(value, schema_types(schema))
    if isinstance(value, dict):
        props = schema.get("properties")
        if not isinstance(props, Mapping):
            return value
        return {k: coerce_value(v, props[k]) if k in props else v for k, v in value.items()}
    if isinstance(value, list):
        items = schema.get("items")
        if not isinstance(items, Mapping):
            return value
        return [coerce_value(v, items) for v in value]
    return coerce(to_json(value), schema_types(schema))


def to_json(value: Any) -> str:
    """JSON text of a value, keeping non-ASCII characters as they are."""
    return json.dumps(value, ensure_ascii=False)
