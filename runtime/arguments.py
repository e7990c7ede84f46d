"""Tool arguments: readers for each declared syntax, and one typed JSON writer.

A reader consumes a call's raw argument text as it streams and tells the writer
about fields (``begin(key)``, ``text(chunk)``, ``end()``).  The writer builds the
arguments JSON object and returns, at every step, only text that can never change:
a string field streams as it arrives; a field whose type the schema may still change
(``"3"`` for an integer) is held until its value is complete.  Every step costs time
in proportion to the new text only.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from typing import Any

from .jsonscan import JsonScan
from .schema_types import STRING, coerce, coerce_value, schema_types, to_json

_NULLABLE_STRING = frozenset(("string", "null"))


def _escape(text: str) -> str:
    return json.dumps(text, ensure_ascii=False)[1:-1]


class ArgumentsWriter:
    """Streams one JSON object, typing each field by its schema."""

    __slots__ = ("properties", "started", "closed", "key", "mode", "held", "types", "warnings")

    def __init__(self, properties: Mapping[str, Any] | None) -> None:
        self.properties = properties
        self.started = False
        self.closed = False
        self.key: str | None = None
        self.mode = ""  # "stream", "maybe_null", "hold", "hold_json" (or "hold_json!": must be JSON), "raw"
        self.held: list[str] = []
        self.types = STRING
        self.warnings: list[str] = []

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
        schemaless = not self.properties or key not in self.properties
        if mode.startswith("hold_json"):
            text = held.strip()
            try:
                value = _STRICT_JSON(text)
            except ValueError:
                if mode == "hold_json!":
                    self.warnings.append(f"the value of {key!r} is not JSON: kept as text")
                return to_json(held if schemaless else coerce(held, self.types))
            if schemaless or self.types & _KINDS_OK[json_type(value)]:
                return text  # valid and admitted: as the model wrote it
            # As vLLM types a parsed value: a string as text, anything else as its JSON.
            raw = value if isinstance(value, str) else to_json(value)
            return to_json(coerce(raw, self.types))
        return to_json(coerce(held, self.types))

    def field(self, key: str, value: Any) -> str:
        """A whole field at once, from a parsed value (typed by the schema)."""
        out = self.begin(key, "json:{")  # the key, then the value as JSON
        self.key, self.mode = None, ""
        schema = self.properties.get(key) if self.properties else None
        return out + to_json(coerce_value(value, schema))

    def close(self) -> str:
        """Close the object; afterwards nothing more is written."""
        if self.closed:
            return ""
        out = self.end() if self.key is not None else ""
        self.closed = True
        return out + ("}" if self.started else "{}")


_KINDS_OK = {"object": frozenset(("object",)), "array": frozenset(("array",)),
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


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


# One decoder for every held value (json.loads with an argument builds a new one,
# and its scanner, per call).
_STRICT_JSON = json.JSONDecoder(parse_constant=_no_constant).decode


_ATTRIBUTE = re.compile(r"""([\w-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""")


class TaggedArguments:
    """``OPEN header NAME_END [VALUE_OPEN] value CLOSE`` fields (qwen3, GLM, MiniMax, DSML).

    The header is the field's name, or (``header="attributes"``) XML attributes whose
    ``name`` is the field's name; with ``string_attribute`` an attribute that is not
    ``"true"`` marks a JSON value (DeepSeek's ``string="false"``).  A value also ends
    where the next field opens.  With ``trim`` one leading and one trailing newline of
    a value are dropped (templates put the value on its own line).  Text outside
    fields is ignored.
    """

    __slots__ = ("writer", "open", "name_end", "value_open", "close", "trim", "buf",
                 "where", "name", "started", "nl", "searched", "attributes", "name_attr",
                 "string_attr", "string_value", "string_default", "kind")

    def __init__(self, writer: ArgumentsWriter, *, open: str, name_end: str,
                 close: str, value_open: str | None = None, trim: bool = False,
                 header: str = "name", name_attribute: str = "name",
                 string_attribute: str | Mapping[str, str] | None = None) -> None:
        self.writer = writer
        self.open, self.name_end, self.close = open, name_end, close
        self.value_open = value_open
        self.trim = trim
        self.attributes = header == "attributes"
        self.name_attr = name_attribute
        # The attribute whose value says "this value is text" (else JSON, or text if
        # it does not parse): DeepSeek's string="true", Kimi K3's type="string".
        if isinstance(string_attribute, Mapping):
            self.string_attr = string_attribute["name"]
            self.string_value = string_attribute.get("value", "true")
            self.string_default = string_attribute.get("default")
        else:
            self.string_attr, self.string_value, self.string_default = (
                string_attribute, "true", None)
        self.kind = "text"
        self.buf = ""  # unconsumed text: at most a possible tag prefix, or a name
        self.where = "outside"  # outside | name | before_value | value
        self.name = ""
        self.started = False  # the value has begun (its leading newline is settled)
        self.nl = False  # a trailing newline is held back
        self.searched = 0  # how much of buf is known not to hold name_end

    def complete(self) -> bool:
        """Whether no field is open: every value the model began has its close tag."""
        return self.where == "outside"

    def feed(self, text: str) -> str:
        """Consume raw argument text; return JSON text that is now final."""
        buf = self.buf + text
        out = []
        pos = 0
        while True:
            where = self.where
            if where == "outside":
                i = buf.find(self.open, pos)
                if i < 0:
                    self.buf = _tail_prefix(buf, max(pos, len(buf) - len(self.open) + 1), (self.open,))
                    break
                pos = i + len(self.open)
                self.where = "name"
            elif where == "name":
                i = buf.find(self.name_end, max(pos, self.searched))
                if i < 0:
                    self.buf = buf[pos:]
                    self.searched = max(0, len(self.buf) - len(self.name_end) + 1)
                    break
                self.searched = 0
                self._header(buf[pos:i])
                pos = i + len(self.name_end)
                self.where = "before_value" if self.value_open else "value"
                self.started = self.nl = False
                if self.where == "value":
                    out.append(self.writer.begin(self.name, self.kind))
            elif where == "before_value":
                i = buf.find(self.value_open, pos)
                if i < 0:
                    self.buf = _tail_prefix(buf, max(pos, len(buf) - len(self.value_open) + 1),
                                            (self.value_open,))
                    break
                pos = i + len(self.value_open)
                self.where = "value"
                out.append(self.writer.begin(self.name, self.kind))
            else:
                end, nxt = buf.find(self.close, pos), buf.find(self.open, pos)
                stops = [i for i in (end, nxt) if i >= 0]
                if not stops:
                    safe = len(buf) - _partial_len(buf, pos, (self.close, self.open))
                    out.append(self._value(buf[pos:safe], final=False))
                    self.buf = buf[safe:]
                    break
                i = min(stops)
                out.append(self._value(buf[pos:i], final=True))
                out.append(self.writer.end())
                if i == end:
                    pos = i + len(self.close)
                    self.where = "outside"
                else:
                    pos = i + len(self.open)
                    self.where = "name"
        return "".join(out)

    def _header(self, header: str) -> None:
        """Read the field's name (and value kind) from the text before NAME_END."""
        if not self.attributes:
            self.name, self.kind = header.strip(), "text"
            return
        attrs = {k: dq or sq or bare for k, dq, sq, bare in _ATTRIBUTE.findall(header)}
        self.name = attrs.get(self.name_attr, "").strip()
        if (self.string_attr is None
                or attrs.get(self.string_attr, self.string_default) == self.string_value):
            self.kind = "text"
        else:
            self.kind = "json_or_text"

    def _value(self, text: str, final: bool) -> str:
        if self.trim:
            if not self.started and text:
                self.started = True
                if text[0] == "\n":
                    text = text[1:]
            if self.nl:
                text = "\n" + text
                self.nl = False
            if text.endswith("\n"):
                if final:
                    text = text[:-1]
                else:
                    self.nl = True
                    text = text[:-1]
        return self.writer.text(text) if text else ""

    def finish(self) -> str:
        """End of the call: a value left open keeps what it has; the object closes."""
        out = ""
        if self.where == "value":
            out += self._value(self.buf, final=True) + self.writer.end()
        elif self.where == "before_value":
            out += self.writer.begin(self.name, self.kind) + self.writer.end()
        self.buf = ""
        self.where = "outside"
        return out + self.writer.close()


def _partial_len(buf: str, start: int, literals: tuple[str, ...]) -> int:
    """Length of the longest suffix of buf[start:] that is a proper prefix of a literal."""
    best = 0
    for lit in literals:
        for n in range(min(len(lit) - 1, len(buf) - start), best, -1):
            if buf.endswith(lit[:n]):
                best = n
                break
    return best


def _tail_prefix(buf: str, start: int, literals: tuple[str, ...]) -> str:
    n = _partial_len(buf, max(start, 0), literals)
    return buf[len(buf) - n:] if n else ""


_STRING_END = re.compile(r'["\\]').search
_NOT_SPACE = re.compile(r"\S").search
_SIMPLE_ESCAPES = {'"': '"', "\\": "\\", "/": "/", "b": "\b", "f": "\f", "n": "\n",
                   "r": "\r", "t": "\t"}


class JsonArguments:
    """A JSON object of arguments, read incrementally and re-written typed.

    Keys and string values are decoded and re-encoded; other values pass through as
    written unless the schema wants another type.  Text after the object is ignored.
    """

    __slots__ = ("writer", "state", "buf", "stack", "scan", "key_parts", "invalid", "ws")

    def __init__(self, writer: ArgumentsWriter) -> None:
        self.writer = writer
        self.state = "start"  # start, key?, key, colon, value?, string, raw, comma?, done
        self.buf = ""
        self.stack = ""  # closers owed by the raw value being read, innermost last
        self.scan = JsonScan()
        self.ws = ""  # trailing whitespace of a raw value: it may be the value's end
        self.key_parts: list[str] = []
        self.invalid = False

    def complete(self) -> bool:
        """Whether the object has closed (text after it is ignored)."""
        return self.state == "done" or self.invalid

    def feed(self, text: str) -> str:
        buf = self.buf + text
        self.buf = ""
        out: list[str] = []
        pos, n = 0, len(buf)
        while pos < n and not self.invalid:
            state = self.state
            if state in ("start", "key?", "colon", "value?", "comma?", "done"):
                m = _NOT_SPACE(buf, pos)
                if m is None:
                    break
                pos = m.start()
                ch = buf[pos]
                if state == "done":
                    break
                if state == "start":
                    self._expect(ch == "{")
                    self.state = "key?"
                elif state == "key?":
                    if ch == "}" and not self.writer.started:
                        self.state = "done"
                    else:
                        self._expect(ch == '"')
                        self.state = "key"
                        self.key_parts = []
                elif state == "colon":
                    self._expect(ch == ":")
                    self.state = "value?"
                elif state == "value?":
                    if ch == '"':
                        out.append(self.writer.begin(self._key()))
                        self.state = "string"
                    else:
                        out.append(self.writer.begin(self._key(), "json:" + ch))
                        self.state = "raw"
                        self.stack = ""
                        self.ws = ""
                        self.scan.reset()
                        continue  # the raw value starts at this character
                else:  # comma?
                    if ch == ",":
                        self.state = "key?"
                    else:
                        self._expect(ch == "}")
                        self.state = "done"
                pos += 1
            elif state in ("key", "string"):
                text_end, pos, closed = self._string(buf, pos)
                if state == "key":
                    self.key_parts.append(text_end)
                    if closed:
                        self.state = "colon"
                else:
                    if text_end:
                        out.append(self.writer.text(text_end))
                    if closed:
                        out.append(self.writer.end())
                        self.state = "comma?"
            else:  # raw JSON value: ends at a top-level ',' or '}'
                start = pos
                end = self._raw_end(buf, pos)
                piece = self.ws + buf[start : n if end < 0 else end]
                body = piece.rstrip()
                self.ws = piece[len(body):] if end < 0 else ""
                if body:
                    out.append(self.writer.text(body))
                if end < 0:
                    pos = n
                    break
                out.append(self.writer.end())
                pos = end
                self.state = "comma?"
        return "".join(out)

    def _expect(self, ok: bool) -> None:
        if not ok:
            self.invalid = True
            self.writer.warnings.append("arguments are not a JSON object")

    def _key(self) -> str:
        return "".join(self.key_parts)

    def _string(self, buf: str, pos: int) -> tuple[str, int, bool]:
        """Decode string text from pos; return (text, new pos, whether it closed)."""
        parts = []
        n = len(buf)
        while pos < n:
            m = _STRING_END(buf, pos)
            if m is None:
                parts.append(buf[pos:])
                return "".join(parts), n, False
            i = m.start()
            parts.append(buf[pos:i])
            if buf[i] == '"':
                return "".join(parts), i + 1, True
            # An escape: complete it now, or keep it for the next delta.
            if i + 1 >= n:
                self.buf = buf[i:]
                return "".join(parts), n, False
            esc = buf[i + 1]
            if esc != "u":
                parts.append(_SIMPLE_ESCAPES.get(esc, esc))
                pos = i + 2
                continue
            if i + 6 > n:
                self.buf = buf[i:]
                return "".join(parts), n, False
            code = int(buf[i + 2 : i + 6], 16) if _is_hex(buf[i + 2 : i + 6]) else 0xFFFD
            pos = i + 6
            if 0xD800 <= code < 0xDC00:
                if pos + 6 > n and buf.startswith("\\u"[: n - pos], pos):
                    self.buf = buf[i:]
                    return "".join(parts), n, False
                low = buf[pos + 2 : pos + 6]
                if buf.startswith("\\u", pos) and _is_hex(low) and 0xDC00 <= int(low, 16) < 0xE000:
                    code = 0x10000 + ((code - 0xD800) << 10) + (int(low, 16) - 0xDC00)
                    pos += 6
                else:
                    code = 0xFFFD
            elif 0xDC00 <= code < 0xE000:
                code = 0xFFFD
            parts.append(chr(code))
        return "".join(parts), n, False

    def _raw_end(self, buf: str, pos: int) -> int:
        """Index of the ',' or '}' that ends the raw value, or -1 if not in buf."""
        while True:
            i = self.scan.next(buf, pos)
            if i < 0:
                return -1
            ch = buf[i]
            if ch in "{[":
                self.stack += "}" if ch == "{" else "]"
            elif not self.stack and ch in ",}]":
                return i
            elif ch != ",":
                self.stack = self.stack[:-1]
            pos = i + 1

    def finish(self) -> str:
        """End of the call: close what is open; the object is always complete JSON."""
        out = ""
        if self.state == "string":
            out += self.writer.end()
        elif self.state == "raw":
            if self.stack or self.scan.in_string:
                # Cut inside a nested value: close it so the object stays JSON.
                self.writer.warnings.append("arguments ended inside a JSON value")
                tail = self.ws + '"' if self.scan.in_string else ""
                out += self.writer.text(tail + self.stack[::-1])
            out += self.writer.end()
        return out + self.writer.close()


def _is_hex(s: str) -> bool:
    return len(s) == 4 and all(c in "0123456789abcdefABCDEF" for c in s)


class NotationArguments:
    """Gemma 4's call notation: ``key:value`` pairs, strings between ``DELIM``s.

    Values are ``DELIM``-quoted strings (streamed), ``{...}`` objects and ``[...]``
    lists of the same notation (typed when complete), or bare words, which stay text
    until the schema types them.  The object's own opening brace was read by the
    grammar; its closing ``}`` (or ``)``) ends the arguments.
    """

    __slots__ = ("writer", "delim", "state", "buf", "key", "nested", "depth", "in_string")

    def __init__(self, writer: ArgumentsWriter, *, delimiter: str) -> None:
        self.writer = writer
        self.delim = delimiter
        self.state = "key?"  # key?, key, value?, string, bare, nested, done
        self.buf = ""
        self.key = ""
        self.nested: list[str] = []
        self.depth = 0
        self.in_string = False

    def complete(self) -> bool:
        """Whether no value is open (between pairs, or after the closing brace)."""
        return self.state in ("done", "key?")

    def feed(self, text: str) -> str:
        buf = self.buf + text
        self.buf = ""
        out: list[str] = []
        pos, n = 0, len(buf)
        delim = self.delim
        while pos < n:
            state = self.state
            if state == "done":
                break
            if state == "key?":
                while pos < n and buf[pos] in " ,\n\t":
                    pos += 1
                if pos == n:
                    break
                if buf[pos] in "})":
                    self.state = "done"
                    break
                self.state, self.key = "key", ""
            elif state == "key":
                i = buf.find(":", pos)
                if i < 0:
                    self.key += buf[pos:]
                    break
                key = (self.key + buf[pos:i]).strip()
                if len(key) >= 2 * len(delim) and key.startswith(delim) and key.endswith(delim):
                    key = key[len(delim) : -len(delim)]
                self.key = key
                pos = i + 1
                self.state = "value?"
            elif state == "value?":
                while pos < n and buf[pos] in " \n\t":
                    pos += 1
                if pos == n:
                    break
                if buf.startswith(delim, pos):
                    out.append(self.writer.begin(self.key))
                    pos += len(delim)
                    self.state = "string"
                elif delim.startswith(buf[pos:]):
                    self.buf = buf[pos:]  # maybe the start of a string
                    break
                elif buf[pos] in "{[":
                    self.state, self.nested, self.depth, self.in_string = "nested", [], 0, False
                else:
                    out.append(self.writer.begin(self.key))
                    self.state = "bare"
            elif state == "string":
                i = buf.find(delim, pos)
                if i < 0:
                    keep = _partial_len(buf, pos, (delim,))
                    if n - keep > pos:
                        out.append(self.writer.text(buf[pos : n - keep]))
                    self.buf = buf[n - keep :]
                    break
                if i > pos:
                    out.append(self.writer.text(buf[pos:i]))
                out.append(self.writer.end())
                pos = i + len(delim)
                self.state = "key?"
            elif state == "bare":
                end = _find_any(buf, pos, ",}])")
                if end < 0:
                    out.append(self.writer.text(buf[pos:]))
                    break
                out.append(self.writer.text(buf[pos:end]))
                out.append(self._end_bare())
                pos = end
                self.state = "key?"
            else:  # nested
                limit = n - _partial_len(buf, pos, (delim,))  # a split DELIM waits
                end = self._nested_end(buf, pos, limit)
                if end < 0:
                    self.nested.append(buf[pos:limit])
                    self.buf = buf[limit:]
                    break
                self.nested.append(buf[pos:end])
                out.append(self.writer.field(self.key, parse_notation("".join(self.nested), delim)))
                pos = end
                self.state = "key?"
        return "".join(out)

    def _end_bare(self) -> str:
        # A bare word is stripped text; the writer holds typed fields until now.
        writer = self.writer
        if writer.mode == "stream":
            return writer.end()  # already streamed as a string (surrounding spaces kept)
        held = "".join(writer.held).strip()
        writer.held = [held]
        return writer.end()

    def _nested_end(self, buf: str, pos: int, n: int) -> int:
        """Index just after the nested value's closing bracket (before n), or -1."""
        delim = self.delim
        while pos < n:
            if self.in_string:
                i = buf.find(delim, pos, n)
                if i < 0:
                    return -1
                pos = i + len(delim)
                self.in_string = False
                continue
            if buf.startswith(delim, pos):
                self.in_string = True
                pos += len(delim)
                continue
            ch = buf[pos]
            pos += 1
            if ch in "{[":
                self.depth += 1
            elif ch in "}]":
                self.depth -= 1
                if self.depth == 0:
                    return pos
        return -1

    def finish(self) -> str:
        out = ""
        if self.state == "string":
            out += self.writer.text(self.buf) + self.writer.end() if self.buf else self.writer.end()
        elif self.state == "bare":
            out += self._end_bare()
        elif self.state == "nested":
            self.writer.warnings.append("arguments ended inside a nested value")
            out += self.writer.field(self.key, parse_notation("".join(self.nested), self.delim))
        elif self.state == "value?":
            out += self.writer.field(self.key, "")
        self.state = "done"
        return out + self.writer.close()


def _find_any(text: str, pos: int, chars: str) -> int:
    best = -1
    for ch in chars:
        i = text.find(ch, pos)
        if i >= 0 and (best < 0 or i < best):
            best = i
    return best


def parse_notation(text: str, delim: str) -> Any:
    """A complete ``{...}`` or ``[...]`` value of the notation, bare words as text."""
    value, _ = _notation_value(text, 0, delim)
    return value


def _notation_value(text: str, pos: int, delim: str) -> tuple[Any, int]:
    n = len(text)
    while pos < n and text[pos] in " \n\t":
        pos += 1
    if text.startswith(delim, pos):
        end = text.find(delim, pos + len(delim))
        if end < 0:
            return text[pos + len(delim) :], n
        return text[pos + len(delim) : end], end + len(delim)
    if pos < n and text[pos] in "{[":
        closing = "}" if text[pos] == "{" else "]"
        items: Any = {} if closing == "}" else []
        pos += 1
        while True:
            while pos < n and text[pos] in " ,\n\t":
                pos += 1
            if pos >= n:
                return items, n
            if text[pos] == closing:
                return items, pos + 1
            if closing == "]":
                item, pos = _notation_value(text, pos, delim)
                items.append(item)
                continue
            colon = text.find(":", pos)
            if colon < 0:
                return items, n
            key = text[pos:colon].strip()
            if len(key) >= 2 * len(delim) and key.startswith(delim) and key.endswith(delim):
                key = key[len(delim) : -len(delim)]
            items[key], pos = _notation_value(text, colon + 1, delim)
    end = _find_any(text, pos, ",}]")
    end = n if end < 0 else end
    return text[pos:end].strip(), end


class EnvelopeArguments:
    """A call written as one JSON object: ``{"name": NAME, "arguments": {...}}``.

    The name is read from ``name_key``; the arguments object (under the first of
    ``argument_keys`` present, possibly as a JSON string) streams through a
    JsonArguments reader once the name, and so the tool's schema, is known.  Other
    members are skipped.
    """

    __slots__ = ("name_key", "argument_keys", "make_writer", "name", "inner", "writer",
                 "state", "buf", "key", "scan", "depth", "held", "args_seen", "text_value",
                 "warnings")

    def __init__(self, make_writer: Any, *, name_key: str = "name",
                 argument_keys: tuple[str, ...] = ("arguments", "parameters")) -> None:
        self.name_key = name_key
        self.argument_keys = argument_keys
        self.make_writer = make_writer  # name -> ArgumentsWriter
        self.name: str | None = None
        self.inner: JsonArguments | None = None
        self.writer: ArgumentsWriter | None = None
        self.state = "start"  # start, key?, key, colon, value?, name, args, args_text, skip, comma?, done
        self.buf = ""
        self.key: list[str] = []
        self.scan = JsonScan()
        self.depth = 0
        self.held: list[str] = []  # arguments text that arrived before the name
        self.args_seen = False
        self.text_value: list[str] = []
        self.warnings: list[str] = []

    def complete(self) -> bool:
        """Whether the envelope object has closed."""
        return self.state == "done"

    def feed(self, text: str) -> str:
        buf = self.buf + text
        self.buf = ""
        out: list[str] = []
        pos, n = 0, len(buf)
        while pos < n:
            state = self.state
            if state in ("start", "key?", "colon", "value?", "comma?"):
                m = _NOT_SPACE(buf, pos)
                if m is None:
                    break
                pos = m.start()
                ch = buf[pos]
                if state == "start":
                    if ch != "{":
                        self._invalid("a tool call is not a JSON object")
                        break
                    self.state = "key?"
                elif state == "key?":
                    if ch == "}":
                        self.state = "done"
                    elif ch == '"':
                        self.state, self.key = "key", []
                    else:
                        self._invalid("bad JSON in a tool call")
                        break
                elif state == "colon":
                    if ch != ":":
                        self._invalid("bad JSON in a tool call")
                        break
                    self.state = "value?"
                elif state == "value?":
                    key = "".join(self.key)
                    if key == self.name_key and ch == '"' and self.name is None:
                        self.state, self.text_value = "name", []
                    elif key in self.argument_keys and not self.args_seen and ch in '{"':
                        self.args_seen = True
                        self.scan.reset()
                        self.depth, self.text_value = 0, []
                        if ch == "{":
                            self.state = "args"
                            continue  # the object starts at this character
                        self.state = "args_text"  # arguments written as a JSON string
                    else:
                        self.state, self.depth = "skip", 0
                        self.scan.reset()
                        continue
                else:  # comma?
                    if ch == ",":
                        self.state = "key?"
                    elif ch == "}":
                        self.state = "done"
                    else:
                        self._invalid("bad JSON in a tool call")
                        break
                pos += 1
            elif state in ("key", "name", "args_text"):
                parts = self.key if state == "key" else self.text_value
                end = _string_end(buf, pos)
                if end < 0:
                    tail = buf[pos:]
                    odd = (len(tail) - len(tail.rstrip("\\"))) % 2
                    parts.append(tail[: len(tail) - odd])
                    self.buf = tail[len(tail) - odd :]  # an escape split across deltas
                    break
                parts.append(buf[pos:end])
                pos = end + 1
                if state == "key":
                    self.state = "colon"
                    self.key = [json.loads('"' + "".join(parts) + '"')] if "\\" in "".join(parts) else parts
                    continue
                raw = "".join(parts)
                try:
                    value = json.loads('"' + raw + '"')
                except ValueError:
                    value = raw
                self.state = "comma?"
                if state == "name":
                    self.name = value
                    out.append(self._start_arguments())
                else:  # arguments given as a JSON string: its text is the object
                    out.append(self._feed_arguments(value))
            elif state == "done":
                break
            else:  # args or skip: a raw JSON value
                end = self._value_end(buf, pos)
                piece = buf[pos : n if end < 0 else end]
                if state == "args":
                    out.append(self._feed_arguments(piece))
                if end < 0:
                    break
                pos = end
                self.state = "comma?"
        return "".join(out)

    def _value_end(self, buf: str, pos: int) -> int:
        """Just past the raw value that started at the state change, or -1."""
        while True:
            i = self.scan.next(buf, pos)
            if i < 0:
                return -1
            ch = buf[i]
            if ch in "{[":
                self.depth += 1
            elif ch in "}]":
                if self.depth == 0:
                    return i  # the envelope's own closing brace
                self.depth -= 1
                if self.depth == 0:
                    return i + 1
            elif ch == "," and self.depth == 0:
                return i
            pos = i + 1

    def _start_arguments(self) -> str:
        """The name is known: arguments that came earlier can go now."""
        self.writer = self.make_writer(self.name)
        self.inner = JsonArguments(self.writer)
        held, self.held = "".join(self.held), []
        return self.inner.feed(held) if held else ""

    def _feed_arguments(self, text: str) -> str:
        if self.inner is None:
            self.held.append(text)
            return ""
        return self.inner.feed(text)

    def _invalid(self, why: str) -> str:
        self.state = "done"
        self.warnings.append(why)
        return ""

    def finish(self) -> str:
        """End of the call: close the arguments (``{}`` if there were none)."""
        if self.inner is None:
            if self.name is None:
                self.name = ""
            out = self._start_arguments()
        else:
            out = ""
        return out + self.inner.finish()


_STRING_STOP = re.compile(r'["\\]').search


def _string_end(buf: str, pos: int) -> int:
    """Index of the quote that closes a JSON string whose text starts at pos, or -1."""
    while True:
        m = _STRING_STOP(buf, pos)
        if m is None:
            return -1
        i = m.start()
        if buf[i] == '"':
            return i
        pos = i + 2
        if pos > len(buf):
            return -1


_PY_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "\n": "",
               "a": "\a", "b": "\b", "f": "\f", "v": "\v"}
_PY_HEX_ESCAPES = {"x": 4, "u": 6, "U": 10}  # their length, backslash included
_OCTAL = "01234567"
_PY_NAME_LIMIT = 90
_PY_NAMED_ESCAPE = re.compile(r"\\N\{[A-Za-z0-9 \-]{1,%d}\}" % _PY_NAME_LIMIT)
_PY_NOT_A_NAME = re.compile(r"[^A-Za-z0-9 \-]")


def _py_escape_size(text: str, i: int) -> int:
    """Length of the escape sequence at ``text[i]`` (a backslash), 0 if it is cut."""
    n = len(text)
    if i + 1 >= n:
        return 0
    kind = text[i + 1]
    if kind in _PY_HEX_ESCAPES:
        size = _PY_HEX_ESCAPES[kind]
        return size if i + size <= n else 0
    if kind == "N":  # \N{NAME}: names are short and quote-free
        if i + 2 >= n:
            return 0
        if text[i + 2] != "{":
            return 2
        m = _PY_NAMED_ESCAPE.match(text, i)
        if m is not None:
            return m.end() - i
        return 0 if n - i < _PY_NAME_LIMIT and not _PY_NOT_A_NAME.search(text, i + 3) else 2
    if kind in _OCTAL:
        j = i + 1
        while j < n and j < i + 4 and text[j] in _OCTAL:
            j += 1
        return j - i if j == i + 4 or j < n else 0
    return 2


def _py_unescape(seq: str) -> str:
    """The character a Python escape sequence stands for; unknown ones stay as written."""
    simple = _PY_ESCAPES.get(seq[1])
    if simple is not None and len(seq) == 2:
        return simple
    if seq[1] in _OCTAL:
        return chr(int(seq[1:], 8))
    if seq[1] in _PY_HEX_ESCAPES or seq[1] == "N":
        try:
            return seq.encode("ascii").decode("unicode_escape")
        except UnicodeError:
            return seq
    return seq

# Where a quoted Python string may end or escape; where a literal may nest or end.
_PY_STRING_STOP = {q: re.compile(r"[\\%s]" % q) for q in ("'", '"')}
_PY_LITERAL_SPECIAL = re.compile(r"""[\\'"()\[\]{},]""")


class PythonArguments:
    """Python keyword arguments, ``a=1, b="x", c=[1, {'k': True}]``, as a JSON object.

    String values stream as they arrive; other values are Python literals, typed by
    the schema once complete.  The text is what a tool_call_body_python body puts
    between a call's parentheses.
    """

    __slots__ = ("writer", "state", "held", "key", "quote", "escape", "value", "depth",
                 "in_str")

    def __init__(self, writer: ArgumentsWriter) -> None:
        self.writer = writer
        self.state = "key?"  # key?, key, value?, string, literal
        self.held = ""
        self.key: list[str] = []
        self.quote = ""
        self.escape = False
        self.value: list[str] = []
        self.depth = 0
        self.in_str = ""  # the quote of a string inside a literal

    def complete(self) -> bool:
        """Whether no value is open (a literal ends only at a comma or the end)."""
        return self.state == "key?" and not self.held

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
                    self.state, self.quote, self.escape = "string", ch, False
                    pos += 1
                else:
                    self.state, self.value, self.depth, self.in_str = "literal", [], 0, ""
            elif state == "string":
                stop = _PY_STRING_STOP[self.quote]
                piece: list[str] = []
                while pos < n:
                    m = stop.search(text, pos)
                    end = n if m is None else m.start()
                    piece.append(text[pos:end])
                    pos = end
                    if m is None or text[end] != "\\":
                        break
                    size = _py_escape_size(text, end)
                    if size == 0:  # the escape goes on in the next delta
                        self.held, pos = text[end:], n
                        break
                    piece.append(_py_unescape(text[end : end + size]))
                    pos = end + size
                if piece:
                    out.append(self.writer.text("".join(piece)))
                if pos < n:  # the closing quote
                    out.append(self.writer.end())
                    pos += 1
                    self.state = "key?"
            else:  # literal: up to a comma outside brackets and strings
                start = pos
                if self.escape:
                    self.escape = False
                    pos += 1
                comma = False
                while not comma:
                    m = _PY_LITERAL_SPECIAL.search(text, pos)
                    if m is None:
                        pos = n
                        break
                    i = m.start()
                    ch = text[i]
                    pos = i + 1
                    if self.in_str:
                        if ch == "\\":
                            if pos == n:
                                self.escape = True
                            else:
                                pos += 1
                        elif ch == self.in_str:
                            self.in_str = ""
                    elif ch in "'\"":
                        self.in_str = ch
                    elif ch in "([{":
                        self.depth += 1
                    elif ch in ")]}":
                        self.depth -= 1
                    elif ch == "," and self.depth <= 0:
                        comma = True
                        pos = i
                self.value.append(text[start:pos])
                if comma:
                    out.append(self._literal())
                    self.state = "key?"
        return "".join(out)

    def _literal(self) -> str:
        raw = "".join(self.value).strip()
        key = "".join(self.key).strip()
        try:
            value = _py_literal(raw)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            value = raw
        value = _jsonable(value)
        return self.writer.field(key, value)

    def finish(self) -> str:
        out = ""
        if self.state == "string":
            if self.held:  # a cut escape stays as written
                out = self.writer.text(self.held)
            out += self.writer.end()
        elif self.state == "literal":
            out = self._literal()
        return out + self.writer.close()


def _py_literal(raw: str) -> Any:
    """The value of a Python literal, as ast.literal_eval gives it.

    literal_eval defines recursive closures on every call: reference cycles that stay
    allocated until the collector runs, so a stream of calls would grow memory.
    """
    return _py_node(ast.parse(raw.lstrip(" \t"), mode="eval").body)


def _py_node(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.List):
        return [_py_node(e) for e in node.elts]
    if isinstance(node, ast.Tuple):
        return tuple(_py_node(e) for e in node.elts)
    if isinstance(node, ast.Dict) and None not in node.keys:
        return {_py_node(k): _py_node(v) for k, v in zip(node.keys, node.values)}
    if (isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub))
            and isinstance(node.operand, ast.Constant)
            and type(node.operand.value) in (int, float, complex)):  # fmt: skip
        value = node.operand.value
        return -value if isinstance(node.op, ast.USub) else +value
    return ast.literal_eval(node)  # sets, complex sums, and the errors: as literal_eval


def _jsonable(value: Any) -> Any:
    """Python literal values as JSON values (tuples and sets become lists)."""
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return str(value)


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


def argument_reader(syntax: Mapping[str, Any], writer: ArgumentsWriter) -> Any:
    """The reader for a spec's ``arguments`` syntax (all but json_envelope), into ``writer``."""
    kind = syntax["syntax"]
    if kind == "json":
        return JsonArguments(writer)
    if kind == "python_kwargs":
        return PythonArguments(writer)
    if kind == "notation":
        return NotationArguments(writer, delimiter=syntax["string_delimiter"])
    if kind == "nested_elements":
        return ElementArguments(writer, prefix=syntax["prefix"])
    return TaggedArguments(
        writer, open=syntax["open"], name_end=syntax["name_end"], close=syntax["close"],
        value_open=syntax.get("value_open"), trim=syntax.get("trim") == "one_newline",
        header=syntax.get("header", "name"), name_attribute=syntax.get("name_attribute", "name"),
        string_attribute=syntax.get("string_attribute"))
