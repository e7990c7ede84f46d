"""The protocol every argument syntax implements (one subclass per syntax, registered
in ``runtime/arguments/__init__.py``).

A syntax is made once per format from the spec's ``arguments`` mapping; it makes a
reader per tool call and writes arguments back as completion text (rendering).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Protocol

from mypy_extensions import mypyc_attr

from .scanning import scan_json_value
from .values import ValueScan
from .writer import ArgumentsWriter

Piece = tuple[str, bool]  # (text, is_marker): see runtime/render.py
WriterFactory = Callable[[str], ArgumentsWriter]  # a tool's name -> its arguments' writer


class ArgumentReader(Protocol):
    """Reads one call's raw argument text as it streams, into an ArgumentsWriter."""

    @property
    def writer(self) -> ArgumentsWriter | None:
        """Where the arguments go; None until a call-naming reader has read the name."""
        ...

    def feed(self, text: str) -> str:
        """Consume more raw text; return arguments JSON text that is now final."""
        ...

    def finish(self) -> str:
        """End of the call: the rest of the JSON, the object closed.  What the model left
        open is closed where it stopped with closers only (a string's quote, brackets,
        a value's close tag; a key whose value never began is left out), each said in the
        writer's warnings: the one rule of README's "Broken output"."""
        ...

    def complete(self) -> bool:
        """Whether the text read so far is whole (a call cut here was not cut off); asked
        only of syntaxes whose arguments close themselves."""
        ...


class CallReader(ArgumentReader, Protocol):
    """The reader of a syntax whose text names the call (``names_call``)."""

    name: str | None  # the call's name, once read
    args_seen: bool  # the arguments member has begun
    call_id: str  # the id the model wrote for the call ("" for none)
    warnings: list[str]


@mypyc_attr(allow_interpreted_subclasses=True)
class ArgumentSyntax:
    """How a tool call's argument text is written: one subclass per spec syntax."""

    name: ClassVar[str]  # the spec's arguments.syntax value
    schema: ClassVar[dict[str, Any]]  # JSON Schema of its other options (see options_schema)
    bodies: ClassVar[tuple[str, ...]]  # tool bodies its text can come in; the first is the default
    names_call: ClassVar[bool] = False  # the call's name is inside its text: the reader reads it
    # The arguments end with a bracket of their own (a JSON object's ``}``, a Python
    # call's ``)``): complete arguments without the call's end marker are a call.  Where
    # they do not (element syntaxes), only the end marker says the model finished, so a
    # call the completion ended before its end marker is cut.
    closes_itself: ClassVar[bool] = False

    __slots__ = ("options", "fallback")

    def __init__(self, options: Mapping[str, Any]) -> None:
        self.options = options
        # What reads a call the markers gave no name (a syntax's ``json_fallback``: one
        # JSON object naming the tool); None: such a call has an empty name.
        self.fallback: ArgumentSyntax | None = None

    def reader(self, make_writer: WriterFactory, name: str | None) -> ArgumentReader:
        """A reader for one call named ``name`` (None for ``names_call``: the reader
        makes its writer once it has read the name)."""
        raise NotImplementedError

    def render(self, arguments: Mapping[str, Any]) -> list[Piece]:
        """``arguments`` written in this syntax, as (text, is_marker) pieces."""
        raise NotImplementedError

    def key_opening(self, args: str) -> str | None:
        """When the arguments' first text ``args`` shows the call's name ran into its first
        key (the model left out the key's open tag), the text that opens a field, to be
        read before that key; None (the default) where a name cannot hold a key."""
        return None

    def whole_call(self, text: str,
                   properties: Callable[[str], Mapping[str, Any] | None]) -> tuple[str, str] | None:
        """A whole call's text read at once: (name, arguments JSON text) when reading it
        piece by piece would give just that, with no warning (``properties``: a tool's
        schema properties by name, for typing); None where it might not (the default:
        the text is read piece by piece)."""
        return None

    def whole_object(self, text: str, pos: int,
                     properties: Callable[[str], Mapping[str, Any] | None]
                     ) -> tuple[str, str, int] | None:
        """``whole_call`` of a call that is one JSON object starting at ``pos`` in
        ``text`` (which may go on after it): (name, arguments, just past the object), or
        None.  By default the object's end is found by decoding it in C."""
        try:
            end = scan_json_value(text, pos)[1]
        except ValueError:
            return None
        taken = self.whole_call(text[pos:end], properties)
        return None if taken is None else (taken[0], taken[1], end)

    def whole_arguments(self, text: str, properties: Mapping[str, Any] | None) -> str | None:
        """A whole call's TOOL_ARGS text read at once, its name known (``properties``: the
        tool's schema properties, for typing): the arguments JSON text when reading it
        piece by piece would give just that, with no warning; None where it might not
        (the default: the text is read piece by piece)."""
        return None

    def values(self) -> ValueScan:
        """A scanner of where this syntax's strings and values hide markers (one per
        parser; see values.py); the default hides none."""
        return ValueScan()

    def structural_style(self) -> str | None:
        """The style of xgrammar's ``json_schema`` format that parses this syntax's text
        (for structural tags), or None when no style does."""
        return None

    def _style_by_options(self, rows: tuple[tuple[Mapping[str, Any], str], ...],
                          canonical: Mapping[str, Any] | None = None) -> str | None:
        """The style of the row whose options are exactly this spec's (``syntax`` aside;
        ``canonical`` replaces options given in several spellings by the first)."""
        options = {**self.options, **(canonical or {})}
        # (json_fallback only reads: what is written is the syntax's own form.)
        spelled = {k: v for k, v in options.items() if k not in ("syntax", "json_fallback")}
        return next((style for options, style in rows if options == spelled), None)


def options_schema(properties: Mapping[str, Any] | None = None, required: tuple[str, ...] = (),
                   description: str | None = None) -> dict[str, Any]:
    """The JSON Schema of a syntax's options (``syntax`` itself is added by the registry)."""
    out: dict[str, Any] = {"type": "object", "additionalProperties": False,
                           "required": list(required), "properties": dict(properties or {})}
    if description is not None:
        out["description"] = description
    return out
