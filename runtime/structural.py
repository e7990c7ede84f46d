"""xgrammar structural tags for a format's tool calls, built from its render templates.

A tag constrains what a model writes after its reasoning (the server gates grammars
on the reasoning end, so no reasoning marker appears here): the call and tool-section
markers as the spec's ``render`` writes them, each call's name one of the request's
tools, and its arguments checked against that tool's JSON Schema.  The result is
plain data in xgrammar's structural tag format (``{"type": "structural_tag",
"format": ...}``, the one vLLM 0.33 passes to xgrammar), ready for ``json.dumps``.

A format gets no tag (None) when xgrammar cannot check its arguments syntax (see
its syntax class's ``structural_style``), or when a choice needs a trigger its calls do not start with; a grammar
that accepted other text than the parser reads would be worse than none.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from .render import Renderer
from .schema_types import read_tools

Format = dict[str, Any]
Parts = Sequence[tuple[str, str]]

def structural_tag(renderer: Renderer, tools: Sequence[Any], *,
                   tool_choice: Any = "auto") -> dict[str, Any] | None:
    """The structural tag for calls of ``tools`` (dicts or objects with ``model_dump()``).

    ``tool_choice``: ``"auto"`` (text, then calls if any), ``"required"`` (one call or
    more, nothing else), a tool's name or ``{"type": "function", "function": {"name":
    ...}}`` (exactly one call of it); ``"none"`` needs no tag.  A tool whose function
    says ``"strict": false`` gets its arguments checked as an object only, as vLLM's
    own tags do.  None when the format's calls cannot be expressed (module docstring).
    """
    style = renderer.syntax.structural_style()
    if renderer.call is None or style is None or tool_choice == "none":
        return None
    functions = [tool.get("function", tool) for tool in read_tools(tools or (), [])]
    name = _chosen_name(tool_choice)
    if name is not None:
        functions = [fn for fn in functions if fn["name"] == name]
        if not functions:
            raise ValueError(f"tool_choice names {name!r}, which is not among the tools")
    if not functions:
        if tool_choice == "auto":
            return None
        raise ValueError("tool_choice requires a call, but there are no function tools")
    tags = [_call_tag(renderer.call, fn, style) for fn in functions]
    separator = _text(renderer.separator)
    opening, closing = _text(renderer.calls_open), _text(renderer.calls_close)
    calls: Format = {"type": "tags_with_separator", "tags": tags, "separator": separator,
                     "at_least_one": True, "stop_after_first": name is not None}
    if tool_choice == "auto":
        trigger = _trigger(renderer.calls_open or renderer.call)
        if not trigger:
            return None  # calls that start with a free field cannot be told from text
        if opening:
            tags = [{"type": "tag", "begin": opening, "content": calls, "end": closing}]
        return _tag({"type": "triggered_tags", "triggers": [trigger], "tags": tags})
    if opening or closing:
        return _tag({"type": "tag", "begin": opening, "content": calls, "end": closing})
    return _tag(calls)


def _tag(format_: Format) -> dict[str, Any]:
    return {"type": "structural_tag", "format": format_}


def _chosen_name(tool_choice: Any) -> str | None:
    """The one tool a choice names, or None for auto and required."""
    if isinstance(tool_choice, str):
        return None if tool_choice in ("auto", "required", "none") else tool_choice
    if isinstance(tool_choice, Mapping):
        fn = tool_choice.get("function", tool_choice)
        if isinstance(fn, Mapping) and isinstance(fn.get("name"), str):
            return fn["name"]
    raise ValueError(f"unsupported tool_choice {tool_choice!r}")


def _call_tag(call: Parts, function: Mapping[str, Any], style: str) -> Format:
    """One tool's call as a tag: constant begin (through its name), content, end."""
    elements: list[Format | str] = []
    for kind, value in call:
        if kind != "field":
            elements.append(value)
        elif value == "name":
            elements.append(function["name"])
        elif value == "name_json":
            elements.append(json.dumps(function["name"], ensure_ascii=False))
        elif value in ("index", "index1"):
            elements.append({"type": "regex", "pattern": "[0-9]+"})
        elif value == "arguments":
            elements.append({"type": "json_schema", "json_schema": _arguments_schema(function),
                             "style": style})
        else:
            raise ValueError(f"render.call field {value!r} has no structural form")
    merged: list[Format | str] = []
    for element in elements:  # adjacent constants as one string
        if isinstance(element, str) and merged and isinstance(merged[-1], str):
            merged[-1] += element
        else:
            merged.append(element)
    begin = merged.pop(0) if merged and isinstance(merged[0], str) else ""
    end = merged.pop() if merged and isinstance(merged[-1], str) else ""
    content = [e if isinstance(e, dict) else {"type": "const_string", "value": e}
               for e in merged]
    return {"type": "tag", "begin": begin,
            "content": content[0] if len(content) == 1 else {"type": "sequence",
                                                             "elements": content},
            "end": end}


def _arguments_schema(function: Mapping[str, Any]) -> Any:
    """A tool's parameters schema; an object of anything when the tool is not strict."""
    params = function.get("parameters")
    if function.get("strict") is False or not isinstance(params, Mapping):
        return {"type": "object"}
    return dict(params)


def _text(parts: Parts) -> str:
    """Constant parts (markers and text) as the string they render."""
    if any(kind == "field" for kind, _ in parts):
        raise ValueError("a tool-section template holds a field")
    return "".join(value for _, value in parts)


def _trigger(parts: Parts) -> str:
    """What starts the calls in free text: their first marker, else the text before
    the first field."""
    if parts and parts[0][0] == "marker":
        return parts[0][1]
    out = []
    for kind, value in parts:
        if kind == "field":
            break
        out.append(value)
    return "".join(out)
