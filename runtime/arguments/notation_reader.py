"""Reading Gemma 4's ``key:value`` call notation as it streams (``NotationArguments``)."""

from __future__ import annotations

import json
from typing import Final

from mypy_extensions import mypyc_attr

from .notation_values import bare_value, find_any, parse_notation
from .scanning import JSON_STRING_STOP, partial_len
from .writer import MAX_DEPTH, ArgumentsWriter


@mypyc_attr(allow_interpreted_subclasses=True)
class NotationArguments:
    """Gemma 4's call notation: ``key:value`` pairs, strings between ``DELIM``s.

    Values are ``DELIM``-quoted strings (streamed), ``{...}`` objects and ``[...]``
    lists of the same notation (typed when complete), or bare words: a number,
    ``true``, ``false`` or ``null`` is that JSON value, any other word is text, unless
    the tool's schema types the field.  A value in plain JSON double quotes that the
    next ``,`` ``}`` ``]`` follows is that string (models write ``command:"ls"`` for
    ``command:<|"|>ls<|"|>``).  The object's own opening brace was read by the grammar;
    its closing ``}`` (or ``)``) ends the arguments.
    """

    __slots__ = ("writer", "delim", "state", "buf", "key", "nested", "closers", "deepest",
                 "in_string", "escape", "in_json", "last")

    def __init__(self, writer: ArgumentsWriter, *, delimiter: str) -> None:
        self.writer = writer
        self.delim = delimiter
        self.state = "key?"  # key?, key, value?, string, bare, word, nested, done
        self.buf = ""
        self.key = ""
        self.nested: list[str] = []
        self.closers: list[str] = []  # what closes the nested value's open brackets
        self.deepest = 0
        self.in_string = False
        self.escape = False  # a JSON-quoted value's backslash waits for the next delta
        self.in_json = False  # inside a JSON-quoted string of a nested value
        self.last = ""  # the nested value's last character that is not whitespace

    def complete(self) -> bool:
        """Whether the object has closed (its closing brace was read)."""
        return self.state == "done"

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
                    self.state, self.nested, self.closers, self.in_string = "nested", [], [], False
                    self.deepest, self.in_json, self.escape, self.last = 0, False, False, ""
                elif buf[pos] == '"':
                    self.state, self.nested, self.escape = "quoted", ['"'], False
                    pos += 1
                else:
                    # A bare word is typed by its notation (25, true, null) unless the
                    # tool's schema types the field.
                    if self.writer.typed(self.key):
                        out.append(self.writer.begin(self.key))
                        self.state = "bare"
                    else:
                        self.state, self.nested = "word", []
            elif state == "string":
                i = buf.find(delim, pos)
                if i < 0:
                    keep = partial_len(buf, pos, (delim,))
                    if n - keep > pos:
                        out.append(self.writer.text(buf[pos : n - keep]))
                    self.buf = buf[n - keep :]
                    break
                if i > pos:
                    out.append(self.writer.text(buf[pos:i]))
                out.append(self.writer.end())
                pos = i + len(delim)
                self.state = "key?"
            elif state == "quoted":
                pos = self._quoted(buf, pos)
            elif state == "closed":
                while pos < n and buf[pos] in " \n\t":
                    self.nested.append(buf[pos])
                    pos += 1
                if pos == n:
                    break
                if buf[pos] in ",}])" and self._quoted_field(out):
                    self.state = "key?"
                else:  # "5" inches: the quote began a bare word; read the text again
                    buf, pos = self._as_bare(out) + buf[pos:], 0
                    n = len(buf)
            elif state == "bare":
                end = find_any(buf, pos, ",}])")
                if end < 0:
                    out.append(self.writer.text(buf[pos:]))
                    break
                out.append(self.writer.text(buf[pos:end]))
                out.append(self._end_bare())
                pos = end
                self.state = "key?"
            elif state == "word":
                end = find_any(buf, pos, ",}])")
                if end < 0:
                    self.nested.append(buf[pos:])
                    break
                self.nested.append(buf[pos:end])
                out.append(self._word_field())
                pos = end
                self.state = "key?"
            else:  # nested
                limit = n - partial_len(buf, pos, (delim,))  # a split DELIM waits
                end = self._nested_end(buf, pos, limit)
                if end < 0:
                    self.nested.append(buf[pos:limit])
                    self.buf = buf[limit:]
                    break
                self.nested.append(buf[pos:end])
                out.append(self._nested_field())
                pos = end
                self.state = "key?"
        return "".join(out)

    def _quoted(self, buf: str, pos: int) -> int:
        """Read a JSON-quoted value up to its closing quote; where the scan stopped."""
        n = len(buf)
        while pos < n:
            if self.escape:
                self.escape = False
                self.nested.append(buf[pos])
                pos += 1
                continue
            m = JSON_STRING_STOP(buf, pos)
            if m is None:
                self.nested.append(buf[pos:])
                return n
            i = m.start()
            self.nested.append(buf[pos : i + 1])
            pos = i + 1
            if buf[i] == '"':
                self.state = "closed"
                return pos
            self.escape = True
        return pos

    def _quoted_field(self, out: list[str]) -> bool:
        """Write the closed JSON-quoted value as a string field; False (nothing written)
        when it is no JSON string (``"bad \\q"``)."""
        try:
            value = json.loads("".join(self.nested).rstrip(), strict=False)
        except ValueError:
            return False
        out.append(self.writer.field(self.key, value))
        return True

    def _as_bare(self, out: list[str]) -> str:
        """The quoted value was no JSON string: its text, to be read again as the bare
        word the quote began (as if no quote had been special)."""
        text = "".join(self.nested)
        if self.writer.typed(self.key):
            out.append(self.writer.begin(self.key))
            self.state = "bare"
        else:
            self.state, self.nested = "word", []
        return text

    def _nested_field(self) -> str:
        # Too deep a value is kept as its text: parsing and writing it would recurse.
        text = "".join(self.nested)
        if self.deepest > MAX_DEPTH:
            return self.writer.text_field(self.key, text)
        return self.writer.field(self.key, parse_notation(text, self.delim))

    def _word_field(self) -> str:
        """The untyped bare word read so far, as a field typed by its notation."""
        return self.writer.field(self.key, bare_value("".join(self.nested).strip()))

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
            if self.in_json:  # brackets in a JSON-quoted string are its text
                pos = self._json_string_end(buf, pos, n)
                continue
            if buf.startswith(delim, pos):
                self.in_string = True
                pos += len(delim)
                continue
            ch = buf[pos]
            pos += 1
            if ch == '"' and self.last in _VALUE_STARTS:
                self.in_json = True  # a value in JSON quotes (["a]", "b"])
                self.last = ch
                continue
            if not ch.isspace():
                self.last = ch
            if ch in "{[":
                self.closers.append("}" if ch == "{" else "]")
                self.deepest = max(self.deepest, len(self.closers))
            elif ch in "}]":
                if self.closers:
                    self.closers.pop()
                if not self.closers:
                    return pos
        return -1

    def _json_string_end(self, buf: str, pos: int, n: int) -> int:
        """Past the JSON-quoted string's closing quote, or n (it goes on)."""
        while pos < n:
            if self.escape:
                self.escape = False
                pos += 1
                continue
            m = JSON_STRING_STOP(buf, pos, n)
            if m is None:
                return n
            pos = m.end()
            if m.group() == '"':
                self.in_json = False
                return pos
            self.escape = True
        return pos

    def finish(self) -> str:
        """The call's end: close what the model left open, adding nothing but closers (a
        string's delimiter, brackets, the object's brace; a key whose value never began
        is left out), each said in a warning, as ``JsonArguments.finish`` does."""
        parts: list[str] = []
        if self.state == "closed" and self._quoted_field(parts):
            self.state = "key?"
        elif self.state in ("closed", "quoted"):  # no JSON string: the words as written
            parts.append(self.feed(self._as_bare(parts)))
        out, state, writer, added = "".join(parts), self.state, self.writer, ""
        if state == "string":
            out += (writer.text(self.buf) if self.buf else "") + writer.end()
            added = self.delim
        elif state == "bare":
            out += self._end_bare()
        elif state == "word":
            out += self._word_field()
        elif state == "nested":
            added = (self.delim if self.in_string else '"' if self.in_json else "") + "".join(
                reversed(self.closers))
            out += self._nested_field()
        elif state in ("key", "value?"):
            writer.left_out(self.key.strip())
        if state != "done" and (state != "key?" or writer.started):
            writer.closed_at_end(added + "}")
        self.state = "done"
        return out + writer.close()


# Where a value starts in a nested value: a quote here opens a JSON string.
_VALUE_STARTS: Final = frozenset("[{,:")
