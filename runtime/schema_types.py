"""Typing tool arguments by the request's JSON Schema, the way vLLM coerces them."""

from __future__ import annotations

import json
import marshal
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final, TypeGuard

from mypy_extensions import mypyc_attr

_ALIASES: Final = {
    "str": "string", "text": "string", "varchar": "string", "char": "string",
    "enum": "string", "int": "integer", "int32": "integer", "int64": "integer",
    "uint": "integer", "uint32": "integer", "uint64": "integer", "long": "integer",
    "short": "integer", "unsigned": "integer", "float": "number", "float32": "number",
    "float64": "number", "double": "number", "bool": "boolean", "dict": "object",
    "arr": "array", "list": "array", "sequence": "array",
}
_ENUM_TYPES: Final = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"),
               (list, "array"), (dict, "object"))
STRING: Final = frozenset(("string",))


def is_mapping(value: Any) -> TypeGuard[Mapping[str, Any]]:
    """``is_mapping(value)``, a plain dict (what JSON gives) answered first: the
    ABC check costs far more, and tools are walked once per request."""
    return type(value) is dict or isinstance(value, Mapping)


def read_tools(tools: Sequence[Any], warnings: list[str]) -> list[Mapping[str, Any]]:
    """The request's tool definitions as plain mappings.

    A definition may be a mapping, an object whose ``function`` has a ``name`` and a
    mapping (or None) as ``parameters`` (the pydantic models servers such as vLLM
    pass: read from those attributes), or any object with ``model_dump()``; one that is
    none of these, or whose function has no name, cannot type any call's arguments: it
    is left out with a warning, instead of its calls silently losing their typing.
    """
    out: list[Mapping[str, Any]] = []
    for i, tool in enumerate(tools):
        # (A plain dict, what JSON gives, is asked first here and below: in pure Python
        # a call per check was a few percent of a short completion's parse.)
        if type(tool) is not dict and not is_mapping(tool):
            read = _read_function(tool)
            if read is not None:
                out.append(read)
                continue
            dump = getattr(tool, "model_dump", None)
            try:
                tool = dump() if callable(dump) else None
            except Exception as exc:  # a broken model: report it, parse on untyped
                warnings.append(f"tool definition {i} cannot be read: model_dump() "
                                f"raised {type(exc).__name__}: {exc}")
                continue
        fn = tool.get("function", tool) if type(tool) is dict or is_mapping(tool) else None
        if (type(fn) is not dict and not is_mapping(fn)) or not isinstance(fn.get("name"), str):
            warnings.append(f"tool definition {i} cannot be read (no function name); "
                            "its calls' arguments stay untyped")
            continue
        out.append(tool)
    return out


def _read_function(tool: Any) -> Mapping[str, Any] | None:
    """What typing and structural tags read of a tool object (its function's name,
    parameters and strict) from its attributes, as vLLM's pydantic tools have them:
    ``model_dump()`` of every tool costs 15 us each per request (vLLM 0.33,
    ``ChatCompletionToolsParam``), most of them never called; None when they are not
    there so (a mapping where the schema is, or no name)."""
    fn = getattr(tool, "function", None)
    name = getattr(fn, "name", None)
    params = getattr(fn, "parameters", None)
    if not isinstance(name, str) or not (params is None or is_mapping(params)):
        return None
    function: dict[str, Any] = {"name": name, "parameters": params}
    strict = getattr(fn, "strict", None)
    if strict is not None:
        function["strict"] = strict
    return {"type": "function", "function": function}


def tool_functions(tools: Sequence[Mapping[str, Any]] | None) -> dict[str, Mapping[str, Any]]:
    """The request's function definitions by name (the first of a name wins, as a scan
    in order finds it): one walk of the tools per request, one lookup per call."""
    functions: dict[str, Mapping[str, Any]] = {}
    for tool in tools or ():
        fn = tool.get("function", tool) if type(tool) is dict or is_mapping(tool) else None
        if type(fn) is dict or is_mapping(fn):
            name = fn.get("name")
            if isinstance(name, str) and name not in functions:
                functions[name] = fn
    return functions


def function_properties(fn: Mapping[str, Any] | None) -> Properties | None:
    """The compiled ``properties`` of a function definition's parameters (``$ref``
    followed, ``allOf`` merged, a top-level ``anyOf``/``oneOf`` of objects joined); None
    without one or without a schema."""
    params = fn.get("parameters") if fn is not None else None
    if not is_mapping(params):
        return None
    return _compiled_parameters(params).props


