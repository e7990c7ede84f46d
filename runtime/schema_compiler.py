"""A JSON Schema compiled into ``Compiled`` nodes (``schema_nodes``), once per schema.

``$ref`` followed (local pointers), ``allOf`` merged, unions' properties joined.
Each node's types, properties and item schema computed once; recursion bounded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from mypy_extensions import mypyc_attr

from .schema_nodes import Compiled, Properties, declared_types, is_mapping

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
    out.types = declared_types(out)
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
