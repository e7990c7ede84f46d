"""The one typed JSON writer every argument reader writes into.

A reader consumes a call's raw argument text as it streams and tells the writer
about fields (``begin(key)``, ``text(chunk)``, ``end()``).  The writer builds the
arguments JSON object and returns, at every step, only text that can never change:
a string field streams as it arrives; a field whose type the schema may still change
(``"3"`` for an integer) is held until its value is complete.  Every step costs time
in proportion to the new text only.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

from mypy_extensions import mypyc_attr

from ..coercion import coerce, coerce_value, finite
from ..json_text import STRICT_JSON, encode_string, encode_value, to_json
from ..schema_nodes import STRING, Properties, properties_keep, schema_types
from .scanning import escape_stray_quotes

_NULLABLE_STRING: Final = frozenset(("string", "null"))

# Deepest nesting of arrays and objects a value keeps as JSON.  Python's json module
# recurses once per level (decoding and encoding), so a deeper value would raise
# RecursionError in this process or in whoever reads the arguments; a fixed bound,
# unlike catching the error, gives the same answer at every stack depth (stream ==
# parse).  A deeper value is kept as its text, a string, with a warning.
MAX_DEPTH: Final = 500

_JSON_NESTING: Final = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"?|[\[\]{}]')


def nesting_depth(text: str, tokens: re.Pattern[str] = _JSON_NESTING) -> int:
    """How deep ``[``/``{`` nest in ``text`` outside strings (``tokens`` matches a whole
    string or one bracket), in one linear pass and no recursion."""
    depth = deepest = 0
    for m in tokens.finditer(text):
        ch = m.group()
        if ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth = max(depth - 1, 0)
    return deepest


def too_deep(text: str) -> bool:
    """Whether JSON-like ``text`` nests deeper than ``MAX_DEPTH``."""
    # Counting brackets is fast: most values have too few to need the scan (and a
    # short text cannot have that many).
    return (len(text) > MAX_DEPTH and text.count("[") + text.count("{") > MAX_DEPTH
            and nesting_depth(text) > MAX_DEPTH)


def _escape(text: str) -> str:
    return encode_string(text)[1:-1]


# How much of the text after a call's closed object a warning quotes.
_AFTER_SAMPLE: Final = 60


@mypyc_attr(allow_interpreted_subclasses=True)
class ArgumentsWriter:
    """Streams one JSON object, typing each field by its schema."""

    __slots__ = ("properties", "started", "closed", "key", "mode", "held", "types", "warnings",
                 "quoted", "after", "after_len", "spill")

    def __init__(self, properties: Mapping[str, Any] | None) -> None:
        self.properties = properties
        self.started = False
        self.closed = False
        self.key: str | None = None
        self.mode = ""  # "stream", "maybe_null", "hold", "hold_json" (or "hold_json!": must be JSON), "raw"
        self.held: list[str] = []
        self.types = STRING
        self.warnings: list[str] = []
        self.quoted = False  # a quote in the current field was text: reported once
        self.after = ""  # text after the object closed: its first characters ...
        self.after_len = 0  # ... and how many (see after_object)
        # Where the call has no end marker (its arguments end it), text after the object
        # is content: kept here, exactly, until the assembly takes it (ToolCalls.spilled).
        self.spill: list[str] | None = None

    def typed(self, key: str) -> bool:
        """Whether the tools' schema types field ``key``."""
        return self.properties is not None and self.properties.get(key) is not None

    def begin(self, key: str, kind: str = "text") -> str:
        """Open field ``key``. ``kind`` says what the value's text is: "text" (typed by
        the schema, a string without one), "json:C" (a JSON value starting with C,
        kept as written if the schema admits it), or "json_or_text" (JSON if it
        parses once complete, else text)."""
        out = self.end() if self.key is not None else ""
        out += ", " if self.started else "{"
        self.started = True
        self.key = key
        self.held = []
        self.quoted = False
        schema = self.properties.get(key) if self.properties else None
        types = schema_types(schema) if schema is not None else None
        self.types = types or STRING
        out += to_json(key) + ": "
        if kind.startswith("json:") or kind == "json_or_text":
            # Held until complete: only then can it be checked (a model may write
            # 'tru' or '{"a": 1 "b": 2}'), and the arguments must stay JSON.
            self.mode = "hold_json" if kind == "json_or_text" else "hold_json!"
            return out
        if self.types == STRING:
            self.mode = "stream"
            return out + '"'
        self.mode = "maybe_null" if types == _NULLABLE_STRING else "hold"
        return out

    def text(self, chunk: str) -> str:
        """More of the current field's value (decoded text, or JSON text for raw kinds)."""
        mode = self.mode
        if mode == "stream":
            return _escape(chunk)
        if mode == "raw":
            return chunk
        self.held.append(chunk)
        if mode == "maybe_null":
            held = "".join(self.held)
            if not "null".startswith(held.lower()):
                self.mode = "stream"
                self.held = []
                return '"' + _escape(held)
        return ""

    def end(self) -> str:
        """Close the current field."""
        mode, held, key = self.mode, "".join(self.held), self.key
        self.key, self.mode, self.held = None, "", []
        if mode == "stream":
            return '"'
        if mode == "raw":
            return ""
        if too_deep(held):
            return self._too_deep(key, held)
        schemaless = not self.properties or key not in self.properties
        if mode.startswith("hold_json"):
            text = held.strip()
            try:
                value, text = self._decode(text, key or "", mode == "hold_json!")
            except ValueError:
                if mode == "hold_json!":
                    self.warnings.append(f"the value of {key!r} is not JSON: kept as text")
                return to_json(held if schemaless else coerce(held, self.types))
            if schemaless or self.types & _KINDS_OK[json_type(value)]:
                return text  # valid and admitted: as the model wrote it
            # As vLLM types a parsed value: a string as text, anything else as its JSON
            # (a number JSON text holds but a float cannot, 1e400, as the model wrote it,
            # never the Infinity that is not JSON).
            raw = value if isinstance(value, str) else to_json(value) if finite(value) else text
            return to_json(coerce(raw, self.types))
        return to_json(coerce(held, self.types))

    def _decode(self, text: str, key: str, repair: bool) -> tuple[Any, str]:
        """A held value's JSON decoded, and its text.  ``repair`` (a value that must be
        JSON): where only quotes the model left unescaped in its strings keep it from
        being JSON, those quotes are text (``escape_stray_quotes``, the rule the reader
        reads a top-level string by), reported.  Raises ValueError for anything else."""
        try:
            return _STRICT_JSON(text), text
        except ValueError:
            repaired = escape_stray_quotes(text) if repair else None
            if repaired is None:
                raise
            value = _STRICT_JSON(repaired)
        self.quote_kept(key)
        return value, repaired

    def quote_kept(self, key: str, part: str = "the value of") -> None:
        """A quote in a string of field ``key`` (``part``: its value, or "the key" itself)
        did not end it (more of the string follows): it is text the model did not
        escape.  Reported once per field."""
        if not self.quoted:
            self.quoted = True
            self.warnings.append(f"a quote in {part} {key!r} does not end its string "
                                 "(more of the string follows it): kept as text")

    def close_value(self, closers: str) -> bool:
        """The call ended inside the current value, which must be JSON: add ``closers``
        (the quote and brackets still open) where that makes it JSON; else leave it as
        written (then kept as text, as any value that is not JSON).  Whether it added."""
        if self.mode != "hold_json!":
            return False
        text = ("".join(self.held) + closers).strip()
        for candidate in (text, escape_stray_quotes(text)):
            if candidate is None:
                continue
            try:
                _STRICT_JSON(candidate)
            except ValueError:
                continue
            self.held.append(closers)
            return True
        return False

    def closed_at_end(self, added: str, what: str = "its arguments") -> None:
        """The call's end came before ``what`` closed: ``added`` closed it."""
        self.warnings.append(f"the call ended before {what} closed: {added!r} added")

    def left_out(self, key: str) -> None:
        """The call's end came after key ``key`` but before its value began."""
        self.warnings.append(f"the key {key!r} has no value at the call's end: left out")

    def field(self, key: str, value: Any) -> str:
        """A whole field at once, from a parsed value (typed by the schema)."""
        if isinstance(value, str) and too_deep(value):
            return self.text_field(key, value)  # unparsed text: typing it would recurse
        out = self.begin(key, "json:{")  # the key, then the value as JSON
        self.key, self.mode = None, ""
        schema = self.properties.get(key) if self.properties else None
        return out + to_json(coerce_value(value, schema))

    def text_field(self, key: str, text: str) -> str:
        """A whole field whose value nests deeper than ``MAX_DEPTH``: its text, a string."""
        out = self.begin(key, "json:{")
        self.key, self.mode = None, ""
        return out + self._too_deep(key, text)

    def _too_deep(self, key: str | None, text: str) -> str:
        self.warnings.append(f"the value of {key!r} nests deeper than {MAX_DEPTH}: kept as text")
        return to_json(text)

    def after_object(self, text: str) -> None:
        """Text after the arguments' object closed, before the call's end: no part of
        the call; content where nothing but the arguments ends the call (``spill``),
        else kept only to be reported (``report_after``)."""
        if self.spill is not None:
            self.spill.append(text)
            return
        if not self.after_len:
            text = text.lstrip()  # (whitespace right after the object is framing)
        if len(self.after) < _AFTER_SAMPLE:
            self.after += text[: _AFTER_SAMPLE - len(self.after)]
        self.after_len += len(text)

    def report_after(self) -> None:
        """At the call's end: say what text came after the object (never lost unsaid)."""
        if self.after_len:
            more = "..." if self.after_len > len(self.after) else ""
            self.warnings.append(f"{self.after_len} characters after its arguments closed "
                                 f"are no part of the call and are dropped: "
                                 f"{self.after + more!r}")

    def close(self) -> str:
        """Close the object; afterwards nothing more is written."""
        if self.closed:
            return ""
        out = self.end() if self.key is not None else ""
        self.closed = True
        return out + ("}" if self.started else "{}")


def keeps_members(properties: Mapping[str, Any] | None, members: dict[str, Any]) -> bool:
    """Whether a writer typed by ``properties``, given these decoded members as JSON
    text, writes each as it came (a string typed string or untyped, any other value its
    schema admits): then the object's canonical JSON text is what it writes."""
    if isinstance(properties, Properties):
        return properties_keep(properties, members)  # (the same answer, from a table made once)
    if not properties:
        return True
    for key, value in members.items():
        schema = properties.get(key)
        if schema is None:
            continue
        types = schema_types(schema)
        if type(value) is str:
            if types != STRING:
                return False
        elif not types & _KINDS_OK[json_type(value)]:
            return False
    return True


def written_as_kept(value: Any, text: str, properties: Mapping[str, Any] | None) -> bool:
    """Whether ``text``, the JSON of a decoded object ``value``, is exactly what a fresh
    writer typed by ``properties`` writes for it: as json.dumps writes it (keys once,
    ", " and ": ", non-ASCII as is), not too deep, every member kept as written."""
    # (Once per call of a run: a text too short to nest that deep, and a dict's
    # encoding, asked without a call in between; compiled properties' table asked
    # directly, as keeps_members would.)
    if (type(value) is not dict or (len(text) > MAX_DEPTH and too_deep(text))
            or encode_value(value) != text):
        return False
    if isinstance(properties, Properties):
        return properties_keep(properties, value)
    return keeps_members(properties, value)


_KINDS_OK: Final = {"object": frozenset(("object",)), "array": frozenset(("array",)),
             "boolean": frozenset(("boolean",)), "null": frozenset(("null",)),
             "integer": frozenset(("number", "integer")), "number": frozenset(("number",)),
             "string": frozenset(("string",))}


def json_type(value: Any) -> str:
    """The JSON Schema type of a parsed JSON value."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


_STRICT_JSON: Final = STRICT_JSON.decode
