"""The ``kv_lines`` argument syntax: one ``key: value`` pair per line.

Hugging Face's ``kv-lines`` content parser (transformers, utils/chat_parsing/
content_parsers.py, ``_kv_lines``) as an argument syntax: the text is split at
``line_sep``; each line is stripped, a line without ``kv_sep`` (or empty) is skipped,
and the rest is split at its first ``kv_sep`` into a stripped key and value.  A line is
read once its ``line_sep`` (or the call's end) has come, so a stream writes what a whole
text does.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from mypy_extensions import mypyc_attr

from .base import ArgumentReader, ArgumentSyntax, Piece, WriterFactory, options_schema
from .writer import ArgumentsWriter

_LITERAL: Final = {"$ref": "#/$defs/literal"}


@mypyc_attr(allow_interpreted_subclasses=True)
class KeyValueLines:
    """Reads one call's ``key: value`` lines into its writer, a line at a time."""

    __slots__ = ("writer", "line_sep", "kv_sep", "kind", "buf", "searched")

    def __init__(self, writer: ArgumentsWriter, line_sep: str, kv_sep: str,
                 json_values: bool) -> None:
        self.writer = writer
        self.line_sep = line_sep
        self.kv_sep = kv_sep
        self.kind = "json_or_text" if json_values else "text"
        self.buf = ""  # the line read so far
        self.searched = 0  # where the buffer has no line_sep before (linear streaming)

    def feed(self, text: str) -> str:
        """Every line that ``text`` completes, written."""
        self.buf += text
        sep = self.line_sep
        out = ""
        at = self.buf.find(sep, self.searched)
        while at >= 0:
            out += self._line(self.buf[:at])
            self.buf = self.buf[at + len(sep):]
            at = self.buf.find(sep)
        self.searched = max(0, len(self.buf) - len(sep) + 1)
        return out

    def finish(self) -> str:
        """The last line (no separator after it), and the object closed."""
        out = self._line(self.buf)
        self.buf, self.searched = "", 0
        return out + self.writer.close()

    def complete(self) -> bool:
        """Lines are whole at any point: a call cut between them lost nothing written."""
        return True

    def _line(self, line: str) -> str:
        """One line as a field, or nothing (no separator, or empty)."""
        line = line.strip()
        if not line or self.kv_sep not in line:
            return ""
        key, value = line.split(self.kv_sep, 1)
        writer = self.writer
        return writer.begin(key.strip(), self.kind) + writer.text(value.strip()) + writer.end()


@mypyc_attr(allow_interpreted_subclasses=True)
class KeyValueSyntax(ArgumentSyntax):
    """Each argument on a line of its own, ``key: value`` (a Hugging Face response_template's
    ``kv-lines``).

    The text is split at ``line_sep``; each line is stripped, one that is empty or has
    no ``kv_sep`` is skipped, and the rest splits at its first ``kv_sep`` into a key and
    a value, both stripped.  Values are typed by the tool's schema (text without one, or
    JSON where it parses with ``json_values``).  A key written twice is in the arguments
    twice, and a JSON reader keeps the last, as transformers' dict does.
    """

    name = "kv_lines"
    schema = options_schema({
        "line_sep": {**_LITERAL, "description": "Ends a line; default a newline."},
        "kv_sep": {**_LITERAL, "description": "Between a key and its value (the first "
                   "one on the line); default ':'."},
        "json_values": {"type": "boolean", "description": (
            "A value the tool's schema does not type is JSON where it parses, else text "
            "(a Hugging Face value_parser json with allow_non_json); default false: text.")},
    })
    bodies = ("text",)
    __slots__ = ("line_sep", "kv_sep", "json_values")

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        self.line_sep: str = options.get("line_sep", "\n")
        self.kv_sep: str = options.get("kv_sep", ":")
        self.json_values = bool(options.get("json_values", False))

    def reader(self, make_writer: WriterFactory, name: str | None) -> ArgumentReader:
        return KeyValueLines(make_writer(name or ""), self.line_sep, self.kv_sep,
                             self.json_values)

    def render(self, arguments: Mapping[str, Any]) -> list[Piece]:
        """Each argument on its line, ``key: value`` (a value other than a string as JSON)."""
        lines = [f"{key}{self.kv_sep} "
                 f"{value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)}"
                 for key, value in arguments.items()]
        return [(self.line_sep.join(lines), False)] if lines else []


__all__ = ["KeyValueLines", "KeyValueSyntax"]
