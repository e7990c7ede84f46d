"""A compiled JSON Schema's nodes, and the JSON types a schema admits.

``schema_types``: the types of a schema (vLLM's aliases and enums), compiled or not.
``Compiled``: one node, ``$ref`` followed and ``allOf`` merged (``schema_compiler``).
``Properties``: an object's property schemas, and which decoded members they keep.
"""

from __future__ import annotations

from collections.abc import Mapping
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


def schema_types(schema: Any) -> frozenset[str]:
    """JSON types a schema admits (``type``, ``enum``, ``anyOf``/``oneOf``/``allOf``,
    ``nullable``); a schema that says nothing admits only strings, as in vLLM.
    A compiled schema answers from what it computed once."""
    if isinstance(schema, Compiled) and schema.types is not None:
        return schema.types
    return declared_types(schema)


def declared_types(schema: Any) -> frozenset[str]:
    """``schema_types`` of a schema as it is written (not a compiled node's answer)."""
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
