"""The ``json`` argument syntax: a JSON object of arguments, re-written typed."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from mypy_extensions import mypyc_attr

from .base import ArgumentReader, ArgumentSyntax, Piece, WriterFactory, options_schema
from ..json_text import to_json
from .scanning import (KEY_ENDS, NOT_SPACE, VALUE_ENDS, JsonScan, decode_json_string,
                       scan_json_value, whole_json_string, whole_json_value, whole_member_key)
from .values import QuotedStrings, ValueScan
from .writer import ArgumentsWriter, written_as_kept


@mypyc_attr(allow_interpreted_subclasses=True)
class JsonArguments:
    """A JSON object of arguments, read incrementally and re-written typed.

    Keys and string values are decoded and re-encoded; other values pass through as
    written unless the schema wants another type.  Text after the object is ignored.
    Arguments written as a JSON string (``"{\"a\": 1}"``, as clients' histories show
    them) are read as the object the string holds, with a warning.  A quote ends a
    string only where a colon (after a key) or ``,`` ``}`` ``]`` (after a value) follows
    it; any other quote is text the model left unescaped (``scanning.json_quotes``).
    """

    __slots__ = ("writer", "state", "buf", "stack", "scan", "key_parts", "invalid", "ws",
                 "inner", "gap")

    def __init__(self, writer: ArgumentsWriter) -> None:
        self.writer = writer
        # start, key?, key, colon, value?, string, raw, comma?, done; key", string": after
        # a quote that may end the key or string (what follows it decides)
        self.state = "start"
        self.buf = ""
        self.stack: list[str] = []  # closers owed by the raw value being read, innermost last
        self.scan = JsonScan()
        self.ws = ""  # trailing whitespace of a raw value: it may be the value's end
        self.key_parts: list[str] = []
        self.invalid = False
        self.inner: JsonArguments | None = None  # reads the text of string-encoded arguments
        self.gap = ""  # whitespace after a quote that may end a string

    def complete(self) -> bool:
        """Whether the object has closed (text after it is ignored)."""
        if self.inner is not None:
            return self.state == "done" and self.inner.complete()
        return self.state == "done" or self.invalid

    def feed(self, text: str) -> str:
        if self.state == "start" and not self.buf:
            whole = self.whole(text)
            if whole is not None:
                return whole
        buf = self.buf + text
        self.buf = ""
        out: list[str] = []
        pos, n = 0, len(buf)
        while pos < n and not self.invalid:
            state = self.state
            if state == "done":
                self.writer.after_object(buf[pos:])
                break
            if state in ("start", "key?", "colon", "value?", "comma?"):
                m = NOT_SPACE(buf, pos)
                if m is None:
                    break
                pos = m.start()
                ch = buf[pos]
                if state == "start":
                    if ch == '"':  # the object written as a JSON string: read its text
                        self.writer.warnings.append("arguments written as a JSON string")
                        self.inner = JsonArguments(self.writer)
                        self.state = "encoded"
                    else:
                        self._expect(ch, "{")
                        self.state = "key?"
                elif state == "key?":
                    if ch == "}" and not self.writer.started:
                        self.state = "done"
                    else:
                        self._expect(ch, '"')
                        self.state = "key"
                        self.key_parts = []
                elif state == "colon":
                    self._expect(ch, ":")
                    self.state = "value?"
                elif state == "value?":
                    if ch == '"':
                        out.append(self.writer.begin(self._key()))
                        self.state = "string"
                    else:
                        out.append(self.writer.begin(self._key(), "json:" + ch))
                        self.state = "raw"
                        self.stack = []
                        self.ws = ""
                        self.scan.reset()
                        continue  # the raw value starts at this character
                else:  # comma?
                    if ch == ",":
                        self.state = "key?"
                    else:
                        self._expect(ch, "}")
                        self.state = "done"
                pos += 1
            elif state == "encoded":
                text_end, pos, closed = decode_json_string(buf, pos)
                if not closed and pos < n:  # an escape cut by the delta's end
                    self.buf, pos = buf[pos:], n
                out.append(self.inner.feed(text_end))  # type: ignore[union-attr]
                if closed:
                    self.state = "done"
            elif state in ("key", "string"):
                text_end, pos, closed = decode_json_string(buf, pos)
                if not closed and pos < n:  # an escape cut by the delta's end
                    self.buf, pos = buf[pos:], n
                if state == "key":
                    self.key_parts.append(text_end)
                elif text_end:
                    out.append(self.writer.text(text_end))
                if closed:  # a quote: what follows it says whether it ends the string
                    self.state, self.gap = state + '"', ""
            elif state in ('key"', 'string"'):
                m = NOT_SPACE(buf, pos)
                self.gap += buf[pos : n if m is None else m.start()]
                if m is None:
                    break
                pos = m.start()
                key = state == 'key"'
                if buf[pos] in (KEY_ENDS if key else VALUE_ENDS):
                    if not key:
                        out.append(self.writer.end())
                    self.state = "colon" if key else "comma?"
                    continue
                # More of the string follows: the quote was text the model left unescaped.
                self.writer.quote_kept(self._key(), "the key" if key else "the value of")
                if key:
                    self.key_parts.append('"' + self.gap)
                else:
                    out.append(self.writer.text('"' + self.gap))
                self.state = state[:-1]
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

    def _canonical(self, buf: str, start: int) -> str | None:
        """``canonical`` for the object at ``start``, closed or not yet: a body holds a
        closing brace back until it knows what follows, so the text often lacks only
        that; then the members must end in a string or container, which no more text
        can extend."""
        # Only text whose last character is a brace can hold the closed object: other
        # text skips a decode that would fail (the common case, the brace held back).
        closed = buf.rstrip()[-1:] == "}"
        if closed:
            try:
                value, end = scan_json_value(buf, start)
            except ValueError:
                closed = False
            else:
                if NOT_SPACE(buf, end) is not None:
                    return None
        if not closed:
            try:
                value, end = scan_json_value(buf + "}", start)
            except ValueError:
                return None
            if end != len(buf) + 1 or not value or type(value) is not dict:
                return None
        text = buf[start:end] if closed else buf[start:] + "}"
        taken = self.canonical(value, text)
        if taken is None or closed:
            return taken
        key, last = next(reversed(value.items()))
        if type(last) in (dict, list):
            self.state = "comma?"  # no more text can extend the last member
            return taken
        # A number or literal may go on in the next text, and what follows a string's
        # quote says whether it ended it: the last member stays open, as reading it
        # member by member leaves it.
        raw = to_json(last)
        member = len(to_json(key)) + 2 + len(raw)
        self.writer.started = len(value) > 1
        out = taken[: len(taken) - member - (2 if len(value) > 1 else 1)]
        if type(last) is str:
            self.state, self.gap = 'string"', ""
            return out + self.writer.begin(key) + self.writer.text(last)
        out += self.writer.begin(key, "json:" + raw[0]) + self.writer.text(raw)
        self.state, self.stack, self.ws = "raw", [], ""
        self.scan.reset()
        return out

    def canonical(self, value: Any, text: str) -> str | None:
        """Take a whole object at once when ``text``, its JSON, is exactly as json.dumps
        writes the decoded ``value`` and the writer keeps every member as written: what
        the writer would write member by member is then ``text`` itself (less the
        closing brace, which ``finish`` writes).  None, having read nothing, otherwise."""
        writer = self.writer
        if (writer.started or self.state != "start"
                or not written_as_kept(value, text, writer.properties)):
            return None
        self.state = "done"
        if not value:
            return ""
        writer.started = True
        return text[:-1]

    def whole(self, buf: str) -> str | None:
        """The object read at once when ``buf`` holds all its members as strict JSON,
        its closing brace or not yet (keys and values decoded by the json module's C
        scanners; the same writes, in the same state after, as ``feed`` one character
        at a time); None, having read nothing, for anything else."""
        m = NOT_SPACE(buf)
        if m is None or buf[m.start()] != "{":
            return None
        start = m.start()
        taken = self._canonical(buf, start)
        if taken is not None:
            return taken
        m = NOT_SPACE(buf, start + 1)
        if m is None:
            return None
        pos = m.start()
        fields: list[tuple[str, str | None, str]] = []  # (key, raw value's first char, text)
        state = "done"
        if buf[pos] == "}":
            if self.writer.started:
                return None
        else:
            try:
                while True:
                    member = whole_member_key(buf, pos) if buf[pos] == '"' else None
                    if member is None:
                        return None
                    key, pos = member
                    if buf[pos] == '"':
                        value, pos = whole_json_string(buf, pos + 1)
                        fields.append((key, None, value))
                    else:
                        end = whole_json_value(buf, pos)
                        fields.append((key, buf[pos], buf[pos:end]))
                        pos = end
                    m = NOT_SPACE(buf, pos)
                    if m is None:  # the text ends after a member: the object goes on
                        state = 'string"' if fields[-1][1] is None else "raw"
                        break
                    pos = m.start()
                    if buf[pos] == "}":
                        break
                    if buf[pos] != ",":
                        return None
                    m = NOT_SPACE(buf, pos + 1)
                    if m is None:
                        return None
                    pos = m.start()
            except ValueError:
                return None
        writer, out = self.writer, []
        for i, (key, first, value) in enumerate(fields):
            out.append(writer.begin(key) if first is None else writer.begin(key, "json:" + first))
            if value:
                out.append(writer.text(value))
            if state == "done" or i < len(fields) - 1:
                out.append(writer.end())
        if state == "raw":  # a raw value may still go on, as feed leaves one
            self.stack, self.ws = [], buf[pos:]
            self.scan.reset()
        elif state == 'string"':  # what follows the quote decides, as feed leaves it
            self.gap = buf[pos:]
        self.state = state
        return "".join(out)

    def _expect(self, found: str, wanted: str) -> None:
        """``found`` must be ``wanted``: else the arguments are read no further."""
        if found != wanted:
            self.invalid = True
            self.writer.warnings.append(
                f"arguments are not a JSON object: they begin with {found!r} and are dropped"
                if self.state == "start" else
                f"arguments are not valid JSON: {found!r} where {wanted!r} belongs; the rest "
                "is dropped")

    def _key(self) -> str:
        return "".join(self.key_parts)

    def _raw_end(self, buf: str, pos: int) -> int:
        """Index of the ',' or '}' that ends the raw value, or -1 if not in buf."""
        while True:
            i = self.scan.next(buf, pos)
            if i < 0:
                return -1
            ch = buf[i]
            if ch in "{[":
                self.stack.append("}" if ch == "{" else "]")
            elif not self.stack and ch in ",}]":
                return i
            elif ch != ",":
                if self.stack:  # a list pops in constant time, however deep
                    self.stack.pop()
            pos = i + 1

    def finish(self) -> str:
        """The call's end: close what the model left open, adding nothing but closers (an
        open string's quote, brackets, the object's brace; a key whose value never
        began is left out), each said in a warning; the object is always JSON."""
        writer, state, added = self.writer, self.state, ""
        writer.report_after()  # (text after the object: said, not lost)
        if self.inner is not None:
            if state == "encoded":  # the string that holds the arguments was left open
                writer.closed_at_end('"')
            return self.inner.finish()
        out = ""
        if state == "string" or state == 'string"':
            if state == "string":
                out, added = writer.text(self.buf) if self.buf else "", '"'
            out += writer.end()
        elif state == "raw":
            quote = self.ws + '"' if self.scan.in_string else ""
            brackets = "".join(reversed(self.stack))
            if (quote or brackets) and writer.close_value(quote + brackets):
                added = quote.strip() + brackets  # (else kept as text, as written)
            elif quote:
                out += writer.text(self.ws)  # (the string's own whitespace)
            out += writer.end()
        elif state in ("key", 'key"', "colon", "value?"):
            writer.left_out(self._key())
        if state not in ("start", "done") and not self.invalid:
            writer.closed_at_end(added + "}")
        return out + writer.close()


@mypyc_attr(allow_interpreted_subclasses=True)
class JsonSyntax(ArgumentSyntax):
    """One JSON object of arguments, as OpenAI's API writes them: ``{"city": "Paris"}``.

    Keys and strings stream as they arrive; other values pass through as written unless
    the tool's schema wants another type.  Text after the object is ignored.  A format's
    marker inside a string is string content (until a raw newline breaks the string).
    A quote ends a string only where ``:`` (a key) or ``,`` ``}`` ``]`` (a value)
    follows it; another is text the model left unescaped.  What the call's end leaves
    open is closed with closers only, and said in a warning.
    """

    name = "json"
    schema = options_schema()
    bodies = ("json", "text", "json_object")
    closes_itself = True
    __slots__ = ()

    def reader(self, make_writer: WriterFactory, name: str | None) -> ArgumentReader:
        return JsonArguments(make_writer(name or ""))

    def values(self) -> ValueScan:
        """JSON strings: a marker inside one is string content."""
        return QuotedStrings('"')

    def structural_style(self) -> str | None:
        return "json"

    def render(self, arguments: Mapping[str, Any]) -> list[Piece]:
        return [(json.dumps(arguments, ensure_ascii=False), False)]

    def whole_arguments(self, text: str, properties: Mapping[str, Any] | None) -> str | None:
        """An object as json.dumps writes it, whitespace around it, every member kept as
        written (``JsonArguments.canonical``): decoded once, in C, taken as it is."""
        # (strip() skips what NOT_SPACE does, \s, without a match object: as
        # EnvelopeSyntax.whole_call.)
        start = len(text) - len(text.lstrip())
        if text[start : start + 1] != "{":
            return None
        try:
            value, end = scan_json_value(text, start)
        except ValueError:
            return None
        if len(text.rstrip()) != end:  # (the object ends non-space)
            return None
        arguments = text[start:end]
        return arguments if written_as_kept(value, arguments, properties) else None
