"""Arguments nested any depth parse without an exception (issue 16, item 9).

Each completion comes from the format's own renderer: the argument ``{"c": [7]}`` and
``{"c": [[7]]}`` rendered, the difference between the two repeated to any depth.  A value
nested deeper than ``MAX_DEPTH`` is kept as its text, a string, with a warning (or, where
the syntax itself drops too deep a value, the warning says so); the arguments stay JSON
and streaming gives what ``parse()`` gives.  (Time is not asserted here: tests never
time; that parse time grows linearly with depth was measured by hand, see the commit.)
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import parsergen
from parsergen.runtime import accumulate
from parsergen.runtime.accounting import account
from parsergen.runtime.arguments.writer import MAX_DEPTH, nesting_depth

ALL = sorted(parsergen.formats())
WITH_TOOLS = [f for f in ALL if parsergen.load(f).RENDERER.call is not None]
TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {
    "type": "object", "properties": {"c": {"type": "array"}, "d": {"type": "integer"}}}}}]
SCHEMALESS = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]


def _render(module: Any, value: Any) -> str:
    message = {"content": "Hi.", "tool_calls": [{"name": "f", "arguments": {"c": value, "d": 2}}]}
    return module.render(message)


def nested_completion(module: Any, depth: int) -> str:
    """The format's completion of a call whose argument ``c`` nests ``depth`` lists deep."""
    one, two = _render(module, [7]), _render(module, [[7]])
    p = 0
    while p < len(one) and one[p] == two[p]:
        p += 1
    s = 0
    while s < len(one) - p and one[-1 - s] == two[-1 - s]:
        s += 1
    inner, outer = one[p : len(one) - s], two[p : len(two) - s]
    at = outer.index(inner)
    opener, closer = outer[:at], outer[at + len(inner) :]
    assert opener and closer
    text = one[:p] + opener * (depth - 1) + inner + closer * (depth - 1) + one[len(one) - s :]
    if depth == 3:  # the construction is the renderer's own text
        assert text == _render(module, [[[7]]])
    return text


def _stream(module: Any, text: str, step: int, tools: Any) -> tuple[Any, list[str]]:
    chat = module.ChatParser(None, tools=tools, ids="sequential")
    deltas = [chat.feed(text[i : i + step]) for i in range(0, len(text), step)]
    return accumulate([*deltas, chat.finish()]), chat.warnings


def _parse(module: Any, text: str, tools: Any) -> tuple[Any, list[str]]:
    chat = module.ChatParser(None, tools=tools, ids="sequential")
    return chat.complete(text), chat.warnings


@pytest.mark.parametrize("fmt", WITH_TOOLS)
def test_the_construction_is_the_renderers_text(fmt: str) -> None:
    nested_completion(parsergen.load(fmt), 3)


@pytest.mark.parametrize("depth,step", [(1000, 1), (20000, 997)])
@pytest.mark.parametrize("fmt", WITH_TOOLS)
def test_deep_arguments_never_raise(fmt: str, depth: int, step: int) -> None:
    module = parsergen.load(fmt)
    text = nested_completion(module, depth)
    deep = depth > 1000  # kept to one schema and no accounting: the test stays fast
    for tools in (TOOLS,) if deep else (TOOLS, SCHEMALESS):
        whole, warnings = _parse(module, text, tools)
        streamed, stream_warnings = _stream(module, text, step, tools)
        assert streamed == whole
        assert [call.name for call in whole.tool_calls] == ["f"]
        arguments = json.loads(whole.tool_calls[0].arguments)  # valid JSON, not too deep
        assert isinstance(arguments, dict)
        kept = arguments.get("c")
        if isinstance(kept, str):  # kept as its text: nothing of the value is lost
            assert kept.count("7") == 1 and nesting_depth(kept) == depth
            # Typed as an array, it is a warning; untyped element text is a string anyway.
            assert tools is SCHEMALESS or any(f"deeper than {MAX_DEPTH}" in w for w in warnings)
        else:  # the syntax dropped too deep a value, and said so
            assert warnings
        assert warnings == stream_warnings
    if deep:
        return
    accounting = account(module.StreamingParser(), [(text, [])])
    assert accounting.text == text and not accounting.problems


def test_values_up_to_the_bound_stay_json() -> None:
    module = parsergen.load("hermes")
    for depth in (MAX_DEPTH - 1, MAX_DEPTH):
        whole = module.parse(nested_completion(module, depth), tools=TOOLS)
        assert not isinstance(json.loads(whole.tool_calls[0].arguments)["c"], str)
    whole = module.parse(nested_completion(module, MAX_DEPTH + 1), tools=TOOLS)
    assert isinstance(json.loads(whole.tool_calls[0].arguments)["c"], str)
