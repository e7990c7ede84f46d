"""Argument values typed by their JSON Schema at run time, the way vLLM coerces them.

``coerce``: raw text to the best value its schema's types admit.
``coerce_value``: a parsed value typed through properties, items and unions.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any, Final

from .json_text import refuse_constant, to_json
from .schema_compiler import compile_schema
from .schema_nodes import Compiled, is_mapping, schema_types


def finite(value: Any) -> bool:
    """Whether a decoded JSON value holds no infinite or NaN float (JSON cannot)."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(map(finite, value))
    if isinstance(value, dict):
        return all(map(finite, value.values()))
    return True


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # (1e400: JSON has no infinity)
        raise ValueError(f"{text} is not a finite number")
    return value


# JSON text to a value JSON can hold: NaN, Infinity and a number too large for a float
# raise ValueError as they are read, so no walk over the decoded value follows (that walk
# cost every typed container of a call-dense parse 3% more).
_FINITE_JSON: Final = json.JSONDecoder(parse_constant=refuse_constant,
                                       parse_float=_finite_float).decode


# A backslash, or a backslash pair or escaped quote (which stay as they are).
_BACKSLASH = re.compile(r'\\(["\\]?)')


def _as_written(match: re.Match[str]) -> str:
    """A lone backslash (one that starts no escape the model meant) as a backslash."""
    return match.group(0) if match.group(1) else "\\\\"


def _container(text: str) -> Any:
    try:
        parsed = _FINITE_JSON(text)
    except ValueError:
        return None
    return parsed if isinstance(parsed, (dict, list)) else None


def json_container(raw: str) -> Any:
    """``raw`` as the JSON object or array a model wrote, or None: as JSON; else as the
    text of a JSON string (the model escaped the JSON, [\\"a\\"]); and each with its
    backslashes that start no JSON escape it meant taken as backslashes
    ({"path": "C:\\Users\\a"})."""
    text = raw.strip()
    if not text[:1] in ("[", "{"):
        return None
    candidates = [text]
    if '\\"' in text:
        try:
            candidates.append(json.loads('"' + text + '"'))
        except ValueError:
            pass
    for candidate in candidates:
        parsed = _container(candidate)
        if parsed is None and "\\" in candidate:
            parsed = _container(_BACKSLASH.sub(_as_written, candidate))
        if parsed is not None:
            return parsed
    return None


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
        parsed = json_container(raw)
        if parsed is not None:
            return parsed
    if "string" in types:
        return raw
    try:
        return _FINITE_JSON(raw)
    except ValueError:
        return raw


def coerce_value(value: Any, schema: Any) -> Any:
    """A parsed value typed by its schema, recursing into properties (and
    ``additionalProperties``) and items, through ``$ref``/``allOf``/``anyOf``."""
    if not is_mapping(schema):
        return value
    if not isinstance(schema, Compiled):
        schema = compile_schema(schema)
    if isinstance(value, str):
        return coerce(value, schema_types(schema))
    if isinstance(value, dict):
        props = schema.props
        if not props:
            return value
        return {k: coerce_value(v, props.get(k)) if k in props else v for k, v in value.items()}
    if isinstance(value, list):
        if schema.item is None:
            return value
        return [coerce_value(v, schema.item) for v in value]
    return coerce(to_json(value), schema_types(schema))
