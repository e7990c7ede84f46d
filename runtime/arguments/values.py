"""Where a call's argument text hides markers: inside its syntax's strings and values.

A format's markers are searched for in a call's argument text only where the value can
end.  The TOOL_ARGS lexer (``lexing.ValueArgs``, through ``value_gate.ValueGate``) gives a
syntax's ``ValueScan`` every piece of TOOL_ARGS text it consumes, plain or marker, and
asks it two things before it takes a marker there:

- ``quoted``: the text is inside a string whose end the syntax makes sure (a JSON or
  Python string, Gemma's ``<|"|>`` string, a DSML ``string="true"`` value).  A marker there is
  string content; ``skip`` jumps to the string's end.
- ``ambiguous``: the text is inside an element value that only its close tag ends
  (``<parameter=x>...</parameter>``).  A marker that would end the call is held until
  what follows it decides: a tag of the syntax (``tags``) or more text means it was
  value text; another marker or the end of the stream means the value's close tag is
  missing and the call ended there.  The value's own close tag is decided by what
  follows it as well (``ElementValues``); nested elements keep a stack of the open
  ones (``nested_elements.NestedValues``).

Scanners jump between the characters that matter with ``str.find`` and compiled
regexes, never looking at plain text character by character.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any, Final

from mypy_extensions import mypyc_attr

from .field_openers import opens_field
from .finders import finder
from .scanning import whole_json_value


@mypyc_attr(allow_interpreted_subclasses=True)
class ValueScan:
    """A syntax without strings that hide markers: every marker is a marker."""

    __slots__ = ("quoted", "ambiguous")

    # The syntax's own tags: after a marker inside an ambiguous value, one of them shows
    # that the marker was value text.
    tags: tuple[str, ...] = ()
    # The tags that open a field (what may follow a call's name, ``ValueGate``).
    fields: tuple[str, ...] = ()

    def __init__(self) -> None:
        self.quoted = False  # inside a string: a marker here is string content
        self.ambiguous = False  # inside a value whose end is unsure: what follows decides

    def reset(self) -> None:
        """A call's argument text begins."""
        self.quoted = self.ambiguous = False

    def feed(self, text: str) -> None:
        """Argument text the parser consumed (plain text or a marker's text)."""

    def skip(self, text: str, pos: int, end: int = -1) -> int:
        """Consume the text from ``pos`` up to ``end`` at most (-1: its end) in which no
        marker can start (the rest of an open string) and return where it ends; ``pos``
        when a marker may start there."""
        return pos

    def starts_arguments(self, text: str, final: bool) -> bool | None:
        """Whether ``text`` may start a call's arguments outside any string (after a
        call opener inside a string, ``ValueGate``); None: not known yet."""
        return True

    def whole(self, buf: str, pos: int, limit: int) -> int:
        """Where a complete value that starts at ``pos`` (after whitespace) and ends by
        ``limit`` ends, when reading all of it would leave this scanner as it is (every
        string in it closed); ``pos`` when there is none.  Nothing is consumed."""
        return pos


@functools.lru_cache(maxsize=8)
def _quote_searches(quotes: str) -> tuple[Callable[..., Any], dict[str, Callable[..., Any]]]:
    """QuotedStrings' searches: an opening quote, and per quote what ends or breaks its
    string (compiled once, not once per parser)."""
    return (re.compile("[%s]" % re.escape(quotes)).search,
            {q: re.compile(r"[%s\\\n]" % re.escape(q)).search for q in quotes})


# Whitespace and opening brackets: what a call's arguments start with.
_PAST_BRACKETS: Final = re.compile(r"\s*(?:[\[{(]\s*)*")


