"""An argument syntax's ``json_fallback`` (docs/spec.md, "Two ways to write a call in one
format"): a call the markers give no name is one JSON object naming the tool, read by
``json_envelope``; calls that came through TOOL_NAME are read by the syntax itself.

The spec here is not a bundled format (a ``<call>`` block of ``<function=NAME>``
elements or one JSON object), so what is tested is the language feature, not dots.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import parsergen
from parsergen.compiler.cli import main
from parsergen.runtime import accumulate

SPEC = """\
$schema: parsergen://schema.json
name: fallback_demo
description: a <call> block of <function=NAME> elements, or one JSON object in the block
terminals:
  CALL_START: "<call>"
  CALL_END: "</call>"
  FUNCTION: "<function="
  FUNCTION_END: "</function>"
  NAME_END: ">"
  PARAM: "<parameter="
  PARAM_END: "</parameter>"
  BRACE: "{"
transitions:
  CONTENT:
    CALL_START: TOOL_PREAMBLE
  TOOL_PREAMBLE:
    CALL_END: CONTENT
    FUNCTION: {to: TOOL_NAME, emit: [TOOL_CALL_START]}
    BRACE: {to: TOOL_ARGS, emit: [TOOL_CALL_START, ARG_VALUE_CHUNK]}
  TOOL_NAME:
    NAME_END: TOOL_ARGS
  TOOL_ARGS:
    PARAM: {to: TOOL_ARGS, emit: [ARG_VALUE_CHUNK]}
    PARAM_END: {to: TOOL_ARGS, emit: [ARG_VALUE_CHUNK]}
    FUNCTION_END: {to: TOOL_BETWEEN, emit: [TOOL_CALL_END]}
    CALL_END: {to: CONTENT, emit: [TOOL_CALL_END]}
  TOOL_BETWEEN:
    CALL_END: CONTENT
    FUNCTION: {to: TOOL_NAME, emit: [TOOL_CALL_START]}
arguments: {syntax: xml_parameters, open: "<parameter=", name_end: ">", close: "</parameter>"%s}
render:
  calls_open: "${CALL_START}"
  call: "${FUNCTION}${name}${NAME_END}${arguments}${FUNCTION_END}"
  calls_close: "${CALL_END}"
"""
FALLBACK = ", json_fallback: {argument_keys: [args]}"

TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {
    "type": "object", "properties": {"n": {"type": "integer"}, "s": {"type": "string"}}}}}]

XML = "<call><function=f><parameter=n>3</parameter><parameter=s>a b</parameter></function></call>"
JSON = '<call>\n{"name": "f", "args": {"n": "5", "s": "x {y} <b>"}}\n</call>'


def _load(tmp_path: Path, option: str = FALLBACK) -> Any:
    path = tmp_path / "fallback_demo.yaml"
    path.write_text(SPEC % option, encoding="utf-8")
    return parsergen.load(path)


def _calls(message: Any) -> list[tuple[str, Any]]:
    return [(c.name, json.loads(c.arguments)) for c in message.tool_calls]


def _streamed(module: Any, text: str) -> Any:
    parser = module.ChatParser(tools=TOOLS, ids="sequential")
    return accumulate([parser.feed(ch) for ch in text] + [parser.finish()])


@pytest.mark.parametrize("text, calls", [
    (XML, [("f", {"n": 3, "s": "a b"})]),
    # The JSON object's own name; "5" typed by the schema; braces and tags in a string.
    (JSON, [("f", {"n": 5, "s": "x {y} <b>"})]),
    ("Hi." + XML + JSON, [("f", {"n": 3, "s": "a b"}), ("f", {"n": 5, "s": "x {y} <b>"})]),
])
def test_element_and_json_calls_in_one_format(tmp_path: Path, text: str,
                                              calls: list[tuple[str, Any]]) -> None:
    module = _load(tmp_path)
    whole = module.parse(text, tools=TOOLS, ids="sequential")
    assert _calls(whole) == calls and not whole.warnings
    assert whole == _streamed(module, text)  # one character per delta: nothing sent twice


def test_streamed_json_call_sends_its_name_once_and_its_arguments_as_they_come(
        tmp_path: Path) -> None:
    parser = _load(tmp_path).ChatParser(tools=TOOLS, ids="sequential")
    deltas = [parser.feed(ch) for ch in JSON] + [parser.finish()]
    sent = [c for d in deltas if d is not None for c in d.tool_calls or ()]
    assert [c.name for c in sent if c.name] == ["f"]
    pieces = [c.arguments for c in sent if c.arguments]
    assert len(pieces) > 1 and json.loads("".join(pieces)) == {"n": 5, "s": "x {y} <b>"}


def test_a_json_object_that_is_no_call_is_content(tmp_path: Path) -> None:
    module = _load(tmp_path)
    message = module.parse('<call>{"answer": 42}</call>', tools=TOOLS)
    # (The call's text up to the marker that ended it, as any call that is no call.)
    assert message.tool_calls == () and message.content == '{"answer": 42}</call>'


def test_without_the_option_a_nameless_call_is_content(tmp_path: Path) -> None:
    module = _load(tmp_path, "")
    message = module.parse(JSON, tools=TOOLS)
    assert message.tool_calls == ()
    assert message.warnings == ("tool call 0 has an empty name; kept as content",)
    assert '"name": "f"' in (message.content or "")


def test_a_cut_json_call_is_cut(tmp_path: Path) -> None:
    message = _load(tmp_path).parse('<call>{"name": "f", "args": {"s": "hal', tools=TOOLS)
    assert message.tool_calls == () and message.cut_calls == ('<call>{"name": "f", "args": {"s": "hal',)


def test_an_option_the_fallback_does_not_take_is_named(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "bad.yaml").write_text(SPEC % ", json_fallback: {name_is_key: true}",
                                       encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["check", "bad.yaml"]) == 1
    err = capsys.readouterr().err
    assert "bad.yaml:" in err and "json_fallback" in err and "name_is_key" in err
