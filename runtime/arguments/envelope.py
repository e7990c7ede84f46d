"""The ``json_envelope`` argument syntax: the whole call is one JSON object naming the tool."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from mypy_extensions import mypyc_attr

from .base import ArgumentSyntax, CallReader, Piece, WriterFactory, options_schema
from .envelope_whole import canonical_parts, read_canonical, read_keyed
from .json import JsonArguments
from .scanning import (NOT_SPACE, JsonDepth, json_string_end, whole_json_string,
                       whole_json_value, whole_member_key)
from .values import QuotedStrings, ValueScan
from .writer import ArgumentsWriter, written_as_kept

# The members that hold the arguments when a spec names none: the OpenAI name, Llama's
# and the "args" some fine-tunes' templates teach (Gemma 3n hermes-style tools).
ARGUMENT_KEYS: tuple[str, ...] = ("arguments", "parameters", "args")


def _decoded(raw: str) -> str:
    """A JSON string's text decoded, or as written where it does not decode."""
    try:
        return str(json.loads('"' + raw + '"'))
    except ValueError:
        return raw


@mypyc_attr(allow_interpreted_subclasses=True)
class EnvelopeArguments:
    """A call written as one JSON object: ``{"name": NAME, "arguments": {...}}``.

    The name is read from ``name_key``; the arguments object (under the first of
    ``argument_keys`` present, possibly as a JSON string) streams through a
    JsonArguments reader once the name, and so the tool's schema, is known.  Other
    members are skipped.  ``name_is_key``: the first member's name is the tool's name and
    its value the arguments (``{"get_weather": {"city": "Paris"}}``).  ``id_key``: the
    member whose string, written before the arguments, is the call's id (``call_id``).
    """

    __slots__ = ("name_key", "argument_keys", "name_is_key", "id_key", "call_id", "make_writer",
                 "name", "inner", "writer", "state", "buf", "key", "json", "held", "args_seen",
                 "text_value", "warnings")

    def __init__(self, make_writer: WriterFactory, *, name_key: str = "name",
                 argument_keys: tuple[str, ...] = ARGUMENT_KEYS,
                 name_is_key: bool = False, id_key: str | None = None) -> None:
        self.name_key = name_key
        self.argument_keys = argument_keys
        self.name_is_key = name_is_key
        self.id_key = id_key
        self.call_id = ""  # the id_key member's string: the id the model gave the call
        self.make_writer = make_writer  # name -> ArgumentsWriter
        self.name: str | None = None
        self.inner: JsonArguments | None = None
        self.writer: ArgumentsWriter | None = None
        # start, key?, key, colon, value?, name, id, args, args_text, skip, comma?, done
        self.state = "start"
        self.buf = ""
        self.key: list[str] = []
        self.json = JsonDepth()  # a member's value: its strings and brackets
        self.held: list[str] = []  # arguments text that arrived before the name
        self.args_seen = False
        self.text_value: list[str] = []
        self.warnings: list[str] = []

    def complete(self) -> bool:
        """Whether the envelope object has closed."""
        return self.state == "done"

    def feed(self, text: str) -> str:
        # (At once only where the object's members are the name and the arguments.)
        if self.state == "start" and not self.buf and not self.name_is_key and not self.id_key:
            whole = self.whole(text)
            if whole is not None:
                return whole
        buf = self.buf + text
        self.buf = ""
        out: list[str] = []
        pos, n = 0, len(buf)
        while pos < n:
            state = self.state
            if state in ("start", "key?", "colon", "value?", "comma?"):
                m = NOT_SPACE(buf, pos)
                if m is None:
                    break
                pos = m.start()
                ch = buf[pos]
                if state == "start":
                    if ch != "{":
                        self._invalid(f"is not a JSON object: it begins with {ch!r}")
                        break
                    self.state = "key?"
                elif state == "key?":
                    if ch == "}":
                        self.state = "done"
                    elif ch == '"':
                        self.state, self.key = "key", []
                    else:
                        self._invalid(self._bad(ch, "a member name"))
                        break
                elif state == "colon":
                    if ch != ":":
                        self._invalid(self._bad(ch, "':'"))
                        break
                    self.state = "value?"
                elif state == "value?":
                    key = "".join(self.key)
                    keyed = self.name_is_key
                    if not keyed and key == self.name_key and self.name is None:
                        if ch != '"':  # (no call is named by anything but a string)
                            self._invalid(f"has {ch!r} where its name's string belongs")
                            break
                        self.state, self.text_value = "name", []
                    elif key == self.id_key and ch == '"' and not self.args_seen:
                        self.state, self.text_value = "id", []  # (sent with the name)
                    elif ((key == self.name if keyed else key in self.argument_keys)
                          and not self.args_seen and ch in '{"'):
                        self.args_seen = True
                        self.json.reset()
                        self.text_value = []
                        if ch == "{":
                            self.state = "args"
                            continue  # the object starts at this character
                        self.state = "args_text"  # arguments written as a JSON string
                    else:
                        self.state = "skip"
                        self.json.reset()
                        continue
                else:  # comma?
                    if ch == ",":
                        self.state = "key?"
                    elif ch == "}":
                        self.state = "done"
                    else:
                        self._invalid(self._bad(ch, "',' or '}'"))
                        break
                pos += 1
            elif state in ("key", "name", "id", "args_text"):
                parts = self.key if state == "key" else self.text_value
                end = json_string_end(buf, pos)
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
                    if self.name_is_key and self.name is None:  # the first key names the call
                        self.name = "".join(self.key)
                        out.append(self._start_arguments())
                    continue
                value = _decoded("".join(parts))
                self.state = "comma?"
                if state == "name":
                    self.name = value
                    out.append(self._start_arguments())
                elif state == "id":
                    self.call_id = value
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

    def whole(self, buf: str) -> str | None:
        """The envelope read at once when ``buf`` holds all its members as strict JSON,
        the name before an arguments object, its closing brace or not yet (decoded by
        the json module's C scanners; the arguments go to their reader in one piece);
        None, having read nothing, for anything else."""
        m = NOT_SPACE(buf)
        if m is None or buf[m.start()] != "{":
            return None
        canonical = self._canonical(buf, m.start())
        if canonical is not None:
            return canonical
        name: str | None = None
        args: tuple[int, int] | None = None
        state = "done"
        try:
            m = NOT_SPACE(buf, m.start() + 1)
            while m is not None and buf[m.start()] == '"':
                member = whole_member_key(buf, m.start(), strict=True)
                if member is None:
                    return None
                key, pos = member
                ch = buf[pos]
                end = whole_json_value(buf, pos)
                if key == self.name_key and ch == '"' and name is None:
                    name = whole_json_string(buf, pos + 1, strict=True)[0]
                elif key in self.argument_keys and args is None and ch in '{"':
                    if ch == '"' or name is None:
                        return None  # arguments as a string, or before the name
                    args = (pos, end)
                m = NOT_SPACE(buf, end)
                if m is None:  # the text ends after a member: the object goes on
                    if ch not in '{["':
                        return None  # a number or literal could go on
                    state = "comma?"
                    break
                if buf[m.start()] != ",":
                    break
                m = NOT_SPACE(buf, m.start() + 1)
        except ValueError:
            return None
        if name is None or state == "done" and (m is None or buf[m.start()] != "}"):
            return None
        self.name, self.state, self.args_seen = name, state, args is not None
        out = self._start_arguments()
        if args is not None:
            out += self._feed_arguments(buf[args[0] : args[1]])
        return out

    def _canonical(self, buf: str, pos: int) -> str | None:
        """``whole`` for an envelope written as json.dumps writes one, the name first and
        the arguments object right after it (``{"name": "f", "arguments": {...}}``), its
        closing brace or not yet: each part decoded once, in C; None, having read
        nothing, for anything else."""
        read = read_canonical(buf, pos, canonical_parts(self.name_key, self.argument_keys))
        if read is None:
            return None
        name, pos, value, end = read
        m = NOT_SPACE(buf, end)
        if m is not None and buf[m.start()] != "}":
            return None
        self.name, self.args_seen = name, True
        self.state = "comma?" if m is None else "done"
        out = self._start_arguments()
        inner = self.inner
        assert inner is not None  # (_start_arguments made it)
        text = buf[pos:end]
        taken = inner.canonical(value, text)
        return out + (inner.feed(text) if taken is None else taken)

    def _value_end(self, buf: str, pos: int) -> int:
        """Just past the raw value that started at the state change, or -1."""
        json = self.json
        if (json.depth == 0 and pos < len(buf) and buf[pos] in "{[" and not json.scan.in_string
                and not json.scan.escape):
            try:  # a whole object or array: its end, decoded in C
                return whole_json_value(buf, pos)
            except ValueError:
                pass  # not complete here, or not strict JSON: bracket by bracket
        while True:
            i = json.next(buf, pos)
            if i < 0:
                return -1
            if json.depth < 0:
                json.depth = 0
                return i  # the envelope's own closing brace
            if json.depth == 0:
                return i if buf[i] == "," else i + 1
            pos = i + 1

    def _start_arguments(self) -> str:
        """The name is known: arguments that came earlier can go now."""
        self.writer = self.make_writer(self.name or "")
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

    def _bad(self, found: str, wanted: str) -> str:
        """The warning for ``found`` where ``wanted`` belongs in the call's object."""
        return (f"is not valid JSON: {found!r} where {wanted} belongs; the rest of its "
                "object is not read")

    def finish(self) -> str:
        """End of the call: close the arguments (``{}`` if there were none), and the
        object around them where the model left it open (said in a warning, as
        ``JsonArguments.finish`` closes the arguments)."""
        out = ""
        if self.state == "args_text":  # arguments as a JSON string, left open: as written
            out = self._feed_arguments(_decoded("".join(self.text_value)))
        if self.inner is None:
            if self.name is None:
                self.name = ""
            out += self._start_arguments()
        assert self.inner is not None  # (_start_arguments made it)
        out += self.inner.finish()
        if self.state not in ("done", "start"):
            self.inner.writer.closed_at_end('"}' if self.state == "args_text" else "}",
                                            "the object around its arguments")
        return out