@mypyc_attr(allow_interpreted_subclasses=True)
class QuotedStrings(ValueScan):
    """Quoted strings with backslash escapes, across deltas: JSON's ``"``, or Python's
    ``'`` and ``"`` (a string ends at the quote that opened it).

    A raw newline cannot be in such a string: after one, the string is broken and no
    longer hides markers (a model that lost a quote still ends its call), though its
    closing quote is still looked for.
    """

    __slots__ = ("inside", "escape", "_open", "_stops")

    def __init__(self, quotes: str = '"') -> None:
        super().__init__()
        self.inside = ""  # the quote of the string the text is in (quoted, unless broken)
        self.escape = False  # a backslash ended the last piece
        self._open, self._stops = _quote_searches(quotes)

    def reset(self) -> None:
        self.quoted = self.escape = False
        self.inside = ""

    def _string(self, text: str, pos: int, stop_at_break: bool, n: int) -> int:
        """Read string text from ``pos`` up to ``n``: the index past its closing quote,
        of a raw newline that breaks it (``stop_at_break``), or ``n``."""
        if self.escape and pos < n:
            self.escape = False
            pos += 1
        stop = self._stops[self.inside]
        while pos < n:
            m = stop(text, pos, n)
            if m is None:
                return n
            i = m.start()
            ch = text[i]
            if ch == "\\":
                if i + 1 == n:
                    self.escape = True
                    return n
                pos = i + 2
            elif ch == "\n":
                self.quoted = False
                if stop_at_break:
                    return i
                pos = i + 1
            else:
                self.quoted = False
                self.inside = ""
                return i + 1
        return n

    def skip(self, text: str, pos: int, end: int = -1) -> int:
        if not self.quoted:
            return pos
        return self._string(text, pos, True, len(text) if end < 0 else end)

    def starts_arguments(self, text: str, final: bool) -> bool | None:
        """Brackets, then a quote (a key or a string) or a closing bracket: ``{"a"``,
        ``{}``, not ``{\\"a\\"`` (a string's escaped text)."""
        m = _PAST_BRACKETS.match(text)
        if m is None or m.end() == len(text):
            return True if final else None
        if not m.group().strip():
            return False  # (no bracket: no arguments)
        ch = text[m.end()]
        return ch in self._stops or ch in "}])"

    def whole(self, buf: str, pos: int, limit: int) -> int:
        """A JSON object or array, decoded in C: its strings are this scanner's ``"``
        strings, closed, without raw newlines (strict JSON has none)."""
        if self.inside or self.escape or '"' not in self._stops:
            return pos
        m = NOT_SPACE(buf, pos)
        if m is None or m.start() >= limit or buf[m.start()] not in "{[":
            return pos
        try:
            end = whole_json_value(buf, m.start())
        except ValueError:
            return pos
        return end if end <= limit else pos

    def feed(self, text: str) -> None:
        pos, n = 0, len(text)
        while pos < n:
            if self.inside:
                pos = self._string(text, pos, False, n)
                continue
            m = self._open(text, pos)
            if m is None:
                return
            self.inside = m.group()
            self.quoted = True
            pos = m.end()


@mypyc_attr(allow_interpreted_subclasses=True)
class DelimitedStrings(ValueScan):
    """Strings between one delimiter that opens and closes them, without escapes
    (Gemma 4's ``<|"|>``); a delimiter cut by a delta's end is kept until it completes."""

    __slots__ = ("delimiter", "tail", "_finder")

    def __init__(self, delimiter: str) -> None:
        super().__init__()
        self.delimiter = delimiter
        self._finder = finder((delimiter,))
        self.tail = ""  # the end of the last piece, which may begin a delimiter

    def reset(self) -> None:
        self.quoted = False
        self.tail = ""

    def _toggle(self, text: str, pos: int) -> int:
        """Find the next delimiter from ``pos`` (one begun by ``tail`` included) and
        toggle at it: the index past it, or -1 when there is none."""
        delim = self.delimiter
        if self.tail:
            rest = delim[len(self.tail):]
            if text.startswith(rest, pos):
                self.tail = ""
                self.quoted = not self.quoted
                return pos + len(rest)
            if rest.startswith(text[pos:]):
                self.tail += text[pos:]  # still only the start of a delimiter
                return -1
            self.tail = ""
        i = text.find(delim, pos)
        if i < 0:
            self.tail = text[self._finder.tail(text, pos):]
            return -1
        self.quoted = not self.quoted
        return i + len(delim)

    def skip(self, text: str, pos: int, end: int = -1) -> int:
        if not self.quoted:
            return pos
        if 0 <= end < len(text) and not self.tail:  # (what follows the limit is no delimiter)
            i = text.find(self.delimiter, pos, end)
            if i < 0:
                return end
            self.quoted = False
            return i + len(self.delimiter)
        past = self._toggle(text, pos)
        return len(text) if past < 0 else past

    def feed(self, text: str) -> None:
        pos = 0
        while pos < len(text):
            end = self._toggle(text, pos)
            if end < 0:
                return
            pos = end


_OUTSIDE, _NAME, _BEFORE_VALUE, _VALUE, _CLOSING = range(5)
NOT_SPACE: Final = re.compile(r"\S").search