def tool_properties(tools: Sequence[Mapping[str, Any]] | None, name: str) -> Properties | None:
    """The compiled ``properties`` of tool ``name``'s parameters (``function_properties``);
    None without tools or schema."""
    return function_properties(tool_functions(tools).get(name))


# Compiled parameters by their marshal: a server sends the same tools with request after
# request, and compiling costs far more than writing the schema out.  marshal writes it
# in C, a third of what repr costs (no quoting; 2026-12-02, the benchmark's four schemas:
# 10.7k instructions each against 37k), refuses any type it cannot write exactly (a
# mapping other than a dict: compiled per request), and writes a cycle as a reference
# back, so equal keys are equal schemas; two spellings of one schema just take two
# entries.  Bounded.
_COMPILED: dict[bytes, Compiled] = {}
_COMPILED_LIMIT: Final = 512


def _compiled_parameters(params: Mapping[str, Any]) -> Compiled:
    """``compile_schema(params)``, shared by every request whose schema is the same."""
    if type(params) is not dict:  # (what marshal refuses, and mypy asks for a dict)
        return compile_schema(params)
    try:
        key = marshal.dumps(params, marshal.version)
    except ValueError:  # not plain JSON data inside (or nested past marshal's depth)
        return compile_schema(params)
    found = _COMPILED.get(key)
    if found is None:
        if len(_COMPILED) >= _COMPILED_LIMIT:
            _COMPILED.clear()
        found = _COMPILED[key] = compile_schema(params)
    return found


@mypyc_attr(allow_interpreted_subclasses=True)
class ToolTyping:
    """The request's tools' argument typing, compiled once per tool name and kept."""

    __slots__ = ("functions", "names", "compiled")

    def __init__(self, tools: Sequence[Mapping[str, Any]] | None) -> None:
        self.functions = tool_functions(tools)
        self.names = frozenset(self.functions)  # the request's function tools
        self.compiled: dict[str, Properties | None] = {}

    def properties(self, name: str) -> Properties | None:
        """Tool ``name``'s compiled properties (see ``function_properties``)."""
        # (Asked with ``in``, not caught as KeyError: the first call of each tool in a
        # request raised one, about 2k instructions compiled, a traceback built.)
        compiled = self.compiled
        if name in compiled:
            return compiled[name]
        try:
            props = function_properties(self.functions.get(name))
        except RecursionError:  # a schema nested past Python's stack: its calls go untyped
            props = None
        self.compiled[name] = props
        return props


def schema_types(schema: Any) -> frozenset[str]:
    """JSON types a schema admits (``type``, ``enum``, ``anyOf``/``oneOf``/``allOf``,
    ``nullable``); a schema that says nothing admits only strings, as in vLLM.
    A compiled schema answers from what it computed once."""
    if isinstance(schema, Compiled) and schema.types is not None:
        return schema.types
    return _declared_types(schema)


def _declared_types(schema: Any) -> frozenset[str]:
    if not is_mapping(schema):
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


encode_string: Callable[[str], str] = json.encoder.encode_basestring  # type: ignore[attr-defined]


def _value_encoder() -> Callable[[Any], str]:
    """json.dumps(value, ensure_ascii=False) without building an encoder per call.

    Even a reused JSONEncoder builds its C scanner anew per ``encode``; the C one is
    made once here.  It skips the circular-reference check: values come from decoded
    model text, which cannot hold a cycle."""
    make: Any = getattr(json.encoder, "c_make_encoder", None)
    try:
        iterencode = make(None, _not_json, encode_string, None, ": ", ", ", False, False, True)
    except TypeError:  # no C accelerator (None), or another signature
        return json.JSONEncoder(ensure_ascii=False).encode
    return lambda value: "".join(iterencode(value, 0))


def _not_json(value: Any) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


# JSON text of a value that is not a string (``to_json`` without its check).
encode_value: Final = _value_encoder()


def to_json(value: Any) -> str:
    """JSON text of a value, keeping non-ASCII characters as they are."""
    if type(value) is str:
        return encode_string(value)
    # (A typed scalar as json.dumps writes it, without the encoder's machinery.)
    if type(value) is int:
        return int.__repr__(value)
    if value is None or type(value) is bool:
        return _SCALARS[value]
    return encode_value(value)


_SCALARS: Final = {None: "null", True: "true", False: "false"}


