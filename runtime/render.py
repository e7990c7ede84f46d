"""Completion text from a structured message: what a model in this format would write.

The inverse of parsing, for round-trip tests and for tools that need sample output.
A renderer works in pieces, ``(text, is_marker)``: markers are what a tokenizer should
turn into their own tokens, everything else is text the model typed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from mypy_extensions import mypyc_attr

from .arguments import ArgumentSyntax, Piece

Parts = tuple[tuple[str, str], ...]


@mypyc_attr(allow_interpreted_subclasses=True)
class Renderer:
    """Writes messages as one format's completion text (generated modules make one)."""

    def __init__(self, *, reasoning_open: Mapping[bool, Parts | None],
                 reasoning_close: Parts | None, reasoning: Parts | None, content: Parts,
                 call: Parts | None, calls_open: Parts, separator: Parts, calls_close: Parts,
                 calls_first: bool, syntax: ArgumentSyntax,
                 thinking_default: bool) -> None:
        self.reasoning_open = reasoning_open
        self.reasoning_close = reasoning_close
        self.reasoning = reasoning
        self.content = content
        self.call = call
        self.calls_open, self.separator, self.calls_close = calls_open, separator, calls_close
        self.calls_first = calls_first
        self.syntax = syntax  # writes each call's arguments
        self.arguments = syntax.options
        self.thinking_default = thinking_default

    def can_render_reasoning(self, thinking: bool | None = None) -> bool:
        """Whether a message with reasoning can be written (with thinking on or off)."""
        thinking = self.thinking_default if thinking is None else thinking
        return self.reasoning is not None or (
            self.reasoning_open.get(thinking) is not None and self.reasoning_close is not None)

    def pieces(self, message: Any, *, thinking: bool | None = None) -> list[Piece]:
        """The completion as (text, is_marker) pieces."""
        thinking = self.thinking_default if thinking is None else thinking
        reasoning, content, calls = _fields(message)
        out: list[Piece] = []
        if self.reasoning is not None:
            if reasoning:
                _fill(self.reasoning, {"reasoning": [(reasoning, False)]}, out)
        else:
            opening = self.reasoning_open.get(thinking)
            inside = opening == ()  # the completion starts inside reasoning
            if reasoning or inside:
                if opening is None or self.reasoning_close is None:
                    raise ValueError("this format cannot write reasoning with thinking "
                                     f"{'on' if thinking else 'off'}")
                _fill(opening, {}, out)
                if reasoning:
                    out.append((reasoning, False))
                _fill(self.reasoning_close, {}, out)
        if content and not self.calls_first:
            _fill(self.content, {"content": [(content, False)]}, out)
        if calls:
            if self.call is None:
                raise ValueError("this format's spec has no render.call")
            _fill(self.calls_open, {}, out)
            for i, (name, args) in enumerate(calls):
                if i:
                    _fill(self.separator, {}, out)
                fields = {"name": [(name, False)],
                          "name_json": [(json.dumps(name, ensure_ascii=False), False)],
                          "arguments": self.syntax.render(args),
                          "index": [(str(i), False)], "index1": [(str(i + 1), False)]}
                _fill(self.call, fields, out)
            _fill(self.calls_close, {}, out)
        if content and self.calls_first:
            _fill(self.content, {"content": [(content, False)]}, out)
        return out

    def render(self, message: Any, *, thinking: bool | None = None) -> str:
        """The completion text of ``message`` (a ParsedMessage or a dict of the same)."""
        return "".join(text for text, _ in self.pieces(message, thinking=thinking))


def _fields(message: Any) -> tuple[str | None, str | None, list[tuple[str, dict]]]:
    get = message.get if isinstance(message, Mapping) else (
        lambda key, default=None: getattr(message, key, default))
    calls = []
    for call in get("tool_calls") or ():
        if isinstance(call, Mapping):
            fn = call.get("function", call)
            name, args = fn["name"], fn.get("arguments", {})
        else:
            name, args = call.name, call.arguments
        if isinstance(args, str):
            args = json.loads(args) if args.strip() else {}
        calls.append((name, dict(args)))
    return get("reasoning"), get("content"), calls


def _fill(parts: Parts, fields: Mapping[str, list[Piece]], out: list[Piece]) -> None:
    for kind, value in parts:
        if kind == "field":
            out.extend(fields[value])
        else:
            out.append((value, kind == "marker"))
