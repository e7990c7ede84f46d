"""The ``nested_elements`` argument syntax: parameters as nested elements (MiniMax M3)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..schema_types import coerce, schema_types, to_json
from .base import ArgumentReader, ArgumentSyntax, Piece, WriterFactory, options_schema
from .writer import ArgumentsWriter

_MAX_ELEMENT_DEPTH = 128  # deeper nesting is malformed, as in vLLM
_MIXED_TEXT = "$text"  # where text beside child elements goes


class ElementArguments:
    """Parameters as nested elements behind a marker prefix (MiniMax M3).

    ``P<city>Paris P</city> P<items> P<item>a P</item> P</items>`` (``P`` the prefix):
    an element with children is an object, or an array where the schema says so;
    repeated names collect into a list; text beside children goes under ``$text``.
    A repeated name turns an emitted value into a list, so the object is written once,
    when the call ends; parsing it then is one linear pass.
    """

    __slots__ = ("writer", "prefix", "parts")

    def __init__(self, writer: ArgumentsWriter, *, prefix: str) -> None:
        self.writer = writer
        self.prefix = prefix
        self.parts: list[str] = []

    def complete(self) -> bool:
        """Whether every element the model opened has closed."""
        text = "".join(self.parts)
        return not text[_parse_elements(text, self.prefix)[1]:].strip()

    def feed(self, text: str) -> str:
        self.parts.append(text)
        return ""

    def finish(self) -> str:
        text = "".join(self.parts)
        params, end = _parse_elements(text, self.prefix)
        if text[end:].strip():
            self.writer.warnings.append("arguments ended inside an element; it was dropped")
        props = self.writer.properties or {}
        self.writer.closed = True
        return to_json(_element_object(params, {"properties": props}))


def _parse_elements(text: str, prefix: str) -> tuple[list, int]:
    """The complete top-level elements of ``text``, and where parsing stopped."""
    params: list = []
    pos, n = 0, len(text)
    opening = prefix + "<"
    while True:
        while pos < n and text[pos].isspace():
            pos += 1
        if not text.startswith(opening, pos):
            return params, pos
        element = _parse_element(text, pos, prefix)
        if element is None:
            return params, pos
        name, value, pos = element
        params.append((name, value))


def _parse_element(text: str, pos: int, prefix: str) -> tuple[str, Any, int] | None:
    """The element at ``pos`` (name, value, end), or None if malformed or cut."""
    opening, closing = prefix + "<", prefix + "</"
    # Frames of open elements: name, close tag, text parts, children.
    stack: list[tuple[str, str, list[str], list]] = []
    while True:
        # An element opens at pos.
        name_start = pos + len(opening)
        name_end = text.find(">", name_start)
        if name_end <= name_start or len(stack) >= _MAX_ELEMENT_DEPTH:
            return None
        name = text[name_start:name_end]
        if name.startswith("/") or not name.strip():
            return None
        stack.append((name, f"{closing}{name}>", [], []))
        pos = name_end + 1
        while True:
            name, close_tag, parts, children = stack[-1]
            marker = text.find(prefix, pos)
            if marker < 0:
                return None
            parts.append(text[pos:marker])
            if not text.startswith(close_tag, marker):
                if not text.startswith(opening, marker):
                    return None
                pos = marker
                break  # a child opens
            pos = marker + len(close_tag)
            stack.pop()
            body = "".join(parts)
            value: Any = body
            if children:
                if body.strip():
                    field = _MIXED_TEXT
                    while any(child == field for child, _ in children):
                        field = "$" + field
                    children.append((field, body))
                value = children
            if not stack:
                return name, value, pos
            stack[-1][3].append((name, value))


def _container(schema: Mapping[str, Any]) -> tuple[str, Mapping[str, Any]] | None:
    """The first array or object alternative of ``schema``."""
    declared = schema.get("type")
    for kind in ("array", "object"):
        if declared == kind or (isinstance(declared, list) and kind in declared):
            return kind, schema
    if declared is None:
        if "items" in schema:
            return "array", schema
        if "properties" in schema or "additionalProperties" in schema:
            return "object", schema
    for key in ("anyOf", "oneOf"):
        for choice in schema.get(key) or ():
            if isinstance(choice, Mapping):
                found = _container(choice)
                if found is not None:
                    return found
    return None


def _element_value(value: Any, schema: Any) -> Any:
    """An element's JSON value, typed by its schema."""
    schema = schema if isinstance(schema, Mapping) else None
    container = _container(schema) if schema is not None else None
    if isinstance(value, str):
        if schema is None:
            return value
        types = schema_types(schema)
        # Templates render an empty list or object as an empty element.
        if container is not None and "string" not in types and not value.strip():
            return [] if container[0] == "array" else {}
        return coerce(value, types)
    if container is not None and container[0] == "array":
        items = container[1].get("items")
        return [_element_value(child, items) for _, child in value]
    return _element_object(value, container[1] if container is not None else None)


def _element_object(elements: list, schema: Mapping[str, Any] | None) -> dict[str, Any]:
    """Named elements as an object; a repeated name collects its values in a list."""
    props = (schema or {}).get("properties") or {}
    extra = (schema or {}).get("additionalProperties")
    out: dict[str, Any] = {}
    listed: set[str] = set()
    for name, element in elements:
        value = _element_value(element, props.get(name, extra))
        if name not in out:
            out[name] = value
        elif name in listed:
            out[name].append(value)
        else:
            out[name] = [out[name], value]
            listed.add(name)
    return out


class ElementsSyntax(ArgumentSyntax):
    """Arguments as nested elements behind a marker prefix ``P``: ``P<city>Paris P</city>``.

    Elements nest into objects and repeated names make lists (MiniMax M3); values are
    typed by the tool's schema, and the object is written when the call ends.
    """

    name = "nested_elements"
    schema = options_schema({
        "prefix": {"$ref": "#/$defs/literal", "description": (
            "Marks every tag: PREFIX<name>value PREFIX</name> (MiniMax M3: ]<]minimax[>[). "
            "Elements nest; repeated names make lists; the object is written when the "
            "call ends.")},
    }, required=("prefix",))
    bodies = ("text",)
    __slots__ = ("prefix",)

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        self.prefix = options["prefix"]

    def reader(self, make_writer: WriterFactory, name: str | None) -> ArgumentReader:
        return ElementArguments(make_writer(name or ""), prefix=self.prefix)

    def structural_style(self) -> str | None:
        return self._style_by_options((({"prefix": "]<]minimax[>["}, "minimax_m3_xml"),))

    def render(self, arguments: Mapping[str, Any]) -> list[Piece]:
        out: list[Piece] = []
        for key, value in arguments.items():
            _element(key, value, self.prefix, out)
        return out


def _element(key: str, value: Any, prefix: str, out: list[Piece]) -> None:
    out.append((f"{prefix}<{key}>", True))
    if isinstance(value, Mapping):
        for k, v in value.items():
            _element(k, v, prefix, out)
    elif isinstance(value, list):
        for v in value:
            _element("item", v, prefix, out)
    else:
        out.append((value if isinstance(value, str) else json.dumps(value), False))
    out.append((f"{prefix}</{key}>", True))
