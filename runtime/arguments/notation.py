"""The ``notation`` argument syntax: Gemma 4's ``key:value`` call notation.

Its reader is ``notation_reader``; complete values are typed by ``notation_values``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from mypy_extensions import mypyc_attr

from .base import ArgumentReader, ArgumentSyntax, Piece, WriterFactory, options_schema
from .notation_reader import NotationArguments
from .values import DelimitedStrings, ValueScan


@mypyc_attr(allow_interpreted_subclasses=True)
class NotationSyntax(ArgumentSyntax):
    """Gemma 4's call notation: ``key:value`` pairs, strings between delimiters, nesting.

    ``city:<|"|>Paris<|"|>,days:3,tags:[<|"|>a<|"|>]``: strings stream as they arrive;
    ``{...}`` objects, ``[...]`` lists and bare words are typed by the tool's schema once
    complete.  The closing ``}`` (or ``)``) ends the arguments.  A format's marker
    inside a string is string content.
    """

    name = "notation"
    schema = options_schema({
        "string_delimiter": {"$ref": "#/$defs/literal",
                             "description": "Opens and closes a string value (Gemma 4: <|\"|>)."},
    }, required=("string_delimiter",))
    bodies = ("text",)
    closes_itself = True
    __slots__ = ("delimiter",)

    def __init__(self, options: Mapping[str, Any]) -> None:
        super().__init__(options)
        self.delimiter = options["string_delimiter"]

    def reader(self, make_writer: WriterFactory, name: str | None) -> ArgumentReader:
        return NotationArguments(make_writer(name or ""), delimiter=self.delimiter)

    def values(self) -> ValueScan:
        """Strings between the delimiters: a marker inside one is string content."""
        return DelimitedStrings(self.delimiter)

    def render(self, arguments: Mapping[str, Any]) -> list[Piece]:
        return _pieces(arguments, self.delimiter, top=True)


def _pieces(value: Any, delim: str, top: bool = False) -> list[Piece]:
    if isinstance(value, Mapping):
        out: list[Piece] = [] if top else [("{", False)]
        for i, (k, v) in enumerate(value.items()):
            if i:
                out.append((",", False))
            out.append((f"{k}:", False))
            out += _pieces(v, delim)
        return out if top else out + [("}", False)]
    if isinstance(value, list):
        out = [("[", False)]
        for i, v in enumerate(value):
            if i:
                out.append((",", False))
            out += _pieces(v, delim)
        return out + [("]", False)]
    if isinstance(value, str):
        return [(delim, True), (value, False), (delim, True)]
    return [(json.dumps(value), False)]
