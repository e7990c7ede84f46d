"""Arguments written exactly as json.dumps writes them are taken whole: decoded once, in
C, and kept as written when the tool's schema admits every member (JsonArguments.canonical,
EnvelopeArguments._canonical).  Anything else is read member by member.  Both ways give
what reading the same text one character per delta gives."""

from __future__ import annotations

import json
from typing import Any

import pytest

import parsergen
from parsergen.runtime import accumulate
from parsergen.runtime.arguments import envelope
from parsergen.runtime.arguments import json as json_arguments
from support.programs import programs

# Formats whose calls are one JSON object (json) or one JSON envelope (json_envelope),
# rendered here by their own renderer.
FORMATS = sorted(f for f in parsergen.formats()
                 if parsergen.load(f).ChatParser.SYNTAX.name in ("json", "json_envelope")
                 and parsergen.load(f).RENDERER.call)

PROPERTIES = {"n": {"type": "integer"}, "x": {"type": "number"}, "s": {"type": "string"},
              "maybe": {"type": ["string", "null"]}, "o": {"type": "object"},
              "l": {"type": "array"}, "b": {"type": "boolean"}}
TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {
    "type": "object", "properties": PROPERTIES}}}]

THINKING = False  # rendered and read with thinking off: the calls are what is read

# Arguments text as a model may write it, and what the typed writer makes of it (from
# the writer's rules: members kept as written when admitted, re-typed otherwise).
CASES = {
    "canonical": ('{"n": 3, "s": "São \\"q\\"", "o": {"k": [1, 2.5, null]}, "b": true}',
                  {"n": 3, "s": 'São "q"', "o": {"k": [1, 2.5, None]}, "b": True}),
    "empty": ("{}", {}),
    "integer as string": ('{"n": "5"}', {"n": 5}),
    "string as number": ('{"s": 5}', {"s": "5"}),
    "nullable string null": ('{"maybe": "null"}', {"maybe": None}),
    "compact": ('{"n":3,"o":{"a":1}}', {"n": 3, "o": {"a": 1}}),
    "exponent": ('{"x": 1e5}', {"x": 100000.0}),
    "escaped non-ascii": ('{"s": "\\u00e9"}', {"s": "é"}),
    "untyped member": ('{"zz": [1, {"a": "b"}]}', {"zz": [1, {"a": "b"}]}),
}


def _render(module: Any, arguments: str) -> str:
    """A completion of two calls to ``f`` with these arguments, in the format's syntax."""
    marker = "\u2063ARGS\u2063"
    call = {"name": "f", "arguments": {"MARK": 0}}
    text = "".join(t for t, _ in module.RENDERER.pieces(
        {"content": None, "tool_calls": [call, call]}, thinking=THINKING))
    return text.replace('{"MARK": 0}', marker).replace(marker, arguments)


def _streamed(module: Any, text: str) -> Any:
    parser = module.ChatParser(tools=TOOLS, thinking=THINKING, ids="sequential")
    return accumulate([parser.feed(ch) for ch in text] + [parser.finish()])


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("fmt", FORMATS)
def test_whole_equals_streamed(fmt: str, case: str) -> None:
    module = parsergen.load(fmt)
    arguments, typed = CASES[case]
    text = _render(module, arguments)
    whole = module.parse(text, tools=TOOLS, thinking=THINKING, ids="sequential")
    assert whole == _streamed(module, text)
    assert [(c.name, json.loads(c.arguments)) for c in whole.tool_calls] == [("f", typed)] * 2


@pytest.mark.parametrize("fmt", FORMATS)
def test_canonical_arguments_are_decoded_once(fmt: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A canonical object is taken whole: nothing that reads its members one by one
    runs; where calls run whole (call programs), nothing reads an envelope piece by
    piece."""
    module = parsergen.load(fmt)
    runs = bool(getattr(module.StreamingParser, "WHOLE_CALLS", None))
    for reader in (json_arguments, envelope) if runs else (json_arguments,):
        for name in ("whole_member_key", "decode_json_string", "json_string_end"):
            if hasattr(reader, name):
                monkeypatch.setattr(reader, name, None)  # would raise if used
    text = _render(module, CASES["canonical"][0])
    message = module.parse(text, tools=TOOLS, thinking=THINKING)
    assert [json.loads(c.arguments) for c in message.tool_calls] == [CASES["canonical"][1]] * 2


@pytest.mark.parametrize("arguments", [
    '{"n": 1, "n": 2}',  # a duplicate key: both members are written, as the model did
    '{"x": NaN}',  # not JSON: kept as text, with a warning
    '{"s": "a\nb"}',  # a raw newline inside a string
])
@pytest.mark.parametrize("fmt", FORMATS)
def test_not_canonical_is_read_member_by_member(fmt: str, arguments: str) -> None:
    module = parsergen.load(fmt)
    text = _render(module, arguments)
    parser = module.ChatParser(tools=TOOLS, thinking=THINKING, ids="sequential")
    whole = parser.complete(text)
    assert whole == _streamed(module, text)


def test_formats_with_whole_objects() -> None:
    assert {"hermes", "qwen3_json", "llama3_json", "mistral", "granite"} <= set(FORMATS)
    runs = {f for f in FORMATS if programs(parsergen.load(f))}
    assert {"hermes", "qwen3_json", "deepseek_v3", "deepseek_v31"} <= runs  # test_call_runs.py
    objects = {f for f in FORMATS if programs(parsergen.load(f), objects=True)}
    assert {"llama3_json"} <= objects  # (more in tests/test_object_runs.py)