# --- compiled schemas --------------------------------------------------------------------
# A tool's schema is compiled once per request (ToolTyping): every ``$ref`` is followed
# (``#``, ``#/$defs/...``, ``#/definitions/...``, any local JSON pointer), every ``allOf``
# is merged into one schema, and each node keeps its admitted types, the properties an
# object value may have (its own and those of its ``anyOf``/``oneOf`` branches), the schema
# of other keys (``additionalProperties``) and of array items.  Recursive schemas compile
# to cyclic structures: a node is memoized before its children are compiled.
# Which branch of a union a text takes is ``coerce``'s fixed order over the union's
# types (null, integer, number, boolean, object/array by JSON parse, string), not the
# order the branches are written in.

_SKIP: Final = frozenset(("$ref", "allOf", "$defs", "definitions", "anyOf", "oneOf", "properties",
                   "items", "prefixItems", "additionalProperties", "type"))


@mypyc_attr(allow_interpreted_subclasses=True)
class Properties(dict):  # type: ignore[type-arg]
    """An object's property schemas; ``extra`` types every other key
    (``additionalProperties``)."""

    __slots__ = ("extra", "_kept")

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.extra: Compiled | None = None
        # keeps()'s table, made on first use (after compiling has filled the object in).
        self._kept: tuple[dict[str, frozenset[type] | None], frozenset[type] | None] | None = None

    def keeps(self, members: dict[str, Any]) -> bool:
        """Whether a typed writer writes each of these decoded members as it came: a
        string whose schema types it string, any other value one its schema admits
        (``kept_types``), anything a key without schema has; one lookup per member."""
        return properties_keep(self, members)

    def get(self, key: Any, default: Any = None) -> Any:
        """The schema of property ``key``, else of any other key, else ``default``."""
        if dict.__contains__(self, key):
            return self[key]
        return self.extra if self.extra is not None else default

    def __contains__(self, key: object) -> bool:
        return dict.__contains__(self, key) or self.extra is not None

    def __bool__(self) -> bool:
        return len(self) > 0 or self.extra is not None


def properties_keep(properties: Properties, members: dict[str, Any]) -> bool:
    """``properties.keeps(members)`` as a direct call (compiled, a method of this dict
    subclass is called through Python), its table made on first use."""
    kept = properties._kept
    if kept is None:
        kept = properties._kept = (
            {key: None if schema is None else kept_types(schema_types(schema))
             for key, schema in dict.items(properties)},
            None if properties.extra is None else kept_types(schema_types(properties.extra)))
    own, extra = kept
    for key, value in members.items():
        ok = own.get(key, extra)
        if ok is not None and type(value) not in ok:
            return False
    return True


# Python types of decoded JSON values, by the JSON Schema types that admit them as they
# are (an integer is a number too; a string only where the schema says nothing else).
_KEPT_AS: tuple[tuple[str, type], ...] = (("null", type(None)), ("boolean", bool), ("integer", int), ("number", int),
            ("number", float), ("array", list), ("object", dict))


def kept_types(types: frozenset[str]) -> frozenset[type]:
    """The Python types of decoded values a writer typed by ``types`` keeps as written."""
    kept: set[type] = {py for json_type, py in _KEPT_AS if json_type in types}
    if types == STRING:
        kept.add(str)
    return frozenset(kept)


@mypyc_attr(allow_interpreted_subclasses=True)
class Compiled(dict):  # type: ignore[type-arg]
    """One schema node with ``$ref`` followed and ``allOf`` merged, typed once."""

    __slots__ = ("types", "props", "item")

    def __init__(self) -> None:
        super().__init__()
        self.types: frozenset[str] | None = None
        self.props: Properties | None = None
        self.item: Compiled | None = None


# Schema nodes one inside the other that compile: pure Python's recursion limit stops
# at about 330, and compiled (mypyc) code has no such check: the C stack would overflow
# (a crash, found at 50,000).  Past it, a tool's calls go untyped (ToolTyping).
MAX_SCHEMA_NESTING: Final = 250


def compile_schema(schema: Mapping[str, Any], root: Mapping[str, Any] | None = None) -> Compiled:
    """``schema`` compiled; its ``$ref`` pointers resolve in ``root`` (itself by default)."""
    return _Compiler(schema if root is None else root).node(schema)


