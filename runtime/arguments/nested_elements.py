"""The ``nested_elements`` argument syntax: parameters as nested elements (MiniMax M3)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from mypy_extensions import mypyc_attr

from ..coercion import coerce
from ..json_text import to_json
from ..schema_nodes import schema_types
from .base import ArgumentReader, ArgumentSyntax, Piece, WriterFactory, options_schema
from .scanning import NOT_SPACE, partial_len
from .trim import TRIM_SCHEMA, trim_mode, trimmed
from .values import ValueScan
from .writer import ArgumentsWriter

_MAX_ELEMENT_DEPTH: Final = 128  # deeper nesting is malformed, as in vLLM
_MIXED_TEXT: Final = "$text"  # where text beside child elements goes


@mypyc_attr(allow_interpreted_subclasses=True)
class ElementArguments:
    """Parameters as nested elements behind a marker prefix (MiniMax M3).

    ``P<city>Paris P</city> P<items> P<item>a P</item> P</items>`` (``P`` the prefix):
    an element with children is an object, or an array where the schema says so;
    repeated names collect into a list; text beside children goes under ``$text``.
    Inside an element, a prefix that begins neither a child nor the element's own
    close tag is value text (``_tag``), and a top-level element's close tag closes it
    only where an open tag or the end follows (``_closes``).  A repeated name turns
    an emitted value into a list, so the object is written once, when the call ends;
    parsing it then is one linear pass (so a stream gives what ``parse()`` gives).
    ``trim`` (a mode of ``trim.ValueTrim``) drops whitespace around each text value.
    """

    __slots__ = ("writer", "prefix", "trim", "parts")

    def __init__(self, writer: ArgumentsWriter, *, prefix: str, trim: str = "none") -> None:
        self.writer = writer
        self.prefix = prefix
        self.trim = trim
        self.parts: list[str] = []

    def complete(self) -> bool:
        """Whether every element the model opened has closed."""
        text = "".join(self.parts)
        _, end, why = _parse_elements(text, self.prefix)
        return not why and not text[end:].strip()

    def feed(self, text: str) -> str:
        self.parts.append(text)
        return ""

    def finish(self) -> str:
        text = "".join(self.parts)
        params, end, why = _parse_elements(text, self.prefix)
        if why == _UNCLOSED:
            self.writer.warnings.append(
                "an element was not closed before the call's end; its value ends there")
        elif why == _TOO_DEEP:
            self.writer.warnings.append(f"an element nested deeper than {_MAX_ELEMENT_DEPTH} "
                                        "was dropped, and the arguments after it")
        elif text[end:].strip():
            self.writer.warnings.append("text that is no argument element was dropped")
        props = self.writer.properties or {}
        self.writer.closed = True
        return to_json(_element_object(params, {"properties": props}, self.trim))


# What the prefix at a position begins (``_tag``).
_OPEN, _CLOSE, _TEXT, _MORE = range(4)
_NAME_LIMIT: Final = 256  # an open tag's name is shorter: past it, ``P<`` without ``>`` is text


def _tag(text: str, i: int, prefix: str, top: str | None) -> tuple[int, int]:
    """What the prefix at ``text[i]`` begins, and where that ends: ``_OPEN`` (a child
    element's open tag ``P<name>``), ``_CLOSE`` (the close tag of ``top``, the open
    element), ``_TEXT`` (neither: value text, up to the prefix's end), or ``_MORE``
    (the text ends before it shows)."""
    k = i + len(prefix)
    n = len(text)
    if k + 1 >= n:
        return (_MORE, n) if (prefix + "<").startswith(text[i:]) else (_TEXT, k)
    if text[k] != "<":
        return _TEXT, k
    if text[k + 1] == "/":
        if top is None:
            return _TEXT, k
        close = "/" + top + ">"
        if text.startswith(close, k + 1):
            return _CLOSE, k + 1 + len(close)
        return (_MORE, n) if close.startswith(text[k + 1 :]) else (_TEXT, k)
    gt = text.find(">", k + 1, k + 2 + _NAME_LIMIT)
    if gt < 0:
        return (_MORE, n) if n - k <= _NAME_LIMIT else (_TEXT, k)
    name = text[k + 1 : gt]
    if not name.strip() or "<" in name:
        return _TEXT, k
    return _OPEN, gt + 1


def _closes(text: str, end: int, prefix: str) -> int:
    """Whether a top-level element's close tag, ending at ``end``, closed it: ``_OPEN``
    when the next element's open tag (or the end) follows, after whitespace; ``_TEXT``
    when other text does (the tag was value text); ``_MORE`` when it cannot tell yet."""
    m = NOT_SPACE(text, end)
    if m is None:
        return _MORE
    j = m.start()
    rest = text[j : j + len(prefix) + 2]
    if len(rest) < len(prefix) + 2:
        return _MORE if (prefix + "<").startswith(rest) else _TEXT
    return _OPEN if rest.startswith(prefix + "<") and rest[-1] != "/" else _TEXT


def _value(parts: list[str], children: list) -> Any:
    """An element's value: its text, or its children (text beside them as ``$text``)."""
    body = "".join(parts)
    if not children:
        return body
    if body.strip():
        field = _MIXED_TEXT
        while any(child == field for child, _ in children):
            field = "$" + field
        children.append((field, body))
    return children


_UNCLOSED, _TOO_DEEP = "unclosed", "too deep"  # why _parse_elements stopped early


def _parse_elements(text: str, prefix: str) -> tuple[list, int, str]:
    """The top-level elements of ``text``, where parsing stopped, and why it stopped
    early: ``_UNCLOSED`` (the text ended inside elements; each ends there, its close
    tag missing), ``_TOO_DEEP`` (an element nested deeper than ``_MAX_ELEMENT_DEPTH``:
    parsing stops before the top-level element holding it), or ``""``."""
    params: list = []
    stack: list[tuple[str, list[str], list]] = []  # open elements: name, text, children
    pos, top_start, n = 0, 0, len(text)
    while True:
        if not stack:
            m = NOT_SPACE(text, pos)
            if m is None:
                return params, n, ""
            pos = top_start = m.start()
            kind, end = _tag(text, pos, prefix, None) if text.startswith(prefix, pos) else (
                _TEXT, pos)
            if kind != _OPEN:
                return params, pos, ""
            stack.append((text[pos + len(prefix) + 1 : end - 1], [], []))
            pos = end
            continue
        name, parts, children = stack[-1]
        i = text.find(prefix, pos)
        if i < 0:
            parts.append(text[pos:])
            break
        parts.append(text[pos:i])
        kind, end = _tag(text, i, prefix, name)
        if kind == _OPEN:
            if len(stack) >= _MAX_ELEMENT_DEPTH:
                return params, top_start, _TOO_DEEP
            stack.append((text[i + len(prefix) + 1 : end - 1], [], []))
        elif kind == _CLOSE and (len(stack) > 1 or _closes(text, end, prefix) != _TEXT):
            stack.pop()
            (stack[-1][2] if stack else params).append((name, _value(parts, children)))
        elif kind == _CLOSE:
            parts.append(text[i:end])  # followed by text: the tag was value text
        else:
            end = i + len(prefix)
            parts.append(prefix)
        pos = end
    while stack:  # the text ends inside elements: each ends there
        name, parts, children = stack.pop()
        (stack[-1][2] if stack else params).append((name, _value(parts, children)))
    return params, n, _UNCLOSED


@mypyc_attr(allow_interpreted_subclasses=True)
class NestedValues(ValueScan):
    """Where a call's nested elements are (the driver's view of ``_parse_elements``):
    inside an element, a marker that would end the call is ``ambiguous`` (what follows
    decides; ``tags`` holds the open element's close tag, which shows it was value
    text); between elements it is a marker."""

    __slots__ = ("prefix", "names", "buf", "closing", "tags")

    def __init__(self, prefix: str) -> None:
        super().__init__()
        self.prefix = prefix
        self.names: list[str] = []  # the open elements
        self.buf = ""  # a tag not yet known (cut by a delta's end)
        self.closing = False  # a top-level close tag waits for what follows it
        self.tags: tuple[str, ...] = ()

    def reset(self) -> None:
        self.names = []
        self.buf = ""
        self.closing = self.quoted = self.ambiguous = False
        self.tags = ()

    def _inside(self) -> None:
        """The open elements changed: a marker is ambiguous inside one."""
        names = self.names
        self.ambiguous = bool(names) and not self.closing
        self.tags = (f"{self.prefix}</{names[-1]}>",) if names else ()

    def feed(self, text: str) -> None:
        buf = self.buf + text if self.buf else text
        self.buf = ""
        prefix, names = self.prefix, self.names
        pos = 0
        while True:
            if self.closing:
                follows = _closes(buf, pos, prefix)
                if follows == _MORE:
                    m = NOT_SPACE(buf, pos)
                    self.buf = buf[m.start():] if m is not None else ""
                    return
                self.closing = False
                if follows == _OPEN:
                    names.pop()
                self._inside()
            i = buf.find(prefix, pos)
            if i < 0:
                self.buf = buf[len(buf) - partial_len(buf, pos, (prefix,)):]
                return
            kind, end = _tag(buf, i, prefix, names[-1] if names else None)
            if kind == _MORE:
                self.buf = buf[i:]
                return
            if kind == _OPEN:
                names.append(buf[i + len(prefix) + 1 : end - 1])
            elif kind == _CLOSE:
                if len(names) > 1:
                    names.pop()
                else:
                    self.closing = True  # what follows decides (a marker is one now)
            self._inside()
            pos = end


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


def _element_value(value: Any, schema: Any, trim: str) -> Any:
    """An element's JSON value, typed by its schema (its text trimmed as ``trim`` says)."""
    schema = schema if isinstance(schema, Mapping) else None
    container = _container(schema) if schema is not None else None
    if isinstance(value, str):
        value = trimmed(value, trim)
        if schema is None:
            return value
        types = schema_types(schema)
        # Templates render an empty list or object as an empty element.
        if container is not None and "string" not in types and not value.strip():
            return [] if container[0] == "array" else {}
        return coerce(value, types)
    if container is not None and container[0] == "array":
        items = container[1].get("items")
        return [_element_value(child, items, trim) for _, child in value]
    return _element_object(value, container[1] if container is not None else None, trim)


def _element_object(elements: list, schema: Mapping[str, Any] | None,
                    trim: str) -> dict[str, Any]:
    """Named elements as an object; a repeated name collects its values in a list."""
    props = (schema or {}).get("properties") or {}
    extra = (schema or {}).get("additionalProperties")
    out: dict[str, Any] = {}
    listed: set[str] = set()
    for name, element in elements:
        value = _element_value(element, props.get(name, extra), trim)
        if name not in out:
            out[name] = value
        elif name in listed:
            out[name].append(value)
        else:
            out[name] = [out[name], value]
            listed.add(name)
    return out


@mypyc_attr(allow_interpreted_subclasses=True)
class ElementsSyntax(ArgumentSyntax):
    """Arguments as nested elements behind a marker prefix ``P``: ``P<city>Paris P</city>``.

    Elements nest into objects and repeated names make lists (MiniMax M3); values are
    typed by the tool's schema, and the object is written when the call ends.  Inside
    an element, a prefix that opens no child and closes no open element is value text,
    and a top-level element's close tag followed by text (not an open tag) is too; a
    marker that would end the call is decided by what follows it (the open element's
    close tag or more text: value text; another marker or the end: the call ends, and
    elements left open end there).
    """

    name = "nested_elements"
    schema = options_schema({
        "prefix": {"$ref": "#/$defs/literal", "description": (
            "Marks every tag: PREFIX<name>value PREFIX</name> (MiniMax M3: ]<]minimax[>[). "
            "Elements nest; repeated names make lists; the object is written when the "
            "call ends.")},
        "trim": TRIM_SCHEMA,
    }, required=("prefix",))
    bodies = ("text",)
    __slots__ = ("prefix", "trim")

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        self.prefix = options["prefix"]
        self.trim = trim_mode(options.get("trim"))

    def reader(self, make_writer: WriterFactory, name: str | None) -> ArgumentReader:
        return ElementArguments(make_writer(name or ""), prefix=self.prefix, trim=self.trim)

    def values(self) -> ValueScan:
        """Element values: a marker inside one is decided by what follows it."""
        return NestedValues(self.prefix)

    def structural_style(self) -> str | None:
        return self._style_by_options((({"prefix": "]<]minimax[>["}, "minimax_m3_xml"),))

    def render(self, arguments: Mapping[str, Any]) -> list[Piece]:
        out: list[Piece] = []
        for key, value in arguments.items():
            _element(key, value, self.prefix, self.trim == "one_newline", out)
        return out


def _element(key: str, value: Any, prefix: str, newlines: bool, out: list[Piece]) -> None:
    """``value`` as element ``key`` (``newlines``: a text value on its own line, as
    ``trim: one_newline`` reads it)."""
    out.append((f"{prefix}<{key}>", True))
    if isinstance(value, Mapping):
        for k, v in value.items():
            _element(k, v, prefix, newlines, out)
    elif isinstance(value, list):
        for v in value:
            _element("item", v, prefix, newlines, out)
    else:
        text = value if isinstance(value, str) else json.dumps(value)
        out.append((f"\n{text}\n" if newlines else text, False))
    out.append((f"{prefix}</{key}>", True))
