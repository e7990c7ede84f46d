"""The ``python_kwargs`` argument syntax: Python keyword arguments, typed by the schema."""

from __future__ import annotations

import keyword
from collections.abc import Mapping
from typing import Any, Final

from mypy_extensions import mypyc_attr

from .base import ArgumentReader, ArgumentSyntax, Piece, WriterFactory, options_schema
from .scanning import (JSON_NAMES, PY_STRING_STOP, PyScan, py_closers, py_escape_size,
                       py_literal, py_unescape)
from .values import QuotedStrings, ValueScan
from .writer import ArgumentsWriter

@mypyc_attr(allow_interpreted_subclasses=True)
class PythonArguments:
    """Python keyword arguments, ``a=1, b="x", c=[1, {'k': True}]``, as a JSON object.

    String values stream as they arrive; other values are Python literals, typed by
    the schema once complete.  The text is what a tool_call_body_python body puts
    between a call's parentheses.
    """

    __slots__ = ("writer", "state", "held", "key", "quote", "value", "scan", "gap",
                 "loose", "names")

    def __init__(self, writer: ArgumentsWriter, names: dict[str, Any] | None = None) -> None:
        self.writer = writer
        self.names: dict[str, Any] = names or {}  # bare names read as values (JSON_NAMES)
        self.state = "key?"  # key?, key, value?, string, after (a string's quote), literal
        self.held = ""
        self.key: list[str] = []
        self.quote = ""
        self.value: list[str] = []
        self.scan = PyScan()  # strings and brackets inside a literal
        self.gap = ""  # space after a string's closing quote, text if the string goes on
        self.loose = False  # a quote in this string was text: only a comma or the end ends it

    def complete(self) -> bool:
        """Whether no value is open (a literal ends only at a comma or the end)."""
        return (self.state == "key?" or self.state == "after") and not self.held

    def feed(self, text: str) -> str:
        out: list[str] = []
        if self.held:  # an escape sequence cut by the last delta
            text, self.held = self.held + text, ""
        pos, n = 0, len(text)
        while pos < n:
            state = self.state
            ch = text[pos]
            if state == "key?":
                if ch in " \t\r\n,":
                    pos += 1
                    continue
                self.state, self.key = "key", []
            elif state == "key":
                i = text.find("=", pos)
                if i < 0:
                    self.key.append(text[pos:])
                    break
                self.key.append(text[pos:i])
                pos = i + 1
                self.state = "value?"
            elif state == "value?":
                if ch in " \t\r\n":
                    pos += 1
                    continue
                key = "".join(self.key).strip()
                if ch in "'\"":
                    out.append(self.writer.begin(key))
                    self.state, self.quote, self.loose = "string", ch, False
                    pos += 1
                else:
                    self.state, self.value = "literal", []
                    self.scan.reset()
            elif state == "string":
                stop = PY_STRING_STOP[self.quote]
                piece: list[str] = []
                while pos < n:
                    m = stop.search(text, pos)
                    end = n if m is None else m.start()
                    piece.append(text[pos:end])
                    pos = end
                    if m is None or text[end] != "\\":
                        break
                    size = py_escape_size(text, end)
                    if size == 0:  # the escape goes on in the next delta
                        self.held, pos = text[end:], n
                        break
                    piece.append(py_unescape(text[end : end + size]))
                    pos = end + size
                if piece:
                    out.append(self.writer.text("".join(piece)))
                if pos < n:  # the closing quote, unless what follows says otherwise
                    pos += 1
                    self.state, self.gap = "after", ""
            elif state == "after":
                if ch in " \t\r\n":
                    self.gap += ch
                    pos += 1
                elif ch == ",":
                    out.append(self.writer.end())
                    self.state = "key?"
                elif ch in "'\"" and not self.loose:  # "a" "b": implicit concatenation
                    self.state, self.quote = "string", ch
                    pos += 1
                else:
                    # 'x 'y': no literal.  The quote was text, not the string's end: the
                    # value is all up to the quote before a comma (or the end), not cut.
                    self.writer.quote_kept("".join(self.key).strip())
                    out.append(self.writer.text(self.quote + self.gap))
                    self.state, self.loose = "string", True
            else:  # literal: up to a comma outside brackets and strings
                scan = self.scan
                end = scan.next(text, pos)
                while end >= 0 and text[end] != ",":  # a closer of nothing: passed
                    scan.depth -= 1
                    end = scan.next(text, end + 1)
                if end < 0:
                    self.value.append(text[pos:])
                    break
                self.value.append(text[pos:end])
                pos = end
                out.append(self._literal())
                self.state = "key?"
        return "".join(out)

    def _literal(self) -> str:
        raw = "".join(self.value).strip()
        key = "".join(self.key).strip()
        try:
            value, lost = py_literal(raw, self.names)
        except _NOT_A_LITERAL:
            value, lost = raw, []
            self.writer.warnings.append(f"the value of {key!r} is not a Python literal: "
                                        "kept as text")
        for text in lost:
            self.writer.warnings.append(f"{text!r} in the value of {key!r} cannot be JSON: "
                                        "kept as text")
        return self.writer.field(key, value)

    def finish(self) -> str:
        """The call's end: close what the model left open, adding nothing but closers (a
        string's quote; a literal's brackets, where that makes it one; a key whose value
        never began is left out), each said in a warning; the object closes."""
        writer, state, out, added = self.writer, self.state, "", ""
        if state == "after":
            out = writer.end()
        elif state == "string":
            if self.held:  # a cut escape stays as written
                out = writer.text(self.held)
            out += writer.end()
            added = self.quote
        elif state == "literal":
            added = py_closers("".join(self.value))
            try:
                py_literal("".join(self.value).strip() + added, self.names) if added else None
            except _NOT_A_LITERAL:
                added = ""  # closing makes no literal: the value is its text, as written
            self.value.append(added)
            out = self._literal()
        elif state in ("key", "value?"):
            writer.left_out("".join(self.key).strip())
        if added:
            writer.closed_at_end(added)
        return out + writer.close()