def _pointer(root: Mapping[str, Any], ref: str) -> Mapping[str, Any] | None:
    """The schema a local ``$ref`` names, or None (remote or broken refs type nothing)."""
    if not ref.startswith("#"):
        return None
    node: Any = root
    for part in ref[1:].split("/")[1:] if ref[1:] else ():
        part = part.replace("~1", "/").replace("~0", "~")
        if is_mapping(node):
            node = node.get(part)
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node if is_mapping(node) else None


def _type_list(declared: Any) -> list[Any]:
    return list(declared) if isinstance(declared, list) else [declared]


@mypyc_attr(allow_interpreted_subclasses=True)
class _Compiler:
    """Compiles the nodes of one root schema, each source node once."""

    def __init__(self, root: Mapping[str, Any]) -> None:
        self.root = root
        self.memo: dict[int, Compiled] = {}
        self.depth = 0  # nodes being compiled, one inside the other

    def node(self, schema: Any) -> Any:
        """The compiled form of one schema node (non-mappings stay as they are); raises
        RecursionError past MAX_SCHEMA_NESTING nodes one inside the other."""
        if not is_mapping(schema):
            return schema
        done = self.memo.get(id(schema))
        if done is not None:
            return done  # compiled, or being compiled: a recursive reference
        if self.depth >= MAX_SCHEMA_NESTING:
            raise RecursionError(f"a schema nested deeper than {MAX_SCHEMA_NESTING}")
        self.depth += 1
        try:
            out = self.memo[id(schema)] = Compiled()
            self._merge(out, schema, frozenset())
            _finish(out)
        finally:
            self.depth -= 1
        return out

    def _merge(self, out: Compiled, schema: Mapping[str, Any], seen: frozenset[int]) -> None:
        """Merge ``schema`` (its ``$ref`` and ``allOf`` parts first) into ``out``."""
        if id(schema) in seen:
            return  # a $ref or allOf cycle adds nothing new
        seen = seen | {id(schema)}
        ref = schema.get("$ref")
        if isinstance(ref, str):
            target = _pointer(self.root, ref)
            if target is not None:
                self._merge(out, target, seen)
        parts = schema.get("allOf")
        for part in parts if isinstance(parts, list) else ():
            if is_mapping(part):
                self._merge(out, part, seen)
        if "type" in schema:
            declared = [t for t in _type_list(schema["type"]) if isinstance(t, str)]
            if "type" in out:  # allOf: a value must satisfy both
                both = [t for t in _type_list(out["type"]) if t in declared]
                out["type"] = both or declared
            else:
                out["type"] = schema["type"]
        for key in ("anyOf", "oneOf"):
            choices = schema.get(key)
            if isinstance(choices, list):
                out[key] = list(out.get(key, ())) + [self.node(c) for c in choices]
        props = schema.get("properties")
        if is_mapping(props):
            merged = dict(out.get("properties", {}))
            for name, sub in props.items():
                merged[name] = _either(merged.get(name), self.node(sub))
            out["properties"] = merged
        for key in ("items", "additionalProperties"):
            if key in schema:
                value = schema[key]
                out[key] = [self.node(v) for v in value] if isinstance(value, list) \
                    else self.node(value)
        if isinstance(schema.get("prefixItems"), list):
            out["prefixItems"] = [self.node(v) for v in schema["prefixItems"]]
        for key, value in schema.items():
            if key not in _SKIP:
                out[key] = value


def _either(a: Any, b: Any) -> Any:
    """One schema admitting what ``a`` or ``b`` admits (a property two branches declare)."""
    if a is None or a is b:
        return b
    out = Compiled()
    out["anyOf"] = [a, b]
    _finish(out)
    return out


def _finish(out: Compiled) -> None:
    """Compute a merged node's types, object properties and item schema, once."""
    out.types = frozenset()  # while computing: a recursive branch adds no type
    out.types = _declared_types(out)
    choices = [c for key in ("anyOf", "oneOf") for c in out.get(key, ())
               if isinstance(c, Compiled)]
    own = out.get("properties")
    props = Properties(own if is_mapping(own) else ())
    extra = out.get("additionalProperties")
    props.extra = extra if isinstance(extra, Compiled) else None
    for choice in choices:  # a union of objects: each branch's keys are typed
        if choice.props is None:
            continue  # the branch is an ancestor still being compiled
        for name, sub in dict.items(choice.props):
            props[name] = _either(dict.get(props, name), sub)
        if props.extra is None:
            props.extra = choice.props.extra
    out.props = props if props or is_mapping(own) else None
    items = out.get("items")
    out.item = items if isinstance(items, Compiled) else next(
        (c.item for c in choices if c.item is not None), None)
