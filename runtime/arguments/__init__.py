"""Tool arguments: how one call's argument text becomes typed JSON, syntax by syntax.

Each syntax is one ``ArgumentSyntax`` class in its own module, listed once in
``SYNTAXES``: the spec schema's ``arguments`` choices and the reference
docs/arguments-and-tool-bodies.md (``parsergen build`` writes both; the class docstring
is the reference text), parsing (``reader``) and rendering (``render``) all come from
there.  Adding a syntax: one module, one entry here, its tests.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import ArgumentReader, ArgumentSyntax, CallReader, Piece, WriterFactory
from .envelope import EnvelopeArguments, EnvelopeSyntax
from .json import JsonArguments, JsonSyntax
from .kv_lines import KeyValueLines, KeyValueSyntax
from .nested_elements import ElementArguments, ElementsSyntax
from .notation import NotationSyntax
from .notation_reader import NotationArguments
from .notation_values import parse_notation
from .python_kwargs import PythonArguments, PythonSyntax
from .writer import ArgumentsWriter, json_type
from .xml_parameters import TaggedSyntax
from .xml_parameters_reader import TaggedArguments

# The registry: spec name -> class, in the order of the schema's choices.
SYNTAXES: dict[str, type[ArgumentSyntax]] = {
    cls.name: cls
    for cls in (JsonSyntax, TaggedSyntax, NotationSyntax, ElementsSyntax, EnvelopeSyntax,
                PythonSyntax, KeyValueSyntax)
}


def syntax(options: Mapping[str, Any]) -> ArgumentSyntax:
    """The syntax of a spec's ``arguments`` mapping (ValueError for an unknown name)."""
    name = options["syntax"]
    cls = SYNTAXES.get(name)
    if cls is None:
        raise ValueError(f"unknown argument syntax {name!r} (known: {', '.join(SYNTAXES)})")
    return cls(options)


def arguments_schema() -> dict[str, Any]:
    """grammars/schema.json's ``$defs.arguments``: one choice per registered syntax."""
    choices = []
    for name, cls in SYNTAXES.items():
        options = cls.schema
        choice: dict[str, Any] = {
            "type": "object",
            "additionalProperties": False,
            "required": ["syntax", *options.get("required", ())],
            "properties": {"syntax": {"const": name}, **options.get("properties", {})},
        }
        choice.update((k, v) for k, v in options.items() if k not in choice)
        choices.append(choice)
    return {"description": "How a tool call's argument text is written.", "oneOf": choices}


__all__ = [
    "SYNTAXES",
    "ArgumentReader",
    "ArgumentSyntax",
    "ArgumentsWriter",
    "CallReader",
    "ElementArguments",
    "EnvelopeArguments",
    "JsonArguments",
    "KeyValueLines",
    "NotationArguments",
    "Piece",
    "PythonArguments",
    "TaggedArguments",
    "WriterFactory",
    "arguments_schema",
    "json_type",
    "parse_notation",
    "syntax",
]
