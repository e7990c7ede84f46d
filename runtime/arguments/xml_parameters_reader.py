"""Reading ``xml_parameters`` fields as they stream (``TaggedArguments``), or whole.

A field: ``OPEN header NAME_END [VALUE_OPEN] value CLOSE``; a header: a name or attributes.
What follows a close tag decides whether it closed the value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from mypy_extensions import mypyc_attr

from ..json_text import STRICT_JSON
from .scanning import ENTITY_DECODERS, NOT_SPACE, partial_len, tail_prefix
from .cdata import CdataUnwrap
from .trim import ValueTrim
from .field_openers import opens_field
from .writer import ArgumentsWriter

# A header's XML attributes: name, then the value in double, single or no quotes.
ATTRIBUTE: Final = re.compile(r"""([\w-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""")


@mypyc_attr(allow_interpreted_subclasses=True)
class TaggedArguments:
    """``OPEN header NAME_END [VALUE_OPEN] value CLOSE`` fields (qwen3, GLM, MiniMax, DSML).

    The header is the field's name, or (``header="attributes"``) XML attributes whose
    ``name`` is the field's name; with ``string_attribute`` an attribute that is not
    ``"true"`` marks a JSON value (DeepSeek's ``string="false"``); a tag that closes
    itself (``name="K"/>``) is an empty value.  A value also ends
    where the next field opens.  A value whose ``value_open`` tag the model left out starts
    at its first text that is not whitespace.  A close tag closes the value only where
    the next field's open tag or the end of the call follows it (after whitespace);
    followed by other text it is value text (a value may quote its own close tag).
    An open tag inside a value is decided by what follows it too: it opens the next
    field (the value's close tag was missing) only where a field's header follows it
    (up to ``name_end``, no tag or line break in it) naming a field the call has not
    had, then ``value_open`` where the syntax has one; otherwise it is value text
    (GLM's ``<arg_value>keys go in <arg_key>.</arg_value>``).
    ``open`` and ``close`` may each have several spellings (the first is canonical).
    ``trim`` (a mode of ``trim.ValueTrim``; ``True`` is ``one_newline``) drops whitespace
    around each value; then, with ``cdata``, each ``<![CDATA[...]]>`` section in a value
    is its text exactly (``cdata.CdataUnwrap``).  Text outside fields is ignored, but for arguments that are one
    JSON object and no field at all (DSML's ``<invoke name="f">{"city": "Paris"}</invoke>``,
    SGLang's DeepSeekV32Detector "Direct JSON"): its members are the fields.
    """

    __slots__ = ("writer", "opens", "name_end", "value_open", "closes", "trim", "buf",
                 "where", "name", "searched", "held", "attributes",
                 "name_attr", "string_attr", "string_value", "string_default", "kind",
                 "entities", "loose", "fields", "names", "close_first",
                 "json_values", "cdata")

    def __init__(self, writer: ArgumentsWriter, *, open: str | tuple[str, ...], name_end: str,
                 close: str | tuple[str, ...], value_open: str | None = None,
                 trim: str | bool = "none",
                 header: str = "name", name_attribute: str = "name",
                 string_attribute: str | Mapping[str, str] | None = None,
                 entities: str | None = None, close_first: bool = False,
                 json_values: bool = False, cdata: bool = False) -> None:
        self.writer = writer
        self.cdata = CdataUnwrap() if cdata else None  # sections unwrapped, after trim
        self.close_first = close_first  # a close tag closes its value, whatever follows
        self.json_values = json_values  # a value the schema does not type: JSON or text
        # Decodes character references in attribute values (Kimi K3 escapes them).
        self.entities = ENTITY_DECODERS[entities] if entities else None
        self.opens, self.closes = spellings(open), spellings(close)
        self.name_end = name_end
        self.value_open = value_open
        self.trim = ValueTrim(trim)
        self.attributes = header == "attributes"
        self.name_attr = name_attribute
        # The attribute whose value says "this value is text" (else JSON, or text if
        # it does not parse): DeepSeek's string="true", Kimi K3's type="string".
        self.string_attr: str | None
        self.string_default: str | None
        if isinstance(string_attribute, Mapping):
            self.string_attr = string_attribute["name"]
            self.string_value = string_attribute.get("value", "true")
            self.string_default = string_attribute.get("default")
        else:
            self.string_attr, self.string_value, self.string_default = (
                string_attribute, "true", None)
        self.kind = "text"
        self.buf = ""  # unconsumed text: at most a possible tag prefix, or a name
        self.where = "outside"  # outside | name | before_value | value | closing
        self.name = ""
        self.searched = 0  # how much of buf is known not to hold name_end
        self.held: list[str] = []  # closing: the close tag and the whitespace after it
        self.loose: list[str] = []  # text before the first field (a JSON object?)
        self.fields = False  # a field has opened
        self.names: set[str] = set()  # the fields read so far

    def complete(self) -> bool:
        """Whether no field is open: every value the model began has its close tag."""
        return self.where in ("outside", "closing")

    def feed(self, text: str) -> str:
        """Consume raw argument text; return JSON text that is now final."""
        buf = self.buf + text
        out = []
        pos = 0
        while True:
            where = self.where
            if where == "outside":
                i, size = find_first(buf, pos, self.opens)
                if i < 0:
                    reach = max(map(len, self.opens)) - 1
                    self.buf = tail_prefix(buf, max(pos, len(buf) - reach), self.opens)
                    if not self.fields:
                        self.loose.append(buf[pos : len(buf) - len(self.buf)])
                    break
                self.fields, self.loose = True, []
                pos = i + size
                self.where = "name"
            elif where == "name":
                i = buf.find(self.name_end, max(pos, self.searched))
                if i < 0:
                    self.buf = buf[pos:]
                    self.searched = max(0, len(self.buf) - len(self.name_end) + 1)
                    break
                self.searched = 0
                empty = self._header(buf[pos:i])
                pos = i + len(self.name_end)
                self._reset_value()
                if empty:  # <parameter name="K"/>: closed in its own tag, no value
                    out.append(self.writer.begin(self.name, self.kind) + self.writer.end())
                    self.where = "outside"
                    continue
                self.where = "before_value" if self.value_open else "value"
                if self.where == "value":
                    out.append(self.writer.begin(self.name, self.kind))
            elif where == "before_value":
                value_open = self.value_open or ""  # (only with a value_open tag)
                m = NOT_SPACE(buf, pos)
                if m is None:
                    self.buf = ""  # whitespace before the value's open tag
                    break
                i = m.start()
                if buf.startswith(value_open, i):
                    pos = i + len(value_open)
                elif value_open.startswith(buf[i:]):
                    self.buf = buf[i:]  # the open tag, cut by the delta's end
                    break
                else:
                    pos = i  # the open tag is missing: the value starts here (GLM drops it)
                self.where = "value"
                out.append(self.writer.begin(self.name, self.kind))
            elif where == "value":
                (end, end_size), (nxt, nxt_size) = (find_first(buf, pos, self.closes),
                                                    find_first(buf, pos, self.opens))
                stops = [i for i in (end, nxt) if i >= 0]
                if not stops:
                    safe = len(buf) - partial_len(buf, pos, self.closes + self.opens)
                    out.append(self._value(buf[pos:safe], final=False))
                    self.buf = buf[safe:]
                    break
                i = min(stops)
                if i == nxt:
                    opens = self._opens_field(buf, i + nxt_size)
                    if opens is None:  # what follows is not here yet
                        out.append(self._value(buf[pos:i], final=False))
                        self.buf = buf[i:]
                        break
                    if not opens:  # an open tag written in the value: its text
                        out.append(self._value(buf[pos : i + nxt_size], final=False))
                        pos = i + nxt_size
                        continue
                if i == end and self.close_first:
                    out.append(self._value(buf[pos:i], final=True) + self.writer.end())
                    pos = i + end_size
                    self.where = "outside"
                    continue
                if i == end:
                    # Only what follows a close tag says whether it closed the value.
                    out.append(self._value(buf[pos:i], final=False))
                    self.held = [buf[i : i + end_size]]
                    pos = i + end_size
                    self.where = "closing"
                    continue
                out.append(self._value(buf[pos:i], final=True))
                out.append(self.writer.end())
                pos = i + nxt_size
                self.where = "name"
            else:  # closing: after a close tag (in ``held``), what follows decides
                m = NOT_SPACE(buf, pos)
                j = len(buf) if m is None else m.start()
                if j > pos:
                    self.held.append(buf[pos:j])
                if m is None or any(len(buf) - j < len(tag) and tag.startswith(buf[j:])
                                    for tag in self.opens):
                    self.buf = buf[j:]  # only whitespace, or the start of a field, yet
                    break
                held, self.held = "".join(self.held), []
                if any(buf.startswith(tag, j) for tag in self.opens):
                    out.append(self._value("", final=True) + self.writer.end())
                    self.where = "outside"  # the next field opens: the tag closed the value
                else:
                    out.append(self._value(held, final=False))
                    self.where = "value"  # more text follows: the tag was value text
                pos = j
        return "".join(out)

    def whole(self, text: str) -> str | None:
        """A call's whole arguments text, as ``feed`` then ``finish`` write it, where
        every value ends at its close tag with no tag of this syntax inside it and only
        whitespace is outside fields (how models write them: no per-piece state to keep);
        None for anything else (the writer may then hold a part: read with a fresh one)."""
        writer, opens, closes, name_end = self.writer, self.opens, self.closes, self.name_end
        value_open = self.value_open or ""
        out: list[str] = []
        pos = 0
        while True:
            i, size = find_first(text, pos, opens)
            if text[pos : i if i >= 0 else len(text)].strip():
                return None  # text outside fields (after a close tag: the value's)
            if i < 0:
                break
            start = i + size
            j = text.find(name_end, start)
            if j < 0:
                return None
            empty = self._header(text[start:j])
            pos = j + len(name_end)
            if empty:
                out.append(writer.begin(self.name, self.kind))
                out.append(writer.end())
                continue
            if value_open:  # (after whitespace, as the reader takes it)
                if text[pos : pos + len(value_open)] != value_open:
                    m = NOT_SPACE(text, pos)
                    pos = m.start() if m is not None else len(text)
                    if text[pos : pos + len(value_open)] != value_open:
                        return None  # left out: the value starts at its first text
                pos += len(value_open)
            end, end_size = find_first(text, pos, closes)
            if end < 0 or 0 <= find_first(text, pos, opens)[0] < end:
                return None  # no close tag, or the next field opens first
            out.append(writer.begin(self.name, self.kind))
            self._reset_value()
            value = self._unwrap(self.trim(text[pos:end], True), True)
            if value:
                out.append(writer.text(value))
            out.append(writer.end())
            pos = end + end_size
        out.append(writer.close())
        return "".join(out)

    def _opens_field(self, buf: str, at: int) -> bool | None:
        """Whether an open tag written inside a value (its header starts at ``at``)
        opens the next field (``values.opens_field``); None: not known yet."""
        j = buf.find(self.name_end, at)
        name = self._name_of(buf[at:j]) if j >= 0 else None
        return opens_field(buf, at, self.name_end, self.value_open, name,
                           self.names | {self.name})

    def _name_of(self, header: str) -> str:
        """The field name a header gives (its text, or its name attribute)."""
        if not self.attributes:
            return header.strip()
        attrs = {k: dq or sq or bare for k, dq, sq, bare in ATTRIBUTE.findall(header)}
        return attrs.get(self.name_attr, "").strip()

    def _header(self, header: str) -> bool:
        """Read the field's name (and value kind) from the text before NAME_END; whether
        the tag closes itself (attributes ending in ``/``: an empty value)."""
        if not self.attributes:
            self.name = header.strip()
            self.names.add(self.name)
            self.kind = self._untyped_kind()
            return False
        attrs = {k: dq or sq or bare for k, dq, sq, bare in ATTRIBUTE.findall(header)}
        if self.entities is not None:
            attrs = {k: self.entities(v) for k, v in attrs.items()}
        self.name = attrs.get(self.name_attr, "").strip()
        self.names.add(self.name)
        if self.string_attr is None:
            self.kind = self._untyped_kind()
        elif attrs.get(self.string_attr, self.string_default) == self.string_value:
            self.kind = "text"
        else:
            self.kind = "json_or_text"
        return header.rstrip().endswith("/")

    def _untyped_kind(self) -> str:
        """The value kind when no attribute says it: JSON or text where json_values asks
        and the schema does not type the field, else text (typed by the schema)."""
        untyped = self.json_values and not self.writer.typed(self.name)
        return "json_or_text" if untyped else "text"

    def _reset_value(self) -> None:
        self.trim.reset()
        if self.cdata is not None:
            self.cdata.reset()

    def _unwrap(self, text: str, final: bool) -> str:
        return text if self.cdata is None else self.cdata(text, final)

    def _value(self, text: str, final: bool) -> str:
        text = self._unwrap(self.trim(text, final), final)
        return self.writer.text(text) if text else ""

    def finish(self) -> str:
        """End of the call: a value left open keeps what it has and its close tag is
        added; a field whose value never began is left out (both said in a warning, as
        ``JsonArguments.finish`` closes JSON); the object closes."""
        out = ""
        if self.where == "value":
            out += self._value(self.buf, final=True) + self.writer.end()
            self.writer.closed_at_end(self.closes[0])
        elif self.where == "closing":  # the call ends after a close tag: it closed the value
            out += self._value("", final=True) + self.writer.end()
            self.held = []
        elif self.where in ("name", "before_value"):
            self.writer.left_out(self.name if self.where == "before_value" else
                                 self.buf.strip())
        elif not self.fields:
            members = json_object("".join(self.loose) + self.buf)
            for key, value in (members or {}).items():
                out += self.writer.field(key, value)
        self.buf = ""
        self.where = "outside"
        return out + self.writer.close()


def json_object(text: str) -> dict[str, Any] | None:
    """``text`` (whitespace aside) as one JSON object, or None."""
    text = text.strip()
    if not text.startswith("{"):
        return None
    try:
        value = STRICT_JSON.decode(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def spellings(value: str | Sequence[str]) -> tuple[str, ...]:
    """A tag option's spellings: one literal, or several (the first is canonical)."""
    return (value,) if isinstance(value, str) else tuple(value)


def find_first(buf: str, pos: int, literals: tuple[str, ...]) -> tuple[int, int]:
    """(index, length) of the earliest of ``literals`` in ``buf`` from ``pos`` (the
    longest where two start together), or (-1, 0)."""
    if len(literals) == 1:
        return buf.find(literals[0], pos), len(literals[0])
    best, size = -1, 0
    for lit in literals:
        i = buf.find(lit, pos)
        if i >= 0 and (best < 0 or i < best or (i == best and len(lit) > size)):
            best, size = i, len(lit)
    return best, size