@mypyc_attr(allow_interpreted_subclasses=True)
class ElementValues(ValueScan):
    """Tagged element values, ``OPEN header NAME_END [VALUE_OPEN] value CLOSE``.

    A value is ``quoted`` when the header marks it as text (``text_kind`` says so:
    DeepSeek's ``string="true"``), and only its close tag (or the next field's open tag)
    ends it; any other value is ``ambiguous``.  A close tag ends the value only when
    the next field's open tag follows it (after whitespace), or a marker that ends the
    call; other text after it means it was value text, and the value goes on (as the
    reader, ``TaggedArguments``, decides).
    """

    __slots__ = ("opens", "name_end", "value_open", "closes", "text_kind", "self_closing",
                 "where", "buf", "tags", "fields", "sure", "_opens", "_ends", "name_of",
                 "names", "close_first")

    def __init__(self, *, open: tuple[str, ...], name_end: str, close: tuple[str, ...],
                 value_open: str | None,
                 text_kind: Callable[[str], bool] | None = None,
                 self_closing: bool = False,
                 name_of: Callable[[str], str] | None = None,
                 close_first: bool = False) -> None:
        super().__init__()
        self.close_first = close_first  # a close tag closes, whatever follows it
        # A header's field name (None: the header's text), and the fields read so far:
        # an open tag inside a value opens a field only as ``opens_field`` decides.
        self.name_of = name_of
        self.names: set[str] = set()
        # Headers of attributes may close their own tag (``name="K"/>``): no value.
        self.self_closing = self_closing
        # Each tag in all its spellings (the first is canonical).
        self.opens, self.name_end, self.closes = open, name_end, close
        self.value_open = value_open
        # header -> whether the value is sure text (None: no value is).
        self.text_kind = text_kind
        self.tags = close + open + ((value_open,) if value_open else ())
        self.fields = open
        self._opens = finder(open)
        self._ends = finder(close + open)  # what ends a value
        self.where = _OUTSIDE
        self.buf = ""  # a tag cut by a delta's end, or a header not yet closed
        self.sure = False  # the field's header marks its value as text

    def reset(self) -> None:
        self.quoted = self.ambiguous = self.sure = False
        self.where = _OUTSIDE
        self.buf = ""
        self.names = set()

    def _enter_value(self) -> None:
        self.where = _VALUE
        self.quoted, self.ambiguous = self.sure, not self.sure

    def skip(self, text: str, pos: int, end: int = -1) -> int:
        if not self.quoted or self.buf:
            return pos
        n = len(text) if end < 0 else end
        m = self._ends.search(text, pos, n)
        if m is not None:
            return m.start()  # the tag itself is read as it is (fed, or a marker)
        return n if n < len(text) else self._ends.tail(text, pos)

    def feed(self, text: str) -> None:
        buf = self.buf + text if self.buf else text
        self.buf = ""
        pos = 0
        while True:
            where = self.where
            if where == _VALUE:
                m = self._ends.search(buf, pos)
                if m is None:
                    self.buf = buf[self._ends.tail(buf, pos):]
                    return
                if m.group() not in self.closes:  # an open tag: what follows decides
                    name_of = self.name_of
                    j = buf.find(self.name_end, m.end())
                    name = name_of(buf[m.end():j]) if name_of is not None and j >= 0 else None
                    opens = opens_field(buf, m.end(), self.name_end, self.value_open, name,
                                        self.names)
                    if opens is None:
                        self.buf = buf[m.start():]
                        return
                    if not opens:
                        pos = m.end()  # value text
                        continue
                pos = m.end()
                closes = m.group() in self.closes
                self.where = (_OUTSIDE if self.close_first else _CLOSING) if closes else _NAME
                self.quoted = self.ambiguous = False
            elif where == _CLOSING:
                # After a close tag: the next field's open tag shows it closed the value
                # (a marker that ends the call is taken meanwhile); other text, that it
                # was value text.
                m = NOT_SPACE(buf, pos)
                if m is None:
                    return
                j = m.start()
                if any(buf.startswith(tag, j) for tag in self.opens):
                    self.where = _OUTSIDE
                elif any(len(buf) - j < len(tag) and tag.startswith(buf[j:])
                         for tag in self.opens):
                    self.buf = buf[j:]
                    return
                else:
                    self._enter_value()
                pos = j
            elif where == _OUTSIDE:
                m = self._opens.search(buf, pos)
                if m is None:
                    self.buf = buf[self._opens.tail(buf, pos):]
                    return
                pos = m.end()
                self.where = _NAME
            elif where == _NAME:
                i = buf.find(self.name_end, pos)
                if i < 0:
                    self.buf = buf[pos:]
                    return
                header = buf[pos:i]
                self.names.add(header.strip() if self.name_of is None else self.name_of(header))
                kind = self.text_kind
                self.sure = kind is not None and kind(header)
                pos = i + len(self.name_end)
                if self.self_closing and header.rstrip().endswith("/"):
                    self.where = _OUTSIDE  # <parameter name="K"/>: closed in its own tag
                elif self.value_open:
                    self.where = _BEFORE_VALUE
                else:
                    self._enter_value()
            else:  # before the value's open tag: whitespace, the tag, or (tag missing) text
                assert self.value_open is not None
                m = NOT_SPACE(buf, pos)
                if m is None:
                    return
                i = m.start()
                if buf.startswith(self.value_open, i):
                    pos = i + len(self.value_open)
                elif self.value_open.startswith(buf[i:]):
                    self.buf = buf[i:]
                    return
                else:
                    pos = i  # the open tag is missing: the value starts here
                self._enter_value()


__all__ = ["NOT_SPACE", "DelimitedStrings", "ElementValues", "QuotedStrings", "ValueScan"]