@mypyc_attr(allow_interpreted_subclasses=True)
class EnvelopeSyntax(ArgumentSyntax):
    """The whole call is one JSON object naming the tool: ``{"name": NAME, "arguments": {...}}``.

    The reader reads the call's name (the ``name_key`` member) as well as its arguments
    (the first of ``argument_keys`` present, an object or a JSON string); other members
    are skipped.  A format's marker inside a string is string content (until a raw
    newline breaks the string).
    """

    name = "json_envelope"
    schema = options_schema({
        "name_key": {"type": "string", "minLength": 1,
                     "description": "The member holding the tool's name (default: name)."},
        "argument_keys": {"type": "array", "items": {"type": "string", "minLength": 1},
                          "minItems": 1, "description": (
                              "Members that may hold the arguments, object or JSON string "
                              f"(default: {', '.join(ARGUMENT_KEYS)}).")},
        "name_is_key": {"type": "boolean", "description": (
            "The call is an object of one member: its name is the tool's name and its value "
            'the arguments, {"get_weather": {"city": "Paris"}} (Apertus); name_key and '
            "argument_keys do not apply. Default false.")},
        "id_key": {"type": "string", "minLength": 1, "description": (
            "The member whose string is the call's id as the model wrote it, kept as the "
            "call's id ({\"tool_call_id\": \"0\", \"tool_name\": ...}, Cohere Command); read "
            "where it comes before the arguments, as the id goes out with the name. "
            "Default: none (parsergen makes the id).")},
    }, description=('The whole call is one JSON object naming the tool: '
                    '{"name": NAME, "arguments": {...}}.'))
    bodies = ("json", "json_object", "json_array", "text")
    names_call = True
    closes_itself = True
    __slots__ = ("name_key", "argument_keys", "name_is_key", "id_key", "parts")

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        self.name_key = options.get("name_key", "name")
        self.argument_keys = tuple(options.get("argument_keys", ARGUMENT_KEYS))
        self.name_is_key = bool(options.get("name_is_key", False))
        self.id_key: str | None = options.get("id_key")
        self.parts = canonical_parts(self.name_key, self.argument_keys)

    def reader(self, make_writer: WriterFactory, name: str | None) -> CallReader:
        return EnvelopeArguments(make_writer, name_key=self.name_key,
                                 argument_keys=self.argument_keys,
                                 name_is_key=self.name_is_key, id_key=self.id_key)

    def values(self) -> ValueScan:
        """JSON strings: a marker inside one is string content."""
        return QuotedStrings('"')

    def structural_style(self) -> str | None:
        return "json"  # the envelope itself is in the call template

    def render(self, arguments: Mapping[str, Any]) -> list[Piece]:
        """The arguments object (the spec's call template writes the envelope around it)."""
        return [(json.dumps(arguments, ensure_ascii=False), False)]

    def whole_call(self, text: str,
                   properties: Callable[[str], Mapping[str, Any] | None]) -> tuple[str, str] | None:
        """An envelope written as json.dumps writes one, name first and arguments right
        after (``{"name": "f", "arguments": {...}}``), whitespace around it, its
        arguments kept as written: each part decoded once, in C."""
        # (strip() skips what NOT_SPACE does, \s, without a match object per call.)
        pos = len(text) - len(text.lstrip())
        taken = self.whole_object(text, pos, properties) if pos < len(text) else None
        if taken is None or len(text.rstrip()) != taken[2]:  # (the object ends non-space)
            return None
        return taken[0], taken[1]

    def whole_object(self, text: str, pos: int,
                     properties: Callable[[str], Mapping[str, Any] | None]
                     ) -> tuple[str, str, int] | None:
        """``whole_call`` of the envelope at ``pos``: its end is where the closing brace
        follows the arguments (nothing decoded twice)."""
        if self.id_key:  # (the id is read with the call piece by piece)
            return None
        read = (read_keyed(text, pos) if self.name_is_key
                else read_canonical(text, pos, self.parts))
        if read is None:
            return None
        name, start, value, end = read
        if text[end : end + 1] != "}":
            return None
        arguments = text[start:end]
        if name != name.strip() or not written_as_kept(value, arguments, properties(name)):
            return None
        return name, arguments, end + 1