# What ``py_literal`` raises for text that is no Python literal.
_NOT_A_LITERAL: Final = (ValueError, TypeError, SyntaxError, MemoryError, RecursionError)


@mypyc_attr(allow_interpreted_subclasses=True)
class PythonSyntax(ArgumentSyntax):
    """Python keyword arguments, what ``name(...)`` holds: ``a=1, b="x", c=[1, {'k': True}]``.

    Strings stream as they arrive; other values are Python literals, typed by the tool's
    schema once complete.  A format's marker inside a string is string content (until a
    raw newline breaks the string).
    """

    name = "python_kwargs"
    schema = options_schema({
        "json_literals": {"type": "boolean", "description": (
            "The models also write JSON's true, false and null for Python's True, False "
            "and None (OLMo 3): read as those values, at any depth. Default false: a bare "
            "name is no literal, its text is kept (a warning).")},
    }, description=(
        "Python keyword arguments, a=1, b=\"x\", c=[1, {'k': True}]: strings stream, "
        "other values are Python literals typed by the schema."))
    bodies = ("python_list", "python_lines", "text")
    closes_itself = True
    __slots__ = ("names",)

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        self.names: dict[str, Any] = dict(JSON_NAMES) if options.get("json_literals") else {}

    def reader(self, make_writer: WriterFactory, name: str | None) -> ArgumentReader:
        return PythonArguments(make_writer(name or ""), self.names)

    def values(self) -> ValueScan:
        """Python strings: a marker inside one is string content."""
        return QuotedStrings("'\"")

    def render(self, arguments: Mapping[str, Any]) -> list[Piece]:
        for key in arguments:
            if not key.isidentifier() or keyword.iskeyword(key):
                raise ValueError(f"{key!r} cannot be a Python keyword argument")
        return [(", ".join(f"{k}={_python(v)}" for k, v in arguments.items()), False)]


def _python(value: Any) -> str:
    """A JSON value as a Python literal."""
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_python(k)}: {_python(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_python(v) for v in value) + "]"
    return repr(value)
